"""Helpers of the chat tests: players, game sockets, frames."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

TIMEOUT = 5


def guest() -> Any:
    from kondavo.accounts.models import Player

    return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                 name=f"Guest-C{secrets.token_hex(4)}")


def account(name: str | None = None, *, staff: bool = False) -> Any:
    """An account's player (a guest claimed by a user), reachable through its guest key."""
    from django.contrib.auth import get_user_model

    from kondavo.accounts.services import player_claim_guest

    name = name or f"chat{secrets.token_hex(4)}"
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!",
                                                is_staff=staff)
    return player_claim_guest(guest=guest(), user=user)


def scope_session(player: Any) -> dict[str, Any]:
    """A session that authenticates ``player`` (a guest: its key; an account: its user)."""
    from kondavo.accounts.services import GUEST_SESSION_KEY

    if player is None:
        return {}
    if player.guest_key:
        return {GUEST_SESSION_KEY: player.guest_key}
    return {}


async def game_socket(game_id: str, player: Any | None, *,
                      client: str = "203.0.113.9") -> WebsocketCommunicator:
    from kondavo.games.routing import websocket_urlpatterns

    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/game/{game_id}/")
    comm.scope["user"] = player.user if player is not None and player.user_id else AnonymousUser()
    comm.scope["session"] = scope_session(player)
    comm.scope["client"] = (client, 40000)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def frame_of(comm: Any, t: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The next frame of type ``t`` (skipping others)."""
    while True:
        frame: dict[str, Any] = await comm.receive_json_from(timeout=timeout)
        if frame["t"] == t:
            return frame


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
