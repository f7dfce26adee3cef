"""Helpers shared by the socket tests (chat, notifications, tournaments): players, a socket
opened through the project's routing, and waiting for a frame of one type. They sit next to
the ``fresh_socket_registry`` fixture of tests/conftest.py; a test module imports them as a
top-level module (``from socket_helpers import frame_of``), as the helpers of each folder."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

TIMEOUT = 5


def guest(name: str | None = None) -> Any:
    """A new guest player (its ``guest_key`` is the session that authenticates it)."""
    from kondavo.accounts.models import Player

    return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                 name=name or f"Guest-S{secrets.token_hex(4)}")


def account(name: str | None = None, *, staff: bool = False) -> Any:
    """An account's player (a guest claimed by a user), reachable through its guest key."""
    from django.contrib.auth import get_user_model

    from kondavo.accounts.services import player_claim_guest

    name = name or f"acct{secrets.token_hex(4)}"
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!",
                                                is_staff=staff)
    return player_claim_guest(guest=guest(), user=user)


def scope_session(player: Any) -> dict[str, Any]:
    """A session that authenticates ``player`` (its guest key), empty for nobody."""
    from kondavo.accounts.services import GUEST_SESSION_KEY

    if player is None or not player.guest_key:
        return {}
    return {GUEST_SESSION_KEY: player.guest_key}


def _user_of(player: Any) -> Any:
    return player.user if player is not None and player.user_id else AnonymousUser()


async def open_socket(path: str, player: Any | None = None, *,
                      client: str = "203.0.113.9") -> WebsocketCommunicator:
    """A connected socket on ``path`` (``/ws/game/<id>/``, ``/ws/notify/``,
    ``/ws/tournament/<id>/``...) of ``player`` (None: a visitor without identity), from the
    address ``client``."""
    from kondavo.routing import websocket_urlpatterns

    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    comm.scope["user"] = await database_sync_to_async(_user_of)(player)
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


def counting_db_call(calls: list[str]) -> Callable[..., Callable[..., Awaitable[Any]]]:
    """A stand-in for ``kondavo.games.consumers.db_call`` that records the name of each
    function the consumers send to a worker thread, then runs it as the real one does."""
    from kondavo.games import consumers

    real = consumers.db_call

    def db_call(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        calls.append(getattr(fn, "__name__", repr(fn)))
        return real(fn)

    return db_call
