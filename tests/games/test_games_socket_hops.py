"""What opening and closing a game socket costs the event loop: one worker-thread call each
way (player, caps, game and presence together), and the session's user looked up lazily
inside that call (``kondavo.accounts.middleware.LazyUserMiddleware``), not in a thread hop of
its own for every handshake."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from socket_helpers import counting_db_call

from kondavo.accounts.middleware import LazyUserMiddleware, SessionUserMiddlewareStack
from kondavo.accounts.services import player_for_user
from kondavo.games import consumers
from kondavo.games.routing import websocket_urlpatterns
from kondavo.games.services import game_create

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]

TIMEOUT = 5


async def test_a_spectator_socket_costs_one_thread_call_to_open_and_one_to_close(
        guest_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    white = await database_sync_to_async(guest_factory)()
    game = await database_sync_to_async(game_create)(
        creator=white, ruleset="english", color="white", time_control="untimed")
    calls: list[str] = []
    monkeypatch.setattr(consumers, "db_call", counting_db_call(calls))
    thread_calls: list[str] = []
    real_off_loop = consumers.off_loop
    monkeypatch.setattr(consumers, "off_loop",
                        lambda fn: thread_calls.append(fn.__name__) or real_off_loop(fn))
    comm = WebsocketCommunicator(SessionUserMiddlewareStack(URLRouter(websocket_urlpatterns)),
                                 f"/ws/game/{game.id}/")
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    frame = await comm.receive_json_from(timeout=TIMEOUT)
    assert frame["t"] == "state" and frame["d"]["you"] is None
    assert calls == ["opened"] and thread_calls == []
    await comm.disconnect()
    assert calls == ["opened", "closed"] and thread_calls == []


async def test_the_session_user_is_looked_up_only_when_used_and_in_a_thread() -> None:
    def logged_in_session() -> tuple[Any, str]:
        user = get_user_model().objects.create_user("hopper", password="a long passphrase 1")
        client = Client()
        client.force_login(user)
        return user, client.session.session_key

    user, key = await database_sync_to_async(logged_in_session)()
    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen["scope"] = scope

    session = await database_sync_to_async(SessionStore)(key)
    await LazyUserMiddleware(inner)({"type": "websocket", "session": session}, None, None)
    lazy = seen["scope"]["user"]

    def resolve() -> tuple[int, bool]:
        return lazy.pk, player_for_user(user=lazy).pk is not None

    assert await database_sync_to_async(resolve)() == (user.pk, True)

    with pytest.raises(ValueError, match="SessionMiddleware"):
        await LazyUserMiddleware(inner)({"type": "websocket"}, None, None)


async def test_a_visitor_without_a_session_cookie_costs_no_query(
        django_assert_num_queries: Any) -> None:
    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen["scope"] = scope

    await LazyUserMiddleware(inner)({"type": "websocket", "session": SessionStore()}, None, None)

    def anonymous() -> bool:
        with django_assert_num_queries(0):
            return bool(seen["scope"]["user"].is_anonymous)

    assert await database_sync_to_async(anonymous)()
