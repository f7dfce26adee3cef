"""Fixtures of the notification and challenge tests: players, a fresh channel layer."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> None:
    """A new channel layer per test (each async test has its own event loop)."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _no_bot_or_flag_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """No bot searches nor embedded flag timers behind these tests' games."""
    import bots.seam
    from kondavo.games.services import clocks

    monkeypatch.setattr(bots.seam, "request_bot_move", lambda game_id, ply: None)
    monkeypatch.setattr(clocks, "schedule_flag_check", lambda game_id, delay: None)


@pytest.fixture
def players() -> Any:
    from notify_helpers import account, guest

    return {"guest": guest, "account": account}


@pytest.fixture(autouse=True)
def _fresh_socket_registry(fresh_socket_registry: None) -> None:
    """Each test counts its own sockets and cool-downs (tests/conftest.py)."""
