"""Publishing on the bus (``kondavo.games.bus``). Services call these from
``transaction.on_commit`` only.

Groups: ``game.<id>`` (everyone watching a game), ``lobby`` (everyone in the lobby) and
``player.<pk>`` (one player's lobby sockets, for "your seek was accepted") and ``notify.<pk>``
(one player's notification sockets, on every page). Every message
carries its ``group``: each Daphne's ``kondavo.games.hub`` subscribes to a group once and
hands its messages to the process's sockets.

A publish never waits for a busy event loop and is never dropped because one is busy:

- With Redis (several processes: the bus is Redis pub/sub), messages go out from this
  process's **send thread**, an event loop of its own that does nothing else, so a Daphne
  whose main loop is loaded (a flood, a crowd) still publishes each move at once. A send
  that fails (Redis restarting) is tried again with a growing pause for ``retry_for``
  seconds; the clients meanwhile notice the gap at their next ``pong`` (which carries the
  database's version) and resync.
- In the embedded mode (one process, the in-process bus), the sockets are served by the
  main loop, so messages are handed to it (``call_soon_threadsafe``, no waiting): a busy
  loop delivers them late, never loses them.

Messages of one group are sent in the order they were published (one ordered lane per
group; lanes run side by side), so a socket never sees a later move before an earlier one.

Presence changes are coalesced per game: at most one ``presence`` message per game every
``KONDAVO_PRESENCE_PUBLISH_SECONDS`` (1 s) from each process, the latest one winning, so a
crowd joining or leaving a game costs its sockets about one frame a second, not one per
socket per change.

Which loop serves a request is explicit: the ASGI application (``LoopBinding``) and each
consumer bind the serving event loop in a context variable, which ``sync_to_async`` carries
into the worker thread of a view or a service call, and so into its ``on_commit`` callbacks.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import logging
import os
import threading
import time
from collections import deque
from typing import Any

from django.conf import settings

from kondavo.games.bus import LocalBus, bus
from kondavo.games.wire import encode_frame

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
LANES = 8


def game_group(game_id: str) -> str:
    return f"game.{game_id}"


def player_group(player_id: int) -> str:
    return f"player.{player_id}"


def notify_group(player_id: int) -> str:
    return f"notify.{player_id}"


def tournament_group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


class _Lanes:
    """Ordered sends on one event loop: one FIFO per lane, lanes drained side by side.
    Every method runs on ``loop``'s thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, publisher: Publisher) -> None:
        self.loop = loop
        self.publisher = publisher
        self.queues: list[deque[tuple[Any, str, dict[str, Any]]]] = [
            deque() for _ in range(LANES)]
        self.running: list[asyncio.Task[None] | None] = [None] * LANES
        self.coalesced: dict[str, dict[str, Any]] = {}  # group -> latest pending presence
        self.last_presence: dict[str, float] = {}  # group -> when the last one went out

    def put(self, sink: Any, group: str, message: dict[str, Any]) -> None:
        lane = hash(group) % LANES
        queue = self.queues[lane]
        if len(queue) >= self.publisher.max_queued:
            log.warning("publish queue full: dropping a message to %s (clients resync)", group)
            return
        queue.append((sink, group, message))
        task = self.running[lane]
        if task is None or task.done():
            self.running[lane] = self.loop.create_task(self._drain(lane))

    def put_presence(self, sink: Any, group: str, message: dict[str, Any]) -> None:
        """At most one presence message per group per interval; the latest wins."""
        interval = self.publisher.presence_interval()
        now = time.monotonic()
        pending = group in self.coalesced
        self.coalesced[group] = message
        if pending:
            return
        wait = self.last_presence.get(group, -1e9) + interval - now
        if wait <= 0:
            self._flush_presence(sink, group)
        else:
            self.loop.call_later(wait, self._flush_presence, sink, group)

    def _flush_presence(self, sink: Any, group: str) -> None:
        message = self.coalesced.pop(group, None)
        if message is None:
            return
        self.last_presence[group] = time.monotonic()
        if len(self.last_presence) > 10_000:  # forget games quiet for a while
            horizon = time.monotonic() - 60
            for key in [k for k, t in self.last_presence.items() if t < horizon]:
                del self.last_presence[key]
        self.put(sink, group, message)

    async def _drain(self, lane: int) -> None:
        queue = self.queues[lane]
        while queue:
            sink, group, message = queue[0]
            await self.publisher.deliver(sink, group, message)
            queue.popleft()

    def pending(self) -> int:
        return sum(len(q) for q in self.queues) + len(self.coalesced)


