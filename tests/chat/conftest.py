"""Fixtures of the chat tests: a fresh socket registry, no bot or flag timers."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_bot_or_flag_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    import bots.seam
    from kondavo.games.services import clocks

    monkeypatch.setattr(bots.seam, "request_bot_move", lambda game_id, ply: None)
    monkeypatch.setattr(clocks, "schedule_flag_check", lambda game_id, delay: None)


@pytest.fixture(autouse=True)
def _fresh_socket_registry(fresh_socket_registry: None) -> None:
    """Each test counts its own sockets and cool-downs (tests/conftest.py)."""
