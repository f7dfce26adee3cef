"""Writes to games and seeks. Every function is keyword-only and runs in one transaction.

Every write to a game locks its row (``select_for_update``), checks, changes, bumps the event
``version`` once per event and publishes the events to ``game.<id>`` in
``transaction.on_commit``. A refused request raises ``GameError`` and changes nothing —
except that a clock found run out is flagged first (that is committed, then ``game_over``
is raised).

Clocks: stored remaining milliseconds per side, as of ``turn_started_at`` for the side to
move; the clock runs from the moment the game becomes active, and ``flag_at`` (indexed) is
when the running clock reaches zero. A flag is detected

- on every access: ``game_flag_if_expired`` is called by each move and game socket action,
  on connect, on ``resync`` and ``flag`` frames (the game page sends ``flag`` when its own
  display of the running clock reaches zero), by ``state.json`` and by the bot task;
- without any client, with a Celery worker: by the periodic ``games.tasks.game_flag_sweep``
  (Celery beat, every ``KONDAVO_FLAG_SWEEP_SECONDS``, default 2 s: one indexed query for
  active games past ``flag_at``). No per-game countdown task is scheduled: a worker holds an
  ETA task unacked until it runs, which would force the broker's visibility timeout above
  the longest clock;
- without any client, in the embedded mode (eager Celery, no beat): by an in-process timer
  scheduled on commit for ``flag_at`` (``background.run_later``).

Bots: ``bot_turn_since`` is set while a bot is to move in an active game (from the start of
its turn). The periodic ``games.tasks.bot_move_sweep`` asks again for bot moves overdue by
``KONDAVO_BOT_STALL_SECONDS`` (a move lost with a killed worker); ``bot_move_play`` is
idempotent (expected ply, and the move itself goes through the locked, ply-checked
``game_play_move``), so a repeated request never plays two moves.

Hooks to other apps (all looked up at call time):
- bots: ``bots.seam.request_bot_move(game_id, expected_ply)`` on commit whenever a bot is
  to move in an active game;
- rating: ``rating.services.rating_apply_game(game=game)`` inside the transaction when a
  rated game finishes (``_on_game_finished``).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.db.models import F

from kondavo.accounts.models import Player
from kondavo.accounts.services import player_get_or_create_bot
from kondavo.games import clock, events
from kondavo.games.errors import GameError
from kondavo.games.history import next_repetition, position_key, repetition_of, resume_record
from kondavo.games.models import Game, LobbyState, Seek
from kondavo.games.moderation import require_not_banned, require_offered
from kondavo.games.selectors import (
    clock_remaining,
    clock_running,
    clocks_payload,
    game_record,
    game_url,
    move_payload,
    players_payload,
    result_payload,
    seeks_open,
    side_name,
    turn_of,
)
from kondavo.games.timecontrols import get_time_control
from variants import (
    AmbiguousMove,
    IllegalMove,
    InvalidNotation,
    Move,
    Position,
    Variant,
    VariantError,
    get_variant,
)

__all__ = [
    "GameError", "game_abort", "game_accept_draw", "game_claim_victory", "game_create",
    "game_create_friend", "game_create_vs_computer", "game_decline_draw",
    "game_flag_if_expired", "game_join", "game_offer_draw", "game_open_for_viewer",
    "game_play_move", "game_presence", "game_rematch", "game_resign", "seek_accept",
    "seek_cancel", "seek_create",
]

log = logging.getLogger(__name__)

MAX_MOVE_TEXT = 200
MAX_PATH = 40
MAX_OPEN_SEEKS_PER_PLAYER = 5
SIDES = ("white", "black")


def _other(side: str) -> str:
    return "black" if side == "white" else "white"


# --------------------------------------------------------------------------- plumbing

class _Events:
    """Versioned frames for one transaction: each ``add`` bumps the game's version by one."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.frames: list[dict[str, Any]] = []

    def add(self, t: str, d: dict[str, Any]) -> None:
        self.game.version += 1
        self.frames.append({"v": self.game.version, "t": t, "d": d})


def _lock(game_id: str) -> Game:
    try:
        return (Game.objects.select_for_update(of=("self",))
                .select_related("white", "black").get(pk=str(game_id)[:12]))
    except Game.DoesNotExist:
        raise GameError("not_found", "no such game") from None


def _seat(game: Game, player: Player | None) -> str:
    side = game.side_of(player)
    if side is None:
        raise GameError("not_a_player", "you are not playing in this game")
    return side


