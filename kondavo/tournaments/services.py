"""The tournaments app's one service layer: create, join, withdraw, pause, berserk, start,
pair, record a game's result, finish; the scheduled arenas; the reads of the pages and
the payloads of the tournament socket (shaped by ``kondavo.games.wire``).

Where the work runs:

- Pairing (``tournament_pair``) runs in a Celery task (``tasks.tournament_pair``, by id),
  never in a web process's event loop: a join, a result or the beat's tick asks for it on
  commit. It locks the tournament's row (``select_for_update``) for its whole run, so one
  pairing run per tournament goes at a time, and it pairs whoever is free when it runs, so a
  repeated run is harmless (idempotent). In the embedded mode eager Celery runs it in the
  thread that committed (a view's or a socket call's worker thread, never the loop).
- A game's result reaches ``on_game_finished`` through the games app's ``game_finished``
  hook, inside the game's transaction: it only looks the game up (one indexed query) and
  asks for ``tasks.tournament_result`` on commit, so a tournament never holds up the
  game's own write. ``tournament_record_result`` is idempotent (a pairing with a result
  is left alone).
- Standings are not computed per change: a change marks them dirty (a cache key) and asks
  for ``tasks.tournament_standings`` at most once per ``KONDAVO_PRESENCE_PUBLISH_SECONDS``
  (1 s) per tournament (``cache.add`` of a short-lived key; no countdown: tasks
  never wait in a worker). The task reads every change committed before it, keeps the
  payload in the cache and sends one ``standings`` frame on the bus group
  ``tournament.<id>`` (coalesced again per process), and runs again while changes keep
  marking them dirty; a change left dirty at the end of a burst goes out with the beat's
  next tick (``tournament_tick``, 5 s).
  A socket's snapshot (``tournament`` frame) reads that cached payload, so a crowd opening
  the page costs one computation, not one per socket. A player's own ``me`` frame (its rank
  by one ``COUNT``) and "your game starts" go to the same group with the player's id, and
  each socket keeps only its own.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.games import events, hooks, selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.moderation import offered_variants, require_offered
from kondavo.games.services import game_create
from kondavo.games.services.store import GameWrite
from kondavo.games.timecontrols import get_time_control
from kondavo.tournaments import arena, roundrobin, strings, swiss
from kondavo.tournaments.models import Entry, Pairing, Tournament
from variants import VariantError, get_variant

log = logging.getLogger(__name__)

STANDINGS_SHOWN = 50  # rows in a standings frame (the page asks for more over HTTP)
SHEET_SHOWN = 20  # the latest games of each row's sheet
NAME_MAX = 80


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


def _eager() -> bool:
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False))


def _tasks() -> Any:
    from kondavo.tournaments import tasks

    return tasks


def request_pairing(tournament_id: int) -> None:
    """After the commit: a pairing run for the tournament (a Celery task by id)."""
    transaction.on_commit(partial(_send_task, "tournament_pair", tournament_id))


def _send_task(name: str, *args: Any) -> None:
    try:
        getattr(_tasks(), name).delay(*args)
    except Exception:  # the broker is down: the beat's tick asks again
        log.exception("tournaments: could not send %s%r", name, args)


# --------------------------------------------------------------------------- creation

def _validated(ruleset: str, time_control: str) -> tuple[str, str]:
    try:
        variant = get_variant(str(ruleset))
    except VariantError as exc:
        raise GameError("bad_request", str(exc)) from None
    require_offered(variant.key)
    try:
        tc = get_time_control(time_control)
    except ValueError as exc:
        raise GameError("bad_request", str(exc)) from None
    return variant.key, tc.key


def tournament_create(*, creator: Player | None, name: str, kind: str, ruleset: str,
                      time_control: str, starts_at: datetime, duration_minutes: int = 60,
                      rounds: int = 0, rated: bool = True, private: bool = False,
                      entry_code: str = "", berserk: bool = True,
                      schedule_key: str | None = None) -> Tournament:
    """A new tournament. Players create them with an account (``creator``); the schedule
    creates them with ``creator`` None and a ``schedule_key``."""
    if creator is not None and creator.kind != Player.Kind.USER:
        raise GameError("not_allowed", _("Log in to create a tournament."))
    if kind not in Tournament.Kind.values:
        raise GameError("bad_request", "kind is arena, swiss or roundrobin")
    key, tc = _validated(ruleset, time_control)
    name = " ".join(str(name).split())[:NAME_MAX]
    if not name:
        raise GameError("bad_request", _("Give the tournament a name."))
    duration_minutes = int(duration_minutes)
    if kind == Tournament.Kind.ARENA and not 5 <= duration_minutes <= 24 * 60:
        raise GameError("bad_request", _("An arena lasts 5 minutes to 24 hours."))
    rounds = int(rounds or 0)
    if kind == Tournament.Kind.SWISS and not 1 <= rounds <= 30:
        raise GameError("bad_request", _("A Swiss tournament has 1 to 30 rounds."))
    entry_code = str(entry_code or "").strip()[:32]
    if private and not entry_code:
        entry_code = secrets.token_hex(3)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name, kind=kind, ruleset=key, time_control=tc, rated=bool(rated),
            berserk=bool(berserk) and tc != "untimed" and kind == Tournament.Kind.ARENA,
            starts_at=starts_at, duration_minutes=duration_minutes,
            ends_at=(starts_at + timedelta(minutes=duration_minutes)
                     if kind == Tournament.Kind.ARENA else None),
            rounds=rounds if kind == Tournament.Kind.SWISS else 0, created_by=creator,
            private=bool(private), entry_code=entry_code if private else "",
            schedule_key=schedule_key)
        transaction.on_commit(partial(schedule_ticks, tournament.pk))
    return tournament


def schedule_ticks(tournament_id: int) -> None:
    """Embedded mode (no beat): tick the tournament in this process when it starts and,
    for an arena, when it ends. With a worker the beat's ``tournament_tick`` does it."""
    if not _eager():
        return
    from kondavo.games.background import run_later

    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None or t.is_over:
        return
    now = timezone.now()
    for when in (t.starts_at, t.ends_at):
        if when is not None and when >= now - timedelta(seconds=1):
            run_later(_tasks().tournament_tick_one, tournament_id,
                      delay=(when - now).total_seconds() + 0.05)


