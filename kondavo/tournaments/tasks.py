"""Celery tasks of the tournaments app. Each takes ids and is idempotent.

- ``tournament_pair(tournament_id)``: one pairing run (the tournament's row is locked for
  the run: one at a time per tournament; it pairs whoever is free, so a repeat is harmless).
- ``tournament_result(game_id)``: score a finished tournament game (once).
- ``tournament_standings(tournament_id)``: compute, cache and send the standings (asked
  for by changes, at most once a second per tournament; the tick sends what is left).
- ``tournament_tick()`` (beat, ``KONDAVO_TOURNAMENT_TICK_SECONDS``): start the tournaments
  that are due, end the arenas whose time is up, and pair the running arenas (a lost
  request is made good within one tick), and send standings left dirty by a burst of
  changes. ``tournament_tick_one(id)``: the same for one
  (the embedded mode's timers).
- ``tournament_schedule()`` (beat, every 10 minutes): create the next hourly arenas of
  ``KONDAVO_TOURNAMENT_SCHEDULE`` (each has a unique key: creating it twice is a no-op).
"""

from __future__ import annotations

from celery import shared_task


@shared_task(name="tournaments.tasks.tournament_pair", ignore_result=True)
def tournament_pair(tournament_id: int) -> int:
    from kondavo.tournaments import services

    return services.tournament_pair(tournament_id=int(tournament_id))


@shared_task(name="tournaments.tasks.tournament_result", ignore_result=True)
def tournament_result(game_id: str) -> bool:
    from kondavo.tournaments import services

    return services.tournament_record_result(game_id=str(game_id))


@shared_task(name="tournaments.tasks.tournament_standings", ignore_result=True)
def tournament_standings(tournament_id: int) -> None:
    from kondavo.tournaments import services

    services.publish_standings(int(tournament_id))


@shared_task(name="tournaments.tasks.tournament_tick_one", ignore_result=True)
def tournament_tick_one(tournament_id: int) -> str:
    from kondavo.tournaments import services

    return services.tournament_tick(tournament_id=int(tournament_id))


@shared_task(name="tournaments.tasks.tournament_tick", ignore_result=True)
def tournament_tick() -> int:
    from kondavo.tournaments import services

    ids = services.due_tournaments()
    for tournament_id in ids:
        services.tournament_tick(tournament_id=tournament_id)
    services.flush_standings(services.running_tournaments())
    return len(ids)


@shared_task(name="tournaments.tasks.tournament_schedule", ignore_result=True)
def tournament_schedule() -> int:
    from kondavo.tournaments import services

    return services.schedule_upcoming()
