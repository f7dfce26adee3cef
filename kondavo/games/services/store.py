"""Loading a game row and saving it: the one write path of every game service.

``GameWrite.lock(game_id, now)`` is one precompiled ``SELECT`` of the game row joined with
both players' kinds (``select_locked``: ``FOR UPDATE OF`` the game row where the database
has it; SQLite's IMMEDIATE transactions serialise writers instead). A service then changes
the instance, adds its events (each bumps the game's event ``version`` by one) and calls
``save``: one precompiled ``UPDATE`` of the given fields (``update_guarded``), guarded by
the version the row was read at (so nothing is published for a row not written), the
``game_finished`` hook when the game has just ended, and the on-commit side effects:
publishing the frames (one bus message for all of them) and the bot's move request. (The
embedded mode's flag timer is the clocks' business: ``clocks.save`` saves and re-arms it.)
A plain move skips the lock and the transaction (``GameWrite.read``, see the class).

This is the bottom layer of the services: it imports no other service module.

Why SQL and not the ORM here: the two statements run on every move, and building them
through the ORM each time costs more than the rest of the move. ``bench/write_path.py``
plays the same moves through ``game_play_move`` written optimistically, under the lock,
and under the lock with the ORM's statements; its figures are in bench/results/live.md
(the ORM's locked write took about 2.6 times the web process's CPU per move of the
optimistic one, the SQL locked write 1.3 times). The SQL is built once per connection from
the model's metadata (columns, converters), so it follows the model; the same SQL runs on
PostgreSQL and SQLite, only the lock clause differs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from django.db import connections, router, transaction

from kondavo.accounts.models import Player
from kondavo.games import events, hooks, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.selectors import turn_of
from kondavo.outages import OUTAGE_ERRORS

log = logging.getLogger(__name__)

SIDES = ("white", "black")

# What a move that does not end the game changes.
MOVE_FIELDS = ("moves", "ply", "fen", "quiet_plies", "repetition", "version", "white_ms",
               "black_ms", "turn_started_at", "flag_at", "draw_offer", "bot_turn_since")
ALL_FIELDS = tuple(f.name for f in Game._meta.concrete_fields if not f.primary_key)


def other(side: str) -> str:
    return "black" if side == "white" else "white"


_ATTNAMES = [f.attname for f in Game._meta.concrete_fields]
_select_sql: dict[tuple[str, bool], tuple[str, list[tuple[int, Any, Any]]]] = {}
_update_sql: dict[tuple[str, tuple[str, ...]], tuple[str, list[Any]]] = {}


def _connection() -> Any:
    return connections[router.db_for_write(Game)]


def _select_statement(connection: Any, lock: bool) -> tuple[str, list[tuple[int, Any, Any]]]:
    """(SQL, [(column index, converter, column)]) for ``connection``, built once; ``lock``:
    the row locked for the transaction."""
    cached = _select_sql.get((connection.alias, lock))
    if cached is not None:
        return cached
    qn = connection.ops.quote_name
    gm, pm = Game._meta, Player._meta
    kind = qn(pm.get_field("kind").column)
    player_table, player_pk = qn(pm.db_table), qn(pm.pk.column)
    columns = ", ".join(f"g.{qn(f.column)}" for f in gm.concrete_fields)
    sql = (
        f"SELECT {columns}, w.{kind}, b.{kind} FROM {qn(gm.db_table)} g "
        f"LEFT OUTER JOIN {player_table} w ON w.{player_pk} = g.{qn(gm.get_field('white').column)} "
        f"LEFT OUTER JOIN {player_table} b ON b.{player_pk} = g.{qn(gm.get_field('black').column)} "
        f"WHERE g.{qn(gm.pk.column)} = %s")
    if not lock:
        pass
    elif connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF g"
    elif connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    converters = []  # as Django's compiler applies them: the backend's, then the field's
    for i, f in enumerate(gm.concrete_fields):
        col = f.get_col(gm.db_table)
        for conv in [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]:
            converters.append((i, conv, col))
    cached = (sql, converters)
    _select_sql[(connection.alias, lock)] = cached
    return cached


def _update_statement(connection: Any, fields: tuple[str, ...]) -> tuple[str, list[Any]]:
    key = (connection.alias, fields)
    cached = _update_sql.get(key)
    if cached is not None:
        return cached
    qn = connection.ops.quote_name
    gm = Game._meta
    model_fields = [gm.get_field(name) for name in fields]
    sets = ", ".join(f"{qn(f.column)} = %s" for f in model_fields)
    sql = (f"UPDATE {qn(gm.db_table)} SET {sets} "
           f"WHERE {qn(gm.pk.column)} = %s AND {qn(gm.get_field('version').column)} = %s")
    cached = (sql, model_fields)
    _update_sql[key] = cached
    return cached


def select_locked(game_id: str) -> tuple[Game, dict[str, str | None]] | None:
    """The game row locked for this transaction with both players' kinds (one query)."""
    return select_row(game_id, lock=True)


def select_row(game_id: str, *, lock: bool) -> tuple[Game, dict[str, str | None]] | None:
    """The game row with both players' kinds (one query), locked or as last committed."""
    connection = _connection()
    sql, converters = _select_statement(connection, lock)
    with connection.cursor() as cursor:
        cursor.execute(sql, [str(game_id)[:12]])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(_ATTNAMES)
    values = list(row[:n])
    for i, conv, col in converters:
        values[i] = conv(values[i], col, connection)
    game = Game.from_db(connection.alias, _ATTNAMES, values)
    return game, {"white": row[n], "black": row[n + 1]}


