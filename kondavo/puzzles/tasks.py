"""Puzzle tasks (queue ``analysis``, routed in the settings: engine work)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="kondavo.puzzles.tasks.puzzles_from_game", acks_late=True,
             reject_on_worker_lost=True, soft_time_limit=90, time_limit=110)
def puzzles_from_game(game_id: str) -> int:
    """The puzzles of one finished game (by id; idempotent: a game is searched once).
    Returns how many puzzles it gave."""
    from kondavo.puzzles.services import game_puzzles_store

    return game_puzzles_store(game_id=str(game_id))
