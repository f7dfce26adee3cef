"""What opening and closing a game socket costs the event loop: one worker-thread call each
way (player, caps, game and presence together; a burst of closings shares one), and the
session's user looked up lazily inside that call
(``kondavo.accounts.middleware.LazyUserMiddleware``), not in a thread hop of its own for
every handshake."""

from __future__ import annotations

import asyncio
import time
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
from kondavo.games import consumers, events, presence
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
    assert calls == ["opened", "run_close_jobs"] and thread_calls == []


async def test_a_crowd_closing_together_shares_worker_calls_and_one_presence_publish(
        guest_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    white = await database_sync_to_async(guest_factory)()
    game = await database_sync_to_async(game_create)(
        creator=white, ruleset="english", color="white", time_control="untimed")
    crowd = []
    for _ in range(30):
        comm = WebsocketCommunicator(
            SessionUserMiddlewareStack(URLRouter(websocket_urlpatterns)), f"/ws/game/{game.id}/")
        assert (await comm.connect(timeout=TIMEOUT))[0]
        assert (await comm.receive_json_from(timeout=TIMEOUT))["t"] == "state"
        crowd.append(comm)
    assert presence.store().view(game.id, time.time()).spectators == 30
    calls: list[str] = []
    monkeypatch.setattr(consumers, "db_call", counting_db_call(calls))
    published: list[tuple[str, dict[str, Any]]] = []
    real_publish = events.publish_presence
    monkeypatch.setattr(events, "publish_presence",
                        lambda game_id, payload: published.append((game_id, payload))
                        or real_publish(game_id, payload))
    await asyncio.gather(*(comm.disconnect() for comm in crowd))
    # 30 closings, one or two batches (the first may start before the others are read)
    assert calls and set(calls) == {"run_close_jobs"} and len(calls) <= 2, calls
    assert presence.store().view(game.id, time.time()).spectators == 0  # every one closed
    assert 1 <= len(published) <= len(calls), published  # each batch tells the game once
    assert {game_id for game_id, _ in published} == {game.id}
    assert published[-1][1]["spectators"] == 0


async def test_a_failing_closing_job_does_not_stop_the_others_of_its_batch() -> None:
    done: list[int] = []

    def ok(i: int) -> consumers.CloseJob:
        def job() -> None:
            done.append(i)
        return job

    def broken() -> None:
        raise ConnectionError("presence store down")

    await asyncio.gather(consumers.on_close(ok(1)), consumers.on_close(broken),
                         consumers.on_close(ok(2)))
    assert sorted(done) == [1, 2]


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
