"""Helpers of the notification tests (a top-level module, like the other test folders')."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

TIMEOUT = 5


def guest(name: str | None = None) -> Any:
    from kondavo.accounts.models import Player

    return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                 name=name or f"Guest-N{secrets.token_hex(4)}")


def account(name: str) -> Any:
    from django.contrib.auth import get_user_model

    from kondavo.accounts.services import player_claim_guest

    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    return player_claim_guest(guest=guest(), user=user)


def app() -> Any:
    from kondavo.routing import websocket_urlpatterns

    return URLRouter(websocket_urlpatterns)


async def notify_socket(player: Any | None, *, client: str = "198.51.100.7") -> Any:
    """A connected ``/ws/notify/`` of ``player`` (a guest: its session key)."""
    from kondavo.accounts.services import GUEST_SESSION_KEY

    comm = WebsocketCommunicator(app(), "/ws/notify/")
    comm.scope["user"] = AnonymousUser()
    comm.scope["session"] = {GUEST_SESSION_KEY: player.guest_key} if player else {}
    comm.scope["client"] = (client, 50000)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def frame_of(comm: Any, t: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The next frame of type ``t`` (skipping others)."""
    while True:
        frame: dict[str, Any] = await comm.receive_json_from(timeout=timeout)
        if frame["t"] == t:
            return frame


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
