"""Fixtures of the tournament tests: accounts, tasks run at once, no timers behind games."""

from __future__ import annotations

import secrets
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _no_bot_or_flag_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    import bots.seam
    from kondavo.games.services import clocks

    monkeypatch.setattr(bots.seam, "request_bot_move", lambda game_id, ply: None)
    monkeypatch.setattr(clocks, "schedule_flag_check", lambda game_id, delay: None)


@pytest.fixture
def run_tasks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """The app's Celery tasks run at once, in this thread (as eager Celery does); the list
    records them."""
    from kondavo.tournaments import services, tasks

    sent: list[tuple[str, tuple[Any, ...]]] = []

    def send(name: str, *args: Any) -> None:
        sent.append((name, args))
        getattr(tasks, name)(*args)

    monkeypatch.setattr(services, "_send_task", send)
    return sent


@pytest.fixture(autouse=True)
def _fresh_socket_registry(fresh_socket_registry: None) -> None:
    """Each test counts its own sockets and cool-downs (tests/conftest.py)."""


def make_account(name: str) -> Any:
    from django.contrib.auth import get_user_model

    from kondavo.accounts.models import Player
    from kondavo.accounts.services import player_claim_guest

    guest = Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                  name=f"Guest-T{secrets.token_hex(4)}")
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    return player_claim_guest(guest=guest, user=user)


@pytest.fixture
def accounts() -> Any:
    return make_account
