"""A ruleset's notation: square labels, moves (``32-28``, ``28x19``, ``c3xe5xg7``), PDN FEN
positions, and the board as the site draws it.

Nothing here changes a rule: notation reads the legal moves, it never decides them.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from variants.errors import AmbiguousMove, IllegalMove, InvalidFEN, InvalidNotation, InvalidSquare
from variants.geometry import Geometry
from variants.types import Color, Move, Position, Square, bits

FILES = "abcdefghijklmnopqrstuvwxyz"


class Notation(enum.Enum):
    NUMERIC = "numeric"
    ALGEBRAIC = "algebraic"


@dataclass(frozen=True, slots=True)
class SquareInfo:
    """One playable square as the UI draws it: row 0 is the top row as White sees it."""

    index: Square
    label: str
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """Everything a rules-free board needs to draw this ruleset."""

    rows: int
    cols: int
    squares: tuple[SquareInfo, ...]
    notation: Notation
    first_to_move: Color
    side_names: tuple[str, str]  # indexed by Color
    bottom: Color  # the side drawn at the bottom in the default orientation
    all_squares: bool  # True when every square is playable (orthogonal boards)
    playing_squares_dark: bool = True  # the colour the played squares are drawn in

    def as_dict(self) -> dict[str, object]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "notation": self.notation.value,
            "first_to_move": self.first_to_move.name.lower(),
            "side_names": {"white": self.side_names[0], "black": self.side_names[1]},
            "bottom": self.bottom.name.lower(),
            "all_squares": self.all_squares,
            "playing_squares": "dark" if self.playing_squares_dark else "light",
            "squares": [
                {"label": s.label, "row": s.row, "col": s.col} for s in self.squares
            ],
        }


_RANGE = re.compile(r"^(\d+)-(\d+)$")
_SEP = re.compile(r"[-x:]")


class RulesetNotation:
    """The notation part of a ruleset (a base class of ``Variant``)."""

    pdn_gametype: ClassVar[str] = ""  # PDN GameType: number,first,cols,rows,notation,parity
    notation: ClassVar[Notation] = Notation.NUMERIC
    accepts_numeric_input: ClassVar[bool] = False  # algebraic rulesets: also read 1..N
    full_capture_path: ClassVar[bool] = False  # notation lists every landing square
    playing_squares_dark: ClassVar[bool] = True
    side_names: ClassVar[tuple[str, str]] = ("White", "Black")

    if TYPE_CHECKING:
        key: ClassVar[str]
        name: ClassVar[str]
        rows: ClassVar[int]
        cols: ClassVar[int]
        first_to_move: ClassVar[Color]
        flying_kings: ClassVar[bool]
        flying_captures: ClassVar[bool | None]
        king_landing: ClassVar[str]
        immediate_removal: ClassVar[bool]
        geometry: Geometry
        move_geometry: Geometry
        _labels: tuple[str, ...]
        _by_label: dict[str, Square]
        _initial: Position

        def legal_moves(self, position: Position) -> list[Move]: ...

    def _label(self, square: Square) -> str:
        if self.notation is Notation.NUMERIC:
            return str(square + 1)
        rank, file = self.geometry.coords[square]
        return f"{FILES[file]}{rank + 1}"

    @cached_property
    def board(self) -> BoardSpec:
        squares = tuple(
            SquareInfo(i, self._labels[i], self.rows - 1 - r, c)
            for i, (r, c) in enumerate(self.geometry.coords)
        )
        return BoardSpec(self.rows, self.cols, squares, self.notation, self.first_to_move,
                         self.side_names, Color.WHITE,
                         self.geometry.size == self.rows * self.cols,
                         self.playing_squares_dark)

    @property
    def squares(self) -> int:
        return self.geometry.size

    def square_label(self, square: Square) -> str:
        return self._labels[square]

    def parse_square(self, text: str) -> Square:
        label = text.strip().lower()
        if label in self._by_label:
            return self._by_label[label]
        if self.accepts_numeric_input and label.isdigit() and 1 <= int(label) <= self.squares:
            return int(label) - 1
        raise InvalidSquare(code="square_not_playable", text=text, ruleset=self.name,
                            ruleset_key=self.key)

    # --- FEN ------------------------------------------------------------------------------
    def parse_fen(self, text: str) -> Position:
        """Read a PDN FEN such as ``W:W31-50:B1-20`` or ``W:Wa2,b2:Bc7,Kd8``."""
        fen = text.strip().strip('"').rstrip(".").replace(" ", "")
        parts = fen.split(":")
        if len(parts) < 1 or parts[0].upper() not in ("W", "B"):
            raise InvalidFEN(code="fen_no_turn", fen=text)
        turn = Color.WHITE if parts[0].upper() == "W" else Color.BLACK
        boards = {Color.WHITE: [0, 0], Color.BLACK: [0, 0]}
        seen: set[Color] = set()
        for part in parts[1:]:
            if not part:
                continue
            side = part[0].upper()
            if side not in ("W", "B"):
                raise InvalidFEN(code="fen_bad_list", fen=text, letter=part[0])
            color = Color.WHITE if side == "W" else Color.BLACK
            if color in seen:
                raise InvalidFEN(code="fen_list_twice", fen=text, letter=side)
            seen.add(color)
            for token in filter(None, part[1:].split(",")):
                king = token[0] in "Kk"
                body = token[1:] if king else token
                try:
                    squares = self._fen_squares(body)
                except InvalidSquare as exc:
                    raise InvalidFEN(code="fen_bad_square", cause=exc, fen=text) from None
                for sq in squares:
                    bit = 1 << sq
                    if any(b & bit for pair in boards.values() for b in pair):
                        raise InvalidFEN(code="fen_square_twice", fen=text,
                                         square=self._labels[sq])
                    boards[color][1 if king else 0] |= bit
        if not seen and len(parts) > 1:
            raise InvalidFEN(code="fen_no_lists", fen=text)
        return Position(boards[Color.WHITE][0], boards[Color.WHITE][1],
                        boards[Color.BLACK][0], boards[Color.BLACK][1], turn)

    def _fen_squares(self, body: str) -> Iterable[Square]:
        m = _RANGE.match(body)
        if m:
            lo, hi = self.parse_square(m.group(1)), self.parse_square(m.group(2))
            if hi < lo:
                raise InvalidSquare(code="square_range_backwards", range=body)
            return range(lo, hi + 1)
        return (self.parse_square(body),)

    def format_fen(self, position: Position) -> str:
        def side(color: Color) -> str:
            items: list[tuple[Square, str]] = []
            for bb, prefix in ((position.men(color), ""), (position.kings(color), "K")):
                for sq in bits(bb):
                    items.append((sq, prefix + self._labels[sq]))
            items.sort()
            return color.letter + ",".join(label for _sq, label in items)

        return f"{position.turn.letter}:{side(Color.WHITE)}:{side(Color.BLACK)}"

    # --- move notation ----------------------------------------------------------------------
    def format_move(self, position: Position, move: Move,
                    legal: Sequence[Move] | None = None) -> str:
        """``32-28``, ``28x19``; the full landing path when the short form is ambiguous."""
        labels = self._labels
        if not move.captured:
            return f"{labels[move.path[0]]}-{labels[move.path[-1]]}"
        full = self.full_capture_path
        if not full:
            legal = self.legal_moves(position) if legal is None else legal
            full = any(m.path[0] == move.path[0] and m.path[-1] == move.path[-1]
                       and m.captured_mask != move.captured_mask for m in legal)
        if full:
            return "x".join(labels[s] for s in move.path)
        return f"{labels[move.path[0]]}x{labels[move.path[-1]]}"

    def parse_move(self, position: Position, text: str,
                   legal: Sequence[Move] | None = None) -> Move:
        """The legal move ``text`` names: short form when unambiguous, or the full path."""
        raw = text.strip()
        tokens = _SEP.split(raw.lower())
        if len(tokens) < 2 or any(not t for t in tokens):
            raise InvalidNotation(code="not_a_move", text=text, example=self._example_move())
        try:
            squares = [self.parse_square(t) for t in tokens]
        except InvalidSquare as exc:
            raise InvalidNotation(code="move_bad_square", cause=exc, text=text) from None
        legal = self.legal_moves(position) if legal is None else legal
        candidates = [m for m in legal
                      if m.path[0] == squares[0] and m.path[-1] == squares[-1]]
        if len(squares) > 2:
            exact = [m for m in candidates if list(m.path) == squares]
            if not exact:
                # Another path to the same move (same captured set) is the same move.
                exact = [m for m in candidates if self._path_fits(position, m, squares)]
            candidates = exact
        if not candidates:
            if legal and legal[0].captured:  # a capture is mandatory: say how big
                raise IllegalMove(code="move_illegal_capture", move=raw,
                                  count=max(len(m.captured) for m in legal))
            raise IllegalMove(code="move_illegal", move=raw)
        if len(candidates) > 1:
            raise AmbiguousMove(raw, ["x".join(self._labels[s] for s in m.path)
                                      for m in candidates])
        return candidates[0]

    def _path_fits(self, position: Position, move: Move, squares: Sequence[Square]) -> bool:
        """True when ``squares`` (origin, then every landing) is a way to play ``move``.

        Each step must run along one line and jump exactly one of the move's captured pieces,
        over otherwise empty squares, and the steps together must take all of them.
        """
        if len(squares) != len(move.path):
            return False
        # The generator's lines: the board's, and any the pieces' declared vectors add.
        g = self.move_geometry
        flying = self.flying_kings if self.flying_captures is None else self.flying_captures
        mask = move.captured_mask
        blockers = position.occupied & ~(1 << squares[0])
        taken = 0
        for a, b in zip(squares, squares[1:], strict=False):
            between: tuple[Square, ...] | None = None
            for rays in g.rays:
                ray = rays[a]
                if b in ray:
                    between = ray[:ray.index(b)]
                    break
            if between is None or (blockers >> b) & 1:
                return False
            victims = [sq for sq in between if (blockers >> sq) & 1]
            if len(victims) != 1 or not (mask >> victims[0]) & 1 or (taken >> victims[0]) & 1:
                return False
            if not flying or not (position.kings(position.turn) >> squares[0]) & 1:
                if len(between) != 1:
                    return False
            elif self.king_landing == "next" and between[-1] != victims[0]:
                return False
            taken |= 1 << victims[0]
            if self.immediate_removal:
                blockers &= ~(1 << victims[0])
        return taken == mask

    def _example_move(self) -> str:
        m = self.legal_moves(self._initial)[0]
        return self.format_move(self._initial, m)


__all__ = ["FILES", "BoardSpec", "Notation", "RulesetNotation", "SquareInfo"]