def scheduled_plan() -> list[tuple[str, str]]:
    """(ruleset, time control) of the hourly arenas: ``KONDAVO_TOURNAMENT_SCHEDULE``
    ("english:3+2,spanish:1+0"; "all": every offered ruleset at ``KONDAVO_TOURNAMENT_
    SCHEDULE_CONTROLS``); empty: none."""
    raw = str(_setting("KONDAVO_TOURNAMENT_SCHEDULE", "") or "").strip()
    if not raw:
        return []
    if raw == "all":
        controls = [c.strip() for c in str(_setting("KONDAVO_TOURNAMENT_SCHEDULE_CONTROLS",
                                                    "1+0,3+2,5+3")).split(",") if c.strip()]
        return [(v.key, tc) for v in offered_variants() for tc in controls]
    out = []
    for item in raw.split(","):
        ruleset, _sep, tc = item.strip().partition(":")
        if ruleset and tc:
            out.append((ruleset.strip(), tc.strip()))
    return out


def schedule_upcoming(*, now: datetime | None = None, hours_ahead: int = 2) -> int:
    """Create the hourly arenas of the next ``hours_ahead`` hours that do not exist yet
    (each has a unique ``schedule_key``: running this twice creates nothing the second
    time). Returns how many it created."""
    now = now or timezone.now()
    first = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    minutes = int(_setting("KONDAVO_TOURNAMENT_HOURLY_MINUTES", 57))
    created = 0
    for ruleset, tc in scheduled_plan():
        try:
            key, tc = _validated(ruleset, tc)
        except GameError:
            log.warning("tournament schedule: %s %s is not offered; skipped", ruleset, tc)
            continue
        variant_name = get_variant(key).name
        for h in range(hours_ahead):
            starts = first + timedelta(hours=h)
            schedule_key = f"hourly:{key}:{tc}:{starts:%Y-%m-%dT%H:%M}"
            if Tournament.objects.filter(schedule_key=schedule_key).exists():
                continue
            with translation.override(settings.LANGUAGE_CODE):
                name = _("Hourly %(ruleset)s %(tc)s Arena") % {"ruleset": variant_name,
                                                               "tc": tc}
            try:
                with transaction.atomic():
                    tournament_create(creator=None, name=name, kind=Tournament.Kind.ARENA,
                                      ruleset=key, time_control=tc, starts_at=starts,
                                      duration_minutes=minutes, rated=True,
                                      schedule_key=schedule_key)
                created += 1
            except Exception:  # another beat created it at the same time (unique key)
                if not Tournament.objects.filter(schedule_key=schedule_key).exists():
                    raise
    return created


def display_name(t: Tournament) -> str:
    """The name shown to people: a scheduled arena's is worded in the current language
    ("Arène horaire Dames anglaises 3+2"); a player's tournament keeps the name it was given."""
    if not (t.schedule_key or "").startswith("hourly:"):
        return t.name
    _kind, key, tc, _when = (t.schedule_key or "").split(":", 3)
    try:
        variant = get_variant(key)
    except VariantError:
        return t.name
    from frontend.naming import ruleset_name

    return _("Hourly %(ruleset)s %(tc)s Arena") % {"ruleset": ruleset_name(variant), "tc": tc}


# --------------------------------------------------------------------------- players

def _locked(tournament_id: Any) -> Tournament:
    try:
        pk = int(tournament_id)
    except (TypeError, ValueError):
        raise GameError("not_found", "no such tournament") from None
    t = Tournament.objects.select_for_update().filter(pk=pk).first()
    if t is None:
        raise GameError("not_found", "no such tournament")
    return t


def tournament_join(*, tournament_id: Any, player: Player, code: str = "") -> Entry:
    """Join (or come back after withdrawing from an arena)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.is_over:
            raise GameError("not_allowed", _("This tournament is over."))
        if player.is_bot:
            raise GameError("not_allowed", "bots do not play tournaments")
        if player.banned:
            raise GameError("not_allowed", "this account is banned from playing")
        if t.rated and player.kind != Player.Kind.USER:
            raise GameError("not_allowed", _("Log in to play rated tournaments."))
        if t.private and str(code or "").strip() != t.entry_code:
            entry = Entry.objects.filter(tournament=t, player=player).first()
            if entry is None:
                raise GameError("not_allowed", _("This tournament is private: enter its code."))
        entry = Entry.objects.filter(tournament=t, player=player).first()
        if t.status == Tournament.Status.STARTED and not t.is_arena and (
                entry is None or entry.withdrawn):
            raise GameError("not_allowed", _("This tournament has started: it is too late "
                                             "to join."))
        now = timezone.now()
        if entry is None:
            entry = Entry.objects.create(
                tournament=t, player=player, free_since=now,
                rating=hooks.player_rating(player=player, ruleset=t.ruleset) or 1500)
        elif entry.withdrawn or entry.paused:
            entry.withdrawn = False
            entry.paused = False
            entry.free_since = now
            entry.save(update_fields=["withdrawn", "paused", "free_since"])
        _changed(t, [player.pk])
        if t.status == Tournament.Status.STARTED and t.is_arena:
            request_pairing(t.pk)
    return entry


def tournament_withdraw(*, tournament_id: Any, player: Player) -> None:
    """Leave: before the start the entry is gone; after it the player stays in the
    standings and is paired no more (an arena player may join again)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        entry = Entry.objects.filter(tournament=t, player=player).first()
        if entry is None:
            raise GameError("not_allowed", _("You are not in this tournament."))
        if t.status == Tournament.Status.CREATED:
            entry.delete()
        elif not t.is_over:
            entry.withdrawn = True
            entry.save(update_fields=["withdrawn"])
        _changed(t, [player.pk])