def _require_active(game: Game) -> None:
    if game.is_over:
        raise GameError("game_over", "the game is over")
    if game.status != Game.Status.ACTIVE:
        raise GameError("not_allowed", "the game has not started yet")


def _variant(key: str) -> Variant:
    try:
        return get_variant(str(key))
    except VariantError as exc:
        raise GameError("bad_request", str(exc)) from None


def _start_position_fen(variant: Variant,
                        start_fen: str | None) -> tuple[str | None, str, Position]:
    """Validated (start_fen, current fen, start position)."""
    if not start_fen:
        position = variant.initial_position()
        return None, variant.format_fen(position), position
    try:
        position = variant.parse_fen(str(start_fen)[:300])
    except VariantError as exc:
        raise GameError("bad_request", f"bad start position: {exc}") from None
    fen = variant.format_fen(position)
    return fen, fen, position


def _pick_color(color: str) -> str:
    color = (color or "random").lower()
    if color == "random":
        return secrets.choice(SIDES)
    if color not in SIDES:
        raise GameError("bad_request", "colour must be white, black or random")
    return color


def _start_clock(game: Game, now: datetime) -> None:
    """(Re)start the side to move's clock at ``now``; sets ``flag_at``."""
    if not game.timed or game.status != Game.Status.ACTIVE:
        game.turn_started_at = None
        game.flag_at = None
        return
    game.turn_started_at = now
    remaining = game.white_ms if turn_of(game) == "white" else game.black_ms
    game.flag_at = now + timedelta(milliseconds=max(remaining or 0, 0))


def _stop_clock(game: Game, now: datetime) -> None:
    if game.timed and game.turn_started_at is not None:
        side = clock_running(game)
        if side is not None:
            left = max(clock_remaining(game, side, now) or 0, 0)
            setattr(game, f"{side}_ms", left)
    game.turn_started_at = None
    game.flag_at = None


def _activate(game: Game, now: datetime, ev: _Events | None = None) -> None:
    game.status = Game.Status.ACTIVE
    game.started = now
    if any(p is not None and p.is_guest for p in (game.white, game.black)):
        game.rated = False  # guests never play rated games
    _start_clock(game, now)
    if ev is not None:
        ev.add("players", {"players": players_payload(game), "status": game.status})


def _finish(game: Game, *, winner: str | None, reason: str, now: datetime,
            ev: _Events) -> None:
    _stop_clock(game, now)
    game.status = Game.Status.FINISHED
    game.winner = winner
    game.reason = reason
    game.finished = now
    game.draw_offer = None
    ev.add("end", {"status": game.status, "result": result_payload(game)})


def _on_game_finished(game: Game) -> None:
    """Seam to the rating app, inside the finishing transaction (rated games only)."""
    if not game.rated or game.status != Game.Status.FINISHED:
        return
    try:
        from rating import services as rating_services  # type: ignore[attr-defined]
    except ImportError:
        return
    apply = getattr(rating_services, "rating_apply_game", None)
    if apply is not None:
        apply(game=game)


def _request_bot_move(game_id: str, expected_ply: int) -> None:
    from bots import seam

    seam.request_bot_move(game_id, expected_ply)


def _schedule_flag_check(game_id: str, delay: float) -> None:
    """Embedded mode only (eager Celery, no beat): check the game's clock in this process
    when it would run out, even with no client connected. With a Celery worker nothing is
    scheduled: the beat's ``game_flag_sweep`` finds the game (see the module docstring)."""
    from kondavo.games import background, tasks

    if not getattr(settings, "KONDAVO_FLAG_TIMERS", True):
        return
    if not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    background.run_later(tasks.game_flag_check, game_id, delay=max(delay, 0.0) + 0.05)


def _bot_to_move(game: Game) -> bool:
    if game.status != Game.Status.ACTIVE:
        return False
    player = game.player_of(turn_of(game))
    return player is not None and player.kind == Player.Kind.BOT


# What a move that does not end the game changes (saving only these is cheaper).
_MOVE_FIELDS = ["moves", "ply", "fen", "quiet_plies", "repetition", "version", "white_ms",
                "black_ms", "turn_started_at", "flag_at", "draw_offer", "bot_turn_since"]


