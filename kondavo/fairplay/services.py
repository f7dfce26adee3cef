"""The fair-play app's one service layer (the rules are in ``rules``).

- ``rating_adjust``: called by ``rating.services.rating_apply_game`` with the Elo changes
  of a finished rated game; returns them weighted (same pair, provisional, short games).
- ``rated_allowed`` (the games app's rated check): the daily limit of rated games between
  the same two players; a game over it is casual and a ``CasualNote`` says why.
- ``check_start`` (the games app's start check): a player in a cool-down may not start or
  join a game against a person.
- ``on_game_finished`` (``game_finished`` receiver): records aborts, missing first moves and
  lost games left, starts cool-downs, and asks for the engine-use signal of a rated game.
- ``engine_signal_compute`` / ``engine_flag_update``: the engine-use signal (a Celery task
  on the ``analysis`` queue, ``tasks.engine_signal``) and the staff's flags.
- ``fair_play_state`` (a state extra): what the game page tells the players.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.fairplay import rules
from kondavo.fairplay.models import (
    CasualNote,
    Cooldown,
    EngineFlag,
    EngineSignal,
    Offence,
)
from kondavo.games.errors import GameError
from kondavo.games.hooks import runs_without_workers
from kondavo.games.models import Game

log = logging.getLogger(__name__)

DAY = timedelta(days=1)


def _pair(game: Game) -> Q:
    return (Q(white_id=game.white_id, black_id=game.black_id)
            | Q(white_id=game.black_id, black_id=game.white_id))


# --------------------------------------------------------------------------- ratings

def pair_rated_today(game: Game, now: datetime | None = None) -> int:
    """Rated games between ``game``'s two players started in the last 24 hours (finished or
    going on), ``game`` left out."""
    now = now or timezone.now()
    return (Game.objects.filter(_pair(game), rated=True, created__gte=now - DAY,
                                status__in=[Game.Status.ACTIVE, Game.Status.FINISHED])
            .exclude(pk=game.pk).count())


def rating_adjust(*, game: Game, white_games: int, black_games: int, white_delta: int,
                  black_delta: int) -> tuple[int, int]:
    """The Elo changes of a finished rated game, weighted by the rules."""
    if not getattr(settings, "KONDAVO_FAIRPLAY_RATING_RULES", True):
        return white_delta, black_delta
    now = game.finished or timezone.now()
    index = 1 + (Game.objects.filter(_pair(game), rated=True, status=Game.Status.FINISHED,
                                     finished__gte=now - DAY, finished__lte=now)
                 .exclude(pk=game.pk).count())
    w, b = rules.weights(
        white=rules.Seat(white_games, game.white.is_bot),
        black=rules.Seat(black_games, game.black.is_bot),
        pair_index=index, winner=game.winner, reason=game.reason, plies=game.ply)
    return rules.scaled(white_delta, w), rules.scaled(black_delta, b)


def pair_limit() -> int:
    return int(rules.setting("KONDAVO_FAIRPLAY_PAIR_RATED_PER_DAY", 10))


def rated_allowed(game: Game) -> bool:
    """Whether ``game`` (both seats taken, asked for as rated) stays rated."""
    limit = pair_limit()
    if limit <= 0 or game.white_id is None or game.black_id is None:
        return True
    if pair_rated_today(game) < limit:
        return True
    CasualNote.objects.update_or_create(game=game, defaults={
        "reason": CasualNote.Reason.PAIR_LIMIT, "limit": limit})
    return False


def fair_play_state(game: Game, viewer: Player | None) -> dict[str, Any] | None:
    """The ``fair_play`` part of the state: to a seated player of a game made casual, why."""
    if game.rated or game.side_of(viewer) is None or game.white_id is None \
            or game.black_id is None:
        return None
    note = CasualNote.objects.filter(game_id=game.pk).first()
    if note is None:
        return None
    return {"casual": note.reason, "limit": note.limit, "message": _(
        "This game is casual: you have already played %(n)d rated games against this "
        "opponent in the last 24 hours.") % {"n": note.limit}}


# --------------------------------------------------------------------------- cool-downs

def active_cooldown(player: Player, now: datetime | None = None) -> Cooldown | None:
    now = now or timezone.now()
    return Cooldown.objects.filter(player=player, until__gt=now).order_by("-until").first()


def _minutes(until: datetime, now: datetime) -> int:
    return max(1, int((until - now).total_seconds() + 59) // 60)


def check_start(*, player: Player, opponent: Player | None = None) -> None:
    """Refuse (``not_allowed``) a game against a person while either player cools down."""
    if player.is_bot or (opponent is not None and opponent.is_bot):
        return
    now = timezone.now()
    mine = active_cooldown(player, now)
    if mine is not None:
        raise GameError("not_allowed", _(
            "You aborted or left too many games recently: you can start or join a game "
            "against a person again in %(n)d minutes (games against the computer are open).")
            % {"n": _minutes(mine.until, now)})
    if opponent is not None:
        theirs = active_cooldown(opponent, now)
        if theirs is not None:
            raise GameError("not_allowed", _(
                "%(name)s aborted or left too many games recently and cannot play against "
                "people for %(n)d more minutes.") % {"name": opponent.name,
                                                    "n": _minutes(theirs.until, now)})


def _abort_side(frames: Iterable[tuple[str, Any]]) -> str | None:
    for t, d in frames:
        if t == "end" and isinstance(d, dict) and isinstance(d.get("abort"), dict):
            side = d["abort"].get("side")
            return side if side in ("white", "black") else None
    return None


def _offender(game: Game, frames: Iterable[tuple[str, Any]]) -> tuple[str, str] | None:
    """(side, kind) of the offence that ended ``game``, if any."""
    if game.status == Game.Status.ABORTED:
        if game.started is None:  # a friend link cancelled before anyone joined
            return None
        side = _abort_side(frames)
        if side is None:
            return None
        kind = Offence.Kind.NO_MOVE if game.reason == "no_first_move" else Offence.Kind.ABORT
        return side, kind
    if game.status == Game.Status.FINISHED and game.reason == "abandoned" and game.winner:
        return ("black" if game.winner == "white" else "white"), Offence.Kind.LEFT
    return None


def record_offence(*, player: Player, game: Game, kind: str,
                   now: datetime | None = None) -> Cooldown | None:
    """Record the offence; start a cool-down if it makes one due (returned)."""
    now = now or timezone.now()
    _offence, created = Offence.objects.get_or_create(
        player=player, game=game, defaults={"kind": kind, "created": now})
    if not created:
        return None
    last = Cooldown.objects.filter(player=player).order_by("-starts").first()
    since = last.starts if last is not None else None
    if kind == Offence.Kind.LEFT:
        count_kinds = [Offence.Kind.LEFT]
        threshold = int(rules.setting("KONDAVO_FAIRPLAY_LEFT", 2))
        window = rules.setting("KONDAVO_FAIRPLAY_LEFT_WINDOW_SECONDS", 86400)
    else:
        count_kinds = [Offence.Kind.ABORT, Offence.Kind.NO_MOVE]
        threshold = int(rules.setting("KONDAVO_FAIRPLAY_ABORTS", 3))
        window = rules.setting("KONDAVO_FAIRPLAY_ABORT_WINDOW_SECONDS", 3600)
    if threshold <= 0:
        return None
    start = now - timedelta(seconds=window)
    if since is not None and since > start:
        start = since
    recent = Offence.objects.filter(player=player, kind__in=count_kinds,
                                    created__gt=start).count()
    if recent < threshold:
        return None
    earlier = Cooldown.objects.filter(player=player, starts__gt=now - DAY).count()
    seconds = rules.cooldown_seconds(earlier)
    return Cooldown.objects.create(player=player, starts=now,
                                   until=now + timedelta(seconds=seconds), reason=kind,
                                   level=earlier + 1)


def on_game_finished(*, game: Game, frames: Iterable[tuple[str, Any]] = ()) -> None:
    """In the transaction that ended ``game``: offences and the engine-use signal. The
    players' rows are read only for an offence (most games end without one)."""
    if game.white_id is None or game.black_id is None:
        return
    found = _offender(game, frames)
    if found is not None:
        white, black = game.white, game.black
        if not white.is_bot and not black.is_bot:
            side, kind = found
            record_offence(player=white if side == "white" else black, game=game, kind=kind,
                           now=game.finished)
    if (game.status == Game.Status.FINISHED and game.rated
            and getattr(settings, "KONDAVO_FAIRPLAY_ENGINE_SIGNAL", True)):
        transaction.on_commit(partial(schedule_engine_signal, game.pk))


