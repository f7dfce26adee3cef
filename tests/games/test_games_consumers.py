"""Game and lobby sockets through WebsocketCommunicator (in-memory or real Redis layer)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from kondavo.accounts.services import GUEST_SESSION_KEY
from kondavo.games.models import Game
from kondavo.games.routing import websocket_urlpatterns
from kondavo.games.services import game_create, game_create_vs_computer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]

TIMEOUT = 5


def app() -> Any:
    return URLRouter(websocket_urlpatterns)


async def connect(path: str, player: Any | None) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(app(), path)
    comm.scope["user"] = AnonymousUser()
    comm.scope["session"] = {GUEST_SESSION_KEY: player.guest_key} if player else {}
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def receive(comm: WebsocketCommunicator, t: str | None = None) -> dict[str, Any]:
    """The next frame (of type ``t``, skipping presence frames)."""
    while True:
        frame = await comm.receive_json_from(timeout=TIMEOUT)
        if frame["t"] == "presence" and t != "presence":
            continue
        if t is None or frame["t"] == t:
            return frame
        raise AssertionError(f"expected {t}, got {frame}")


async def skip_to(comm: WebsocketCommunicator, t: str) -> dict[str, Any]:
    while True:
        frame = await comm.receive_json_from(timeout=TIMEOUT)
        if frame["t"] == t:
            return frame


async def play_openings(game: Game, white: Any, black: Any) -> None:
    """Each side's first move (no clock runs before them)."""
    from kondavo.games.services import game_play_move

    def play() -> None:
        game_play_move(game_id=game.id, player=white, ply=0, move_text="31-27")
        game_play_move(game_id=game.id, player=black, ply=1, move_text="20-24")

    await database_sync_to_async(play)()


@pytest.fixture
async def seated(guest_factory: Any) -> tuple[Any, Any, Any, Game]:
    def make() -> tuple[Any, Any, Any, Game]:
        white, black, spectator = guest_factory(), guest_factory(), guest_factory()
        game = game_create(creator=white, opponent=black, ruleset="international",
                           color="white", time_control="5+3")
        return white, black, spectator, game

    return await database_sync_to_async(make)()


async def test_connect_move_broadcast_and_errors(seated: Any) -> None:
    white, black, spectator, game = seated
    path = f"/ws/game/{game.id}/"
    cw, cb, cs = (await connect(path, white), await connect(path, black),
                  await connect(path, spectator))
    states = [await receive(c, "state") for c in (cw, cb, cs)]
    assert [s["d"]["you"] for s in states] == ["white", "black", None]
    v0 = states[0]["v"]
    assert states[0]["d"]["ply"] == 0 and states[0]["d"]["legal"]

    await cw.send_json_to({"t": "move", "d": {"ply": 0, "move": "32-28"}})
    for c in (cw, cb, cs):
        frame = await receive(c, "move")
        assert frame["v"] == v0 + 1
        d = frame["d"]
        assert d["ply"] == 1 and d["notation"] == "32-28" and d["turn"] == "black"
        assert d["path"] == ["32", "28"] and d["captured"] == [] and d["legal"]
        assert d["clocks"]["running"] is None and d["abort_at"]  # Black's first move

    # errors go to the sender only, with the current version
    await cb.send_json_to({"t": "move", "d": {"ply": 0, "move": "19-23"}})
    err = await receive(cb, "error")
    assert err["d"]["code"] == "stale_ply" and err["v"] == v0 + 1
    await cw.send_json_to({"t": "move", "d": {"ply": 1, "move": "28-23"}})
    assert (await receive(cw, "error"))["d"]["code"] == "not_your_turn"
    await cs.send_json_to({"t": "move", "d": {"ply": 1, "move": "19-23"}})
    assert (await receive(cs, "error"))["d"]["code"] == "not_a_player"
    await cs.send_json_to({"t": "resign"})
    assert (await receive(cs, "error"))["d"]["code"] == "not_a_player"
    await cb.send_json_to({"t": "move", "d": {"ply": 1, "move": "19-28"}})
    assert (await receive(cb, "error"))["d"]["code"] == "illegal_move"
    await cb.send_json_to({"t": "move", "d": {"ply": 1}})
    assert (await receive(cb, "error"))["d"]["code"] == "bad_request"
    await cb.send_json_to({"t": "fly"})
    assert (await receive(cb, "error"))["d"]["code"] == "unknown_type"
    await cb.send_to(text_data="{not json")
    assert (await receive(cb, "error"))["d"]["code"] == "bad_json"
    await cb.send_json_to({"t": "ping"})
    assert (await receive(cb, "pong"))["v"] == v0 + 1
    await cs.send_json_to({"t": "resync"})
    resync = await receive(cs, "state")
    assert resync["v"] == v0 + 1 and resync["d"]["moves"] == ["32-28"]

    # draw offer, decline, resign: everyone sees the events
    await cb.send_json_to({"t": "draw_offer"})
    assert (await receive(cw, "draw_offer"))["d"] == {"by": "black"}
    assert (await receive(cb, "draw_offer"))["d"] == {"by": "black"}
    await cw.send_json_to({"t": "draw_decline"})
    assert (await receive(cb, "draw_offer"))["d"] == {"by": None, "declined_by": "white"}
    await cw.send_json_to({"t": "resign"})
    for c in (cw, cb, cs):
        end = await skip_to(c, "end")
        assert end["d"]["result"] == {"winner": "black", "reason": "resign", "score": "0-2"}
    for c in (cw, cb, cs):
        await c.disconnect()


