"""Playing a move: the hot path.

A move that does not end the game is written optimistically (``GameWrite.read``: the row as
last committed, one ``UPDATE`` guarded by its version, no transaction: two round trips to
the database); one that ends it, flags a clock, or finds the row changed meanwhile is
written again under the row lock (one locked ``SELECT`` and one guarded ``UPDATE`` in a
transaction), which is also the path inside a caller's transaction.

The next move is played on the record resumed from the row's stored history
(``history.resume_record``), never on a replay of the game. The current position's legal
moves are generated once to find the move, and the new position's once for the outcome and
the ``move`` frame. A move comes as notation (``"32-28"``), as a path of square labels
(matched against the legal moves directly), or as a ``variants.Move`` (the bot task).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connections, router, transaction

from kondavo.accounts.models import Player
from kondavo.games import clock, wire
from kondavo.games.engine_errors import engine_error_text
from kondavo.games.errors import GameError
from kondavo.games.history import next_repetition, repetition_of, resume_record
from kondavo.games.models import Game
from kondavo.games.moderation import require_not_banned
from kondavo.games.selectors import (
    clock_remaining,
    clock_running,
    game_record,
    side_name,
    turn_of,
)
from kondavo.games.services import clocks
from kondavo.games.services.store import (
    MOVE_FIELDS,
    GameWrite,
    NeedsLock,
    other,
    require_active,
)
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

MAX_MOVE_TEXT = 200
MAX_PATH = 40


def _check_request(move_text: Any, path: Any, move: Move | None) -> None:
    given = sum(x is not None for x in (move_text, path, move))
    if given != 1:
        raise GameError("bad_request", "send either a move or a path")
    if move_text is not None:
        if not isinstance(move_text, str) or not move_text.strip():
            raise GameError("bad_request", "the move must be a non-empty string")
        if len(move_text) > MAX_MOVE_TEXT:
            raise GameError("bad_request", "the move is too long")
    if path is not None:
        if (not isinstance(path, list | tuple) or not 2 <= len(path) <= MAX_PATH
                or not all(isinstance(s, str) and 0 < len(s) <= 8 for s in path)):
            raise GameError("bad_request", "path must be a list of 2 or more square labels")


def _find_move(variant: Variant, position: Position, legal: list[Move], *,
               move_text: str | None, path: Sequence[str] | None,
               move: Move | None) -> Move:
    """The legal move the request names. Raises GameError."""
    try:
        if move_text is not None:
            return variant.parse_move(position, move_text, legal)
        if move is not None:
            if move not in legal:
                raise GameError("illegal_move", "that move is not legal here")
            return move
        assert path is not None
        squares = [variant.parse_square(label) for label in path]
    except AmbiguousMove as exc:
        raise GameError("ambiguous_move", engine_error_text(exc)) from None
    except InvalidNotation as exc:
        raise GameError("bad_request", engine_error_text(exc)) from None
    except IllegalMove as exc:
        raise GameError("illegal_move", engine_error_text(exc)) from None
    except VariantError as exc:
        raise GameError("bad_request", engine_error_text(exc)) from None
    exact = [m for m in legal if list(m.path) == squares]
    if not exact and len(squares) == 2:  # origin and destination only, as in "32-28"
        exact = [m for m in legal if m.path[0] == squares[0] and m.path[-1] == squares[-1]]
    if not exact:
        raise GameError("illegal_move", "that move is not legal here")
    if len(exact) > 1:
        raise GameError("ambiguous_move", "several moves take that path: send the full path")
    return exact[0]


@transaction.atomic
def _play_move(*, game_id: str, player: Player, ply: Any, move_text: str | None,
               path: Sequence[str] | None, move: Move | None,
               now: datetime) -> tuple[Game, GameError | None]:
    return _play(GameWrite.lock(game_id, now), player=player, ply=ply, move_text=move_text,
                 path=path, move=move)


def _play(write: GameWrite, *, player: Player, ply: Any, move_text: str | None,
          path: Sequence[str] | None, move: Move | None) -> tuple[Game, GameError | None]:
    now = write.now
    game = write.game
    side = write.seat(player)
    require_not_banned(player)
    if clocks.flag_locked(write):
        return game, GameError("game_over", "time is up: the game is over")
    require_active(game)
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise GameError("bad_request", "ply must be a non-negative integer")
    if ply != game.ply:
        raise GameError("stale_ply", f"the game is at ply {game.ply}, not {ply}")
    if turn_of(game) != side:
        raise GameError("not_your_turn", "it is not your turn")
    _check_request(move_text, path, move)
    variant = get_variant(game.ruleset)
    record = resume_record(variant, game.fen, game.quiet_plies, game.repetition)
    if record is None:  # a row without the stored history: replay its moves once
        record = game_record(game)
        game.repetition = repetition_of(record)
    before = record.position
    legal_before = record.legal_moves()  # the game so far considered (variants.history)
    chosen = _find_move(variant, before, legal_before, move_text=move_text, path=path,
                        move=move)
    played = record.push(chosen, legal_before)

    if clock_running(game) == side:  # no increment for a first move (no clock ran)
        left = clock_remaining(game, side, now) or 0
        setattr(game, f"{side}_ms", left + game.clock_increment_ms)
    after = record.position
    game.moves = [*game.moves, played.notation]
    game.ply += 1
    game.fen = variant.format_fen(after)
    game.quiet_plies = record.quiet_plies
    game.repetition = next_repetition(variant, before, played.move, after, game.repetition)
    legal = record.legal_moves()
    outcome = record.outcome(legal)
    if outcome is None:
        clocks.start(write)
    else:
        clocks.stop(game, now)
        legal = []
    moved = wire.move_event(variant, game, played, after, legal, record.quiet_plies, now)
    declined = game.draw_offer == other(side)  # moving declines the opponent's offer
    if declined:
        game.draw_offer = None
    write.add("move", moved)
    if outcome is not None:
        winner = side_name(outcome.winner) if outcome.winner is not None else None
        clocks.finish(write, winner=winner, reason=outcome.reason.value)
        clocks.save(write, new_turn=True)
    else:
        if declined:
            write.add("draw_offer", wire.draw_offer_event(by=None, declined_by=side))
        clocks.save(write, fields=MOVE_FIELDS, new_turn=True)
    return game, None


def game_play_move(*, game_id: str, player: Player, ply: int, move_text: str | None = None,
                   path: Sequence[str] | None = None, move: Move | None = None,
                   now: datetime | None = None) -> Game:
    """Play ``move_text`` (e.g. ``"32-28"``, ``"28x19"``), ``path`` (square labels) or
    ``move`` (a ``variants.Move``) for ``player`` answering the position at ``ply``.
    Raises GameError (nothing changed)."""
    now = clock.resolve(now)
    request = {"player": player, "ply": ply, "move_text": move_text, "path": path,
               "move": move}
    game: Game | None = None
    if not connections[router.db_for_write(Game)].in_atomic_block:
        try:
            game, error = _play(GameWrite.read(game_id, now), **request)
        except NeedsLock:
            game = None
    if game is None:
        game, error = _play_move(game_id=game_id, now=now, **request)
    if error is not None:
        raise error
    return game
