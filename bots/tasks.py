"""Bot tasks. ``bot_move_play`` plays the bot's move in a game through the games services;
``analysis_eval`` answers one analysis board request (queue ``analysis``, its own worker).

The move choice is ``choose_bot_move``: ``bots.engine.choose_move`` at the bot seat's level,
seeded from (game id, ply) so a retried task picks the same move. The engine's time per move
comes from the optional setting ``KONDAVO_BOT_MOVE_TIME`` (seconds for level 8, default 1.0,
capped well below the task's soft time limit); in a timed game the bot's clock (time left and
increment) is passed on and the engine spends a safe share of it (``bots.engine.timing``). The
engine itself never imports Django.
"""

from __future__ import annotations

import logging
import zlib
from typing import TYPE_CHECKING, Any

from celery import shared_task

from bots.engine import Clock, EngineConfig, choose_move
from variants import GameRecord, Move, Variant, get_variant

if TYPE_CHECKING:
    from kondavo.games.models import Game

log = logging.getLogger(__name__)


# The engine's deadline is at most MAX_MOVE_TIME; the task's limits are a safety net above it.
# The broker's visibility timeout (CELERY_VISIBILITY_TIMEOUT, default 120 s) must stay above
# TIME_LIMIT, or a search still running is delivered to a second worker. A message lost with
# a killed worker is asked for again by games.tasks.bot_move_sweep (KONDAVO_BOT_STALL_SECONDS).
MAX_MOVE_TIME = 20.0
SOFT_TIME_LIMIT = 60
TIME_LIMIT = 90


def engine_config() -> EngineConfig:
    """The engine's deployment knobs, read from Django settings (the settings hook)."""
    from django.conf import settings

    move_time = min(max(float(getattr(settings, "KONDAVO_BOT_MOVE_TIME", 1.0)), 0.01),
                    MAX_MOVE_TIME)
    # In a timed game the clock may let the top level think up to half as long again.
    return EngineConfig(move_time=move_time, max_move_time=min(1.5 * move_time, MAX_MOVE_TIME))


def choose_bot_move(variant: Variant, record: GameRecord, level: int,
                    seed: int | None = None, clock: Clock | None = None) -> Move:
    """The bot's move (a ``variants.Move``) in ``record``'s current position; ``clock``
    (the bot's time left and increment in a timed game) bounds its thinking time."""
    return choose_move(variant, record, level=level, seed=seed, config=engine_config(),
                       clock=clock)


def bot_clock(game: Game, side: str) -> Clock | None:
    """The bot's clock in ``game`` (None when untimed)."""
    from kondavo.games.clock import now
    from kondavo.games.selectors import clock_remaining

    remaining = clock_remaining(game, side, now())
    if remaining is None:
        return None
    return Clock(remaining=remaining / 1000, increment=game.clock_increment_ms / 1000)


@shared_task(name="bots.tasks.bot_move_play", ignore_result=True, acks_late=True,
             reject_on_worker_lost=True, soft_time_limit=SOFT_TIME_LIMIT,
             time_limit=TIME_LIMIT)
def bot_move_play(game_id: str, expected_ply: int) -> bool:
    """Play the bot's move at ``expected_ply``. Idempotent: returns False and changes
    nothing when the game moved on, ended, or it is not a bot's turn."""
    from kondavo.games.errors import GameError
    from kondavo.games.history import resume_record
    from kondavo.games.models import Game
    from kondavo.games.selectors import game_record, turn_of
    from kondavo.games.services import game_flag_if_expired, game_play_move

    game_flag_if_expired(game_id=game_id)
    game = Game.objects.select_related("white", "black").filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.ply != expected_ply:
        return False
    side = turn_of(game)
    bot = game.player_of(side)
    if bot is None or not bot.is_bot:
        return False
    variant = get_variant(game.ruleset)
    # The position and its repetition history as stored on the row (no replay); a row
    # written without them is replayed once.
    record = (resume_record(variant, game.fen, game.quiet_plies, game.repetition)
              or game_record(game))
    if not record.legal_moves():
        return False
    move = choose_bot_move(variant, record, bot.bot_level or 1,
                           seed=zlib.crc32(f"{game_id}:{expected_ply}".encode()),
                           clock=bot_clock(game, side))
    try:
        game_play_move(game_id=game_id, player=bot, ply=expected_ply, move=move)
    except GameError as exc:  # lost a race (resign, flag, ...): nothing to do
        log.info("bot move in %s at ply %s refused: %s", game_id, expected_ply, exc.code)
        return False
    return True


# One analysis search takes at most bots.analysis.REQUEST_MAX_TIME (1 s) plus the replay of
# the moves; the limits only catch a runaway.
ANALYSIS_SOFT_TIME_LIMIT = 10
ANALYSIS_TIME_LIMIT = 15


@shared_task(name="bots.tasks.analysis_eval", acks_late=True, reject_on_worker_lost=True,
             soft_time_limit=ANALYSIS_SOFT_TIME_LIMIT, time_limit=ANALYSIS_TIME_LIMIT)
def analysis_eval(ruleset: str, fen: str, moves: list[str], depth: int,
                  time_limit: float) -> dict[str, Any]:
    """The engine's evaluation and best line of the position after ``moves`` (notations)
    from ``fen``: ``bots.analysis.analyse_request``'s JSON-ready answer, or
    ``{"error": {"code": "bad_request", "message": ...}}`` for unusable input. Plain data in
    and out, no database: a redelivered message is simply searched again. The web view
    sends it with an expiry (``expires``), so a request whose visitor stopped waiting is
    dropped by the worker instead of searched."""
    from bots.analysis import AnalysisRequestError, analyse_request, lower_priority_once

    lower_priority_once()
    try:
        return analyse_request(ruleset=ruleset, fen=fen, moves=moves, depth=depth,
                               time_limit=time_limit)
    except AnalysisRequestError as exc:
        return {"error": {"code": "bad_request", "message": str(exc)}}
