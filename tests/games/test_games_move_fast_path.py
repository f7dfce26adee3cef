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


# ----------------------------------------------------------------- the optimistic write
# Outside a caller's transaction (a socket's or the bot task's move), a move that does not
# end the game is read as committed and written by one version-guarded UPDATE: no BEGIN,
# no row lock, no COMMIT. (The tests above run inside pytest-django's transaction, so they
# see the locked path.)


def _statements(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries
            if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))]


@pytest.mark.embedded
@pytest.mark.django_db(transaction=True)
def test_a_plain_move_is_two_statements_without_a_transaction(guest_factory: Any,
                                                               fake_clock: Any) -> None:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    assert not connection.in_atomic_block
    with CaptureQueriesContext(connection) as ctx:
        game_play_move(game_id=game.id, player=white, ply=0, move_text="32-28")
    sql = _statements(ctx)
    assert [s.split()[0] for s in sql] == ["SELECT", "UPDATE"], sql
    assert "FOR UPDATE" not in sql[0]
    game.refresh_from_db()
    assert game.ply == 1 and game.version == 1 and game.moves == ["32-28"]


@pytest.mark.embedded
@pytest.mark.django_db(transaction=True)
def test_a_row_changed_after_the_read_is_written_again_under_the_lock(
        guest_factory: Any, fake_clock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two writers read the same version: exactly one gets through; the other is redone
    under the lock, sees the new row and gets the error the new row deserves."""
    from kondavo.games.errors import GameError
    from kondavo.games.services import store

    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    stale = store.select_row(game.id, lock=False)  # read before white's move lands
    game_play_move(game_id=game.id, player=white, ply=0, move_text="32-28")
    real = store.select_row
    monkeypatch.setattr(store, "select_row",
                        lambda game_id, *, lock: stale if not lock else real(game_id, lock=lock))
    with CaptureQueriesContext(connection) as ctx, pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=white, ply=0, move_text="31-27")
    assert err.value.code == "stale_ply"
    sql = [s for s in _statements(ctx) if not s.upper().startswith(("BEGIN", "COMMIT", "ROLLBACK"))]
    assert sql[0].startswith("UPDATE"), sql  # the stale write, refused by its version guard
    assert sql[1].startswith("SELECT"), sql  # then the locked read
    assert ("FOR UPDATE" in sql[1]) == connection.features.has_select_for_update
    game.refresh_from_db()
    assert game.moves == ["32-28"] and game.version == 1  # the stale write left no trace


@pytest.mark.embedded
@pytest.mark.django_db(transaction=True)
def test_a_move_past_the_clock_is_flagged_under_the_lock(guest_factory: Any,
                                                         fake_clock: Any) -> None:
    from kondavo.games.errors import GameError

    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    game_play_move(game_id=game.id, player=white, ply=0, move_text="32-28")
    game_play_move(game_id=game.id, player=black, ply=1, move_text="19-23")
    fake_clock.advance(6 * 60)  # white's clock ran out
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=white, ply=2, move_text="28x19")
    assert err.value.code == "game_over"
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == "black"
    assert game.reason == Game.Reason.TIMEOUT and game.moves == ["32-28", "19-23"]
