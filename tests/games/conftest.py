"""Fixtures of the games tests: players, a controllable clock, recorded side effects."""

from __future__ import annotations

import itertools
import secrets
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

_names = itertools.count(1)


class FakeClock:
    """``kondavo.games.clock.now`` under the test's control."""

    def __init__(self) -> None:
        self.current = timezone.now().replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.current

    def advance(self, seconds: float = 0, ms: int = 0) -> datetime:
        self.current += timedelta(seconds=seconds, milliseconds=ms)
        return self.current


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    from kondavo.games import clock

    fc = FakeClock()
    monkeypatch.setattr(clock, "now", fc)
    return fc


def make_guest(name: str | None = None) -> Any:
    from kondavo.accounts.models import Player

    return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                 name=name or f"Guest-T{next(_names)}-{secrets.token_hex(3)}")


@pytest.fixture
def guest_factory() -> Any:
    return make_guest


@pytest.fixture(autouse=True)
def recorded_side_effects(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Bot requests and flag timers are recorded instead of run; tests that need the real
    ones call them (or ``bots.tasks.bot_move_play``) themselves."""
    import bots.seam
    from kondavo.games.services import clocks

    calls: dict[str, list[Any]] = {"bot": [], "flag": []}
    real_bot = bots.seam.request_bot_move
    real_flag = clocks.schedule_flag_check
    monkeypatch.setattr(bots.seam, "request_bot_move",
                        lambda game_id, ply: calls["bot"].append((game_id, ply)))
    monkeypatch.setattr(clocks, "schedule_flag_check",
                        lambda game_id, delay: calls["flag"].append((game_id, delay)))
    calls["real_bot"] = [real_bot]
    calls["real_flag"] = [real_flag]
    return calls


@pytest.fixture(autouse=True)
def _fresh_bus() -> None:
    """A new bus per test: each async test has its own event loop and hub, and nothing a
    test subscribed to should reach the next one."""
    from kondavo.games import bus

    bus._bus = None

