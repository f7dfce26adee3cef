"""Publishing to the channel layer. Services call these from ``transaction.on_commit`` only.

Groups: ``game.<id>`` (everyone watching a game), ``lobby`` (everyone in the lobby) and
``player.<pk>`` (one player's lobby sockets, for "your seek was accepted").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import json
import logging
import time
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def game_group(game_id: str) -> str:
    return f"game.{game_id}"


def player_group(player_id: int) -> str:
    return f"player.{player_id}"


class Publisher:
    """The one way the games app sends to the channel layer.

    Which event loop a send runs on is explicit: the ASGI application (``LoopBinding``) and
    each consumer bind the serving event loop in a context variable, which Django's and
    Channels' ``sync_to_async`` carry into the worker thread of a view or a service call,
    and so into its ``transaction.on_commit`` callbacks. With a bound loop that is running,
    the send is scheduled on it and waited for (bounded): the in-memory layer is not
    thread-safe and the Redis layer's connections belong to their loop. Without one (a
    Celery worker, a script, a stopped loop) the send runs in a new loop, also bounded; the
    in-memory layer is then skipped when its loop has stopped (its clients are in that dying
    process). The move is committed before a send: a lost broadcast is healed by the
    clients' resync (a gap in the versions, seen at the next ``pong`` at the latest).
    """

    timeout = 5.0
    poll = 0.1

    def bound_loop(self) -> asyncio.AbstractEventLoop | None:
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            return _LOOP.get()

    def send(self, group: str, message: dict[str, Any]) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            loop = self.bound_loop()
            if loop is not None and not loop.is_closed():
                try:
                    on_this_loop = asyncio.get_running_loop() is loop
                except RuntimeError:
                    on_this_loop = False
                if on_this_loop:  # called from async code: never block the loop
                    task = loop.create_task(self._send_bounded(layer, group, message))
                    _pending.add(task)
                    task.add_done_callback(_pending.discard)
                    return
                if self._send_on_loop(loop, layer, group, message):
                    return
                if isinstance(layer, InMemoryChannelLayer):
                    log.warning("not publishing to %s: the event loop has stopped", group)
                    return
            async_to_sync(self._send_bounded, force_new_loop=True)(layer, group, message)
        except Exception:  # the move is committed; a lost broadcast is healed by resync
            log.exception("could not publish to %s", group)

    async def _send_bounded(self, layer: Any, group: str, message: dict[str, Any]) -> None:
        await asyncio.wait_for(layer.group_send(group, message), self.timeout)

    def _send_on_loop(self, loop: asyncio.AbstractEventLoop, layer: Any, group: str,
                      message: dict[str, Any]) -> bool:
        """Send on ``loop`` and wait for it. False if the loop stopped before the send ran
        (the caller may then send another way); errors of the send itself are raised."""
        if not _loop_alive(loop):
            return False
        coro = self._send_bounded(layer, group, message)
        try:
            future = asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:  # closed in the meantime
            coro.close()
            return False
        deadline = time.monotonic() + self.timeout + 1.0
        while True:
            try:
                future.result(timeout=self.poll)
                return True
            except concurrent.futures.TimeoutError:
                if future.done():
                    raise  # the send itself timed out (TimeoutError is both kinds)
                if not _loop_alive(loop):
                    # Sent again another way, perhaps partly twice: consumers skip frames
                    # whose version they have seen.
                    future.cancel()
                    return False
                if time.monotonic() > deadline:
                    future.cancel()
                    raise TimeoutError(
                        f"no answer from the event loop in {self.timeout} s") from None


_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "kondavo_games_event_loop", default=None)
_pending: set[asyncio.Task[Any]] = set()


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


def _loop_alive(loop: asyncio.AbstractEventLoop) -> bool:
    return loop.is_running() and not loop.is_closed()


publisher = Publisher()


def _group_send(group: str, message: dict[str, Any]) -> None:
    publisher.send(group, message)


def encode_frame(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


def publish_game(game_id: str, frames: list[dict[str, Any]]) -> None:
    """Send versioned frames (``{"v", "t", "d"}``) to every socket watching the game.

    Each frame travels JSON-encoded once (``{"v", "t", "text"}``): every socket of the group
    sends the same text instead of encoding the frame again.
    """
    if frames:
        encoded = [{"v": f["v"], "t": f["t"], "text": encode_frame(f)} for f in frames]
        _group_send(game_group(game_id), {"type": "game.event", "frames": encoded})


def publish_presence(game_id: str, presence: dict[str, Any]) -> None:
    _group_send(game_group(game_id), {"type": "game.presence", "presence": presence})


def publish_lobby(version: int, seeks: list[dict[str, Any]]) -> None:
    """``seeks`` carry ``player_id``; each lobby consumer turns it into ``mine``."""
    _group_send(LOBBY_GROUP, {"type": "lobby.seeks", "version": version, "seeks": seeks})


def publish_player(player_id: int, frame: dict[str, Any]) -> None:
    _group_send(player_group(player_id), {"type": "lobby.frame", "frame": frame})