# --------------------------------------------------------------------------- engine use

def schedule_engine_signal(game_id: str) -> None:
    """After the commit: the engine-use signal on the ``analysis`` queue (on a server
    without workers, ``hooks.runs_without_workers``, in the analysis thread pool instead,
    never in the request)."""
    try:
        if runs_without_workers():
            from bots.analysis import background_pool

            background_pool().submit(_engine_signal_in_thread, game_id)
            return
        from kondavo.fairplay.tasks import engine_signal

        engine_signal.delay(game_id)
    except Exception:  # a broker outage: the game is over and rated already
        log.warning("engine-use signal for %s not requested", game_id, exc_info=True)


def _engine_signal_in_thread(game_id: str) -> None:
    close_old_connections()
    try:
        engine_signal_compute(game_id=game_id)
    except Exception:
        log.exception("engine-use signal for %s failed", game_id)
    finally:
        close_old_connections()


def engine_depth() -> int:
    return int(rules.setting("KONDAVO_FAIRPLAY_ENGINE_DEPTH", 6))


def engine_signal_compute(*, game_id: str) -> list[EngineSignal]:
    """For each human player of a finished rated game: of their moves after the opening
    (``KONDAVO_FAIRPLAY_ENGINE_SKIP_PLIES``) in positions with at least 3 legal moves, how
    many the engine's best move at ``KONDAVO_FAIRPLAY_ENGINE_DEPTH`` plies. Idempotent
    (one row per game and player, replaced)."""
    from bots.analysis import analyse
    from variants import Color, get_variant

    game = (Game.objects.select_related("white", "black")
            .filter(pk=game_id, status=Game.Status.FINISHED, rated=True).first())
    if game is None or game.white is None or game.black is None:
        return []
    variant = get_variant(game.ruleset)
    from kondavo.games.selectors import game_record

    record = game_record(game)
    skip = int(rules.setting("KONDAVO_FAIRPLAY_ENGINE_SKIP_PLIES", 8))
    depth = engine_depth()
    counts = {Color.WHITE: [0, 0], Color.BLACK: [0, 0]}
    position = record.start
    for ply, played in enumerate(record.moves):
        legal = variant.legal_moves(position)
        if ply >= skip and len(legal) >= 3 and ply < 240:
            best = analyse(variant, position, depth=depth, time_limit=1.0).best
            counts[position.turn][0] += 1
            counts[position.turn][1] += int(best == played.move)
        position = variant.apply(position, played.move)
    out = []
    for color, player in ((Color.WHITE, game.white), (Color.BLACK, game.black)):
        if player.is_bot:
            continue
        considered, matches = counts[color]
        signal, _created = EngineSignal.objects.update_or_create(
            game=game, player=player, defaults={"ruleset": game.ruleset,
                                                "considered": considered,
                                                "matches": matches, "depth": depth})
        out.append(signal)
        engine_flag_update(player=player)
    return out


