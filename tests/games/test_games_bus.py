"""The bus (kondavo/games/bus.py): every message published after ``add`` returned reaches
the subscription, in order per group; nothing after ``discard``; many sockets subscribing at
once (a crowd arriving) share one connection per shard. On Redis when REDIS_URL is set,
else in-process; Redis restarts are in tests/integration/test_restarts.py."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest

from kondavo.games.bus import LocalBus, RedisBus, bus, shard_of

pytestmark = [pytest.mark.embedded, pytest.mark.services]


def fresh_bus(settings: Any) -> Any:
    """The configured kind of bus, on its own prefix (tests may share a Redis)."""
    urls = list(getattr(settings, "KONDAVO_BUS_URLS", []) or [])
    return RedisBus(urls, f"bus-test-{secrets.token_hex(4)}") if urls else LocalBus()


async def drain(sub: Any, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
    return [await asyncio.wait_for(sub.get(), timeout) for _ in range(count)]


async def test_concurrent_first_subscriptions_all_receive(settings: Any) -> None:
    made = fresh_bus(settings)
    sub = made.subscribe()
    groups = [f"game.g{i}" for i in range(200)]
    await asyncio.gather(*(sub.add(g) for g in groups))  # a crowd's sockets arriving at once
    for n, group in enumerate(groups):
        await made.publish(group, {"type": "x", "group": group, "n": n})
    got = await drain(sub, len(groups))
    assert sorted(m["n"] for m in got) == list(range(len(groups)))
    if isinstance(made, RedisBus):  # one pub/sub connection per shard, not one per add
        assert sum(ps is not None for ps in sub.pubsubs) == 1
    await sub.close()


async def test_order_within_a_group_and_nothing_after_discard(settings: Any) -> None:
    made = fresh_bus(settings)
    sub = made.subscribe()
    await sub.add("game.a")
    await sub.add("game.b")
    for n in range(50):
        await made.publish("game.a", {"type": "x", "group": "game.a", "n": n})
    assert [m["n"] for m in await drain(sub, 50)] == list(range(50))
    await sub.discard("game.a")
    await made.publish("game.a", {"type": "x", "group": "game.a", "n": 99})
    await made.publish("game.b", {"type": "x", "group": "game.b", "n": 100})
    assert [m["n"] for m in await drain(sub, 1)] == [100]  # game.a's message never came
    await sub.close()


async def test_a_group_nobody_here_subscribed_to_is_not_received(settings: Any) -> None:
    made = fresh_bus(settings)
    sub = made.subscribe()
    await sub.add("lobby")
    await made.publish("game.zzz", {"type": "x", "group": "game.zzz"})
    await made.publish("lobby", {"type": "x", "group": "lobby", "n": 1})
    assert (await drain(sub, 1))[0]["n"] == 1
    await sub.close()


def test_groups_spread_over_shards_the_same_way_everywhere() -> None:
    assert shard_of("game.abc", 1) == 0
    spread = {shard_of(f"game.{i}", 3) for i in range(100)}
    assert spread == {0, 1, 2}
    assert [shard_of("lobby", 3)] * 3 == [shard_of("lobby", 3) for _ in range(3)]


def test_the_settings_choose_the_bus(settings: Any) -> None:
    settings.KONDAVO_BUS_URLS = []
    assert isinstance(bus(), LocalBus)
    settings.KONDAVO_BUS_URLS = ["redis://127.0.0.1:1/0"]
    assert isinstance(bus(), RedisBus) and bus() is bus()
