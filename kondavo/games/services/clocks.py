"""Game clocks and deadlines: the side to move's clock, the first-move deadline, flagging.

No clock runs before each side's first move (``ply`` < 2); instead a human to move has
``KONDAVO_FIRST_MOVE_SECONDS`` (30 s) to make it, or the game is aborted, unrated. Both
deadlines are ``flag_at`` and are found the same ways (below).

Stored remaining milliseconds per side, as of ``turn_started_at`` for the side to move;
``flag_at`` (indexed) is when the running clock reaches zero. A flag is detected

- on every access: ``game_flag_if_expired`` is called by each move and game socket action,
  on connect, on ``resync`` and ``flag`` frames (the game page sends ``flag`` when its own
  display of the running clock reaches zero), by ``state.json`` and by the bot task;
- without any client, with a Celery worker: by the periodic ``games.tasks.game_flag_sweep``
  (Celery beat, every ``KONDAVO_FLAG_SWEEP_SECONDS``, default 2 s: one indexed query for
  active games past ``flag_at``). No per-game countdown task is scheduled: a worker holds an
  ETA task unacked until it runs, which would force the broker's visibility timeout above
  the longest clock;
- without any client, in the embedded mode (eager Celery, no beat): by an in-process timer
  scheduled on commit for ``flag_at`` (``background.run_later``): every write that may move
  ``flag_at`` saves through ``save`` here, which re-arms it.

Layering: this module imports only ``store`` among the services; the other services build
on both.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import background, clock, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.selectors import clock_remaining, clock_running, turn_of
from kondavo.games.services.store import ALL_FIELDS, GameWrite, other


def first_move_seconds() -> float:
    """How long each side has for its first move before the game is aborted."""
    return float(getattr(settings, "KONDAVO_FIRST_MOVE_SECONDS", 30.0))


def start(write: GameWrite) -> None:
    """Start the turn of the side to move at ``write.now``: sets ``turn_started_at`` and
    ``flag_at`` (the deadline the sweeps look for).

    Before each side's first move (``ply`` < 2) no clock runs; a human to move then has
    ``first_move_seconds()`` before the game is aborted (a bot is never hurried: the bot
    move sweep asks again when it stalls). From the second side's first move on, the clock
    of the side to move runs (timed games) and ``flag_at`` is when it reaches zero."""
    game, now = write.game, write.now
    game.turn_started_at = None
    game.flag_at = None
    if game.status != Game.Status.ACTIVE:
        return
    if game.ply < 2:
        if write.kinds.get(turn_of(game)) != Player.Kind.BOT:
            game.turn_started_at = now
            game.flag_at = now + timedelta(seconds=first_move_seconds())
        return
    if not game.timed:
        return
    game.turn_started_at = now
    remaining = game.white_ms if turn_of(game) == "white" else game.black_ms
    game.flag_at = now + timedelta(milliseconds=max(remaining or 0, 0))


def stop(game: Game, now: datetime) -> None:
    if game.timed and game.turn_started_at is not None:
        side = clock_running(game)
        if side is not None:
            left = max(clock_remaining(game, side, now) or 0, 0)
            setattr(game, f"{side}_ms", left)
    game.turn_started_at = None
    game.flag_at = None


def abort(write: GameWrite, *, reason: str, side: str | None) -> None:
    """End the game without a result, unrated (publishes ``end`` with ``result: null`` and
    ``abort: {reason, side}``; ``reason`` is kept: ``no_first_move`` or ``by_player``)."""
    game = write.game
    stop(game, write.now)
    game.status = Game.Status.ABORTED
    game.reason = reason
    game.finished = write.now
    game.draw_offer = None
    write.add("end", wire.abort_event(game, reason=reason, side=side))


def finish(write: GameWrite, *, winner: str | None, reason: str) -> None:
    """End the game with a result (publishes ``end``)."""
    game, now = write.game, write.now
    stop(game, now)
    game.status = Game.Status.FINISHED
    game.winner = winner
    game.reason = reason
    game.finished = now
    game.draw_offer = None
    write.add("end", wire.end_event(game))


def flag_locked(write: GameWrite) -> bool:
    """End the (locked) game if the side to move is past its deadline: on time when its
    clock has run out, aborted when it has not made its first move in time. Saves if so."""
    game = write.game
    if game.status != Game.Status.ACTIVE or game.flag_at is None or game.flag_at > write.now:
        return False
    side = turn_of(game)
    if game.ply < 2:
        abort(write, reason=str(Game.Reason.NO_FIRST_MOVE), side=side)
        write.save()
        return True
    if clock_running(game) is None:
        return False
    left = clock_remaining(game, side, write.now)
    if left is None or left > 0:
        return False
    finish(write, winner=other(side), reason=str(Game.Reason.TIMEOUT))
    setattr(game, f"{side}_ms", 0)
    write.save()
    return True


def save(write: GameWrite, *, fields: tuple[str, ...] = ALL_FIELDS,
         new_turn: bool = False) -> None:
    """``write.save`` for a write that may have moved ``flag_at`` (a move, a start, a
    takeback, an abort): also re-arms the embedded mode's flag timer on commit."""
    write.save(fields=fields, new_turn=new_turn)
    schedule_on_commit(write.game, write.now)


def game_flag_if_expired(*, game_id: str, now: datetime | None = None) -> bool:
    """End the game on time if the running clock has run out. True if it did so now."""
    now = clock.resolve(now)
    flag_at = (Game.objects.filter(pk=str(game_id)[:12], status=Game.Status.ACTIVE)
               .values_list("flag_at", flat=True).first())
    if flag_at is None or flag_at > now:
        return False
    with transaction.atomic():
        try:
            write = GameWrite.lock(game_id, now)
        except GameError:
            return False
        return flag_locked(write)


def schedule_flag_check(game_id: str, delay: float) -> None:
    """Embedded mode only (eager Celery, no beat): check the game's clock in this process
    when it would run out, even with no client connected. With a Celery worker nothing is
    scheduled: the beat's ``game_flag_sweep`` finds the game."""
    if not getattr(settings, "KONDAVO_FLAG_TIMERS", True):
        return
    if not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    background.run_later(flag_check, game_id, delay=max(delay, 0.0) + 0.05)


def flag_check(game_id: str) -> bool:
    """The embedded timer's job: check one game's clock (idempotent: nothing happens if a
    move restarted the clock or the game is over)."""
    return game_flag_if_expired(game_id=game_id)


def schedule_on_commit(game: Game, now: datetime) -> None:
    """After a clock change: the embedded mode's timer for the new ``flag_at``."""
    if game.flag_at is not None and game.status == Game.Status.ACTIVE:
        delay = (game.flag_at - now).total_seconds()
        transaction.on_commit(partial(schedule_flag_check, game.id, delay))
