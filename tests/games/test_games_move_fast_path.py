"""The move hot path on PostgreSQL: one locking SELECT and one ply-guarded UPDATE, writing
exactly what the ORM path writes (services.py, "move fast path")."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from kondavo.games import services
from kondavo.games.models import Game
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


def test_fast_path_writes_what_the_orm_path_writes(guest_factory: Any, fake_clock: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _need_postgres()
    white, black = guest_factory(), guest_factory()
    fast = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", time_control="5+3")
    slow = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", time_control="5+3")
    fast_row = _play(fast.id, white, black)
    monkeypatch.setattr(services, "_fast_connection", lambda: None)
    slow_row = _play(slow.id, white, black)
    assert fast_row == slow_row


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