def tournament_pause(*, tournament_id: Any, player: Player, paused: bool = True) -> None:
    """An arena player takes a break (not paired until they come back) or comes back."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if not t.is_arena:
            raise GameError("not_allowed", _("Only arena players can pause."))
        entry = Entry.objects.filter(tournament=t, player=player, withdrawn=False).first()
        if entry is None:
            raise GameError("not_allowed", _("You are not in this tournament."))
        entry.paused = bool(paused)
        entry.free_since = timezone.now()
        entry.save(update_fields=["paused", "free_since"])
        _changed(t, [player.pk])
        if not paused and t.status == Tournament.Status.STARTED:
            request_pairing(t.pk)


def _last_berserk_ply(ruleset: str, side: str) -> int:
    """The last ply before ``side``'s first move: 0 for the side the ruleset starts with
    (White in most, Black in English draughts), 1 for the other."""
    return 0 if get_variant(ruleset).first_to_move.name.lower() == side else 1


def tournament_berserk(*, tournament_id: Any, player: Player) -> None:
    """Halve one's own clock at the start of an arena game, for an extra point on a win:
    only before one's first move, in a timed arena that allows it, once per game. The game
    gets a ``players`` event with the new clocks (its sockets show them)."""
    with transaction.atomic():
        t = Tournament.objects.filter(pk=int(tournament_id)).first()
        if t is None or not t.is_arena or not t.berserk:
            raise GameError("not_allowed", _("Berserk is not allowed in this tournament."))
        pairing = (Pairing.objects.select_for_update()
                   .filter(Q(white=player) | Q(black=player), tournament=t, result="",
                           game__isnull=False).order_by("-pk").first())
        if pairing is None or pairing.game_id is None:
            raise GameError("not_allowed", _("You have no game in this tournament now."))
        write = GameWrite.lock(pairing.game_id, timezone.now())
        game = write.game
        side = write.seat(player)
        if (game.status != Game.Status.ACTIVE or not game.timed
                or game.ply > _last_berserk_ply(game.ruleset, side)):
            raise GameError("not_allowed", _("Berserk only before your first move."))
        flag = "white_berserk" if side == "white" else "black_berserk"
        if getattr(pairing, flag):
            return
        half = int(game.clock_initial_ms or 0) // 2
        setattr(game, f"{side}_ms", half)
        setattr(pairing, flag, True)
        pairing.save(update_fields=[flag])
        write.add("players", wire.players_event(game, write.now))
        write.save(fields=("white_ms", "black_ms", "version"))


def tournament_cancel(*, tournament_id: Any, now: datetime | None = None) -> bool:
    """The staff cancel a tournament (the admin's action): it is over, nobody is paired
    again, and games still going no longer count (their results are void). True if it
    cancelled it now (a tournament already over is left alone)."""
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.is_over:
            return False
        t.status = Tournament.Status.CANCELLED
        t.finished = now
        t.save(update_fields=["status", "finished"])
        _changed(t, list(Entry.objects.filter(tournament=t)
                         .values_list("player_id", flat=True)[:STANDINGS_SHOWN]))
    return True


# --------------------------------------------------------------------------- the tick

def tournament_tick(*, tournament_id: int, now: datetime | None = None) -> str:
    """Start a tournament that is due, end an arena whose time is up; pair a running
    arena (a safety net for a lost request). Idempotent. Returns what it did."""
    now = now or timezone.now()
    with transaction.atomic():
        t = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if t is None or t.is_over:
            return "none"
        if t.status == Tournament.Status.CREATED and t.starts_at <= now:
            return _start(t, now)
        if t.status == Tournament.Status.STARTED and t.is_arena:
            if t.ends_at is not None and t.ends_at <= now:
                _finish(t, now)
                return "finished"
            request_pairing(t.pk)
            return "pair"
    return "none"


def due_tournaments(now: datetime | None = None) -> list[int]:
    """Ids to tick: due to start, running arenas (to pair, or to end)."""
    now = now or timezone.now()
    return list(Tournament.objects.filter(
        Q(status=Tournament.Status.CREATED, starts_at__lte=now)
        | Q(status=Tournament.Status.STARTED, kind=Tournament.Kind.ARENA))
        .order_by("starts_at").values_list("pk", flat=True)[:500])


def running_tournaments() -> list[int]:
    """Ids of the tournaments under way (their standings may be left dirty)."""
    return list(Tournament.objects.filter(status=Tournament.Status.STARTED)
                .values_list("pk", flat=True)[:500])


def _start(t: Tournament, now: datetime) -> str:
    entries = list(Entry.objects.filter(tournament=t, withdrawn=False)
                   .order_by("-rating", "joined", "pk"))
    if not t.is_arena and len(entries) < 2:
        t.status = Tournament.Status.CANCELLED
        t.finished = now
        t.save(update_fields=["status", "finished"])
        _changed(t, [])
        return "cancelled"
    t.status = Tournament.Status.STARTED
    t.seeds = [e.player_id for e in entries]
    if t.kind == Tournament.Kind.ROUND_ROBIN:
        t.rounds = len(roundrobin.berger_rounds(len(entries)))
    t.save(update_fields=["status", "seeds", "rounds"])
    Entry.objects.filter(tournament=t).update(free_since=now)
    url = f"/tournaments/{t.pk}/"
    with translation.override(settings.LANGUAGE_CODE):  # the fallback of older pages
        text = _("%(name)s has started.") % {"name": t.name}
    for e in entries:  # the bell words it in its reader's language (strings.NOTIFY_*)
        hooks.notify(recipient_id=e.player_id, kind="generic", key=f"tournament:{t.pk}",
                     data={"text": text, "template": strings.NOTIFY_STARTED,
                           "tournament": t.name}, url=url)
    request_pairing(t.pk)
    _changed(t, [])
    transaction.on_commit(partial(schedule_ticks, t.pk))
    return "started"


# --------------------------------------------------------------------------- pairing

def tournament_pair(*, tournament_id: int, now: datetime | None = None) -> int:
    """One pairing run (see the module docstring). Returns how many games it started."""
    now = now or timezone.now()
    with transaction.atomic():
        t = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if t is None or t.status != Tournament.Status.STARTED:
            return 0
        if t.is_arena:
            if t.ends_at is not None and t.ends_at <= now:
                _finish(t, now)
                return 0
            return _pair_arena(t, now)
        return _next_round(t, now)


def _busy_ids(t: Tournament) -> set[int]:
    busy: set[int] = set()
    for w, b in Pairing.objects.filter(tournament=t, result="").values_list("white_id",
                                                                          "black_id"):
        busy.add(w)
        if b is not None:
            busy.add(b)
    return busy


def _pair_arena(t: Tournament, now: datetime) -> int:
    busy = _busy_ids(t)
    entries = {e.player_id: e for e in Entry.objects.filter(
        tournament=t, withdrawn=False, paused=False).select_related("player")
        if e.player_id not in busy}
    free = [arena.Free(e.player_id, e.score, e.rating, e.last_opponent_id,
                       e.colours.replace("-", "")) for e in entries.values()]
    started = 0
    for white_id, black_id in arena.pair(free):
        if _start_game(t, entries[white_id], entries[black_id], round_no=0, now=now):
            started += 1
    return started


def _start_game(t: Tournament, white: Entry, black: Entry, *, round_no: int,
                now: datetime) -> bool:
    try:
        with transaction.atomic():
            game = game_create(creator=white.player, ruleset=t.ruleset,
                               time_control=t.time_control, color="white",
                               opponent=black.player, rated=t.rated, now=now)
            Pairing.objects.create(tournament=t, round=round_no, game=game,
                                   white=white.player, black=black.player)
    except GameError as exc:  # a banned player, a ruleset no longer offered
        log.warning("tournament %s: no game %s-%s (%s)", t.pk, white.player_id,
                    black.player_id, exc.message)
        return False
    for entry, colour, opponent in ((white, "w", black), (black, "b", white)):
        entry.colours = (entry.colours + colour)[-200:]
        entry.last_opponent_id = opponent.player_id
        entry.free_since = None
        entry.save(update_fields=["colours", "last_opponent", "free_since"])
        with translation.override(settings.LANGUAGE_CODE):  # the fallback of older pages
            text = _("Your tournament game against %(name)s starts.") % {
                "name": opponent.player.name}
        hooks.notify(recipient_id=entry.player_id, kind="generic", key=f"tournament:{t.pk}",
                     data={"text": text, "template": strings.NOTIFY_GAME,
                           "name": opponent.player.name, "tournament": t.name},
                     url=selectors.game_url(game.id))
    transaction.on_commit(partial(_publish_game, t.pk, game.id, white.player_id,
                                  black.player_id))
    _changed(t, [white.player_id, black.player_id])
    return True


def _publish_game(tournament_id: int, game_id: str, white_id: int, black_id: int) -> None:
    frame = wire.encode_frame(wire.game_frame(game_id))
    for pid in (white_id, black_id):
        events.publish_tournament(tournament_id, {"type": "tournament.player",
                                                  "player_id": pid, "text": frame})


def _round_complete(t: Tournament) -> bool:
    return not Pairing.objects.filter(tournament=t, round=t.current_round, result="").exists()


def _next_round(t: Tournament, now: datetime) -> int:
    """Swiss and round-robin: the next round once the current one is over."""
    if t.current_round and not _round_complete(t):
        return 0
    if t.current_round >= t.rounds:
        _finish(t, now)
        return 0
    entries = {e.player_id: e for e in Entry.objects.filter(tournament=t)
               .select_related("player")}
    t.current_round += 1
    t.save(update_fields=["current_round"])
    round_no = t.current_round
    if t.kind == Tournament.Kind.ROUND_ROBIN:
        seeds = [pid for pid in t.seeds if pid in entries]
        table = roundrobin.berger_rounds(len(seeds))[round_no - 1]
        pairs = [(seeds[w - 1], seeds[b - 1] if b is not None else None) for w, b in table]
    else:
        pairs = _swiss_pairs(t, entries)
    started = 0
    for white_id, black_id in pairs:
        white = entries[white_id]
        black = entries[black_id] if black_id is not None else None
        if black is None or white.withdrawn or black.withdrawn:
            _unplayed(t, white, black, round_no, now)
        elif _start_game(t, white, black, round_no=round_no, now=now):
            started += 1
    if _round_complete(t):  # only byes and forfeits: on to the next round
        request_pairing(t.pk)
    _changed(t, [])
    return started


def _swiss_pairs(t: Tournament, entries: dict[int, Entry]) -> list[tuple[int, int | None]]:
    opponents: dict[int, set[int]] = {pid: set() for pid in entries}
    for w, b in Pairing.objects.filter(tournament=t, black__isnull=False).values_list(
            "white_id", "black_id"):
        opponents.setdefault(w, set()).add(b)
        opponents.setdefault(b, set()).add(w)
    seed = {pid: i + 1 for i, pid in enumerate(t.seeds)}
    players = [swiss.SwissPlayer(id=e.player_id, score=e.score,
                                 seed=seed.get(e.player_id, len(seed) + e.pk),
                                 opponents=frozenset(opponents.get(e.player_id, ())),
                                 colours=e.colours, had_bye=e.had_bye)
               for e in entries.values() if not e.withdrawn]
    result = swiss.pair_round(players)
    pairs: list[tuple[int, int | None]] = list(result.pairs)
    if result.bye is not None:
        pairs.append((result.bye, None))
    return pairs


def _unplayed(t: Tournament, white: Entry, black: Entry | None, round_no: int,
              now: datetime) -> None:
    """A bye (``black`` None: a point), or a game one side forfeits by having withdrawn."""
    if black is None:
        Pairing.objects.create(tournament=t, round=round_no, white=white.player, black=None,
                               result=Pairing.Result.BYE, white_points=2, finished=now)
        white.had_bye = True
        _score(white, points=2, outcome="b", colour="-", berserk=False, fire=False,
               streak=0)
        _changed(t, [white.player_id])
        return
    result = "black" if white.withdrawn and not black.withdrawn else (
        "white" if black.withdrawn and not white.withdrawn else "draw")
    wp = {"white": 2, "black": 0, "draw": 0}[result]
    bp = {"white": 0, "black": 2, "draw": 0}[result]
    Pairing.objects.create(tournament=t, round=round_no, white=white.player,
                           black=black.player, result=result, white_points=wp,
                           black_points=bp, finished=now)
    _score(white, points=wp, outcome="w" if wp else "l", colour="-", berserk=False,
           fire=False, streak=0)
    _score(black, points=bp, outcome="w" if bp else "l", colour="-", berserk=False,
           fire=False, streak=0)
    _changed(t, [white.player_id, black.player_id])


# --------------------------------------------------------------------------- results

def on_game_finished(*, game: Game) -> None:
    """The games app's ``game_finished`` hook (inside the game's transaction): if the game
    is a tournament's, record it after the commit (a task by game id)."""
    if not Pairing.objects.filter(game_id=game.pk).exists():
        return
    transaction.on_commit(partial(_send_task, "tournament_result", game.pk))