def engine_flag_update(*, player: Player) -> EngineFlag | None:
    """Flag ``player`` for the staff when their last ``KONDAVO_FAIRPLAY_ENGINE_GAMES`` (5)
    signalled games hold at least ``KONDAVO_FAIRPLAY_ENGINE_MIN_MOVES`` (40) considered
    moves, of which at least ``KONDAVO_FAIRPLAY_ENGINE_THRESHOLD`` (0.9) matched the
    engine. Only a flag: the staff decide."""
    games = int(rules.setting("KONDAVO_FAIRPLAY_ENGINE_GAMES", 5))
    rows = list(EngineSignal.objects.filter(player=player).order_by("-id")[:games])
    if len(rows) < games:
        return None
    considered = sum(r.considered for r in rows)
    matches = sum(r.matches for r in rows)
    if considered < rules.setting("KONDAVO_FAIRPLAY_ENGINE_MIN_MOVES", 40):
        return None
    if matches / considered < rules.setting("KONDAVO_FAIRPLAY_ENGINE_THRESHOLD", 0.9):
        return None
    flag, _created = EngineFlag.objects.update_or_create(
        player=player, defaults={"games": len(rows), "considered": considered,
                                 "matches": matches})
    return flag


def engine_totals(player: Player) -> dict[str, int]:
    return EngineSignal.objects.filter(player=player).aggregate(
        considered=Sum("considered"), matches=Sum("matches"))
