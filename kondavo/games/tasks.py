"""Celery tasks of the games app: the periodic sweeps run by Celery beat (see
``CELERY_BEAT_SCHEDULE`` in kondavo/settings/base.py) and the embedded mode's clock check.

- ``game_flag_sweep`` flags every active game whose running clock is past zero: with a worker
  it is what ends a game on time when no client is around (every 2 s by default).
- ``bot_move_sweep`` asks again for bot moves that are overdue (a worker killed mid-search
  loses its message until the broker's visibility timeout).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings

from kondavo.games import clock

log = logging.getLogger(__name__)

SWEEP_LIMIT = 1000


@shared_task(name="games.tasks.game_flag_check", ignore_result=True)
def game_flag_check(game_id: str) -> bool:
    """Check one game's clock. Idempotent: does nothing if a move restarted the clock or the
    game is over. Called by the embedded mode's in-process timer (no longer sent to a worker
    with a ``countdown``; kept as a task for messages sent by earlier versions)."""
    from kondavo.games.services.clocks import game_flag_if_expired

    return game_flag_if_expired(game_id=game_id)


@shared_task(name="games.tasks.game_flag_sweep", ignore_result=True)
def game_flag_sweep() -> int:
    """Flag every active game whose running clock is past zero (one indexed query on
    ``flag_at``; then each such game is locked and checked). Returns how many it flagged."""
    from kondavo.games.models import Game
    from kondavo.games.services.clocks import game_flag_if_expired

    now = clock.now()
    ids = list(Game.objects.filter(status=Game.Status.ACTIVE, flag_at__lte=now)
               .order_by().values_list("pk", flat=True)[:SWEEP_LIMIT])
    return sum(1 for game_id in ids if game_flag_if_expired(game_id=game_id, now=now))


def bot_stall_seconds() -> float:
    """How long a bot may take before its move is asked for again (above its thinking time
    plus a worker's queueing delay; setting ``KONDAVO_BOT_STALL_SECONDS``)."""
    return float(getattr(settings, "KONDAVO_BOT_STALL_SECONDS", 30.0))


@shared_task(name="games.tasks.bot_move_sweep", ignore_result=True)
def bot_move_sweep() -> int:
    """Ask again (``hooks.request_bot_move``) for the move of every active game where a
    bot has been to move for more than ``bot_stall_seconds()``. Returns how many it asked.

    Each game is claimed first (``bot_turn_since`` moved to now, only if unchanged), so
    overlapping sweeps ask once, and a game is asked again at most once per stall period.
    Asking twice is harmless anyway: ``bot_move_play(game_id, expected_ply)`` plays nothing
    when the game is no longer at that ply, and the move goes through ``game_play_move``,
    which locks the row and checks the ply.
    """
    from kondavo.games import hooks
    from kondavo.games.models import Game

    now = clock.now()
    cutoff = now - timedelta(seconds=bot_stall_seconds())
    rows = list(Game.objects.filter(status=Game.Status.ACTIVE, bot_turn_since__lte=cutoff)
                .order_by().values_list("pk", "ply", "bot_turn_since")[:SWEEP_LIMIT])
    asked = 0
    for game_id, ply, since in rows:
        claimed = (Game.objects
                   .filter(pk=game_id, status=Game.Status.ACTIVE, ply=ply, bot_turn_since=since)
                   .update(bot_turn_since=now))
        if not claimed:
            continue  # the bot moved, the game ended, or another sweep took it
        log.warning("bot move in %s at ply %s overdue since %s: asking again",
                    game_id, ply, since.isoformat())
        hooks.request_bot_move(game_id, ply)
        asked += 1
    return asked


@shared_task(name="games.tasks.seek_expire_sweep", ignore_result=True)
def seek_expire_sweep() -> int:
    """Cancel open seeks older than ``KONDAVO_SEEK_TTL_SECONDS`` and tell the lobby (listing
    and accepting already ignore them). Returns how many it cancelled."""
    from kondavo.games.services.lobby import seek_expire

    return seek_expire()


@shared_task(name="games.tasks.challenge_expire_sweep", ignore_result=True)
def challenge_expire_sweep() -> int:
    """Expire the pending challenges past their time and tell both players (accepting
    already refuses them). Idempotent. Returns how many it expired."""
    from kondavo.games.services.challenge import challenge_expire

    return challenge_expire()
