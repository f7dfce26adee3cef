"""200 concurrent submissions of the same move: applied exactly once (PostgreSQL)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.db import connection
from game_races import race

from kondavo.games.services import game_create, game_play_move

THREADS = 100
PER_THREAD = 2  # 200 submissions (the test PostgreSQL allows 200 connections)


@pytest.mark.django_db(transaction=True)
def test_same_move_submitted_200_times_applies_once(guest_factory: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (SQLite serialises whole transactions)")
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    outcomes = race(lambda: game_play_move(game_id=game.id, player=white, ply=0,
                                           move_text="32-28"), THREADS, PER_THREAD)
    assert len(outcomes) == THREADS * PER_THREAD
    assert Counter(outcomes) == {"ok": 1, "stale_ply": THREADS * PER_THREAD - 1}
    game.refresh_from_db()
    assert game.moves == ["32-28"] and game.ply == 1 and game.version == 1
    assert 0 < (game.white_ms or 0) <= 303_000
