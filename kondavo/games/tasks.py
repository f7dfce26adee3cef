"""Celery tasks of the games app: the clock checks that catch a flag with no client around."""

from __future__ import annotations

from celery import shared_task

from kondavo.games import clock


@shared_task(name="games.tasks.game_flag_check", ignore_result=True)
def game_flag_check(game_id: str) -> bool:
    """Scheduled (``countdown``) for when the running clock would reach zero. Idempotent:
    does nothing if a move restarted the clock or the game is over."""
    from kondavo.games.services import game_flag_if_expired

    return game_flag_if_expired(game_id=game_id)


@shared_task(name="games.tasks.game_flag_sweep", ignore_result=True)
def game_flag_sweep() -> int:
    """Safety net for lost checks (run it from Celery beat, e.g. every 10 s): flags every
    active game whose running clock is past zero. Returns how many it flagged."""
    from kondavo.games.models import Game
    from kondavo.games.services import game_flag_if_expired

    now = clock.now()
    ids = list(Game.objects.filter(status=Game.Status.ACTIVE, flag_at__lte=now)
               .values_list("pk", flat=True)[:1000])
    return sum(1 for game_id in ids if game_flag_if_expired(game_id=game_id, now=now))