class _SendThread:
    """This process's event loop for publishing on a shared (Redis) bus."""

    def __init__(self, publisher: Publisher) -> None:
        self.loop = asyncio.new_event_loop()
        self.lanes = _Lanes(self.loop, publisher)
        self.inbox: deque[tuple[Any, str, dict[str, Any], bool]] = deque()
        self.wake_pending = False
        self.pid = os.getpid()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,),
                                       name="kondavo-publisher", daemon=True)
        self.thread.start()
        ready.wait(5)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(ready.set)
        self.loop.run_forever()

    def alive(self) -> bool:
        return self.pid == os.getpid() and self.thread.is_alive()

    def submit(self, sink: Any, group: str, message: dict[str, Any], presence: bool) -> None:
        """Hand a send to the thread's loop. The loop is woken (a write to its self-pipe)
        only when it has not been woken already for earlier sends still in the inbox."""
        self.inbox.append((sink, group, message, presence))
        if not self.wake_pending:
            self.wake_pending = True
            self.loop.call_soon_threadsafe(self._take_inbox)

    def _take_inbox(self) -> None:
        self.wake_pending = False  # first: a send added from now on wakes the loop again
        inbox = self.inbox
        while inbox:
            sink, group, message, presence = inbox.popleft()
            put = self.lanes.put_presence if presence else self.lanes.put
            put(sink, group, message)

    def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until nothing is left to send (e.g. before exiting)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            fut = asyncio.run_coroutine_threadsafe(self._pending(), self.loop)
            try:
                if fut.result(timeout=max(0.01, deadline - time.monotonic())) == 0:
                    return True
            except Exception:
                return False
            time.sleep(0.02)
        return False

    async def _pending(self) -> int:
        return self.lanes.pending() + len(self.inbox)


class Publisher:
    """The one way the games app publishes (see the module docstring)."""

    timeout = 5.0  # one attempt at a send
    retry_for = 20.0  # how long a failing send is tried again
    max_queued = 20_000  # per lane

    def __init__(self) -> None:
        self._thread: _SendThread | None = None
        self._thread_lock = threading.Lock()
        self._loop_lanes: dict[asyncio.AbstractEventLoop, _Lanes] = {}

    @staticmethod
    def presence_interval() -> float:
        return float(getattr(settings, "KONDAVO_PRESENCE_PUBLISH_SECONDS", 1.0))

    def bound_loop(self) -> asyncio.AbstractEventLoop | None:
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            return _LOOP.get()

    def send(self, group: str, message: dict[str, Any], *, presence: bool = False) -> None:
        sink = bus()
        message = {**message, "group": group}
        try:
            if isinstance(sink, LocalBus):
                self._send_in_process(sink, group, message, presence)
            else:
                self.send_thread().submit(sink, group, message, presence)
        except Exception:  # the move is committed; a lost broadcast is healed by resync
            log.exception("could not publish to %s", group)

    def send_thread(self) -> _SendThread:
        thread = self._thread
        if thread is None or not thread.alive():
            with self._thread_lock:
                thread = self._thread
                if thread is None or not thread.alive():  # none yet, or a forked child
                    thread = self._thread = _SendThread(self)
        return thread

    def _send_in_process(self, sink: LocalBus, group: str, message: dict[str, Any],
                         presence: bool) -> None:
        """The embedded mode's sockets live on the bound main loop: hand it the send."""
        loop = self.bound_loop()
        if loop is None or loop.is_closed():  # a script, a test: no serving loop
            sink.publish_now(group, message)
            return
        if not loop.is_running():
            log.warning("not publishing to %s: the event loop has stopped", group)
            return
        lanes = self._loop_lanes.get(loop)
        if lanes is None:
            for old in [lp for lp in self._loop_lanes if lp.is_closed()]:
                del self._loop_lanes[old]
            lanes = self._loop_lanes[loop] = _Lanes(loop, self)
        put = lanes.put_presence if presence else lanes.put
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            put(sink, group, message)
        else:
            try:
                loop.call_soon_threadsafe(put, sink, group, message)
            except RuntimeError:  # closed in the meantime: shutting down
                log.warning("not publishing to %s: the event loop is closed", group)

    async def deliver(self, sink: Any, group: str, message: dict[str, Any]) -> None:
        """Send now; on failure try again with a growing pause for ``retry_for`` seconds."""
        deadline = time.monotonic() + self.retry_for
        pause = 0.05
        while True:
            try:
                await asyncio.wait_for(sink.publish(group, message), self.timeout)
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if time.monotonic() + pause > deadline:
                    log.error("could not publish to %s: %r (clients resync)", group, exc)
                    return
                log.warning("publish to %s failed (%r); retrying in %.2f s", group, exc, pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)

    def flush(self, timeout: float = 2.0) -> bool:
        """Wait until this process's send thread has sent everything (scripts, exit)."""
        thread = self._thread
        return True if thread is None or not thread.alive() else thread.drain(timeout)