def _score(entry: Entry, *, points: int, outcome: str, colour: str, berserk: bool,
           fire: bool, streak: int) -> None:
    entry.score += points
    entry.games += 1 if outcome in "wdl" else 0
    entry.wins += 1 if outcome == "w" else 0
    entry.streak = streak
    entry.sheet = [*entry.sheet, {"p": points, "r": outcome, "f": fire, "k": berserk}][-300:]
    if colour == "-":
        entry.colours = (entry.colours + "-")[-200:]
    entry.save(update_fields=["score", "games", "wins", "streak", "sheet", "colours"])


def tournament_record_result(*, game_id: str, now: datetime | None = None) -> bool:
    """Score a finished tournament game (idempotent: True if it scored it now)."""
    now = now or timezone.now()
    with transaction.atomic():
        tid = Pairing.objects.filter(game_id=game_id).values_list("tournament_id",
                                                                  flat=True).first()
        if tid is None:
            return False
        t = Tournament.objects.select_for_update().get(pk=tid)
        pairing = Pairing.objects.select_for_update().filter(game_id=game_id).first()
        game = Game.objects.filter(pk=game_id).first()
        if pairing is None or pairing.result or game is None or not game.is_over:
            return False
        entries = {e.player_id: e for e in Entry.objects.select_for_update().filter(
            tournament=t, player_id__in=[pairing.white_id, pairing.black_id])}
        white, black = entries[pairing.white_id], entries[pairing.black_id]
        late = t.is_arena and t.ends_at is not None and (game.finished or now) > t.ends_at
        if game.status == Game.Status.ABORTED or late or t.is_over:
            pairing.result = Pairing.Result.VOID
            pairing.finished = now
            pairing.save(update_fields=["result", "finished"])
            # The colour given for a game that did not count is forgotten.
            for e in (white, black):
                e.colours = e.colours[:-1]
                e.free_since = now
                e.save(update_fields=["colours", "free_since"])
            if game.reason == Game.Reason.NO_FIRST_MOVE and t.is_arena and not late:
                idle = white if game.ply == 0 else black  # who never moved: paused
                idle.paused = True
                idle.save(update_fields=["paused"])
        else:
            result = game.winner or "draw"
            pairing.result = result
            pairing.finished = now
            for side, entry in (("white", white), ("black", black)):
                outcome = "d" if result == "draw" else ("w" if result == side else "l")
                if t.is_arena:
                    pts = arena.game_points(
                        outcome={"w": "win", "d": "draw", "l": "loss"}[outcome],
                        streak=entry.streak, berserk=getattr(pairing, f"{side}_berserk"))
                    points, fire, streak = pts.points, pts.fire, pts.streak
                else:
                    points, fire, streak = {"w": 2, "d": 1, "l": 0}[outcome], False, 0
                setattr(pairing, f"{side}_points", points)
                _score(entry, points=points, outcome=outcome, colour="",
                       berserk=getattr(pairing, f"{side}_berserk"), fire=fire, streak=streak)
                entry.free_since = now
                entry.save(update_fields=["free_since"])
            pairing.save(update_fields=["result", "finished", "white_points", "black_points"])
        _changed(t, [white.player_id, black.player_id])
        if not t.is_over:
            if t.is_arena or _round_complete(t):
                request_pairing(t.pk)
    return True