def _save(game: Game, ev: _Events, *, was_over: bool, now: datetime,
          clock_changed: bool = False, bot_check: bool = False,
          fields: list[str] | None = None) -> None:
    """Save (``fields`` only, if given), run the finish hook, and register the on-commit
    side effects. ``bot_check``: a new turn may have started (a move, the game starting)."""
    bot_turn = _bot_to_move(game)
    if not bot_turn:
        game.bot_turn_since = None
    elif bot_check or game.bot_turn_since is None:
        game.bot_turn_since = now
    game.save(update_fields=fields)
    if game.is_over and not was_over:
        _on_game_finished(game)
    _on_commit_effects(game, ev, now=now, clock_changed=clock_changed,
                       bot_request=bot_check and bot_turn)


def _on_commit_effects(game: Game, ev: _Events, *, now: datetime, clock_changed: bool,
                       bot_request: bool) -> None:
    """Register what runs once the transaction commits: publishing the frames (one
    ``group_send`` for all of them), the embedded flag timer, the bot's move request."""
    frames = list(ev.frames)
    if frames:
        transaction.on_commit(partial(events.publish_game, game.id, frames))
    if clock_changed and game.flag_at is not None and game.status == Game.Status.ACTIVE:
        delay = (game.flag_at - now).total_seconds()
        transaction.on_commit(partial(_schedule_flag_check, game.id, delay))
    if bot_request:
        transaction.on_commit(partial(_request_bot_move, game.id, game.ply))


# --------------------------------------------------------------------------- move fast path
#
# A move is the hot path (one transaction per move, hundreds per second). On PostgreSQL it
# skips the ORM's query building and model saving: one precompiled ``SELECT ... FOR UPDATE
# OF`` of the game row (plus both players' kinds, for the bot check) and one precompiled
# ``UPDATE ... WHERE id = %s AND ply = %s`` of the fields a move changes. Same lock, same
# checks, same writes as the ORM path (which other backends, and moves that end the game,
# still take). Game has no signal receivers; nothing else is skipped.

_GAME_ATTNAMES = [f.attname for f in Game._meta.concrete_fields]
_MOVE_UPDATE_FIELDS = [Game._meta.get_field(name) for name in _MOVE_FIELDS]
_fast_sql: dict[str, tuple[str, str, list[tuple[int, Any]]]] = {}


def _fast_path_sql(connection: Any) -> tuple[str, str, list[tuple[int, Any]]]:
    """(lock SQL, update SQL, [(column index, converter)]) for ``connection``, built once."""
    cached = _fast_sql.get(connection.alias)
    if cached is not None:
        return cached
    qn = connection.ops.quote_name
    game_table = qn(Game._meta.db_table)
    player_meta = Player._meta
    player_table = qn(player_meta.db_table)
    player_pk = qn(player_meta.pk.column)
    kind = qn(player_meta.get_field("kind").column)
    gm = Game._meta
    columns = ", ".join(f"g.{qn(f.column)}" for f in gm.concrete_fields)
    lock_sql = (
        f"SELECT {columns}, w.{kind}, b.{kind} FROM {game_table} g "
        f"LEFT OUTER JOIN {player_table} w ON w.{player_pk} = g.{qn(gm.get_field('white').column)} "
        f"LEFT OUTER JOIN {player_table} b ON b.{player_pk} = g.{qn(gm.get_field('black').column)} "
        f"WHERE g.{qn(gm.pk.column)} = %s FOR UPDATE OF g")
    sets = ", ".join(f"{qn(f.column)} = %s" for f in _MOVE_UPDATE_FIELDS)
    update_sql = (f"UPDATE {game_table} SET {sets} "
                  f"WHERE {qn(gm.pk.column)} = %s AND {qn(gm.get_field('ply').column)} = %s")
    converters = [(i, conv) for i, f in enumerate(gm.concrete_fields)
                  for conv in f.get_db_converters(connection)]
    cached = (lock_sql, update_sql, converters)
    _fast_sql[connection.alias] = cached
    return cached


def _fast_connection() -> Any | None:
    """The connection to take the fast path on (PostgreSQL only), or None."""
    connection = connections[router.db_for_write(Game)]
    return connection if connection.vendor == "postgresql" else None


def _lock_fast(connection: Any, game_id: str) -> tuple[Game, dict[str, str | None]]:
    """The locked game (players not loaded: ``game.white`` loads lazily if ever needed)
    and the players' kinds per side."""
    lock_sql, _, converters = _fast_path_sql(connection)
    with connection.cursor() as cursor:
        cursor.execute(lock_sql, [str(game_id)[:12]])
        row = cursor.fetchone()
    if row is None:
        raise GameError("not_found", "no such game")
    n = len(_GAME_ATTNAMES)
    values = list(row[:n])
    for i, conv in converters:
        values[i] = conv(values[i], None, connection)
    game = Game.from_db(connection.alias, _GAME_ATTNAMES, values)
    return game, {"white": row[n], "black": row[n + 1]}


