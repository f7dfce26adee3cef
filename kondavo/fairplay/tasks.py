"""Fair-play Celery tasks (queue ``analysis``: routed in the settings)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="kondavo.fairplay.tasks.engine_signal", acks_late=True,
             reject_on_worker_lost=True, soft_time_limit=300, time_limit=330)
def engine_signal(game_id: str) -> int:
    """The engine-use signal of one finished rated game (by id; idempotent: one row per
    game and player, replaced). Returns how many players were signalled."""
    from kondavo.fairplay.services import engine_signal_compute

    return len(engine_signal_compute(game_id=str(game_id)))