# --------------------------------------------------------------------------- the end

def _finish(t: Tournament, now: datetime) -> None:
    """Final standings (ranks, tie-breaks) and the podium; games still going no longer
    count."""
    t.status = Tournament.Status.FINISHED
    t.finished = now
    if t.ends_at is None or t.ends_at > now:
        t.ends_at = now
    t.save(update_fields=["status", "finished", "ends_at"])
    _update_tiebreaks(t)
    for rank, entry in enumerate(_ranked(t), start=1):
        entry.rank = rank
        entry.save(update_fields=["rank"])
    _changed(t, [])


def _update_tiebreaks(t: Tournament) -> None:
    if t.is_arena:
        return
    entries = list(Entry.objects.filter(tournament=t))
    scores = {e.player_id: e.score for e in entries}
    games = [swiss.Game(p.white_id, p.black_id, p.result)
             for p in Pairing.objects.filter(tournament=t).exclude(result__in=["", "void"])]
    tb = swiss.tiebreaks(scores, games)
    for e in entries:
        e.tiebreak1, e.tiebreak2 = tb.get(e.player_id, (0.0, 0.0))
        e.save(update_fields=["tiebreak1", "tiebreak2"])


def _ranked(t: Tournament) -> list[Entry]:
    rows = list(Entry.objects.filter(tournament=t).select_related("player"))
    if t.is_arena:  # ties: the better performance shows in fewer games for the same score
        rows.sort(key=lambda e: (-e.score, e.games, -e.rating, e.pk))
    else:
        rows.sort(key=lambda e: (-e.score, -e.tiebreak1, -e.tiebreak2, -e.rating, e.pk))
    return rows


