"""``events.publisher`` from a pool thread: never waits for the serving loop (busy or
stopped: Daphne on SIGTERM), loses nothing, keeps each group's order. The end-to-end check is
``test_daphne_exits_promptly_on_sigterm_while_moves_are_published``."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kondavo.games import events
from kondavo.games.bus import LocalBus, Subscription

pytestmark = [pytest.mark.embedded, pytest.mark.timing]


class LoopThread:
    """An event loop running in its own thread, like Daphne's."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        while not self.loop.is_running():
            time.sleep(0.001)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)


@pytest.fixture
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    yield lt
    if lt.loop.is_running():
        lt.stop()
    pending = asyncio.all_tasks(lt.loop)  # a send cut short by the stop
    for task in pending:
        task.cancel()
    if pending:
        lt.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    lt.loop.close()


def publish_from_pool_thread(loop: asyncio.AbstractEventLoop, group: str,
                             message: dict[str, Any]) -> float:
    """Call ``_group_send`` from a thread that looks like a ``sync_to_async`` worker of
    ``loop``; returns how long it took."""
    took: list[float] = []

    def worker() -> None:
        events.bind_loop(loop)  # as LoopBinding does for a request's threads
        start = time.monotonic()
        events._group_send(group, message)
        took.append(time.monotonic() - start)

    t = threading.Thread(target=worker, daemon=True)
    t.start()
    t.join(timeout=30)
    assert took, "the publishing thread is still blocked"
    return took[0]


def subscribe_on(loop: asyncio.AbstractEventLoop, bus: Any, group: str) -> Subscription:
    async def make() -> Subscription:
        sub = bus.subscribe()
        await sub.add(group)
        return sub

    return asyncio.run_coroutine_threadsafe(make(), loop).result(5)


def test_publishes_on_the_running_main_loop(loop_thread: LoopThread,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    bus = LocalBus()
    monkeypatch.setattr(events, "bus", lambda: bus)
    sub = subscribe_on(loop_thread.loop, bus, "g")
    publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y", "n": 1})
    got = asyncio.run_coroutine_threadsafe(sub.get(), loop_thread.loop).result(5)
    assert got == {"type": "x.y", "n": 1, "group": "g"}


def test_a_stopped_loop_is_not_waited_for(loop_thread: LoopThread,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "bus", LocalBus)
    loop_thread.stop()  # stopped, not closed: Daphne after SIGTERM
    assert publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y"}) < 0.5


def test_a_busy_main_loop_delays_an_in_process_send_but_never_loses_it(
        loop_thread: LoopThread, monkeypatch: pytest.MonkeyPatch) -> None:
    bus = LocalBus()
    monkeypatch.setattr(events, "bus", lambda: bus)
    sub = subscribe_on(loop_thread.loop, bus, "g")
    loop_thread.loop.call_soon_threadsafe(time.sleep, 1.0)  # the loop is busy for 1 s
    took = [publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y", "n": n})
            for n in range(50)]
    assert max(took) < 0.2  # the publishing thread never waits for the loop
    got = [asyncio.run_coroutine_threadsafe(sub.get(), loop_thread.loop).result(5)
           for _ in range(50)]
    assert [m["n"] for m in got] == list(range(50))  # all of them, in order


class HangingBus:
    """A shared bus whose publishes never complete (Redis gone silent)."""

    attempts = 0

    async def publish(self, group: str, message: dict[str, Any]) -> None:
        HangingBus.attempts += 1
        await asyncio.Event().wait()


def test_a_send_that_never_completes_never_blocks_the_publisher(
        loop_thread: LoopThread, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "bus", HangingBus)
    monkeypatch.setattr(events.publisher, "timeout", 0.2)
    monkeypatch.setattr(events.publisher, "retry_for", 0.5)
    HangingBus.attempts = 0
    assert publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y"}) < 0.1
    assert loop_thread.loop.is_running()
    time.sleep(1.5)  # tried again with a growing pause, then given up (clients resync)
    assert 2 <= HangingBus.attempts <= 6
    assert events.publisher.flush(timeout=2.0)


@pytest.mark.services
def test_the_send_thread_publishes_while_the_main_loop_is_busy(
        loop_thread: LoopThread, settings: Any) -> None:
    """With Redis, a move's message leaves at once even when the serving loop is frozen."""
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    from kondavo.games.bus import RedisBus, bus

    assert isinstance(bus(), RedisBus)
    sub = subscribe_on(loop_thread.loop, bus(), "busy-test")
    loop_thread.loop.call_soon_threadsafe(time.sleep, 1.5)  # the serving loop is frozen
    time.sleep(0.05)
    for n in range(20):
        publish_from_pool_thread(loop_thread.loop, "busy-test", {"type": "x.y", "n": n})
    assert events.publisher.flush(timeout=1.0)  # all sent while the loop is still frozen

    async def read() -> list[int]:
        return [(await sub.get())["n"] for _ in range(20)]

    assert asyncio.run_coroutine_threadsafe(read(), loop_thread.loop).result(10) == list(
        range(20))