async def test_flag_frame_ends_a_game_whose_clock_ran_out(fake_clock: Any, seated: Any) -> None:
    """The game page sends ``flag`` when its running clock shows zero: too early, the sender
    gets a fresh state; on time, everyone gets the end frame at once."""
    white, black, spectator, game = seated  # 5+3
    await play_openings(game, white, black)  # now White's clock runs
    path = f"/ws/game/{game.id}/"
    cb, cs = await connect(path, black), await connect(path, spectator)
    v0 = (await receive(cb, "state"))["v"]
    assert (await receive(cs, "state"))["d"]["clocks"]["white"] == 300_000
    fake_clock.advance(seconds=299)
    await cs.send_json_to({"t": "flag"})
    early = await receive(cs, "state")
    assert early["v"] == v0 and early["d"]["status"] == "active"
    assert early["d"]["clocks"]["white"] == 1000 and early["d"]["clocks"]["running"] == "white"
    fake_clock.advance(seconds=1)
    await cs.send_json_to({"t": "flag"})
    for c in (cs, cb):
        end = await receive(c, "end")
        assert end["v"] == v0 + 1
        assert end["d"]["result"] == {"winner": "black", "reason": "timeout", "score": "0-2"}
    await cb.send_json_to({"t": "flag"})  # over: just the state
    assert (await receive(cb, "state"))["d"]["status"] == "finished"
    for c in (cb, cs):
        await c.disconnect()


async def test_resync_checks_the_clock_first(fake_clock: Any, seated: Any) -> None:
    white, black, spectator, game = seated
    await play_openings(game, white, black)
    cw = await connect(f"/ws/game/{game.id}/", white)
    v0 = (await receive(cw, "state"))["v"]
    fake_clock.advance(seconds=301)
    await cw.send_json_to({"t": "resync"})
    # The flag's ``end`` event may overtake the answer (it is published on its own lane).
    state = await skip_to(cw, "state")
    assert state["v"] == v0 + 1 and state["d"]["status"] == "finished"
    assert state["d"]["result"]["reason"] == "timeout"
    assert state["d"]["clocks"]["white"] == 0 and state["d"]["clocks"]["running"] is None
    await cw.send_json_to({"t": "ping"})  # the end event is not sent again after the state
    assert (await receive(cw))["t"] == "pong"
    await cw.disconnect()


async def test_rate_limit(seated: Any, settings: Any) -> None:
    # Next to no refill: the 60 pings meet exactly the burst, however slow the machine.
    settings.KONDAVO_WS_RATE = 0.001
    settings.KONDAVO_WS_BURST = 40
    white, _black, _spectator, game = seated
    comm = await connect(f"/ws/game/{game.id}/", white)
    await receive(comm, "state")
    for _ in range(60):
        await comm.send_json_to({"t": "ping"})
    frames = [await receive(comm) for _ in range(41)]
    kinds = [f["t"] if f["t"] == "pong" else f["d"]["code"] for f in frames]
    # One error frame for the burst over the budget; the other refused frames get no answer.
    assert kinds.count("pong") == 40 and kinds.count("rate_limited") == 1
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


async def test_unknown_game_is_closed(guest_factory: Any) -> None:
    player = await database_sync_to_async(guest_factory)()
    comm = await connect("/ws/game/zzzzzzzz/", player)
    frame = await comm.receive_json_from(timeout=TIMEOUT)
    assert frame["t"] == "error" and frame["d"]["code"] == "not_found"
    assert (await comm.receive_output(timeout=TIMEOUT))["type"] == "websocket.close"


