"""The common variant interface and the generic engine every ruleset configures.

A ruleset is a stateless object: its rules are class attributes (directions, flying kings,
capture precedence, when captured pieces leave, mid-capture promotion, the 180-degree ban)
and a few documented hooks. Nothing here asks which ruleset it is.

Declared rules (class attributes, see ``Variant``): ``man_move_vectors`` and
``man_capture_vectors`` (White's, mirrored for Black), ``flying_kings``, ``precedence``
(:class:`Precedence`), ``immediate_removal``, ``no_reversal``, ``mid_capture_promotion``
(:class:`PromotionRule`), ``draw_plies``, ``repetitions``. Hooks to override:
``special_outcome`` (a ruleset's own immediate results), ``is_advance`` /
``resets_draw_counter`` (the draw counter).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from variants.errors import AmbiguousMove, IllegalMove, InvalidFEN, InvalidNotation, InvalidSquare
from variants.geometry import DIAGONAL, ORTHOGONAL, Geometry, Vector
from variants.types import Bitboard, Color, Move, Outcome, Position, Reason, Square

if TYPE_CHECKING:
    from variants.game import GameRecord

FILES = "abcdefghijklmnopqrstuvwxyz"


class Precedence(enum.Enum):
    """Which captures are legal when several are available."""

    FREE = "free"  # any complete capture sequence
    MAX_PIECES = "max_pieces"  # only those taking the most pieces
    MAX_PIECES_THEN_KINGS = "max_pieces_then_kings"  # then, among those, the most kings

    @property
    def description(self) -> str:
        """Why a capture is forced, in words a player reads in a banner."""
        return _PRECEDENCE_TEXT[self]


_PRECEDENCE_TEXT = {
    Precedence.FREE: "capturing is mandatory (any capture may be chosen, but it must be "
                     "completed)",
    Precedence.MAX_PIECES: "capturing is mandatory and the longest capture is mandatory",
    Precedence.MAX_PIECES_THEN_KINGS: "capturing is mandatory: the longest capture, then the "
                                      "one taking the most kings",
}


class PromotionRule(enum.Enum):
    """What happens to a man that lands on the far row in the middle of a capture.

    A man that *ends* its move on the far row is crowned under every rule.
    """

    STAYS_MAN = "stays_man"  # goes on capturing as a man if it can (International, Turkish)
    ENDS_MOVE = "ends_move"  # crowned at once and the move ends there (English, Spanish)
    CONTINUES_AS_KING = "continues_as_king"  # crowned at once, goes on as a king (Russian)


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

    def as_dict(self) -> dict[str, object]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "notation": self.notation.value,
            "first_to_move": self.first_to_move.name.lower(),
            "side_names": {"white": self.side_names[0], "black": self.side_names[1]},
            "bottom": self.bottom.name.lower(),
            "all_squares": self.all_squares,
            "squares": [
                {"label": s.label, "row": s.row, "col": s.col} for s in self.squares
            ],
        }


_RANGE = re.compile(r"^(\d+)-(\d+)$")
_SEP = re.compile(r"[-x:]")


class Variant:
    """Base of every ruleset. Subclasses declare data; the engine below does the rest."""

    # --- identity -----------------------------------------------------------------------
    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    pdn_gametype: ClassVar[str] = ""
    # --- board --------------------------------------------------------------------------
    rows: ClassVar[int] = 8
    cols: ClassVar[int] = 8
    vectors: ClassVar[tuple[Vector, ...]] = DIAGONAL
    notation: ClassVar[Notation] = Notation.NUMERIC
    accepts_numeric_input: ClassVar[bool] = False
    initial_fen: ClassVar[str] = ""
    first_to_move: ClassVar[Color] = Color.WHITE
    side_names: ClassVar[tuple[str, str]] = ("White", "Black")
    # --- rules --------------------------------------------------------------------------
    man_move_vectors: ClassVar[tuple[Vector, ...]] = ((1, -1), (1, 1))  # White's; mirrored
    man_capture_vectors: ClassVar[tuple[Vector, ...]] = ((1, -1), (1, 1))
    flying_kings: ClassVar[bool] = False
    precedence: ClassVar[Precedence] = Precedence.FREE
    immediate_removal: ClassVar[bool] = False
    no_reversal: ClassVar[bool] = False  # the 180-degree ban between two captures
    mid_capture_promotion: ClassVar[PromotionRule] = PromotionRule.STAYS_MAN
    full_capture_path: ClassVar[bool] = False  # notation lists every landing square
    draw_plies: ClassVar[int] = 100  # plies with no capture and no man advance
    repetitions: ClassVar[int] = 3
    scoring: ClassVar[str] = "2-0"  # result notation: "2-0" or "1-0" (draw "1/2-1/2")

    def __init__(self) -> None:
        geometry = Geometry.build(self.rows, self.cols, self._square_coords(), self.vectors)
        self.geometry = geometry
        vec = {v: i for i, v in enumerate(self.vectors)}

        def mirrored(vectors: tuple[Vector, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
            white = tuple(vec[v] for v in vectors)
            black = tuple(vec[(-dr, dc)] for dr, dc in vectors)
            return white, black

        self._man_moves = mirrored(self.man_move_vectors)
        self._man_captures = mirrored(self.man_capture_vectors)
        # Bitboard tables for the hot paths, per colour: men's one-step moves as
        # (delta, sources) and men's jumps as (victim delta, landing delta, sources), split by
        # the sign of the shift so no branch is needed.
        self._steps = tuple(_step_groups(geometry, dirs) for dirs in self._man_moves)
        self._jumps = tuple(_jump_groups(geometry, dirs) for dirs in self._man_captures)
        self._all_dirs = tuple(range(len(self.vectors)))
        self._promotion = (geometry.rank_mask(self.rows - 1), geometry.rank_mask(0))
        self._labels = tuple(self._label(i) for i in range(geometry.size))
        self._by_label = {label: i for i, label in enumerate(self._labels)}
        self._initial = self.parse_fen(self.initial_fen)

    # --- hooks a ruleset family provides ---------------------------------------------------
    def _square_coords(self) -> list[tuple[int, int]]:
        """(rank, file) of every playable square, in internal index order."""
        raise NotImplementedError

    def _label(self, square: Square) -> str:
        if self.notation is Notation.NUMERIC:
            return str(square + 1)
        rank, file = self.geometry.coords[square]
        return f"{FILES[file]}{rank + 1}"

    # --- description ----------------------------------------------------------------------
    def result_text(self, winner: Color | None) -> str:
        """The result from White's side in this ruleset's notation: "2-0"/"0-2"/"1-1" or
        "1-0"/"0-1"/"1/2-1/2"."""
        win, draw = ("1", "1/2-1/2") if self.scoring == "1-0" else ("2", "1-1")
        if winner is None:
            return draw
        return f"{win}-0" if winner is Color.WHITE else f"0-{win}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.key!r}>"

    @cached_property
    def board(self) -> BoardSpec:
        squares = tuple(
            SquareInfo(i, self._labels[i], self.rows - 1 - r, c)
            for i, (r, c) in enumerate(self.geometry.coords)
        )
        return BoardSpec(self.rows, self.cols, squares, self.notation, self.first_to_move,
                         self.side_names, Color.WHITE,
                         self.geometry.size == self.rows * self.cols)

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
        raise InvalidSquare(f"{text!r} is not a playable square in {self.name}")

    def initial_position(self) -> Position:
        return self._initial

    def promotion_squares(self, color: Color) -> Bitboard:
        """The far row where ``color``'s men are crowned."""
        return self._promotion[color]

    # --- move generation ------------------------------------------------------------------
    def legal_moves(self, position: Position) -> list[Move]:
        """Every legal move, each once (unique by origin, destination and captured set)."""
        captures = self.captures(position)
        if captures:
            return captures
        return self.quiet_moves(position)

    def has_capture(self, position: Position) -> bool:
        return bool(self.captures(position))

    def quiet_moves(self, position: Position) -> list[Move]:
        color = position.turn
        if color is Color.WHITE:
            men, kings = position.white_men, position.white_kings
        else:
            men, kings = position.black_men, position.black_kings
        g = self.geometry
        empty = g.full & ~position.occupied
        promo = self._promotion[color]
        moves: list[Move] = []
        append = moves.append
        if men:
            for d in self._man_moves[color]:
                for delta, sources in g.shifts[d]:
                    src = men & sources
                    if not src:
                        continue
                    t = (src << delta if delta > 0 else src >> -delta) & empty
                    while t:
                        low = t & -t
                        t ^= low
                        dest = low.bit_length() - 1
                        append(Move((dest - delta, dest), (), bool(low & promo), 0))
        flying = self.flying_kings
        while kings:
            low = kings & -kings
            kings ^= low
            sq = low.bit_length() - 1
            for rays in g.rays:
                ray = rays[sq]
                for n in ray:
                    if not (empty >> n) & 1:
                        break
                    append(Move((sq, n), (), False, 0))
                    if not flying:
                        break
        return moves

    def captures(self, position: Position) -> list[Move]:
        if position.turn is Color.WHITE:
            return self._capture_moves(position.white_men, position.white_kings,
                                       position.black_men | position.black_kings,
                                       position.black_kings, Color.WHITE)
        return self._capture_moves(position.black_men, position.black_kings,
                                   position.white_men | position.white_kings,
                                   position.white_kings, Color.BLACK)

    def _capture_moves(self, men: Bitboard, kings: Bitboard, opp: Bitboard,
                       opp_kings: Bitboard, color: Color) -> list[Move]:
        """Every legal capture of the side with ``men`` and ``kings`` (empty if none)."""
        if not opp:
            return []
        occupied = men | kings | opp
        # Men that have a jump right now: a cheap bitboard filter before the search.
        starters = 0
        if men:
            empty = self.geometry.full & ~occupied
            up, down = self._jumps[color]
            for a, b, src in up:
                starters |= men & src & (opp >> a) & (empty >> b)
            for a, b, src in down:
                starters |= men & src & (opp << a) & (empty << b)
        if not (starters or kings):
            return []
        return self._collect(starters, kings, opp, opp_kings, occupied, color).moves()

    def _collect(self, starters: Bitboard, kings: Bitboard, opp: Bitboard,
                 opp_kings: Bitboard, occupied: Bitboard, color: Color) -> _Collector:
        """Complete the capture chains of the men in ``starters`` and of ``kings``."""
        found = _Collector(self.precedence)
        dirs_man = self._man_captures[color]
        promo = self._promotion[color]
        search = self._search
        while starters:
            low = starters & -starters
            starters ^= low
            sq = low.bit_length() - 1
            search(found, False, dirs_man, promo, sq, (sq,), (), 0, 0, occupied ^ low, opp,
                   opp_kings, -1)
        while kings:
            low = kings & -kings
            kings ^= low
            sq = low.bit_length() - 1
            search(found, True, self._all_dirs, promo, sq, (sq,), (), 0, 0, occupied ^ low, opp,
                   opp_kings, -1)
        return found

    def _search(self, found: _Collector, king: bool, dirs: tuple[int, ...], promo: Bitboard,
                sq: Square, path: tuple[Square, ...], captured: tuple[Square, ...],
                captured_mask: Bitboard, kings_taken: int, blockers: Bitboard,
                targets: Bitboard, opp_kings: Bitboard, last: int) -> bool:
        """Depth-first search of capture chains from ``sq``; returns True if one exists.

        ``blockers``: squares that stop a piece (the mover is not among them);
        ``targets``: enemy pieces still capturable. Complete chains go to ``found``.
        """
        g = self.geometry
        flying = king and self.flying_kings
        reverse = g.opposite[last] if last >= 0 and self.no_reversal else -1
        any_capture = False
        for d in dirs:
            if d == reverse:
                continue
            if flying:
                ray = g.rays[d][sq]
                i = 0
                n = len(ray)
                while i < n and not (blockers >> ray[i]) & 1:
                    i += 1
                if i >= n - 1:
                    continue
                victim = ray[i]
                if not (targets >> victim) & 1:
                    continue
                landings = []
                for j in range(i + 1, n):
                    if (blockers >> ray[j]) & 1:
                        break
                    landings.append(ray[j])
                if not landings:
                    continue
            else:
                victim = g.neighbour[d][sq]
                if victim < 0 or not (targets >> victim) & 1:
                    continue
                land = g.neighbour[d][victim]
                if land < 0 or (blockers >> land) & 1:
                    continue
                landings = [land]
            any_capture = True
            vbit = 1 << victim
            new_captured = captured + (victim,)
            new_mask = captured_mask | vbit
            new_kings = kings_taken + (1 if opp_kings & vbit else 0)
            new_targets = targets ^ vbit
            new_blockers = blockers & ~vbit if self.immediate_removal else blockers
            stops: list[Square] = []
            continued = False
            for land in landings:
                new_path = path + (land,)
                if (not king and (promo >> land) & 1
                        and self.mid_capture_promotion is not PromotionRule.STAYS_MAN):
                    if self.mid_capture_promotion is PromotionRule.ENDS_MOVE:
                        found.add(new_path, new_captured, new_mask, new_kings, True)
                        continued = True
                    elif self._search(_Crowned(found), True, self._all_dirs, promo, land,
                                      new_path, new_captured, new_mask, new_kings,
                                      new_blockers, new_targets, opp_kings, d):
                        continued = True  # CONTINUES_AS_KING: the rest is a king's capture
                    else:
                        stops.append(land)
                    continue
                if self._search(found, king, dirs, promo, land, new_path, new_captured,
                                new_mask, new_kings, new_blockers, new_targets, opp_kings, d):
                    continued = True
                else:
                    stops.append(land)
            # A chain that can go on must go on: a flying king may stop on a square from
            # which it cannot continue only when no landing square lets it continue.
            if not continued:
                for land in stops:
                    found.add(path + (land,), new_captured, new_mask, new_kings,
                              not king and bool((promo >> land) & 1))
        return any_capture

    # --- applying -------------------------------------------------------------------------
    def apply(self, position: Position, move: Move) -> Position:
        """The position after ``move``. The move must come from ``legal_moves(position)``."""
        o = 1 << move.path[0]
        d = 1 << move.path[-1]
        cm = ~move.captured_mask
        wm, wk = position.white_men, position.white_kings
        bm, bk = position.black_men, position.black_kings
        if position.turn is Color.WHITE:
            if wm & o:
                wm ^= o
                if move.promotes:
                    wk |= d
                else:
                    wm |= d
            elif wk & o:
                wk = (wk ^ o) | d
            else:
                raise IllegalMove(f"no White piece on {self._labels[move.path[0]]}")
            bm &= cm
            bk &= cm
            return Position(wm, wk, bm, bk, Color.BLACK)
        if bm & o:
            bm ^= o
            if move.promotes:
                bk |= d
            else:
                bm |= d
        elif bk & o:
            bk = (bk ^ o) | d
        else:
            raise IllegalMove(f"no Black piece on {self._labels[move.path[0]]}")
        wm &= cm
        wk &= cm
        return Position(wm, wk, bm, bk, Color.WHITE)

    def perft(self, position: Position, depth: int) -> int:
        """Leaf nodes of the legal move tree ``depth`` plies deep (unique-move convention).

        Runs on raw bitboards: quiet moves are never turned into Move objects, and leaf
        quiet moves are counted with popcounts. Nothing is cached between positions.
        """
        if depth <= 0:
            return 1
        if position.turn is Color.WHITE:
            return self._perft(position.white_men, position.white_kings, position.black_men,
                               position.black_kings, Color.WHITE, depth)
        return self._perft(position.black_men, position.black_kings, position.white_men,
                           position.white_kings, Color.BLACK, depth)

    def _perft(self, men: Bitboard, kings: Bitboard, om: Bitboard, ok: Bitboard,
               color: Color, depth: int) -> int:
        """Perft from the mover's side: (men, kings) to move against (om, ok)."""
        opp = om | ok
        occupied = men | kings | opp
        g = self.geometry
        empty = g.full & ~occupied
        starters = 0
        if men and opp:
            jumps_up, jumps_down = self._jumps[color]
            for a, b, src in jumps_up:
                starters |= men & src & (opp >> a) & (empty >> b)
            for a, b, src in jumps_down:
                starters |= men & src & (opp << a) & (empty << b)
        other = Color.BLACK if color is Color.WHITE else Color.WHITE
        captures = (self._collect(starters, kings, opp, ok, occupied, color).found
                    if (starters or kings) and opp else None)
        if captures:
            if depth == 1:
                return len(captures)
            total = 0
            for (origin, destination, mask), (_path, _captured, promotes) in captures.items():
                o = 1 << origin
                d = 1 << destination
                keep = ~mask
                if men & o:
                    if promotes:
                        total += self._perft(om & keep, ok & keep, men ^ o, kings | d, other,
                                             depth - 1)
                    else:
                        total += self._perft(om & keep, ok & keep, men ^ o | d, kings, other,
                                             depth - 1)
                else:
                    total += self._perft(om & keep, ok & keep, men, kings ^ o | d, other,
                                         depth - 1)
            return total
        up, down = self._steps[color]
        flying = self.flying_kings
        if depth == 1:
            count = 0
            if men:
                for delta, src in up:
                    count += ((men & src) << delta & empty).bit_count()
                for delta, src in down:
                    count += ((men & src) >> delta & empty).bit_count()
            while kings:
                low = kings & -kings
                kings ^= low
                sq = low.bit_length() - 1
                for rays in g.rays:
                    for n in rays[sq]:
                        if not (empty >> n) & 1:
                            break
                        count += 1
                        if not flying:
                            break
            return count
        total = 0
        perft = self._perft
        promo = self._promotion[color]
        if men:
            below = depth - 1
            for delta, src in up:
                t = (men & src) << delta & empty
                while t:
                    dest = t & -t
                    t ^= dest
                    if dest & promo:
                        total += perft(om, ok, men ^ dest >> delta, kings | dest, other, below)
                    else:
                        total += perft(om, ok, men ^ (dest >> delta | dest), kings, other, below)
            for delta, src in down:
                t = (men & src) >> delta & empty
                while t:
                    dest = t & -t
                    t ^= dest
                    if dest & promo:
                        total += perft(om, ok, men ^ dest << delta, kings | dest, other, below)
                    else:
                        total += perft(om, ok, men ^ (dest << delta | dest), kings, other, below)
        rest = kings
        while rest:
            low = rest & -rest
            rest ^= low
            sq = low.bit_length() - 1
            for rays in g.rays:
                for n in rays[sq]:
                    if not (empty >> n) & 1:
                        break
                    total += perft(om, ok, men, kings ^ low | 1 << n, other, depth - 1)
                    if not flying:
                        break
        return total

    # --- outcome ----------------------------------------------------------------------------
    def is_advance(self, position: Position, move: Move) -> bool:
        """True when ``move`` is a man moving forward (resets the draw counter)."""
        origin = move.path[0]
        if not (position.men(position.turn) >> origin) & 1:
            return False
        r0 = self.geometry.coords[origin][0]
        r1 = self.geometry.coords[move.path[-1]][0]
        return r1 > r0 if position.turn is Color.WHITE else r1 < r0

    def resets_draw_counter(self, position: Position, move: Move) -> bool:
        return move.is_capture or self.is_advance(position, move)

    def special_outcome(self, position: Position) -> Outcome | None:
        """Hook for a ruleset's own immediate results (none by default)."""
        return None

    def outcome(self, record: GameRecord,
                legal: Sequence[Move] | None = None) -> Outcome | None:
        """The result of the game so far, or None while it goes on. ``legal``: the legal
        moves of ``record.position``, if the caller has them already."""
        position = record.position
        mover = position.turn
        if not position.pieces(mover):
            return Outcome(mover.opponent, Reason.NO_PIECES)
        special = self.special_outcome(position)
        if special is not None:
            return special
        if not (self.legal_moves(position) if legal is None else legal):
            return Outcome(mover.opponent, Reason.NO_MOVES)
        if record.repetition_count() >= self.repetitions:
            return Outcome(None, Reason.THREEFOLD)
        if record.quiet_plies >= self.draw_plies:
            return Outcome(None, Reason.FIFTY_MOVES)
        return None

    # --- FEN ------------------------------------------------------------------------------
    def parse_fen(self, text: str) -> Position:
        """Read a PDN FEN such as ``W:W31-50:B1-20`` or ``W:Wa2,b2:Bc7,Kd8``."""
        fen = text.strip().strip('"').rstrip(".").replace(" ", "")
        parts = fen.split(":")
        if len(parts) < 1 or parts[0].upper() not in ("W", "B"):
            raise InvalidFEN(f"{text!r}: a FEN starts with the side to move, W or B")
        turn = Color.WHITE if parts[0].upper() == "W" else Color.BLACK
        boards = {Color.WHITE: [0, 0], Color.BLACK: [0, 0]}
        seen: set[Color] = set()
        for part in parts[1:]:
            if not part:
                continue
            side = part[0].upper()
            if side not in ("W", "B"):
                raise InvalidFEN(f"{text!r}: each piece list starts with W or B, not {part[0]!r}")
            color = Color.WHITE if side == "W" else Color.BLACK
            if color in seen:
                raise InvalidFEN(f"{text!r}: the {side} piece list appears twice")
            seen.add(color)
            for token in filter(None, part[1:].split(",")):
                king = token[0] in "Kk"
                body = token[1:] if king else token
                try:
                    squares = self._fen_squares(body)
                except InvalidSquare as exc:
                    raise InvalidFEN(f"{text!r}: {exc}") from None
                for sq in squares:
                    bit = 1 << sq
                    if any(b & bit for pair in boards.values() for b in pair):
                        raise InvalidFEN(
                            f"{text!r}: square {self._labels[sq]} is given twice")
                    boards[color][1 if king else 0] |= bit
        if not seen and len(parts) > 1:
            raise InvalidFEN(f"{text!r}: no piece lists")
        return Position(boards[Color.WHITE][0], boards[Color.WHITE][1],
                        boards[Color.BLACK][0], boards[Color.BLACK][1], turn)

    def _fen_squares(self, body: str) -> Iterable[Square]:
        m = _RANGE.match(body)
        if m:
            lo, hi = self.parse_square(m.group(1)), self.parse_square(m.group(2))
            if hi < lo:
                raise InvalidSquare(f"range {body} runs backwards")
            return range(lo, hi + 1)
        return (self.parse_square(body),)

    def format_fen(self, position: Position) -> str:
        def side(color: Color) -> str:
            items: list[tuple[Square, str]] = []
            for bb, prefix in ((position.men(color), ""), (position.kings(color), "K")):
                for sq in _bits(bb):
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
            raise InvalidNotation(f"{text!r} is not a move (expected e.g. "
                                  f"{self._example_move()})")
        try:
            squares = [self.parse_square(t) for t in tokens]
        except InvalidSquare as exc:
            raise InvalidNotation(f"{text!r}: {exc}") from None
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
            raise IllegalMove(f"{raw} is not a legal move here" + self._hint(position, legal))
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
        g = self.geometry
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
            if not self.flying_kings or not (position.kings(position.turn) >> squares[0]) & 1:
                if len(between) != 1:
                    return False
            taken |= 1 << victims[0]
            if self.immediate_removal:
                blockers &= ~(1 << victims[0])
        return taken == mask

    def _hint(self, position: Position, legal: Sequence[Move]) -> str:
        if legal and legal[0].captured:
            most = max(len(m.captured) for m in legal)
            return f" (a capture is mandatory: {most} piece(s) must be taken)"
        return ""

    def _example_move(self) -> str:
        m = self.legal_moves(self._initial)[0]
        return self.format_move(self._initial, m)


