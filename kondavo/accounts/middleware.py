"""``request.player`` for every HTTP request, and ``get_player_for_scope`` for consumers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from django.http import HttpRequest, HttpResponse

from .models import Player
from .services import GUEST_SESSION_KEY, player_for_user, player_get_or_create_guest


class PlayerMiddleware:
    """Sets ``request.player``: the user's Player when logged in, else the session's guest
    (created on the first request and remembered in the session). Must come after
    SessionMiddleware and AuthenticationMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.player = player_for_request(request)  # type: ignore[attr-defined]
        return self.get_response(request)


def player_for_request(request: HttpRequest) -> Player:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return player_for_user(user=user)
    return player_get_or_create_guest(request_session=request.session)


def player_for_scope_sync(scope: dict[str, Any]) -> Player | None:
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return player_for_user(user=user)
    session = scope.get("session")
    if session is None:
        return None
    key = session.get(GUEST_SESSION_KEY)
    if not key:
        return None
    return Player.objects.filter(kind=Player.Kind.GUEST, guest_key=key).first()


async def get_player_for_scope(scope: dict[str, Any]) -> Player | None:
    """The Player behind a websocket scope (needs AuthMiddlewareStack, as in kondavo.asgi).

    Returns the logged-in user's Player, else the guest whose key is in the session, else
    None (a websocket cannot set a session cookie: the browser must have loaded a page
    first). Consumers should close the connection on None.
    """
    return await database_sync_to_async(player_for_scope_sync)(scope)
