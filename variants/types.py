"""Small frozen values shared by every ruleset: colours, positions, moves, outcomes."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

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


class Reason:
    """Why a game ended: a stable code (``value``, stored in the database: at most 16
    characters of ``a-z``, digits and ``_``) and, for a ruleset's own reasons, its words.

    The built-in reasons are class attributes (``Reason.THREEFOLD``...); the site words
    them in every language. A ruleset declares its own, with words, in its
    ``outcome_reasons`` and returns them in an :class:`Outcome`::

        THREE_KINGS = Reason("three_kings", {"en": "three kings against one",
                                             "fr": "trois dames contre une"})

    Two reasons are equal when their codes are; the words do not take part.
    """

    __slots__ = ("value", "words")

    NO_PIECES: ClassVar[Reason]
    NO_MOVES: ClassVar[Reason]
    THREEFOLD: ClassVar[Reason]
    FIFTY_MOVES: ClassVar[Reason]
    AGREEMENT: ClassVar[Reason]
    KING_VS_MAN: ClassVar[Reason]

    def __init__(self, value: str, words: str | Mapping[str, str] = "") -> None:
        if not _REASON_CODE.fullmatch(value):
            raise ValueError(f"a reason's code is 1-16 characters of a-z, 0-9 and _, "
                             f"not {value!r}")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "words", words if isinstance(words, str) else dict(words))

    value: str
    words: str | Mapping[str, str]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Reason is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Reason):
            return self.value == other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Reason({self.value!r})"

    @property
    def name(self) -> str:
        return self.value.upper()

    def text(self, lang: str = "en") -> str:
        """The ruleset's words for this reason in ``lang`` (English fallback; "" if none)."""
        if isinstance(self.words, str):
            return self.words
        table = {k.replace("_", "-").lower(): v for k, v in self.words.items()}
        code = lang.strip().replace("_", "-").lower()
        for key in (code, code.split("-")[0], "en", *table):
            if table.get(key):
                return table[key]
        return ""


_REASON_CODE = re.compile(r"[a-z0-9_]{1,16}")
Reason.NO_PIECES = Reason("no_pieces")
Reason.NO_MOVES = Reason("no_moves")
Reason.THREEFOLD = Reason("threefold")
Reason.FIFTY_MOVES = Reason("fifty_moves")
Reason.AGREEMENT = Reason("agreement")
Reason.KING_VS_MAN = Reason("king_vs_man")
BUILTIN_REASONS: tuple[Reason, ...] = (
    Reason.NO_PIECES, Reason.NO_MOVES, Reason.THREEFOLD, Reason.FIFTY_MOVES,
    Reason.AGREEMENT, Reason.KING_VS_MAN)
"""The reasons the site words itself (in every language)."""


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