def _save_move_fast(connection: Any, game: Game, expected_ply: int,
                    kinds: dict[str, str | None], ev: _Events, now: datetime) -> None:
    """``_save(..., clock_changed=True, bot_check=True, fields=_MOVE_FIELDS)`` for a move
    that does not end the game, as one UPDATE guarded by the ply the move was played at."""
    bot_turn = (game.status == Game.Status.ACTIVE
                and kinds.get(turn_of(game)) == Player.Kind.BOT)
    game.bot_turn_since = now if bot_turn else None
    _, update_sql, _ = _fast_path_sql(connection)
    params = [f.get_db_prep_save(getattr(game, f.attname), connection)
              for f in _MOVE_UPDATE_FIELDS]
    params += [game.pk, expected_ply]
    with connection.cursor() as cursor:
        cursor.execute(update_sql, params)
        updated = cursor.rowcount
    if updated != 1:  # cannot happen under the row lock; never publish a move not written
        raise GameError("stale_ply", f"the game is no longer at ply {expected_ply}")
    _on_commit_effects(game, ev, now=now, clock_changed=True, bot_request=bot_turn)


def _flag_locked(game: Game, now: datetime) -> bool:
    """Finish the (locked) game on time if the running clock has run out. Saves if so."""
    side = clock_running(game)
    if side is None:
        return False
    left = clock_remaining(game, side, now)
    if left is None or left > 0:
        return False
    ev = _Events(game)
    _finish(game, winner=_other(side), reason=str(Game.Reason.TIMEOUT), now=now, ev=ev)
    setattr(game, f"{side}_ms", 0)
    _save(game, ev, was_over=False, now=now)
    return True


def _new_game(**fields: Any) -> Game:
    for _ in range(8):
        try:
            with transaction.atomic():
                return Game.objects.create(**fields)
        except IntegrityError:
            if Game.objects.filter(pk=fields.get("id")).exists():
                fields.pop("id", None)
                continue
            raise
    raise RuntimeError("could not allocate a game id")


# --------------------------------------------------------------------------- creation

@transaction.atomic
def game_create(*, creator: Player, ruleset: str, time_control: str = "untimed",
                color: str = "random", opponent: Player | None = None, rated: bool = False,
                start_fen: str | None = None, now: datetime | None = None) -> Game:
    """A new game. With ``opponent`` both seats are filled and it starts at once; without,
    ``creator`` takes ``color`` and the other seat stays open (status ``waiting``)."""
    now = clock.resolve(now)
    require_not_banned(creator, opponent)
    variant = _variant(ruleset)
    require_offered(variant.key)
    try:
        tc = get_time_control(time_control)
    except ValueError as exc:
        raise GameError("bad_request", str(exc)) from None
    start, fen, position = _start_position_fen(variant, start_fen)
    if opponent is not None and opponent.pk == creator.pk:
        raise GameError("not_allowed", "you cannot play yourself")
    side = _pick_color(color)
    seats = {side: creator, _other(side): opponent}
    game = _new_game(
        ruleset=variant.key, white=seats["white"], black=seats["black"], creator=creator,
        status=Game.Status.WAITING, moves=[], ply=0, version=0, start_fen=start, fen=fen,
        quiet_plies=0, repetition=[position_key(position)],
        time_control=tc.key, clock_initial_ms=tc.initial_ms, clock_increment_ms=tc.increment_ms,
        white_ms=tc.initial_ms, black_ms=tc.initial_ms, rated=bool(rated),
    )
    if opponent is not None:
        _activate(game, now)
        _save(game, _Events(game), was_over=False, now=now, clock_changed=True,
              bot_check=True)
    return game


def game_create_vs_computer(*, player: Player, ruleset: str, level: int,
                            color: str = "random", time_control: str = "untimed",
                            start_fen: str | None = None, now: datetime | None = None) -> Game:
    """A game against the bot of ``level`` (1..8); the bot moves at once if it starts."""
    try:
        bot = player_get_or_create_bot(level=int(level))
    except (TypeError, ValueError) as exc:
        raise GameError("bad_request", str(exc)) from None
    return game_create(creator=player, ruleset=ruleset, time_control=time_control,
                       color=color, opponent=bot, rated=False, start_fen=start_fen, now=now)


