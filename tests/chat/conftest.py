"""Fixtures of the chat tests: a fresh socket registry, no bot or flag timers."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _no_bot_or_flag_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    import bots.seam
    from kondavo.games.services import clocks

    monkeypatch.setattr(bots.seam, "request_bot_move", lambda game_id, ply: None)
    monkeypatch.setattr(clocks, "schedule_flag_check", lambda game_id, delay: None)


@pytest.fixture(autouse=True)
def _fresh_socket_registry(settings: Any) -> None:
    from kondavo.games import discipline

    discipline.registry.clear()
    discipline.connect_gate._buckets.clear()
    if settings.REDIS_URL:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL)
        keys = list(client.scan_iter(discipline.KEY_PREFIX + "*"))
        if keys:
            client.delete(*keys)
