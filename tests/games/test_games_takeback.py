"""Takeback against the computer (casual games only), against the real database."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from game_races import race

from kondavo.accounts.services import GUEST_SESSION_KEY
from kondavo.games import selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.routing import websocket_urlpatterns
from kondavo.games.services import (
    game_create,
    game_create_vs_computer,
    game_play_move,
    game_takeback,
)

pytestmark = pytest.mark.django_db


def bot_game(guest: Any, **kwargs: Any) -> tuple[Game, Any]:
    game = game_create_vs_computer(player=guest, ruleset="international", level=1,
                                   color="white", time_control="5+3", **kwargs)
    return game, game.black


def test_takeback_returns_to_the_position_before_the_players_move(guest_factory: Any) -> None:
    me = guest_factory()
    game, bot = bot_game(me)
    start_fen = game.fen
    game_play_move(game_id=game.id, player=me, ply=0, move_text="32-28")
    game_play_move(game_id=game.id, player=bot, ply=1, move_text="19-23")
    game_play_move(game_id=game.id, player=me, ply=2, move_text="28x19")
    after_first = Game.objects.get(pk=game.id)
    game_play_move(game_id=game.id, player=bot, ply=3, move_text="14x23")
    before = Game.objects.get(pk=game.id)

    game = game_takeback(game_id=game.id, player=me, ply=4)
    row = Game.objects.get(pk=game.id)
    assert row.moves == ["32-28", "19-23"] and row.ply == 2
    assert row.fen != start_fen and row.fen == selectors.game_record(row).variant.format_fen(
        selectors.game_record(row).position)
    assert row.version == before.version + 1 and row.draw_offer is None
    assert row.status == Game.Status.ACTIVE and row.turn_started_at is not None
    assert row.white_ms is not None and row.white_ms <= after_first.white_ms + 3000
    # The move can be played again.
    game_play_move(game_id=game.id, player=me, ply=2, move_text="28x19")
    assert Game.objects.get(pk=game.id).moves == ["32-28", "19-23", "28x19"]


def test_takeback_is_refused_when_it_should_be(guest_factory: Any) -> None:
    me, friend = guest_factory(), guest_factory()
    game, bot = bot_game(me)
    with pytest.raises(GameError) as err:
        game_takeback(game_id=game.id, player=me, ply=0)  # nothing played yet
    assert err.value.code == "not_allowed"
    game_play_move(game_id=game.id, player=me, ply=0, move_text="32-28")
    with pytest.raises(GameError) as err:
        game_takeback(game_id=game.id, player=me, ply=1)  # the computer is to move
    assert err.value.code == "not_allowed"
    with pytest.raises(GameError) as err:
        game_takeback(game_id=game.id, player=friend, ply=1)  # not a player of this game
    assert err.value.code == "not_a_player"
    assert Game.objects.get(pk=game.id).moves == ["32-28"]

    human = game_create(creator=me, opponent=friend, ruleset="international", color="white")
    game_play_move(game_id=human.id, player=me, ply=0, move_text="32-28")
    game_play_move(game_id=human.id, player=friend, ply=1, move_text="19-23")
    with pytest.raises(GameError) as err:
        game_takeback(game_id=human.id, player=me, ply=2)  # against a person: never
    assert err.value.code == "not_allowed"
    state = wire.game_state(Game.objects.get(pk=human.id), me)
    assert state["takeback_allowed"] is False
    assert wire.game_state(Game.objects.get(pk=game.id), me)["takeback_allowed"] is True


def test_a_rated_game_against_the_computer_has_no_takeback() -> None:
    assert selectors.takeback_allowed(rated=True, opponent_kind="bot") is False
    assert selectors.takeback_allowed(rated=False, opponent_kind="bot") is True
    assert selectors.takeback_allowed(rated=False, opponent_kind="guest") is False


def _played_to_ply_4(me: Any, bot: Any, game: Game) -> None:
    game_play_move(game_id=game.id, player=me, ply=0, move_text="32-28")
    game_play_move(game_id=game.id, player=bot, ply=1, move_text="19-23")
    game_play_move(game_id=game.id, player=me, ply=2, move_text="28x19")
    game_play_move(game_id=game.id, player=bot, ply=3, move_text="14x23")


def test_the_same_takeback_twice_takes_back_one_turn(guest_factory: Any) -> None:
    me = guest_factory()
    game, bot = bot_game(me)
    _played_to_ply_4(me, bot, game)
    assert game_takeback(game_id=game.id, player=me, ply=4).ply == 2
    version = Game.objects.get(pk=game.id).version
    with pytest.raises(GameError) as err:
        game_takeback(game_id=game.id, player=me, ply=4)  # the same frame again
    assert err.value.code == "stale_ply"
    row = Game.objects.get(pk=game.id)
    assert row.moves == ["32-28", "19-23"] and row.ply == 2 and row.version == version
    for bad in (-1, "4", None, True, 2.0):
        with pytest.raises(GameError) as err:
            game_takeback(game_id=game.id, player=me, ply=bad)  # type: ignore[arg-type]
        assert err.value.code == "bad_request"
    assert Game.objects.get(pk=game.id).version == version


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_concurrent_takebacks_of_one_ply_take_back_one_turn(guest_factory: Any) -> None:
    """20 threads send the same takeback at once: the row lock and the ply check let one
    through (PostgreSQL row locks)."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (SQLite serialises whole transactions)")
    me = guest_factory()
    game, bot = bot_game(me)
    _played_to_ply_4(me, bot, game)
    threads = 20
    outcomes = race(lambda: game_takeback(game_id=game.id, player=me, ply=4), threads)
    assert Counter(outcomes) == {"ok": 1, "stale_ply": threads - 1}
    row = Game.objects.get(pk=game.id)
    assert row.moves == ["32-28", "19-23"] and row.ply == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.embedded