def game_create_friend(*, player: Player, ruleset: str, time_control: str = "untimed",
                       color: str = "random", rated: bool = False,
                       start_fen: str | None = None, now: datetime | None = None) -> Game:
    """A game with an open seat; whoever else opens its link takes the seat."""
    return game_create(creator=player, ruleset=ruleset, time_control=time_control,
                       color=color, rated=rated, start_fen=start_fen, now=now)


@transaction.atomic
def game_join(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Take the open seat of a waiting game (a no-op for a player already seated)."""
    now = clock.resolve(now)
    game = _lock(game_id)
    if game.side_of(player) is not None:
        return game
    if game.status != Game.Status.WAITING:
        raise GameError("not_allowed", "this game already has two players")
    require_not_banned(player)
    if player.is_bot:
        raise GameError("not_allowed", "bots join only games against the computer")
    if game.white_id is None:
        game.white = player
    else:
        game.black = player
    ev = _Events(game)
    _activate(game, now, ev)
    _save(game, ev, was_over=False, now=now, clock_changed=True, bot_check=True)
    return game


def game_open_for_viewer(*, game_id: str, player: Player | None,
                         now: datetime | None = None) -> Game:
    """What the game page calls: flags an expired clock, and seats ``player`` when the game
    is a friend link waiting for an opponent and ``player`` is not its creator."""
    game_flag_if_expired(game_id=game_id, now=now)
    game = Game.objects.select_related("white", "black").filter(pk=str(game_id)[:12]).first()
    if game is None:
        raise GameError("not_found", "no such game")
    if (player is not None and game.status == Game.Status.WAITING
            and game.side_of(player) is None and not player.is_bot):
        try:
            game = game_join(game_id=game.id, player=player, now=now)
        except GameError:  # someone else took the seat first: watch instead
            game = Game.objects.select_related("white", "black").get(pk=game.id)
    return game


# --------------------------------------------------------------------------- moves

def _move_text(move_text: str | None, path: Sequence[str] | None) -> str:
    if (move_text is None) == (path is None):
        raise GameError("bad_request", "send either a move or a path")
    if move_text is not None:
        if not isinstance(move_text, str) or not move_text.strip():
            raise GameError("bad_request", "the move must be a non-empty string")
        if len(move_text) > MAX_MOVE_TEXT:
            raise GameError("bad_request", "the move is too long")
        return move_text
    if (not isinstance(path, list | tuple) or not 2 <= len(path) <= MAX_PATH
            or not all(isinstance(s, str) and 0 < len(s) <= 8 for s in path)):
        raise GameError("bad_request", "path must be a list of 2 or more square labels")
    if any(c in s for s in path for c in "-x:"):
        raise GameError("bad_request", "a square label cannot contain - x or :")
    return "-".join(path)


@transaction.atomic
def _play_move(*, game_id: str, player: Player, ply: Any, move_text: str | None,
               path: Sequence[str] | None, now: datetime) -> tuple[Game, GameError | None]:
    connection = _fast_connection()
    kinds: dict[str, str | None] | None = None
    if connection is not None:
        game, kinds = _lock_fast(connection, game_id)
    else:
        game = _lock(game_id)
    side = _seat(game, player)
    require_not_banned(player)
    if _flag_locked(game, now):
        return game, GameError("game_over", "time is up: the game is over")
    _require_active(game)
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise GameError("bad_request", "ply must be a non-negative integer")
    if ply != game.ply:
        raise GameError("stale_ply", f"the game is at ply {game.ply}, not {ply}")
    if turn_of(game) != side:
        raise GameError("not_your_turn", "it is not your turn")
    text = _move_text(move_text, path)
    variant = get_variant(game.ruleset)
    record = resume_record(variant, game.fen, game.quiet_plies, game.repetition)
    if record is None:  # a row without the stored history: replay its moves once
        record = game_record(game)
        game.repetition = repetition_of(record)
    before = record.position
    try:
        played = record.push_notation(text)
    except AmbiguousMove as exc:
        raise GameError("ambiguous_move", str(exc)) from None
    except InvalidNotation as exc:
        raise GameError("bad_request", str(exc)) from None
    except IllegalMove as exc:
        raise GameError("illegal_move", str(exc)) from None
    except VariantError as exc:
        raise GameError("bad_request", str(exc)) from None

    if game.timed:
        left = clock_remaining(game, side, now) or 0
        setattr(game, f"{side}_ms", left + game.clock_increment_ms)
    after = record.position
    game.moves = [*game.moves, played.notation]
    game.ply += 1
    game.fen = variant.format_fen(after)
    game.quiet_plies = record.quiet_plies
    game.repetition = next_repetition(variant, before, played.move, after, game.repetition)
    ev = _Events(game)
    outcome = record.outcome()
    if outcome is None:
        _start_clock(game, now)
    else:
        _stop_clock(game, now)
    legal: list[Move] = variant.legal_moves(after) if outcome is None else []
    moved = {
        "ply": game.ply,
        "path": [variant.square_label(s) for s in played.move.path],
        "captured": [variant.square_label(s) for s in played.move.captured],
        "notation": played.notation,
        "fen": game.fen,
        "turn": side_name(after.turn),
        "legal": [move_payload(variant, after, m, legal) for m in legal],
        "clocks": None,
        "moves_left_hint": max(variant.draw_plies - record.quiet_plies, 0),
    }
    if game.draw_offer == _other(side):  # moving declines the opponent's offer
        game.draw_offer = None
        declined = True
    else:
        declined = False
    if outcome is not None:
        # Clocks in the move frame as the game ends; the end frame follows.
        moved["clocks"] = clocks_payload(game, now)
        ev.add("move", moved)
        winner = side_name(outcome.winner) if outcome.winner is not None else None
        _finish(game, winner=winner, reason=outcome.reason.value, now=now, ev=ev)
    else:
        moved["clocks"] = clocks_payload(game, now)
        ev.add("move", moved)
        if declined:
            ev.add("draw_offer", {"by": None})
    if outcome is None and connection is not None and kinds is not None:
        _save_move_fast(connection, game, ply, kinds, ev, now)
    else:
        _save(game, ev, was_over=False, now=now, clock_changed=True, bot_check=True,
              fields=_MOVE_FIELDS if outcome is None else None)
    return game, None


def game_play_move(*, game_id: str, player: Player, ply: int, move_text: str | None = None,
                   path: Sequence[str] | None = None, now: datetime | None = None) -> Game:
    """Play ``move_text`` (e.g. ``"32-28"``, ``"28x19"``) or ``path`` (square labels) for
    ``player`` answering the position at ``ply``. Raises GameError (nothing changed)."""
    game, error = _play_move(game_id=game_id, player=player, ply=ply, move_text=move_text,
                             path=path, now=clock.resolve(now))
    if error is not None:
        raise error
    return game


def game_flag_if_expired(*, game_id: str, now: datetime | None = None) -> bool:
    """End the game on time if the running clock has run out. True if it did so now."""
    now = clock.resolve(now)
    flag_at = (Game.objects.filter(pk=str(game_id)[:12], status=Game.Status.ACTIVE)
               .values_list("flag_at", flat=True).first())
    if flag_at is None or flag_at > now:
        return False
    with transaction.atomic():
        try:
            game = _lock(game_id)
        except GameError:
            return False
        return _flag_locked(game, now)


# --------------------------------------------------------------------------- game actions

def _action(game_id: str, player: Player, now: datetime,
            body: Any) -> Game:
    """Lock, seat check, flag check, then ``body(game, side, ev)``; saves and publishes."""
    flagged_game, error = _action_locked(game_id, player, now, body)
    if error is not None:
        raise error
    return flagged_game


@transaction.atomic
def _action_locked(game_id: str, player: Player, now: datetime,
                   body: Any) -> tuple[Game, GameError | None]:
    game = _lock(game_id)
    side = _seat(game, player)
    if _flag_locked(game, now):
        return game, GameError("game_over", "time is up: the game is over")
    was_over = game.is_over
    ev = _Events(game)
    options = body(game, side, ev) or {}
    _save(game, ev, was_over=was_over, now=now, **options)
    return game, None


def game_resign(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    now = clock.resolve(now)

    def body(game: Game, side: str, ev: _Events) -> None:
        _require_active(game)
        _finish(game, winner=_other(side), reason=str(Game.Reason.RESIGN), now=now, ev=ev)

    return _action(game_id, player, now, body)


def game_offer_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Offer a draw; if the opponent already offered one, this accepts it."""
    now = clock.resolve(now)

    def body(game: Game, side: str, ev: _Events) -> None:
        _require_active(game)
        if game.draw_offer == side:
            return
        if game.draw_offer == _other(side):
            _finish(game, winner=None, reason=str(Game.Reason.AGREEMENT), now=now, ev=ev)
            return
        game.draw_offer = side
        ev.add("draw_offer", {"by": side})

    return _action(game_id, player, now, body)


def game_accept_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    now = clock.resolve(now)

    def body(game: Game, side: str, ev: _Events) -> None:
        _require_active(game)
        if game.draw_offer != _other(side):
            raise GameError("not_allowed", "there is no draw offer to accept")
        _finish(game, winner=None, reason=str(Game.Reason.AGREEMENT), now=now, ev=ev)

    return _action(game_id, player, now, body)


def game_decline_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Decline the opponent's offer, or withdraw one's own."""
    now = clock.resolve(now)

    def body(game: Game, side: str, ev: _Events) -> None:
        _require_active(game)
        if game.draw_offer is None:
            raise GameError("not_allowed", "there is no draw offer")
        game.draw_offer = None
        ev.add("draw_offer", {"by": None})

    return _action(game_id, player, now, body)


def game_abort(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Abort a game nobody has lost yet: waiting, or before both sides have moved."""
    now = clock.resolve(now)

    def body(game: Game, side: str, ev: _Events) -> None:
        if game.is_over:
            raise GameError("game_over", "the game is over")
        if game.status == Game.Status.ACTIVE and game.ply >= 2:
            raise GameError("not_allowed", "both sides have moved: resign instead")
        _stop_clock(game, now)
        game.status = Game.Status.ABORTED
        game.finished = now
        game.draw_offer = None
        ev.add("end", {"status": game.status, "result": None})

    return _action(game_id, player, now, body)


def game_claim_victory(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Win a game whose opponent has had no open socket for KONDAVO_CLAIM_VICTORY_SECONDS."""
    now = clock.resolve(now)
    timeout = timedelta(seconds=getattr(settings, "KONDAVO_CLAIM_VICTORY_SECONDS", 60))

    def body(game: Game, side: str, ev: _Events) -> None:
        _require_active(game)
        other = _other(side)
        opponent = game.player_of(other)
        if opponent is None or opponent.is_bot:
            raise GameError("not_allowed", "the computer never leaves")
        if getattr(game, f"{other}_connections") > 0:
            raise GameError("not_allowed", "your opponent is connected")
        since = getattr(game, f"{other}_left_at") or game.started or now
        wait = since + timeout - now
        if wait > timedelta(0):
            raise GameError("not_allowed",
                            f"you can claim victory in {int(wait.total_seconds()) + 1} s")
        _finish(game, winner=side, reason=str(Game.Reason.ABANDONED), now=now, ev=ev)

    return _action(game_id, player, now, body)


def game_rematch(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Ask for a rematch; when both sides asked (the computer always agrees), create it with
    colours swapped. Returns the finished game (its ``rematch`` is set once created)."""
    now = clock.resolve(now)

    def body(game: Game, side: str, ev: _Events) -> dict[str, Any] | None:
        if not game.is_over:
            raise GameError("not_allowed", "the game is not over yet")
        if game.rematch_id is not None:
            return None
        opponent = game.player_of(_other(side))
        if opponent is None:
            raise GameError("not_allowed", "nobody to play a rematch with")
        if game.rematch_offer == _other(side) or opponent.is_bot:
            me = game.player_of(side)
            assert me is not None
            new = game_create(
                creator=me, ruleset=game.ruleset, time_control=game.time_control,
                color=_other(side), opponent=opponent, rated=game.rated,
                start_fen=game.start_fen, now=now)
            game.rematch = new
            game.rematch_offer = None
            ev.add("rematch", {"game_id": new.id, "url": game_url(new.id)})
        elif game.rematch_offer != side:
            game.rematch_offer = side
            ev.add("rematch", {"offered_by": side})
        return None

    return _action(game_id, player, now, body)


@transaction.atomic
def game_presence(*, game_id: str, player: Player | None, connected: bool,
                  now: datetime | None = None) -> dict[str, bool] | None:
    """Count a player's game socket opening/closing. Returns the new presence if the
    player sits at the board (None for spectators or unknown games)."""
    now = clock.resolve(now)
    if player is None:
        return None
    game = Game.objects.select_for_update().filter(pk=str(game_id)[:12]).first()
    if game is None:
        return None
    side = game.side_of(player)
    if side is None:
        return None
    count_field, left_field = f"{side}_connections", f"{side}_left_at"
    count = getattr(game, count_field)
    if connected:
        setattr(game, count_field, count + 1)
        setattr(game, left_field, None)
    else:
        setattr(game, count_field, max(count - 1, 0))
        if count <= 1:
            setattr(game, left_field, now)
    game.save(update_fields=[count_field, left_field])
    presence = {"white": game.white_connections > 0, "black": game.black_connections > 0}
    transaction.on_commit(partial(events.publish_presence, game.id, presence))
    return presence


# --------------------------------------------------------------------------- lobby

def _lobby_bump() -> int:
    LobbyState.objects.get_or_create(pk=1)
    LobbyState.objects.filter(pk=1).update(version=F("version") + 1)
    return LobbyState.objects.get(pk=1).version


def _publish_lobby(version: int) -> None:
    events.publish_lobby(version, seeks_open())


@transaction.atomic
def seek_create(*, player: Player, ruleset: str, time_control: str,
                rated: bool = False) -> Seek:
    require_not_banned(player)
    variant = _variant(ruleset)
    require_offered(variant.key)
    try:
        tc = get_time_control(time_control)
    except ValueError as exc:
        raise GameError("bad_request", str(exc)) from None
    if player.is_bot:
        raise GameError("not_allowed", "bots do not seek")
    rated = bool(rated) and player.kind == Player.Kind.USER
    mine = Seek.objects.filter(player=player, status=Seek.Status.OPEN)
    same = mine.filter(ruleset=variant.key, time_control=tc.key, rated=rated).first()
    if same is not None:
        return same
    if mine.count() >= MAX_OPEN_SEEKS_PER_PLAYER:
        raise GameError("not_allowed", f"at most {MAX_OPEN_SEEKS_PER_PLAYER} open seeks")
    seek = Seek.objects.create(player=player, ruleset=variant.key, time_control=tc.key,
                               rated=rated)
    version = _lobby_bump()
    transaction.on_commit(partial(_publish_lobby, version))
    return seek


def _lock_seek(seek_id: Any) -> Seek:
    try:
        return Seek.objects.select_for_update().get(pk=int(seek_id))
    except (Seek.DoesNotExist, TypeError, ValueError):
        raise GameError("not_found", "no such seek") from None


@transaction.atomic
def seek_cancel(*, seek_id: int, player: Player) -> Seek:
    seek = _lock_seek(seek_id)
    if seek.player_id != player.pk:
        raise GameError("not_allowed", "this is not your seek")
    if seek.status != Seek.Status.OPEN:
        return seek
    seek.status = Seek.Status.CANCELLED
    seek.save(update_fields=["status"])
    version = _lobby_bump()
    transaction.on_commit(partial(_publish_lobby, version))
    return seek


def seek_cancel_all(*, player: Player) -> int:
    """Cancel every open seek of ``player`` (e.g. when their last lobby socket closes)."""
    n = 0
    for seek_id in Seek.objects.filter(player=player, status=Seek.Status.OPEN).values_list(
            "pk", flat=True):
        seek_cancel(seek_id=seek_id, player=player)
        n += 1
    return n


@transaction.atomic
def seek_accept(*, seek_id: int, player: Player, now: datetime | None = None) -> Game:
    """Start a game between the seek's author and ``player`` (colours at random)."""
    now = clock.resolve(now)
    seek = _lock_seek(seek_id)
    if seek.status != Seek.Status.OPEN:
        raise GameError("not_found", "this seek is no longer open")
    if seek.player_id == player.pk:
        raise GameError("not_allowed", "you cannot accept your own seek")
    require_not_banned(player)
    if player.is_bot:
        raise GameError("not_allowed", "bots do not accept seeks")
    game = game_create(creator=seek.player, ruleset=seek.ruleset,
                       time_control=seek.time_control, color="random", opponent=player,
                       rated=seek.rated, now=now)
    seek.status = Seek.Status.ACCEPTED
    seek.game = game
    seek.save(update_fields=["status", "game"])
    version = _lobby_bump()
    transaction.on_commit(partial(_publish_lobby, version))
    frame = {"v": version, "t": "game", "d": {"id": game.id, "url": game_url(game.id)}}
    for pid in (seek.player_id, player.pk):
        transaction.on_commit(partial(events.publish_player, pid, frame))
    return game
