"""Rules that read the game so far: the ``restrict`` hook and the history it receives.

Most rules decide the legal moves from the position alone. A few need the game so far, for
example Frisian's limit on consecutive king moves. Such a ruleset overrides
``Variant.restrict(history, moves)`` (or declares ``max_king_moves_with_men``, which the
default ``restrict`` applies). Every place that decides what is legal in a game asks
:func:`legal_moves_in` (the site's move validation, :class:`~variants.game.GameRecord`, the
conformance kit) or applies ``restrict`` along its own line (the pure-Python search). A
ruleset with such a rule is not declarative (:func:`variants.spec.declarative_reason`), so
the compiled core, which sees positions only, never plays it.

A :class:`History` holds positions, not moves: what a server keeps of a game in progress is
the positions since the last irreversible move (a capture, a promotion, a man's advance),
and every rule of this kind can be read from them (:func:`moves_in_a_row` tells which piece
moved at each ply). A hook must not look further back than that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from variants.types import Color, Move, Position

if TYPE_CHECKING:
    from variants.base import Variant
    from variants.game import GameRecord


@dataclass(frozen=True, slots=True)
class History:
    """The game so far as positions, oldest first; the last is the position to move in.

    It holds at least every position since the last irreversible move.
    """

    positions: tuple[Position, ...]

    @property
    def position(self) -> Position:
        return self.positions[-1]

    def plies(self) -> Iterator[tuple[Position, Position]]:
        """Each ply as (position before, position after), the most recent first."""
        p = self.positions
        for i in range(len(p) - 1, 0, -1):
            yield p[i - 1], p[i]


@dataclass(frozen=True, slots=True)
class Ply:
    """What one ply did, read from the positions before and after it."""

    mover: Color
    king: bool  # the piece that moved was a king (before the move)
    capture: bool  # it took something


def ply_between(before: Position, after: Position) -> Ply:
    """Which kind of piece moved from ``before`` to ``after``, and whether it captured."""
    mover = before.turn
    other = mover.opponent
    capture = after.pieces(other) != before.pieces(other)
    left = before.pieces(mover) & ~after.pieces(mover)  # the origin square
    king = bool(left & before.kings(mover))
    return Ply(mover, king, capture)


def moves_in_a_row(history: History, color: Color,
                   counts: Callable[[Ply], bool]) -> int:
    """How many of ``color``'s latest plies in a row (the most recent first) ``counts``
    accepts: the count stops at the first one it refuses, or where the history begins."""
    n = 0
    for before, after in history.plies():
        if before.turn is not color:
            continue
        if not counts(ply_between(before, after)):
            break
        n += 1
    return n


def quiet_king_move(ply: Ply) -> bool:
    """A king moving without capturing."""
    return ply.king and not ply.capture


def limit_king_moves(history: History, moves: Sequence[Move], limit: int) -> list[Move]:
    """``max_king_moves_with_men``: while the side to move still has men, after ``limit``
    non-capturing king moves in a row it must move a man or capture (kings may not make
    another quiet move). When that would leave no move, every move stays legal."""
    position = history.position
    mover = position.turn
    if limit <= 0 or not position.men(mover) or not position.kings(mover):
        return list(moves)
    if moves_in_a_row(history, mover, quiet_king_move) < limit:
        return list(moves)
    kings = position.kings(mover)
    kept = [m for m in moves if m.captured or not (kings >> m.path[0]) & 1]
    return kept or list(moves)


def history_of(record: GameRecord) -> History:
    """The history a ruleset's ``restrict`` hook receives for ``record``'s position."""
    return History(record.positions)


def has_history_rule(variant: Variant) -> bool:
    """True when ``variant``'s legal moves depend on the game so far (``restrict``
    overridden, or ``max_king_moves_with_men`` declared)."""
    from variants.base import Variant as VariantBase

    return (type(variant).restrict is not VariantBase.restrict
            or variant.spec.max_king_moves_with_men > 0)


def legal_moves_in(record: GameRecord) -> list[Move]:
    """The legal moves of ``record``'s current position, the game so far considered: the
    one function the site, the records and the conformance kit ask."""
    variant = record.variant
    moves = variant.legal_moves(record.position)
    if not has_history_rule(variant):
        return moves
    return variant.restrict(history_of(record), moves)


__all__ = ["History", "Ply", "has_history_rule", "history_of", "legal_moves_in",
           "limit_king_moves", "moves_in_a_row", "ply_between", "quiet_king_move"]