class _Collector:
    """Complete capture chains, deduplicated, filtered by the precedence rule as they come."""

    __slots__ = ("precedence", "best", "found")

    def __init__(self, precedence: Precedence) -> None:
        self.precedence = precedence
        self.best: tuple[int, int] = (0, 0)
        self.found: dict[tuple[Square, Square, Bitboard],
                         tuple[tuple[Square, ...], tuple[Square, ...], bool]] = {}

    def add(self, path: tuple[Square, ...], captured: tuple[Square, ...], mask: Bitboard,
            kings: int, promotes: bool) -> None:
        if self.precedence is not Precedence.FREE:
            score = (len(captured),
                     kings if self.precedence is Precedence.MAX_PIECES_THEN_KINGS else 0)
            if score < self.best:
                return
            if score > self.best:
                self.best = score
                self.found.clear()
        key = (path[0], path[-1], mask)
        if key not in self.found:
            self.found[key] = (path, captured, promotes)

    def moves(self) -> list[Move]:
        return [Move(path, captured, promotes, key[2])
                for key, (path, captured, promotes) in self.found.items()]


class _Crowned(_Collector):
    """Forwards chains of a man crowned mid-capture, marking them as promotions."""

    __slots__ = ("parent",)

    def __init__(self, parent: _Collector) -> None:
        self.parent = parent

    def add(self, path: tuple[Square, ...], captured: tuple[Square, ...], mask: Bitboard,
            kings: int, promotes: bool) -> None:
        self.parent.add(path, captured, mask, kings, True)


