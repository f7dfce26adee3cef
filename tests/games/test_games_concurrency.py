"""200 concurrent submissions of the same move: applied exactly once (PostgreSQL)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection

from kondavo.games.errors import GameError
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
    barrier = threading.Barrier(THREADS)
    outcomes: list[str] = []
    lock = threading.Lock()

    def submit() -> None:
        from django.db import connection as conn

        try:
            barrier.wait()
            for _ in range(PER_THREAD):
                try:
                    game_play_move(game_id=game.id, player=white, ply=0, move_text="32-28")
                    result = "ok"
                except GameError as exc:
                    result = exc.code
                with lock:
                    outcomes.append(result)
        finally:
            conn.close()

    threads = [threading.Thread(target=submit) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(outcomes) == THREADS * PER_THREAD
    assert Counter(outcomes) == {"ok": 1, "stale_ply": THREADS * PER_THREAD - 1}
    game.refresh_from_db()
    assert game.moves == ["32-28"] and game.ply == 1 and game.version == 1
    assert 0 < (game.white_ms or 0) <= 303_000