async def test_presence_and_disconnect_tracking(seated: Any) -> None:
    white, black, spectator, game = seated
    path = f"/ws/game/{game.id}/"
    cw = await connect(path, white)
    state = (await receive(cw, "state"))["d"]
    assert (state["presence"]["white"], state["presence"]["black"]) == (True, False)
    assert state["heartbeat_ms"] == 5000
    cb = await connect(path, black)
    seen = (await receive(cw, "presence"))["d"]
    assert (seen["white"], seen["black"], seen["spectators"]) == (True, True, 0)
    cs = await connect(path, spectator)
    assert (await receive(cw, "presence"))["d"]["spectators"] == 1
    await cs.disconnect()
    assert (await receive(cw, "presence"))["d"]["spectators"] == 0
    await cb.disconnect()
    seen = (await receive(cw, "presence"))["d"]
    assert seen["black"] is False and seen["claim_at"]["black"] is not None
    assert seen["claim_at"]["black"] - seen["left_at"]["black"] == 60_000
    await cw.send_json_to({"t": "claim_victory"})
    assert (await receive(cw, "error"))["d"]["code"] == "not_allowed"
    await cw.disconnect()


async def _gone_without_closing(fake_clock: Any, cw: WebsocketCommunicator) -> None:
    """After the ttl, White's heartbeat shows Black gone; after the claim time, White's
    claim wins the game."""
    fake_clock.advance(seconds=11)
    await cw.send_json_to({"t": "ping"})
    assert (await cw.receive_json_from(timeout=TIMEOUT))["t"] == "pong"  # not expired yet
    fake_clock.advance(seconds=2)
    await cw.send_json_to({"t": "ping"})
    seen = (await cw.receive_json_from(timeout=TIMEOUT))
    assert seen["t"] == "presence" and seen["d"]["black"] is False, seen
    claim_at = seen["d"]["claim_at"]["black"]
    assert claim_at == seen["d"]["left_at"]["black"] + 60_000
    assert (await cw.receive_json_from(timeout=TIMEOUT))["t"] == "pong"
    await cw.send_json_to({"t": "claim_victory"})
    assert "claim the game in" in (await receive(cw, "error"))["d"]["message"]
    fake_clock.current = datetime.fromtimestamp(claim_at / 1000, tz=UTC)
    await cw.send_json_to({"t": "claim_victory"})
    end = (await receive(cw, "end"))["d"]
    assert end["result"] == {"winner": "white", "reason": "abandoned", "score": "2-0"}


async def _both_seated_and_connected(game: Any, white: Any, black: Any) -> tuple[Any, Any]:
    """Both sides have moved once and hold a socket; White has seen Black arrive."""
    await play_openings(game, white, black)
    path = f"/ws/game/{game.id}/"
    cw = await connect(path, white)
    await receive(cw, "state")
    cb = await connect(path, black)
    await receive(cb, "state")
    assert (await receive(cw, "presence"))["d"]["black"] is True
    return cw, cb


async def test_presence_expires_after_an_abrupt_end(seated: Any, fake_clock: Any) -> None:
    """Black's consumer is cancelled without ``disconnect`` (a killed process)."""
    white, black, _spectator, game = seated
    cw, cb = await _both_seated_and_connected(game, white, black)
    cb.future.cancel()
    await asyncio.sleep(0)
    await _gone_without_closing(fake_clock, cw)
    await cw.disconnect()


async def test_presence_expires_after_a_consumer_failure(
        seated: Any, fake_clock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Black's consumer dies on an unexpected error in a handler (Daphne closes with 1011;
    ``disconnect`` never runs)."""
    from kondavo.games import services

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("boom")

    white, black, _spectator, game = seated
    cw, cb = await _both_seated_and_connected(game, white, black)
    real = services.game_resign
    monkeypatch.setattr(services, "game_resign", broken)
    await cb.send_json_to({"t": "resign"})
    with pytest.raises(RuntimeError):
        await cb.wait(timeout=TIMEOUT)
    monkeypatch.setattr(services, "game_resign", real)
    await _gone_without_closing(fake_clock, cw)
    await cw.disconnect()


async def test_bot_game_in_process(guest_factory: Any, settings: Any,
                                   recorded_side_effects: dict[str, Any],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded mode: the bot's move runs off the event loop and reaches the socket."""
    import bots.seam
    from kondavo.games.events import bind_loop

    settings.KONDAVO_BOT_INPROCESS = True
    settings.KONDAVO_BOT_MOVE_TIME = 0.05
    # As a view under the ASGI app would: the serving loop is bound, so the bot's move
    # (computed in a worker thread) is published on it. The compiled engine answers at
    # once, so an unbound publish would race the socket's wait on the in-memory layer.
    bind_loop()
    monkeypatch.setattr(bots.seam, "request_bot_move", recorded_side_effects["real_bot"][0])
    human = await database_sync_to_async(guest_factory)()
    game = await database_sync_to_async(game_create_vs_computer)(
        player=human, ruleset="english", level=1, color="white")  # the bot (Black) starts
    comm = await connect(f"/ws/game/{game.id}/", human)
    state = await receive(comm, "state")
    if state["d"]["ply"] == 0:  # the bot has not moved yet
        frame = await receive(comm, "move")
    else:
        frame = {"d": {"ply": state["d"]["ply"], "legal": state["d"]["legal"]}}
    assert frame["d"]["ply"] == 1
    reply = frame["d"]["legal"][0]["notation"]
    await comm.send_json_to({"t": "move", "d": {"ply": 1, "move": reply}})
    assert (await receive(comm, "move"))["d"]["ply"] == 2
    bot_move = await receive(comm, "move")  # played in a worker thread, sent via the loop
    assert bot_move["d"]["ply"] == 3 and bot_move["d"]["turn"] == "white"
    await comm.disconnect()