# --------------------------------------------------------------------------- payloads

def _display_score(t: Tournament, score: int) -> float:
    return score if t.is_arena else score / 2


def _open_games(t: Tournament) -> dict[int, str]:
    """player id -> the id of the game they are playing in this tournament now."""
    out: dict[int, str] = {}
    for w, b, g in Pairing.objects.filter(tournament=t, result="", game__isnull=False
                                          ).values_list("white_id", "black_id", "game_id"):
        out[w] = g
        if b is not None:
            out[b] = g
    return out


def _row(t: Tournament, rank: int, e: Entry, playing: dict[int, str]) -> dict[str, Any]:
    return wire.tournament_row(
        rank=rank, player_id=e.player_id, name=e.player.name, rating=e.rating,
        score=_display_score(t, e.score), games=e.games,
        fire=t.is_arena and e.streak >= arena.FIRE_AFTER,
        sheet=list(e.sheet[-SHEET_SHOWN:]), playing=e.player_id in playing,
        paused=e.paused, withdrawn=e.withdrawn,
        tiebreaks=None if t.is_arena else [e.tiebreak1, e.tiebreak2])


def _iso(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


def standings_payload(t: Tournament, *, limit: int = STANDINGS_SHOWN,
                      offset: int = 0) -> dict[str, Any]:
    """What everyone watching sees (the ``standings`` frame's payload)."""
    if not t.is_arena and t.status == Tournament.Status.STARTED:
        _update_tiebreaks(t)
    ranked = _ranked(t)
    playing = _open_games(t)
    rows = [_row(t, offset + i + 1, e, playing)
            for i, e in enumerate(ranked[offset:offset + limit])]
    featured = next((playing[e.player_id] for e in ranked if e.player_id in playing), None)
    names = {e.player_id: e.player.name for e in ranked}
    games = []
    pairing_rows = Pairing.objects.filter(tournament=t)
    pairing_rows = (pairing_rows.filter(round=t.current_round) if not t.is_arena
                    else pairing_rows.filter(result="", game__isnull=False))
    for p in pairing_rows.order_by("pk")[:100]:
        games.append({"game": p.game_id, "url": selectors.game_url(p.game_id)
                      if p.game_id else None, "white": names.get(p.white_id, ""),
                      "black": names.get(p.black_id, "") if p.black_id else None,
                      "result": p.result or None,
                      "points": [p.white_points, p.black_points]})
    podium = ([{"rank": r["rank"], "name": r["name"], "score": r["score"]} for r in rows[:3]]
              if t.status == Tournament.Status.FINISHED and offset == 0 else None)
    return {"id": t.pk, "status": t.status, "round": t.current_round, "rounds": t.rounds,
            "players": len(ranked), "rows": rows, "offset": offset,
            "featured": ({"game": featured, "url": selectors.game_url(featured)}
                         if featured else None),
            "games": games, "podium": podium, "starts_at": _iso(t.starts_at),
            "ends_at": _iso(t.ends_at), "now": _iso(timezone.now())}


def snapshot_payload(t: Tournament) -> dict[str, Any]:
    """The ``tournament`` frame's payload: the tournament and the standings."""
    variant = get_variant(t.ruleset)
    return {"name": t.name, "kind": t.kind, "ruleset": t.ruleset,
            "variant_name": variant.name, "time_control": t.time_control, "rated": t.rated,
            "berserk": t.berserk, "private": t.private,
            "standings": {**cached_standings(t), "now": _iso(timezone.now())}}


def me_payload(t: Tournament, player: Player | None) -> dict[str, Any] | None:
    """The ``me`` frame's payload: the player's entry, rank and current game."""
    if player is None:
        return None
    entry = Entry.objects.filter(tournament=t, player=player).select_related("player").first()
    if entry is None:
        return None
    current = (Pairing.objects.filter(Q(white=player) | Q(black=player), tournament=t,
                                      result="", game__isnull=False)
               .order_by("-pk").first())
    game = None
    if current is not None and current.game_id:
        side = "white" if current.white_id == player.pk else "black"
        game = {"id": current.game_id, "url": selectors.game_url(current.game_id),
                "berserk": getattr(current, f"{side}_berserk")}
    row = _row(t, _rank_of(t, entry), entry, {player.pk: ""} if game else {})
    return {**row, "game": game}


def _rank_of(t: Tournament, e: Entry) -> int:
    """``e``'s place in ``_ranked(t)`` by one ``COUNT`` of the entries ranked above it."""
    if t.is_arena:
        keys = [("score", "gt", e.score), ("games", "lt", e.games), ("rating", "gt", e.rating),
                ("pk", "lt", e.pk)]
    else:
        keys = [("score", "gt", e.score), ("tiebreak1", "gt", e.tiebreak1),
                ("tiebreak2", "gt", e.tiebreak2), ("rating", "gt", e.rating),
                ("pk", "lt", e.pk)]
    above = Q()
    for i, (field, op, value) in enumerate(keys):
        equal = {name: v for name, _op, v in keys[:i]}
        above |= Q(**equal, **{f"{field}__{op}": value})
    return Entry.objects.filter(above, tournament=t).count() + 1


def _changed(t: Tournament, player_ids: Iterable[int]) -> None:
    """After the commit: the standings (coalesced) and the players' own rows."""
    transaction.on_commit(partial(publish_changes, t.pk, tuple(player_ids)))


def _standings_key(tournament_id: int) -> str:
    return f"tournament:{tournament_id}:standings"


def _dirty_key(tournament_id: int) -> str:
    return f"tournament:{tournament_id}:standings-dirty"


def _sent_key(tournament_id: int) -> str:
    return f"tournament:{tournament_id}:standings-sent"


def _standings_seconds() -> float:
    """At most one standings run per this many seconds per tournament: the standings
    frames' own pace (``KONDAVO_PRESENCE_PUBLISH_SECONDS``, 1 s; 0: every change)."""
    return float(_setting("KONDAVO_PRESENCE_PUBLISH_SECONDS", 1.0))


def cached_standings(t: Tournament) -> dict[str, Any]:
    """The latest standings payload (``publish_standings`` keeps it; computed on a miss)."""
    payload: dict[str, Any] | None = cache.get(_standings_key(t.pk))
    if payload is None:
        payload = standings_payload(t)
        cache.set(_standings_key(t.pk), payload, 300)
    return payload


def request_standings(tournament_id: int) -> None:
    """The standings changed (see the module docstring): marked dirty; a run of
    ``tasks.tournament_standings`` is asked for unless one was asked for less than
    ``_standings_seconds()`` ago (that run, the next change after it or the beat's next
    tick takes this change along). Eager Celery (the embedded mode) or a server without
    workers (``KONDAVO_BOT_INPROCESS``: its bots and background work run in the process):
    at once, since no worker would take the task."""
    if hooks.runs_without_workers():
        publish_standings(tournament_id)
        return
    try:
        cache.set(_dirty_key(tournament_id), 1, 600)
        window = _standings_seconds()
        send = window <= 0 or cache.add(_sent_key(tournament_id), 1, timeout=window)
    except Exception:  # the cache is down: compute rather than never
        log.exception("tournament %s: the standings' marks failed", tournament_id)
        send = True
    if send:
        _send_task("tournament_standings", tournament_id)


def flush_standings(tournament_ids: Iterable[int]) -> int:
    """The beat's tick: standings still marked dirty are sent now. Returns how many."""
    sent = 0
    for tid in tournament_ids:
        if cache.get(_dirty_key(tid)):
            publish_standings(tid)
            sent += 1
    return sent


def publish_standings(tournament_id: int) -> None:
    """The standings computed once, cached, and sent (``tasks.tournament_standings``);
    again (at most twice more) if another change marked them dirty meanwhile."""
    for _run in range(3):
        try:
            cache.delete(_dirty_key(tournament_id))  # changes from now on mark it again
        except Exception:
            log.exception("tournament %s: the standings' mark could not be cleared",
                          tournament_id)
        t = Tournament.objects.filter(pk=tournament_id).first()
        if t is None:
            return
        try:
            payload = standings_payload(t)
            cache.set(_standings_key(t.pk), payload, 300)
            text = wire.encode_frame(wire.tournament_standings_frame(payload))
            events.publish_tournament(t.pk, {"type": "tournament.standings", "text": text},
                                      coalesce=True)
            if _eager() or not cache.get(_dirty_key(tournament_id)):
                return
        except Exception:  # the change is committed: a lost frame is healed by a resync
            log.exception("tournament %s: publishing the standings failed", tournament_id)
            return


def publish_changes(tournament_id: int, player_ids: tuple[int, ...]) -> None:
    """After a commit: the standings (debounced) and the players' own ``me`` frames."""
    request_standings(tournament_id)
    if not player_ids:
        return
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    try:
        for player in Player.objects.filter(pk__in=player_ids):
            frame = wire.tournament_me_frame(me_payload(t, player))
            events.publish_tournament(t.pk, {"type": "tournament.player",
                                             "player_id": player.pk,
                                             "text": wire.encode_frame(frame)})
    except Exception:  # the change is committed: a lost frame is healed by a resync
        log.exception("tournament %s: publishing failed", tournament_id)


# --------------------------------------------------------------------------- chat

def chat_room(tournament_id: int) -> str:
    """The tournament's chat room (``kondavo.chat``): its lines travel on the bus group of
    the same name, which is the tournament socket's own (``events.tournament_group``)."""
    return f"tournament.{tournament_id}"


def _may_chat(t: Tournament, player: Player | None) -> bool:
    """Who writes in a tournament's chat: its players (withdrawn ones too), as lichess
    does; everyone else reads."""
    from kondavo.chat import services as chat

    return (player is not None and chat.may_write(player)
            and Entry.objects.filter(tournament=t, player=player).exists())


def tournament_chat_state(t: Tournament, viewer: Player | None) -> dict[str, Any]:
    """The ``chat`` part of the ``tournament`` frame, in the shape of a game's (chat.js
    reads both): the room's last lines, whether the viewer may write, whom they muted."""
    from kondavo.chat import services as chat

    room = chat_room(t.pk)
    muted = chat.muted_ids(viewer)
    names = (sorted(Player.objects.filter(pk__in=muted).values_list("name", flat=True))
             if muted else [])
    return {"rooms": {room: chat.chat_history(room=room, viewer=viewer)},
            "write": [room] if _may_chat(t, viewer) else [], "muted": names,
            "max_length": chat.max_length(),
            "me": viewer.name if viewer is not None else None}


def tournament_chat_frame(*, tournament_id: Any, player: Player | None, address: str, t: str,
                          data: dict[str, Any]) -> dict[str, Any] | None:
    """A tournament socket's ``chat`` (a line in the tournament's room: its players only),
    ``chat_mute``, ``chat_report`` or ``chat_remove`` frame; returns a frame for the sender,
    or None. The lines reach every socket of the tournament through the bus."""
    from kondavo.chat import services as chat

    tournament = tournament_get(tournament_id=tournament_id)
    if tournament is None:
        raise GameError("not_found", "no such tournament")
    if t == "chat":
        if not _may_chat(tournament, player):
            chat._require_writer(player)  # the reason when it is the writer (a guest...)
            raise GameError("not_allowed", _("Only the tournament's players write in its "
                                             "chat."))
        chat.chat_post(room=chat_room(tournament.pk), player=player, text=data.get("text"),
                       address=address)
        return None
    if player is None:
        raise GameError("not_a_player", "open a page of the site first")
    if t == "chat_mute":
        return wire.chat_muted_frame(chat.chat_mute(player=player, name=data.get("name"),
                                                    mute=data.get("mute", True) is not False))
    if t == "chat_report":
        line = chat.chat_report(player=player, line_id=data.get("id"),
                                reason=data.get("reason"))
        return wire.chat_reported_frame(line.pk)
    if t == "chat_remove":
        user = player.user
        if user is None or not user.is_staff:
            raise GameError("not_allowed", "only the staff can remove lines")
        chat.chat_remove_lines(line_ids=[data.get("id")], staff=user)
        return None
    raise GameError("unknown_type", f"unknown frame type {t[:32]!r}")


# --------------------------------------------------------------------------- reads

def tournament_get(*, tournament_id: Any) -> Tournament | None:
    try:
        return Tournament.objects.filter(pk=int(tournament_id)).first()
    except (TypeError, ValueError):
        return None


def tournament_snapshot(*, tournament_id: Any, player: Player | None) -> list[dict[str, Any]]:
    """The frames a socket gets on connect (and on resync): ``tournament`` and ``me``."""
    t = tournament_get(tournament_id=tournament_id)
    if t is None:
        raise GameError("not_found", "no such tournament")
    return [wire.tournament_snapshot_frame({**snapshot_payload(t),
                                            "chat": tournament_chat_state(t, player)}),
            wire.tournament_me_frame(me_payload(t, player))]


def tournament_lists(*, ruleset: str | None = None, limit: int = 30
                     ) -> dict[str, list[Tournament]]:
    """Upcoming, running and finished tournaments (public ones; a ruleset or all)."""
    base = Tournament.objects.filter(private=False)
    if ruleset:
        base = base.filter(ruleset=ruleset)
    return {
        "started": list(base.filter(status=Tournament.Status.STARTED).order_by("starts_at")
                        [:limit]),
        "created": list(base.filter(status=Tournament.Status.CREATED).order_by("starts_at")
                        [:limit]),
        "finished": list(base.filter(status=Tournament.Status.FINISHED)
                         .order_by("-finished")[:limit]),
    }


def tick_if_due(t: Tournament) -> Tournament:
    """Pages tick a tournament that is due. The embedded mode (no beat) ticks it here; with
    a worker the page asks for ``tasks.tournament_tick_one`` instead, so starting a
    tournament (every entry notified, the first pairing) never runs in a web process.
    Returns it as it now is."""
    now = timezone.now()
    due = (t.status == Tournament.Status.CREATED and t.starts_at <= now) or (
        t.status == Tournament.Status.STARTED and t.is_arena and t.ends_at is not None
        and t.ends_at <= now)
    if due and not _eager():
        _send_task("tournament_tick_one", t.pk)
    elif due:
        tournament_tick(tournament_id=t.pk, now=now)
        return Tournament.objects.get(pk=t.pk)
    return t


def game_page_info(*, game_id: str, player: Player | None) -> dict[str, Any] | None:
    """The game page's ``tournament`` (its json_script data) when the game is a
    tournament's: the name and page of the tournament, and whether the viewer may still
    berserk (a player of a timed arena that allows it, not yet berserk, before their first
    move: the page hides the button once they moved). None otherwise (one indexed query)."""
    pairing = (Pairing.objects.filter(game_id=game_id).select_related("tournament", "game")
               .first())
    if pairing is None:
        return None
    t, game = pairing.tournament, pairing.game
    side = None
    if player is not None and pairing.black_id is not None:
        side = ("white" if pairing.white_id == player.pk
                else "black" if pairing.black_id == player.pk else None)
    berserk = bool(side is not None and game is not None and t.is_arena and t.berserk
                   and not t.is_over and game.timed and not pairing.result
                   and not getattr(pairing, f"{side}_berserk")
                   and game.status in (Game.Status.ACTIVE, Game.Status.WAITING)
                   and game.ply <= _last_berserk_ply(game.ruleset, side))
    return {"id": t.pk, "name": display_name(t), "url": f"/tournaments/{t.pk}/",
            "berserk_url": f"/tournaments/{t.pk}/berserk/" if berserk else None,
            "berserk_ply": _last_berserk_ply(game.ruleset, side) if berserk and side else None,
            "i18n": strings.game_page_strings()}


def tournaments_of_games(game_ids: Iterable[str]) -> dict[str, Tournament]:
    """game id -> its tournament, for the games listed on a profile (one query)."""
    out: dict[str, Tournament] = {}
    for p in Pairing.objects.filter(game_id__in=list(game_ids)).select_related("tournament"):
        if p.game_id:
            out[p.game_id] = p.tournament
    return out
