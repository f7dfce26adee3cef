"""Takeback offers between people and the rating change of a rated game, against the real
database (services) and over the game socket (WebsocketCommunicator)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from game_races import race

from kondavo.accounts.models import Player
from kondavo.accounts.services import GUEST_SESSION_KEY, player_claim_guest
from kondavo.games import events, selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.routing import websocket_urlpatterns
from kondavo.games.services import (
    game_create,
    game_create_vs_computer,
    game_play_move,
    game_ratings_published,
    game_resign,
    game_takeback_accept,
    game_takeback_decline,
    game_takeback_offer,
)

pytestmark = pytest.mark.django_db

TIMEOUT = 5


def account(guest_factory: Any, name: str) -> Player:
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    return player_claim_guest(guest=guest_factory(), user=user)


def casual(guest_factory: Any, **kwargs: Any) -> tuple[Player, Player, Game]:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", **kwargs)
    return white, black, game


def opening(game: Game, white: Player, black: Player, plies: int = 3) -> None:
    moves = ["32-28", "19-23", "28x19", "14x23"]
    for ply in range(plies):
        game_play_move(game_id=game.id, player=white if ply % 2 == 0 else black, ply=ply,
                       move_text=moves[ply])


def row(game: Game) -> Game:
    return Game.objects.get(pk=game.id)


# --------------------------------------------------------------------------- takeback offers

def test_accepted_before_the_reply_takes_back_the_offerers_move(guest_factory: Any) -> None:
    white, black, game = casual(guest_factory, time_control="5+3")
    opening(game, white, black, plies=3)  # White just played 28x19: Black to move
    version = row(game).version
    game_takeback_offer(game_id=game.id, player=white, ply=3)
    offered = row(game)
    assert (offered.takeback_offer, offered.takeback_offer_ply) == ("white", 3)
    assert offered.version == version + 1
    state = wire.game_state(offered, black)
    assert state["takeback_offer"] == {"by": "white", "ply": 3}
    assert state["takeback_offers"] is True and state["takeback_allowed"] is False

    game_takeback_accept(game_id=game.id, player=black, ply=3)
    after = row(game)
    assert after.moves == ["32-28", "19-23"] and after.ply == 2
    assert selectors.turn_of(after) == "white"
    assert after.takeback_offer is None and after.version == version + 2
    assert wire.game_state(after, white)["takeback_offer"] is None
    game_play_move(game_id=game.id, player=white, ply=2, move_text="28x19")  # play on


def test_accepted_after_the_reply_takes_back_two_plies(guest_factory: Any) -> None:
    white, black, game = casual(guest_factory)
    opening(game, white, black, plies=4)  # Black replied 14x23: White to move
    game_takeback_offer(game_id=game.id, player=white, ply=4)
    game_takeback_accept(game_id=game.id, player=black, ply=4)
    after = row(game)
    assert after.moves == ["32-28", "19-23"] and selectors.turn_of(after) == "white"


def test_a_move_ends_the_offer(guest_factory: Any) -> None:
    white, black, game = casual(guest_factory)
    opening(game, white, black, plies=3)
    game_takeback_offer(game_id=game.id, player=white, ply=3)
    game_play_move(game_id=game.id, player=black, ply=3, move_text="14x23")  # the reply
    assert wire.game_state(row(game), white)["takeback_offer"] is None
    with pytest.raises(GameError) as err:  # the old offer's ply
        game_takeback_accept(game_id=game.id, player=black, ply=3)
    assert err.value.code == "stale_ply"
    with pytest.raises(GameError) as err:  # at the new ply there is no offer
        game_takeback_accept(game_id=game.id, player=black, ply=4)
    assert err.value.code == "not_allowed"
    assert row(game).ply == 4


def test_decline_withdraw_and_refusals(guest_factory: Any) -> None:
    white, black, game = casual(guest_factory)
    with pytest.raises(GameError) as err:  # nobody has moved
        game_takeback_offer(game_id=game.id, player=white, ply=0)
    assert err.value.code == "not_allowed"
    opening(game, white, black, plies=1)
    with pytest.raises(GameError) as err:  # Black has no move yet
        game_takeback_offer(game_id=game.id, player=black, ply=1)
    assert err.value.code == "not_allowed"
    game_takeback_offer(game_id=game.id, player=white, ply=1)
    game_takeback_offer(game_id=game.id, player=white, ply=1)  # again: nothing changes
    version = row(game).version
    with pytest.raises(GameError) as err:  # one's own offer cannot be accepted
        game_takeback_accept(game_id=game.id, player=white, ply=1)
    assert err.value.code == "not_allowed"
    game_takeback_decline(game_id=game.id, player=black, ply=1)
    declined = row(game)
    assert declined.takeback_offer is None and declined.version == version + 1
    assert declined.ply == 1
    game_takeback_offer(game_id=game.id, player=white, ply=1)
    game_takeback_decline(game_id=game.id, player=white)  # withdrawn
    with pytest.raises(GameError) as err:
        game_takeback_decline(game_id=game.id, player=black)
    assert err.value.code == "not_allowed"
    for bad in (-1, "1", None, True):
        with pytest.raises(GameError) as err:
            game_takeback_offer(game_id=game.id, player=white, ply=bad)  # type: ignore[arg-type]
        assert err.value.code == "bad_request"


def test_never_in_rated_games_nor_against_the_computer(guest_factory: Any) -> None:
    alice, bob = account(guest_factory, "tb-alice"), account(guest_factory, "tb-bob")
    rated = game_create(creator=alice, opponent=bob, ruleset="international", color="white",
                        rated=True)
    assert rated.rated
    opening(rated, alice, bob, plies=1)
    with pytest.raises(GameError) as err:
        game_takeback_offer(game_id=rated.id, player=alice, ply=1)
    assert err.value.code == "not_allowed"
    assert wire.game_state(row(rated), alice)["takeback_offers"] is False
    me = guest_factory()
    bot_game = game_create_vs_computer(player=me, ruleset="international", level=1,
                                       color="white", time_control="untimed")
    game_play_move(game_id=bot_game.id, player=me, ply=0, move_text="32-28")
    with pytest.raises(GameError) as err:
        game_takeback_offer(game_id=bot_game.id, player=me, ply=1)
    assert err.value.code == "not_allowed"


def test_an_offer_on_the_opponents_offer_is_refused(guest_factory: Any) -> None:
    """Both sides cannot stack offers: two takebacks at one ply would take back four plies."""
    white, black, game = casual(guest_factory)
    opening(game, white, black, plies=4)  # White to move; both have moved
    game_takeback_offer(game_id=game.id, player=black, ply=4)
    with pytest.raises(GameError) as err:
        game_takeback_offer(game_id=game.id, player=white, ply=4)
    assert err.value.code == "not_allowed"
    game_takeback_accept(game_id=game.id, player=white, ply=4)  # Black's move back: 1 ply
    assert row(game).moves == ["32-28", "19-23", "28x19"]
    with pytest.raises(GameError) as err:  # the same accept again
        game_takeback_accept(game_id=game.id, player=white, ply=4)
    assert err.value.code == "stale_ply"
    assert row(game).ply == 3


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_concurrent_accepts_take_back_one_turn(guest_factory: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (SQLite serialises whole transactions)")
    white, black, game = casual(guest_factory)
    opening(game, white, black, plies=4)
    game_takeback_offer(game_id=game.id, player=white, ply=4)
    outcomes = race(lambda: game_takeback_accept(game_id=game.id, player=black, ply=4), 12)
    assert Counter(outcomes) == {"ok": 1, "stale_ply": 11}
    assert row(game).moves == ["32-28", "19-23"]


# --------------------------------------------------------------------------- ratings

def test_the_end_frame_carries_the_rating_change(guest_factory: Any,
                                                 django_capture_on_commit_callbacks: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    published: list[dict[str, Any]] = []
    monkeypatch.setattr(events, "publish_game", lambda gid, frames: published.extend(frames))
    alice, bob = account(guest_factory, "rt-alice"), account(guest_factory, "rt-bob")
    game = game_create(creator=alice, opponent=bob, ruleset="international", color="white",
                       rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        game_resign(game_id=game.id, player=bob)
    [end] = [f for f in published if f["t"] == "end"]
    ratings = end["d"]["ratings"]
    assert set(ratings) == {"white", "black"}
    assert ratings["white"]["after"] == ratings["white"]["before"] + ratings["white"]["delta"]
    assert ratings["white"]["delta"] > 0 > ratings["black"]["delta"]
    state = wire.game_state(row(game), None)  # a reloaded page, a spectator
    assert state["ratings"] == ratings
    assert state["players"]["white"]["rating"] == ratings["white"]["after"]
    # Ratings applied later (e.g. after a review) go out as their own event.
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert game_ratings_published(game_id=game.id) is True
    assert [(f["t"], f["d"]) for f in published] == [("ratings", {"ratings": ratings})]


def test_a_casual_game_has_no_rating_change(guest_factory: Any,
                                            django_capture_on_commit_callbacks: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    published: list[dict[str, Any]] = []
    monkeypatch.setattr(events, "publish_game", lambda gid, frames: published.extend(frames))
    white, black, game = casual(guest_factory)
    with django_capture_on_commit_callbacks(execute=True):
        game_resign(game_id=game.id, player=black)
    [end] = [f for f in published if f["t"] == "end"]
    assert "ratings" not in end["d"]
    assert wire.game_state(row(game), white)["ratings"] is None
    assert game_ratings_published(game_id=game.id) is False


# --------------------------------------------------------------------------- over a socket

async def _connect(game: Game, player: Player | None, user: Any = None) -> Any:
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/game/{game.id}/")
    comm.scope["user"] = user if user is not None else AnonymousUser()
    comm.scope["session"] = ({GUEST_SESSION_KEY: player.guest_key}
                             if player is not None and player.guest_key else {})
    assert (await comm.connect(timeout=TIMEOUT))[0]
    return comm


async def _next(comm: Any, t: str) -> dict[str, Any]:
    while True:
        frame = await comm.receive_json_from(timeout=TIMEOUT)
        if frame["t"] == t:
            return frame
        assert frame["t"] in ("presence", "state", "move", "draw_offer"), frame


@pytest.mark.django_db(transaction=True)
@pytest.mark.embedded
async def test_takeback_offer_over_sockets(guest_factory: Any) -> None:
    def make() -> tuple[Player, Player, Player, Game]:
        white, black, game = casual(guest_factory)
        opening(game, white, black, plies=3)
        return white, black, guest_factory(), game

    white, black, spectator, game = await database_sync_to_async(make)()
    cw, cb, cs = (await _connect(game, white), await _connect(game, black),
                  await _connect(game, spectator))
    try:
        for comm in (cw, cb, cs):
            state = await _next(comm, "state")
            assert state["d"]["ply"] == 3 and state["d"]["takeback_offer"] is None
        await cw.send_json_to({"t": "takeback_offer", "d": {"ply": 3}})
        for comm in (cw, cb, cs):
            offer = await _next(comm, "takeback_offer")
            assert offer["d"] == {"by": "white", "ply": 3}
        # Two accepts at once (a double click): one takeback, one stale_ply.
        await cb.send_json_to({"t": "takeback_accept", "d": {"ply": 3}})
        await cb.send_json_to({"t": "takeback_accept", "d": {"ply": 3}})
        got = []
        while len(got) < 2:
            frame = await cb.receive_json_from(timeout=TIMEOUT)
            if frame["t"] in ("takeback", "error"):
                got.append(frame)
        assert sorted(f["t"] for f in got) == ["error", "takeback"]
        assert [f["d"] for f in got if f["t"] == "takeback"] == [{"ply": 2, "by": "white"}]
        assert [f["d"]["code"] for f in got if f["t"] == "error"] == ["stale_ply"]
        for comm in (cw, cs):
            assert (await _next(comm, "takeback"))["d"] == {"ply": 2, "by": "white"}
        await cs.send_json_to({"t": "takeback_offer", "d": {"ply": 2}})  # a spectator
        assert (await _next(cs, "error"))["d"]["code"] == "not_a_player"
        await cw.send_json_to({"t": "takeback_offer", "d": {}})
        assert (await _next(cw, "error"))["d"]["code"] == "bad_request"
    finally:
        for comm in (cw, cb, cs):
            await comm.disconnect()
    after = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert after.moves == ["32-28", "19-23"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.embedded
async def test_rating_change_reaches_players_and_spectators(guest_factory: Any) -> None:
    def make() -> tuple[Player, Player, Game]:
        alice, bob = account(guest_factory, "ws-alice"), account(guest_factory, "ws-bob")
        game = game_create(creator=alice, opponent=bob, ruleset="international",
                           color="white", rated=True)
        opening(game, alice, bob, plies=2)
        return alice, bob, game

    alice, bob, game = await database_sync_to_async(make)()
    bob_user = await database_sync_to_async(lambda: bob.user)()
    cb = await _connect(game, bob, user=bob_user)
    cs = await _connect(game, None)
    try:
        for comm in (cb, cs):
            assert (await _next(comm, "state"))["d"]["ratings"] is None
        await cb.send_json_to({"t": "resign", "d": {}})
        ends = [await _next(comm, "end") for comm in (cb, cs)]
        for end in ends:
            ratings = end["d"]["ratings"]
            assert ratings["white"]["delta"] > 0 > ratings["black"]["delta"]
            assert ratings["black"]["after"] == ratings["black"]["before"] + \
                ratings["black"]["delta"]
        await cs.send_json_to({"t": "resync", "d": {}})  # as a reloaded page sees it
        state = await _next(cs, "state")
        assert state["d"]["ratings"] == ends[0]["d"]["ratings"]
    finally:
        await cb.disconnect()
        await cs.disconnect()
