"""The presence stores (kondavo/games/presence.py) with a crowd: the spectator count is
exact (live ones only: closed and expired ones drop out), the players' entries keep when
each side left, and a view never reads the spectators one by one (it asks for a count),
so a crowd's cost does not grow with its square."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from kondavo.games.presence import EPOCH, MemoryPresence, RedisPresence

pytestmark = [pytest.mark.embedded, pytest.mark.services]


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield MemoryPresence()
        return
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("needs REDIS_URL")
    yield RedisPresence(url)


def test_a_crowd_is_counted_exactly_as_it_comes_and_goes(store: Any) -> None:
    game = f"crowd-{secrets.token_hex(4)}"
    now = 1_000_000.0
    store.refresh(game, "white:w1", now + 12, now)
    for i in range(600):
        view = store.refresh(game, f"spectator:s{i}", now + 12 + i / 100, now)
    assert view.spectators == 600 and view.online == {"white": True, "black": False}
    for i in range(100):  # closed cleanly
        view = store.close(game, f"spectator:s{i}", now + 1)
    assert view.spectators == 500
    # at now + 14 those without a heartbeat expiring by then are gone: s100..s200 (101)
    view = store.view(game, now + 14.0)
    assert view.spectators == 600 - 100 - 101 and view.online["white"] is False
    assert view.left_at["white"] == now + 12  # a player's entry keeps when that side left
    store.refresh(game, "spectator:s599", now + 30, now + 14)  # a heartbeat keeps one
    assert store.view(game, now + 25).spectators == 1
    assert store.view(game, now + 31).spectators == 0
    assert store.view(game, now + 31).epoch == now


def test_redis_keeps_the_spectators_apart_from_the_players() -> None:
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("needs REDIS_URL")
    store = RedisPresence(url)
    game = f"apart-{secrets.token_hex(4)}"
    now = 2_000_000.0
    store.refresh(game, "black:b1", now + 12, now)
    for i in range(50):
        store.refresh(game, f"spectator:s{i}", now + 12, now)
    players = store._redis.zrange(store._key(game), 0, -1)
    assert sorted(m.decode() for m in players) == sorted(["black:b1", EPOCH])
    assert store._redis.zcard(store._spectators_key(game)) == 50
