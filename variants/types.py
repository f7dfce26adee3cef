"""Small frozen values shared by every ruleset: colours, positions, moves, outcomes."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

Bitboard = int
"""A set of squares: bit ``i`` is the ruleset's internal square index ``i``."""

Square = int
"""A ruleset's internal square index (0-based)."""


def bits(bb: Bitboard) -> Iterator[Square]:
    """The squares of ``bb``, lowest first."""
    while bb:
        low = bb & -bb
        bb ^= low
        yield low.bit_length() - 1


class Color(enum.IntEnum):
    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def letter(self) -> str:
        return "W" if self is Color.WHITE else "B"


@dataclass(frozen=True, slots=True)
class Position:
    """Placement of men and kings of both colours plus the side to move."""

    white_men: Bitboard
    white_kings: Bitboard
    black_men: Bitboard
    black_kings: Bitboard
    turn: Color

    def men(self, color: Color) -> Bitboard:
        return self.white_men if color is Color.WHITE else self.black_men

    def kings(self, color: Color) -> Bitboard:
        return self.white_kings if color is Color.WHITE else self.black_kings

    def pieces(self, color: Color) -> Bitboard:
        if color is Color.WHITE:
            return self.white_men | self.white_kings
        return self.black_men | self.black_kings

    @property
    def occupied(self) -> Bitboard:
        return self.white_men | self.white_kings | self.black_men | self.black_kings


@dataclass(frozen=True, slots=True, eq=False)
class Move:
    """One whole turn.

    ``path`` is the origin then one landing square per step (for a capture, one per captured
    piece, in order). ``captured`` lists the captured squares in the order they were jumped.
    Two moves are the same move when they share origin, destination and the *set* of captured
    squares (the "unique moves" convention), whatever path they took.
    """

    path: tuple[Square, ...]
    captured: tuple[Square, ...] = ()
    promotes: bool = False
    captured_mask: Bitboard = field(default=0, repr=False)

    @staticmethod
    def make(path: tuple[Square, ...], captured: tuple[Square, ...] = (),
             promotes: bool = False) -> Move:
        mask = 0
        for sq in captured:
            mask |= 1 << sq
        return Move(path, captured, promotes, mask)

    @property
    def origin(self) -> Square:
        return self.path[0]

    @property
    def destination(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    @property
    def key(self) -> tuple[Square, Square, Bitboard]:
        return (self.path[0], self.path[-1], self.captured_mask)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


class Reason(str, enum.Enum):
    """Why a game ended. Values are stable strings stored in the database."""

    NO_PIECES = "no_pieces"
    NO_MOVES = "no_moves"
    THREEFOLD = "threefold"
    FIFTY_MOVES = "fifty_moves"
    AGREEMENT = "agreement"
    KING_VS_MAN = "king_vs_man"


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game: ``winner`` is None for a draw."""

    winner: Color | None
    reason: Reason

    @property
    def result(self) -> str:
        """PDN-style result from White's point of view: ``2-0``, ``0-2`` or ``1-1``."""
        if self.winner is None:
            return "1-1"
        return "2-0" if self.winner is Color.WHITE else "0-2"
