"""The one seam between the games app and the bots: ``request_bot_move``.

The games services call it on commit whenever a bot is to move in an active game. With a
Celery worker (REDIS_URL set) it enqueues ``bots.tasks.bot_move_play``: levels up to
``KONDAVO_BOT_FAST_MAX_LEVEL`` (cheap searches) on the ``bots-fast`` queue, the others on
``bots``. A worker of its own serves ``bots-fast`` (docker-compose.yml), so a low level's
reply never waits behind a queue of deep searches. In the embedded mode
(``KONDAVO_BOT_INPROCESS``) it runs the same task code in this process, in a worker thread
started from the event loop, so Daphne never blocks on a search.
"""

from __future__ import annotations

from django.conf import settings


def request_bot_move(game_id: str, expected_ply: int) -> None:
    from bots import tasks

    if getattr(settings, "KONDAVO_BOT_INPROCESS", False):
        from kondavo.games.background import run_later

        run_later(tasks.bot_move_play, game_id, expected_ply)
    else:
        tasks.bot_move_play.apply_async((game_id, expected_ply),
                                        queue=bot_queue(bot_level_of(game_id)))


FAST_QUEUE = "bots-fast"
SLOW_QUEUE = "bots"


def bot_queue(level: int | None) -> str:
    """The queue for a search at ``level``: ``bots-fast`` up to ``KONDAVO_BOT_FAST_MAX_LEVEL``."""
    fast_max = int(getattr(settings, "KONDAVO_BOT_FAST_MAX_LEVEL", 4))
    return FAST_QUEUE if level is not None and level <= fast_max else SLOW_QUEUE


def bot_level_of(game_id: str) -> int | None:
    """The level of the bot seated in ``game_id`` (one indexed read), or None."""
    from kondavo.games.models import Game

    row = Game.objects.filter(pk=game_id).values_list(
        "white__bot_level", "black__bot_level").first()
    if row is None:
        return None
    return row[0] if row[0] is not None else row[1]