_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "kondavo_games_event_loop", default=None)


def bind_loop(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Bind ``loop`` (default: the running one) for sends from this context and the
    threads that ``sync_to_async`` runs for it."""
    _LOOP.set(loop if loop is not None else asyncio.get_running_loop())


class LoopBinding:
    """ASGI middleware: binds the serving event loop for each connection's context."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        bind_loop()
        return await self.app(scope, receive, send)


publisher = Publisher()
atexit.register(publisher.flush)


def _group_send(group: str, message: dict[str, Any]) -> None:
    publisher.send(group, message)


def publish_game(game_id: str, frames: list[dict[str, Any]]) -> None:
    """Send versioned frames (``{"v", "t", "d"}``) to every socket watching the game.

    Each frame travels JSON-encoded once (``{"v", "t", "text"}``): every socket of the group
    sends the same text instead of encoding the frame again.
    """
    if frames:
        encoded = [{"v": f["v"], "t": f["t"], "text": encode_frame(f)} for f in frames]
        _group_send(game_group(game_id), {"type": "game.event", "frames": encoded})


def publish_presence(game_id: str, presence: dict[str, Any]) -> None:
    """A presence change: coalesced per game (see the module docstring)."""
    publisher.send(game_group(game_id), {"type": "game.presence", "presence": presence},
                   presence=True)


def publish_lobby(version: int, seeks: list[dict[str, Any]]) -> None:
    """``seeks`` carry ``player_id``; each lobby consumer turns it into ``mine``."""
    _group_send(LOBBY_GROUP, {"type": "lobby.seeks", "version": version, "seeks": seeks})


def publish_player(player_id: int, frame: dict[str, Any]) -> None:
    _group_send(player_group(player_id), {"type": "lobby.frame", "frame": frame})


def publish_notify(player_id: int, frame: dict[str, Any]) -> None:
    """A frame for every notification socket of one player (``notify.frame``)."""
    _group_send(notify_group(player_id), {"type": "notify.frame", "frame": frame})


def publish_chat(group: str, message: dict[str, Any]) -> None:
    """A chat message (``wire.chat_message``: ``chat.frame``) to every socket of ``group``
    (``game.<id>`` for a game's rooms, the room's own name for any other room); each socket
    keeps what its audience may read (``wire.chat_for_socket``)."""
    _group_send(group, message)


def publish_tournament(tournament_id: int, message: dict[str, Any], *,
                       coalesce: bool = False) -> None:
    """A message for every socket of a tournament page (``tournament.<id>``, the
    ``kondavo.tournaments`` app). ``coalesce``: at most one such message per tournament
    every ``KONDAVO_PRESENCE_PUBLISH_SECONDS`` from each process, the latest winning (the
    standings), as presence changes are per game."""
    publisher.send(tournament_group(tournament_id), message, presence=coalesce)
