"""``events.publisher`` from a pool thread: on the main loop while it runs, and never
blocked by a loop that has stopped (Daphne on SIGTERM). The end-to-end check is
``test_daphne_exits_promptly_on_sigterm_while_moves_are_published``."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from channels.layers import InMemoryChannelLayer

from kondavo.games import events

pytestmark = pytest.mark.embedded


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


def test_publishes_on_the_running_main_loop(loop_thread: LoopThread,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    layer = InMemoryChannelLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    channel = asyncio.run_coroutine_threadsafe(layer.new_channel(), loop_thread.loop).result(5)
    asyncio.run_coroutine_threadsafe(layer.group_add("g", channel), loop_thread.loop).result(5)
    publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y", "n": 1})
    got = asyncio.run_coroutine_threadsafe(layer.receive(channel), loop_thread.loop).result(5)
    assert got == {"type": "x.y", "n": 1}


def test_a_stopped_loop_is_not_waited_for(loop_thread: LoopThread,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "get_channel_layer", InMemoryChannelLayer)
    loop_thread.stop()  # stopped, not closed: Daphne after SIGTERM
    assert publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y"}) < 0.5


class HangingLayer:
    """A layer whose sends never complete (a loop that stops mid-send)."""

    attempts = 0

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        HangingLayer.attempts += 1
        await asyncio.Event().wait()


def test_a_loop_that_stops_during_the_send_is_given_up(loop_thread: LoopThread,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "get_channel_layer", HangingLayer)
    monkeypatch.setattr(events.publisher, "timeout", 0.5)
    HangingLayer.attempts = 0
    threading.Timer(0.3, loop_thread.stop).start()
    took = publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y"})
    # Given up as the loop stopped (~0.3 s), then tried once from a new loop (a Redis layer
    # would reach the other replicas), bounded by the publisher's timeout.
    assert took < 0.3 + 0.5 + 1.0
    assert HangingLayer.attempts == 2


def test_a_send_that_never_completes_is_bounded(loop_thread: LoopThread,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "get_channel_layer", HangingLayer)
    monkeypatch.setattr(events.publisher, "timeout", 0.3)
    assert publish_from_pool_thread(loop_thread.loop, "g", {"type": "x.y"}) < 0.3 + 1.5
    assert loop_thread.loop.is_running()
