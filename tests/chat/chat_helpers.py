"""Helpers of the chat tests: players, game sockets, frames (the shared ones live in
tests/socket_helpers.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.testing import WebsocketCommunicator
from socket_helpers import TIMEOUT, account, frame_of, guest, open_socket

__all__ = ["account", "frame_of", "game_socket", "guest", "no_frame_of"]


async def game_socket(game_id: str, player: Any | None, *,
                      client: str = "203.0.113.9") -> WebsocketCommunicator:
    return await open_socket(f"/ws/game/{game_id}/", player, client=client)


async def no_frame_of(comm: Any, t: str, wait: float = 0.5) -> None:
    """No frame of type ``t`` arrives within ``wait`` seconds (other frames are skipped;
    ``receive_nothing`` never cancels the application, a receive timeout would)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while loop.time() < deadline:
        if await comm.receive_nothing(timeout=min(0.1, max(0.01, deadline - loop.time()))):
            continue
        frame = await comm.receive_json_from(timeout=TIMEOUT)
        assert frame["t"] != t, f"unexpected {frame}"