Groups = tuple[tuple[int, Bitboard], ...]
JumpGroups = tuple[tuple[int, int, Bitboard], ...]


def _step_groups(g: Geometry, dirs: tuple[int, ...]) -> tuple[Groups, Groups]:
    """One-step shifts of ``dirs`` as (delta, sources): left shifts, then right shifts."""
    up: dict[int, Bitboard] = {}
    down: dict[int, Bitboard] = {}
    for d in dirs:
        for delta, sources in g.shifts[d]:
            if delta > 0:
                up[delta] = up.get(delta, 0) | sources
            else:
                down[-delta] = down.get(-delta, 0) | sources
    return tuple(sorted(up.items())), tuple(sorted(down.items()))


def _jump_groups(g: Geometry, dirs: tuple[int, ...]) -> tuple[JumpGroups, JumpGroups]:
    """Short jumps of ``dirs`` as (victim delta, landing delta, sources), split by sign.

    A man on a source square has a jump when ``opp`` holds the victim square and the landing
    square is empty: ``src & (opp >> a) & (empty >> b)`` (left shifts for the other sign).
    """
    up: dict[tuple[int, int], Bitboard] = {}
    down: dict[tuple[int, int], Bitboard] = {}
    for d in dirs:
        for sq in range(g.size):
            victim = g.neighbour[d][sq]
            land = g.neighbour[d][victim] if victim >= 0 else -1
            if land < 0:
                continue
            a, b = victim - sq, land - sq
            if a > 0:
                up[(a, b)] = up.get((a, b), 0) | 1 << sq
            else:
                down[(-a, -b)] = down.get((-a, -b), 0) | 1 << sq
    return (tuple((a, b, m) for (a, b), m in sorted(up.items())),
            tuple((a, b, m) for (a, b), m in sorted(down.items())))


