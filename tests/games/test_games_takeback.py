"""Takeback against the computer (casual games only), against the real database."""

from __future__ import annotations

from typing import Any

import pytest

from kondavo.games import selectors
from kondavo.games.errors import GameError
from kondavo.games.models import Game
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

    game = game_takeback(game_id=game.id, player=me)
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
        game_takeback(game_id=game.id, player=me)  # nothing played yet
    assert err.value.code == "not_allowed"
    game_play_move(game_id=game.id, player=me, ply=0, move_text="32-28")
    with pytest.raises(GameError) as err:
        game_takeback(game_id=game.id, player=me)  # the computer is to move
    assert err.value.code == "not_allowed"
    with pytest.raises(GameError) as err:
        game_takeback(game_id=game.id, player=friend)  # not a player of this game
    assert err.value.code == "not_a_player"
    assert Game.objects.get(pk=game.id).moves == ["32-28"]

    human = game_create(creator=me, opponent=friend, ruleset="international", color="white")
    game_play_move(game_id=human.id, player=me, ply=0, move_text="32-28")
    game_play_move(game_id=human.id, player=friend, ply=1, move_text="19-23")
    with pytest.raises(GameError) as err:
        game_takeback(game_id=human.id, player=me)  # against a person: never
    assert err.value.code == "not_allowed"
    state = selectors.game_state(Game.objects.get(pk=human.id), me)
    assert state["takeback_allowed"] is False
    assert selectors.game_state(Game.objects.get(pk=game.id), me)["takeback_allowed"] is True


def test_a_rated_game_against_the_computer_has_no_takeback() -> None:
    assert selectors.takeback_allowed(rated=True, opponent_kind="bot") is False
    assert selectors.takeback_allowed(rated=False, opponent_kind="bot") is True
    assert selectors.takeback_allowed(rated=False, opponent_kind="guest") is False
