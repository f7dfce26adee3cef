"""The one seam between the games app and the bots: ``request_bot_move``.

The games services call it on commit whenever a bot is to move in an active game. With a
Celery worker (REDIS_URL set) it enqueues ``bots.tasks.bot_move_play`` on the ``bots``
queue; in the embedded mode (``KONDAVO_BOT_INPROCESS``) it runs the same task code in this
process, in a worker thread started from the event loop, so Daphne never blocks on a search.
"""

from __future__ import annotations

from django.conf import settings


def request_bot_move(game_id: str, expected_ply: int) -> None:
    from bots import tasks

    if getattr(settings, "KONDAVO_BOT_INPROCESS", False):
        from kondavo.games.background import run_later

        run_later(tasks.bot_move_play, game_id, expected_ply)
    else:
        tasks.bot_move_play.delay(game_id, expected_ply)