def _bits(bb: Bitboard) -> Iterable[Square]:
    while bb:
        low = bb & -bb
        bb ^= low
        yield low.bit_length() - 1


class DiagonalVariant(Variant):
    """Diagonal draughts on the squares of one colour.

    ``playable_parity``: squares with ``(rank + file) % 2`` equal to it are playable (0: a1 is
    playable). ``number_from_bottom_right``: numbering starts at White's near-right corner and
    runs right to left, bottom to top; otherwise it starts at the top-left as White sees it
    and runs left to right, top to bottom.
    """

    vectors = DIAGONAL
    playable_parity: ClassVar[int] = 0
    number_from_bottom_right: ClassVar[bool] = False

    def _square_coords(self) -> list[tuple[int, int]]:
        coords: list[tuple[int, int]] = []
        if self.number_from_bottom_right:
            for rank in range(self.rows):
                for file in reversed(range(self.cols)):
                    if (rank + file) % 2 == self.playable_parity:
                        coords.append((rank, file))
        else:
            for rank in reversed(range(self.rows)):
                for file in range(self.cols):
                    if (rank + file) % 2 == self.playable_parity:
                        coords.append((rank, file))
        return coords


class OrthogonalVariant(Variant):
    """Orthogonal draughts on every square; square index = rank * cols + file."""

    vectors = ORTHOGONAL
    notation = Notation.ALGEBRAIC

    def _square_coords(self) -> list[tuple[int, int]]:
        return [(rank, file) for rank in range(self.rows) for file in range(self.cols)]