def update_guarded(game: Game, fields: tuple[str, ...], read_version: int) -> int:
    """``UPDATE`` of ``fields`` where the row still has ``read_version``: rows written."""
    connection = _connection()
    sql, model_fields = _update_statement(connection, fields)
    params = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in model_fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, game.pk, read_version])
        return int(cursor.rowcount)


class NeedsLock(Exception):
    """An optimistic write cannot go on without the row lock: the row changed since it was
    read, or the write is more than a plain move (see ``GameWrite.read``). Nothing was
    written; the caller does the whole write again under the lock."""


@dataclass
class GameWrite:
    """One game being written: the row, the players' kinds, the new events.

    Normally locked in a transaction (``lock``). A plain move may instead be written
    optimistically (``read``): the row as last committed, no transaction, and one ``UPDATE``
    guarded by the version it was read at, in autocommit. That is two round trips to the
    database instead of four (``BEGIN``, the locked ``SELECT``, the ``UPDATE``, ``COMMIT``),
    and correct for the same reason the locked write is: the version guard lets exactly one
    writer of a version through. A write that finds the row changed, or that would do more
    than update the game row (end the game: ratings, hooks; flag a clock), raises
    ``NeedsLock`` before writing anything, and is done again under the lock.
"""

    game: Game
    kinds: dict[str, str | None]
    now: datetime
    read_version: int
    was_over: bool
    frames: list[dict[str, Any]] = field(default_factory=list)
    optimistic: bool = False

    @classmethod
    def read(cls, game_id: str, now: datetime) -> GameWrite:
        """The game row as last committed, for an optimistic write (see the class)."""
        found = select_row(game_id, lock=False)
        if found is None:
            raise GameError("not_found", "no such game")
        game, kinds = found
        return cls(game, kinds, now, game.version, game.is_over, optimistic=True)

    def needs_lock(self) -> None:
        """Called before a write an optimistic write may not do (ending the game, ...)."""
        if self.optimistic:
            raise NeedsLock

    @classmethod
    def lock(cls, game_id: str, now: datetime) -> GameWrite:
        """The game row locked for this transaction (players load lazily if needed)."""
        found = select_locked(game_id)
        if found is None:
            raise GameError("not_found", "no such game")
        game, kinds = found
        return cls(game, kinds, now, game.version, game.is_over)

    @classmethod
    def created(cls, game: Game, now: datetime) -> GameWrite:
        """A game just inserted in this transaction (its players are loaded)."""
        kinds = {side: (p.kind if p is not None else None)
                 for side, p in (("white", game.white), ("black", game.black))}
        return cls(game, kinds, now, game.version, False)

    def seat(self, player: Player | None) -> str:
        side = self.game.side_of(player)
        if side is None:
            raise GameError("not_a_player", "you are not playing in this game")
        return side

    def add(self, t: str, d: dict[str, Any]) -> None:
        """A versioned frame of this write (published on commit)."""
        self.game.version += 1
        self.frames.append(wire.frame(t, d, v=self.game.version))

    def bot_to_move(self) -> bool:
        game = self.game
        return (game.status == Game.Status.ACTIVE
                and self.kinds.get(turn_of(game)) == Player.Kind.BOT)

    def save(self, *, fields: tuple[str, ...] = ALL_FIELDS, new_turn: bool = False) -> None:
        """Write ``fields``; ``new_turn``: a move was played or the game started (a bot may
        now have to move). Where ``flag_at`` may have moved, call ``clocks.save`` instead."""
        game, now = self.game, self.now
        bot_turn = self.bot_to_move()
        if not bot_turn:
            game.bot_turn_since = None
        elif new_turn or game.bot_turn_since is None:
            game.bot_turn_since = now
        if "bot_turn_since" not in fields:
            fields = (*fields, "bot_turn_since")
        if game.is_over and not self.was_over:
            self.needs_lock()  # the end of a game writes more than its row
        # Cannot fail under the row lock; never publish what is not written.
        if update_guarded(game, fields, self.read_version) != 1:
            if self.optimistic:
                raise NeedsLock
            raise GameError("conflict", "the game changed meanwhile: try again")
        self.read_version = game.version
        if game.is_over and not self.was_over:
            hooks.send_game_finished(game, self.frames)
            wire.end_ratings(self.frames, game)  # the ratings it applied go out with ``end``
            self.was_over = True
        self._on_commit(bot_request=new_turn and bot_turn)

    def _on_commit(self, *, bot_request: bool) -> None:
        game = self.game
        if self.frames:
            transaction.on_commit(partial(events.publish_game, game.id, list(self.frames)))
            if hooks.registry.game_events_listener is not None:  # notifications (after it)
                transaction.on_commit(partial(hooks.game_events, hooks.GameEvents(
                    game.id, game.white_id, game.black_id, game.creator_id, dict(self.kinds),
                    game.timed, tuple((f["t"], f["d"]) for f in self.frames))))
            self.frames.clear()
        if bot_request:
            transaction.on_commit(partial(_request_bot_move, game.id, game.ply))


def _request_bot_move(game_id: str, ply: int) -> None:
    """Ask for the bot's move after the commit. A broker that is down is logged, not
    raised: the player's move is stored, and the bot move sweep asks again."""
    try:
        hooks.request_bot_move(game_id, ply)
    except OUTAGE_ERRORS as exc:
        log.warning("bot move for %s not requested (%s: %s); the sweep asks again",
                    game_id, type(exc).__name__, exc)


def require_active(game: Game) -> None:
    if game.is_over:
        raise GameError("game_over", "the game is over")
    if game.status != Game.Status.ACTIVE:
        raise GameError("not_allowed", "the game has not started yet")
