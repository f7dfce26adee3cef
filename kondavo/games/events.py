"""Publishing to the channel layer. Services call these from ``transaction.on_commit`` only.

Groups: ``game.<id>`` (everyone watching a game), ``lobby`` (everyone in the lobby) and
``player.<pk>`` (one player's lobby sockets, for "your seek was accepted").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import time
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def game_group(game_id: str) -> str:
    return f"game.{game_id}"


def player_group(player_id: int) -> str:
    return f"player.{player_id}"


def _group_send(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to ``group``, never blocking the calling thread for much longer than
    ``PUBLISH_TIMEOUT``, and never waiting on an event loop that has stopped.

    The move is committed before this runs: a lost broadcast is healed by the clients'
    resync (a gap in the versions). Called from a thread that ``sync_to_async`` started (a
    consumer's service call under Daphne), the send runs on that main event loop (the
    in-memory layer is not thread-safe; the Redis layer's connections belong to their loop).
    ``async_to_sync`` would wait forever there once the loop has stopped (Daphne on SIGTERM):
    its callback is queued on a loop that never runs again, and the blocked pool thread then
    keeps the process from exiting. Here the wait is bounded and given up when the loop
    stops; a Redis layer then sends from a new loop instead (other replicas' clients still
    get the event), the in-memory layer does not (its clients are in this dying process).
    Anywhere else (a Celery worker, a script) the send runs in a new loop, also bounded.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        loop = _main_loop()
        if loop is not None and _send_on_loop(loop, layer, group, message):
            return
        if loop is not None and isinstance(layer, InMemoryChannelLayer):
            log.warning("not publishing to %s: the event loop has stopped", group)
            return
        async_to_sync(_send_bounded, force_new_loop=loop is not None)(layer, group, message)
    except Exception:  # the move is committed; a lost broadcast is healed by resync
        log.exception("could not publish to %s", group)


PUBLISH_TIMEOUT = 5.0
_POLL = 0.1


def _main_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the ``sync_to_async`` call this thread serves, if any."""
    local = SyncToAsync.threadlocal
    loop: asyncio.AbstractEventLoop | None = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop


async def _send_bounded(layer: Any, group: str, message: dict[str, Any]) -> None:
    await asyncio.wait_for(layer.group_send(group, message), PUBLISH_TIMEOUT)


def _loop_alive(loop: asyncio.AbstractEventLoop) -> bool:
    return loop.is_running() and not loop.is_closed()


def _send_on_loop(loop: asyncio.AbstractEventLoop, layer: Any, group: str,
                  message: dict[str, Any]) -> bool:
    """Send on ``loop`` and wait for it. False if the loop stopped before the send ran (the
    caller may then send another way); errors of the send itself are raised."""
    if not _loop_alive(loop):
        return False
    coro = _send_bounded(layer, group, message)
    try:
        future = asyncio.run_coroutine_threadsafe(coro, loop)
    except RuntimeError:  # closed in the meantime
        coro.close()
        return False
    deadline = time.monotonic() + PUBLISH_TIMEOUT + 1.0
    while True:
        try:
            future.result(timeout=_POLL)
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
                    f"no answer from the event loop in {PUBLISH_TIMEOUT} s") from None


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
