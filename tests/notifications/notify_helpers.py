"""Helpers of the notification tests (the shared ones live in tests/socket_helpers.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from socket_helpers import TIMEOUT, account, frame_of, guest, open_socket

__all__ = ["account", "closed_with", "frame_of", "guest", "notify_socket", "ws_frame"]


async def notify_socket(player: Any | None, *, client: str = "198.51.100.7") -> Any:
    """A connected ``/ws/notify/`` of ``player`` (its session)."""
    return await open_socket("/ws/notify/", player, client=client)


async def ws_frame(ws: Any, t: str, timeout: float = 10) -> dict[str, Any]:
    """The next frame of type ``t`` on a real websocket (``websockets`` client)."""
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if frame["t"] == t:
            return frame


async def closed_with(comm: Any, timeout: float = TIMEOUT) -> tuple[list[dict[str, Any]], int]:
    """Every frame until the socket is closed, and the close code."""
    frames: list[dict[str, Any]] = []
    while True:
        out = await comm.receive_output(timeout=timeout)
        if out["type"] == "websocket.close":
            return frames, int(out.get("code", 1000))
        frames.append(json.loads(out["text"]))