async def test_two_takeback_frames_at_once_over_a_socket(guest_factory: Any) -> None:
    """Two identical ``takeback`` frames sent back to back: one ``takeback`` event, one
    ``stale_ply`` error, and exactly one turn taken back."""
    def make() -> tuple[Any, Game]:
        me = guest_factory()
        game, bot = bot_game(me)
        _played_to_ply_4(me, bot, game)
        return me, game

    me, game = await database_sync_to_async(make)()
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/game/{game.id}/")
    comm.scope["user"] = AnonymousUser()
    comm.scope["session"] = {GUEST_SESSION_KEY: me.guest_key}
    assert (await comm.connect(timeout=5))[0]
    try:
        frames = []
        while not frames or frames[-1]["t"] != "state":
            frames.append(await comm.receive_json_from(timeout=5))
        assert frames[-1]["d"]["ply"] == 4
        await comm.send_json_to({"t": "takeback", "d": {"ply": 4}})
        await comm.send_json_to({"t": "takeback", "d": {"ply": 4}})
        got: list[dict[str, Any]] = []
        while len([f for f in got if f["t"] in ("takeback", "error")]) < 2:
            frame = await comm.receive_json_from(timeout=5)
            if frame["t"] != "presence":
                got.append(frame)
        by_type = {f["t"]: f for f in got}  # the event comes through the channel layer
        assert sorted(f["t"] for f in got) == ["error", "takeback"]
        assert by_type["takeback"]["d"] == {"ply": 2, "by": "white"}
        assert by_type["error"]["d"]["code"] == "stale_ply"
        await comm.send_json_to({"t": "takeback", "d": {}})
        frame = await comm.receive_json_from(timeout=5)
        while frame["t"] == "presence":
            frame = await comm.receive_json_from(timeout=5)
        assert frame["t"] == "error" and frame["d"]["code"] == "bad_request"
        assert await comm.receive_nothing(timeout=0.2)
    finally:
        await comm.disconnect()
    row = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert row.moves == ["32-28", "19-23"] and row.ply == 2
