"""The move hot path: one locking SELECT and one version-guarded UPDATE (services/store.py),
on every database backend."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from kondavo.games.history import repetition_of
from kondavo.games.models import Game
from kondavo.games.selectors import game_record
from kondavo.games.services import game_create, game_create_vs_computer, game_play_move

pytestmark = pytest.mark.django_db

MOVES = ["32-28", "19-23", "28x19", "14x23"]


def _need_postgres() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the fast path is PostgreSQL only")


def _play(game_id: str, white: Any, black: Any) -> dict[str, Any]:
    for ply, move in enumerate(MOVES):
        game_play_move(game_id=game_id, player=white if ply % 2 == 0 else black, ply=ply,
                       move_text=move)
    return model_to_dict(Game.objects.get(pk=game_id))  # without id and created


def test_move_is_one_select_for_update_and_one_update(guest_factory: Any,
                                                      fake_clock: Any) -> None:
    _need_postgres()
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    with CaptureQueriesContext(connection) as ctx:
        game_play_move(game_id=game.id, player=white, ply=0, move_text="32-28")
    sql = [q["sql"] for q in ctx.captured_queries
           if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))]
    assert len(sql) == 2, sql
    assert "FOR UPDATE" in sql[0] and sql[1].startswith("UPDATE")
    game.refresh_from_db()
    assert game.ply == 1 and game.version == 1 and game.moves == ["32-28"]


@pytest.mark.embedded
def test_a_move_is_one_select_and_one_update_on_every_backend(guest_factory: Any,
                                                            fake_clock: Any) -> None:
    """The one save path: the same two statements on SQLite (no FOR UPDATE there)."""
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white")
    with CaptureQueriesContext(connection) as ctx:
        game_play_move(game_id=game.id, player=white, ply=0, move_text="32-28")
    sql = [q["sql"] for q in ctx.captured_queries
           if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE", "BEGIN"))]
    assert [s.split()[0] for s in sql] == ["SELECT", "UPDATE"], sql
    assert ("FOR UPDATE" in sql[0]) == connection.features.has_select_for_update


def test_stored_row_matches_a_replay_of_its_moves(guest_factory: Any,
                                                  fake_clock: Any) -> None:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", time_control="5+3")
    row = _play(game.id, white, black)
    record = game_record(Game.objects.get(pk=game.id))
    assert row["moves"] == record.notations == MOVES
    assert row["fen"] == record.variant.format_fen(record.position)
    assert row["quiet_plies"] == record.quiet_plies
    assert row["repetition"] == repetition_of(record)
    assert row["ply"] == 4 and row["version"] == 4


def test_fast_path_bot_turn(guest_factory: Any, fake_clock: Any,
                            recorded_side_effects: dict[str, list[Any]],
                            django_capture_on_commit_callbacks: Any) -> None:
    _need_postgres()
    human = guest_factory()
    game = game_create_vs_computer(player=human, ruleset="international", level=2,
                                   color="white")
    with django_capture_on_commit_callbacks(execute=True):
        game_play_move(game_id=game.id, player=human, ply=0, move_text="32-28")
    game.refresh_from_db()
    assert game.bot_turn_since == fake_clock.current
    assert recorded_side_effects["bot"][-1] == (game.id, 1)