async def test_lobby_seek_and_accept(guest_factory: Any) -> None:
    a, b = (await database_sync_to_async(guest_factory)(),
            await database_sync_to_async(guest_factory)())
    la, lb = await connect("/ws/lobby/", a), await connect("/ws/lobby/", b)
    assert (await receive(la, "seeks"))["d"]["seeks"] == []
    await receive(lb, "seeks")
    await la.send_json_to({"t": "seek", "d": {"variant": "spanish", "time_control": "3+2"}})
    seeks_a = (await receive(la, "seeks"))["d"]["seeks"]
    seeks_b = (await receive(lb, "seeks"))["d"]["seeks"]
    assert len(seeks_a) == 1 and seeks_a[0]["mine"] and not seeks_b[0]["mine"]
    assert seeks_b[0]["variant"] == "spanish" and "player_id" not in seeks_b[0]
    await lb.send_json_to({"t": "seek", "d": {"variant": "spanish"}})
    assert (await receive(lb, "error"))["d"]["code"] == "bad_request"
    await lb.send_json_to({"t": "accept", "d": {"id": seeks_b[0]["id"]}})
    got: dict[str, Any] = {}
    for name, c in (("a", la), ("b", lb)):
        got[name] = (await skip_to(c, "game"))["d"]
    assert got["a"] == got["b"] and got["a"]["url"] == f"/game/{got['a']['id']}/"
    await la.disconnect()
    await lb.disconnect()


async def test_pong_reports_the_database_version_so_a_lost_event_is_noticed(
        seated: Any) -> None:
    """An event that never reached a socket (the channel layer may drop messages under
    overload) shows up at the next ping: pong carries the version the database has."""
    from django.db.models import F

    white, _black, _spectator, game = seated
    comm = await connect(f"/ws/game/{game.id}/", white)
    v0 = (await receive(comm, "state"))["v"]
    await comm.send_json_to({"t": "ping"})
    assert (await receive(comm, "pong"))["v"] == v0
    # A change whose event is lost: the row moves on, nothing is published.
    await database_sync_to_async(
        Game.objects.filter(pk=game.id).update)(version=F("version") + 1)
    await comm.send_json_to({"t": "ping"})
    assert (await receive(comm, "pong"))["v"] == v0 + 1
    await comm.send_json_to({"t": "resync"})
    assert (await receive(comm, "state"))["v"] == v0 + 1
    await comm.disconnect()


async def test_a_crowd_of_anonymous_spectators_reads_the_game_once_per_change(
        seated: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anonymous spectators opening a game one after the other get the state the first
    one was sent (their own presence and clocks), without a read of the game each, until
    something is delivered to the game's group; then the next one reads it again."""
    from kondavo.games import selectors
    from kondavo.games.services import game_play_move

    white, black, _spectator, game = seated
    path = f"/ws/game/{game.id}/"
    reads: list[str] = []
    real = selectors.game_get
    monkeypatch.setattr(selectors, "game_get",
                        lambda *, game_id: (reads.append(game_id), real(game_id=game_id))[1])
    w = await connect(path, white)
    await receive(w, "state")
    crowd = []
    for n in range(6):
        comm = await connect(path, None)
        state = (await receive(comm, "state"))["d"]
        assert state["ply"] == 0 and state["you"] is None
        assert state["presence"]["spectators"] == n + 1  # its own presence, not the cache's
        crowd.append(comm)
    assert len(reads) == 2  # the player's opening and the first spectator's
    await database_sync_to_async(game_play_move)(game_id=game.id, player=white, ply=0,
                                                 move_text="31-27")
    for comm in crowd:  # every spectator gets the move as an event
        assert (await skip_to(comm, "move"))["d"]["ply"] == 1
    late = await connect(path, None)
    state = (await receive(late, "state"))["d"]
    assert state["ply"] == 1 and state["moves"] == ["31-27"]  # read again after the move
    assert len(reads) == 3
    for comm in [w, *crowd, late]:
        await comm.disconnect()
    # closing reads nothing either: the game as read at the opening gives the seats
    assert len(reads) == 3
