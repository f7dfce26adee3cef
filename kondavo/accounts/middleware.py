"""``request.player`` for every HTTP request; for websockets, ``LazyUserMiddleware`` (the
session's user, looked up on first use) and ``player_for_scope_sync`` / ``get_player_for_scope``.

A visitor gets a guest identity (a Player row and a session) only when they first do
something that needs one: ``player_required(request)``, called by the views that create or
join games and seeks, and by ``POST /accounts/guest/``. Reading pages, 404s, health checks
and crawlers create nothing: for them ``request.player`` is None.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from channels.db import database_sync_to_async
from channels.sessions import SessionMiddlewareStack
from django.contrib import auth
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject

from .models import Player
from .services import (
    GUEST_SESSION_KEY,
    player_for_user,
    player_get_guest,
    player_get_or_create_guest,
)


class PlayerMiddleware:
    """Sets ``request.player``: the user's Player when logged in, else the session's guest
    if there is one, else None. Must come after SessionMiddleware and
    AuthenticationMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.player = player_for_request(request)  # type: ignore[attr-defined]
        return self.get_response(request)


def player_for_request(request: HttpRequest) -> Player | None:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return player_for_user(user=user)
    session = getattr(request, "session", None)
    if session is None or not session.session_key:  # no cookie: no guest to look up
        return None
    return player_get_guest(request_session=session)


def player_required(request: HttpRequest) -> Player:
    """The request's Player, creating the visitor's guest identity (stored in the session)
    if they have none yet. Raises ``GuestRateLimited`` when this address already made
    too many guests (``KONDAVO_GUEST_RATE``)."""
    player: Player | None = getattr(request, "player", None)
    if player is not None:
        return player
    from kondavo.ratelimits import rate_limit

    rate_limit(action="guest", keys=[f"ip:{_client_ip(request)}"], setting="KONDAVO_GUEST_RATE")
    player = player_get_or_create_guest(request_session=request.session)
    request.player = player  # type: ignore[attr-defined]
    return player


def _client_ip(request: HttpRequest) -> str:
    from kondavo.limits import client_ip

    return client_ip(request)


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
    None (a websocket cannot set a session cookie: a visitor without an identity gets one
    from ``POST /accounts/guest/`` and reconnects). Consumers refuse actions that need a
    player when this is None.
    """
    return await database_sync_to_async(player_for_scope_sync)(scope)


class LazyUserMiddleware:
    """ASGI middleware for websockets: ``scope["user"]`` is the session's user, looked up
    the first time it is used, in whichever worker thread uses it.

    Channels' ``AuthMiddleware`` looks the user up in a thread hop of its own for every
    handshake, on the one shared "sync" thread, before the consumer runs: a crowd opening
    sockets queued there. Kondavo's consumers read the user only inside the worker-thread
    call that admits the socket (``kondavo.games.consumers``), so the lookup rides along
    with the socket's other reads; a visitor without a session cookie costs no query at
    all. The user must never be touched on the event loop (Django refuses a query there).
    Needs ``scope["session"]`` (``channels.sessions.SessionMiddlewareStack``)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if "session" not in scope:
            raise ValueError("LazyUserMiddleware needs SessionMiddleware around it")
        holder = SimpleNamespace(session=scope["session"])
        scope = {**scope, "user": SimpleLazyObject(lambda: auth.get_user(holder))}
        return await self.inner(scope, receive, send)


def SessionUserMiddlewareStack(inner: Any) -> Any:  # noqa: N802 (as Channels' stacks)
    """Cookies, the session, and the session's user looked up lazily (see above)."""
    return SessionMiddlewareStack(LazyUserMiddleware(inner))
