"""The common variant interface and the generic engine every ruleset configures.

A ruleset is a stateless object: its rules are class attributes and a few documented,
public hooks. Nothing here asks which ruleset it is. docs/adding-a-ruleset.md is the guide.

Declared rules (class attributes of :class:`Variant`):

* board: ``rows``, ``cols``, ``vectors``; on diagonal boards ``playable_parity`` (0: the
  corner square on White's left, a1, is played on) and ``playing_squares_dark`` (the
  colour the played squares are drawn in), ``initial_fen``, ``first_to_move``;
* men: ``man_move_vectors`` and ``man_capture_vectors`` (White's, mirrored for Black),
  ``men_capture_kings``;
* kings: ``flying_kings``;
* captures: ``precedence`` (a :class:`Precedence`, or a tuple of :class:`Criterion` applied
  in order), ``immediate_removal`` (each jumped piece leaves at once, instead of when the
  move ends), ``no_reversal`` (the 180-degree ban between two captures),
  ``mid_capture_promotion`` (:class:`PromotionRule`);
* draws: ``draw_plies``, ``repetitions``.

Public hooks a ruleset may override: ``rank_captures`` (filter or rank the complete
captures, for a precedence rule data cannot express), ``special_outcome`` (a ruleset's own
immediate results), ``draw_outcome`` (its own draw rules), ``is_advance`` /
``resets_draw_counter`` (the draw counter), ``position_problems`` (why a set-up position
cannot occur in a game: the default reads the board, the initial position and the crowning
rows; ``check_position`` raises ``InvalidPosition`` naming them). Move generation for
engines: ``legal_moves``, ``captures``, ``quiet_moves``, ``apply``, ``promotion_squares``.
``perft`` runs on raw bitboards only while none of the move-generation methods is
overridden; it applies ``rank_captures`` exactly as ``captures`` does, and walks the public
methods otherwise.
"""

from __future__ import annotations

import enum
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypedDict

from variants.errors import (
    AmbiguousMove,
    IllegalMove,
    InvalidFEN,
    InvalidNotation,
    InvalidPosition,
    InvalidSquare,
)
from variants.geometry import DIAGONAL, ORTHOGONAL, Geometry, Vector
from variants.types import Bitboard, Color, Move, Outcome, Position, Reason, Square

if TYPE_CHECKING:
    from variants.game import GameRecord

FILES = "abcdefghijklmnopqrstuvwxyz"


class Criterion(enum.Enum):
    """One capture-precedence criterion: among the complete captures, keep those that score
    highest on it. A ruleset lists criteria in order (``precedence = (Criterion.A, ...)``);
    each one only breaks ties left by the ones before it.
    """

    MOST_PIECES = "most_pieces"  # the capture taking the most pieces
    MOST_KINGS = "most_kings"  # the capture taking the most kings
    WITH_KING = "with_king"  # a capture made by a king over one made by a man
    EARLIEST_KING = "earliest_king"  # the capture meeting a king earliest in its chain

    def score(self, variant: Variant, position: Position, move: Move) -> int | tuple[int, ...]:
        """This criterion's score of ``move`` (higher wins; scores of one criterion compare)."""
        enemy_kings = position.kings(position.turn.opponent)
        if self is Criterion.MOST_PIECES:
            return len(move.captured)
        if self is Criterion.MOST_KINGS:
            return (move.captured_mask & enemy_kings).bit_count()
        if self is Criterion.WITH_KING:
            return (position.kings(position.turn) >> move.path[0]) & 1
        # EARLIEST_KING: the first captured king as early as possible, then the second...
        return tuple((enemy_kings >> sq) & 1 for sq in move.captured)


class Precedence(enum.Enum):
    """The common capture-precedence rules by name (each is a tuple of criteria)."""

    FREE = "free"  # any complete capture sequence
    MAX_PIECES = "max_pieces"  # only those taking the most pieces
    MAX_PIECES_THEN_KINGS = "max_pieces_then_kings"  # then, among those, the most kings

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        return _PRECEDENCE_CRITERIA[self]

    @property
    def description(self) -> str:
        """Why a capture is forced, in words a player reads in a banner."""
        return describe_precedence(self.criteria)


_PRECEDENCE_CRITERIA: dict[Precedence, tuple[Criterion, ...]] = {
    Precedence.FREE: (),
    Precedence.MAX_PIECES: (Criterion.MOST_PIECES,),
    Precedence.MAX_PIECES_THEN_KINGS: (Criterion.MOST_PIECES, Criterion.MOST_KINGS),
}

_CRITERION_TEXT = {
    Criterion.MOST_PIECES: "the capture taking the most pieces",
    Criterion.MOST_KINGS: "the one taking the most kings",
    Criterion.WITH_KING: "a capture with a king rather than with a man",
    Criterion.EARLIEST_KING: "the one meeting a king first",
}


def describe_precedence(criteria: Sequence[Criterion]) -> str:
    """The English banner text of a capture rule (the default forced-capture explanation)."""
    if not criteria:
        return ("capturing is mandatory (any capture may be chosen, but it must be "
                "completed)")
    if tuple(criteria) == (Criterion.MOST_PIECES,):
        return "capturing is mandatory and the longest capture is mandatory"
    if tuple(criteria) == (Criterion.MOST_PIECES, Criterion.MOST_KINGS):
        return ("capturing is mandatory: the longest capture, then the one taking the most "
                "kings")
    return "capturing is mandatory: " + ", then ".join(_CRITERION_TEXT[c] for c in criteria)


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
_GENERATION_METHODS = ("legal_moves", "captures", "quiet_moves", "apply")


Text = str | Mapping[str, str]
"""Words a ruleset brings: one English string, or a mapping of language code to string
(``{"en": "...", "fr": "..."}``; English is the fallback)."""


class RulesPage(TypedDict):
    """A ruleset's rules page in one language."""

    title: str
    summary: str
    sections: list[tuple[str, list[str]]]  # (heading, paragraphs)


SCORINGS = ("2-0", "1-0")


def _lang_candidates(lang: str) -> list[str]:
    code = lang.strip().replace("_", "-").lower()
    return [code, code.split("-")[0]] if code else []


def localize(text: Text, lang: str) -> tuple[str, str]:
    """(``text`` in ``lang``, the language actually used): falls back to English, then to
    any language given; ``("", "")`` for empty text."""
    if isinstance(text, str):
        return text, "en"
    table = {k.replace("_", "-").lower(): v for k, v in text.items()}
    for code in [*_lang_candidates(lang), "en"]:
        if table.get(code):
            return table[code], code
    for code, value in table.items():
        if value:
            return value, code
    return "", ""


class Variant:
    """Base of every ruleset. Subclasses declare data; the engine below does the rest."""

    # --- identity -----------------------------------------------------------------------
    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    pdn_gametype: ClassVar[str] = ""  # PDN GameType: number,first,cols,rows,notation,parity
    # --- words (str, or {language: str}; see Text) ----------------------------------------
    display_names: ClassVar[Mapping[str, str]] = {}  # ``name`` in other languages
    summary: ClassVar[Text] = ""  # one line for menus and the home page
    capture_explanation: ClassVar[Text] = ""  # the forced-capture banner; "" = from rules
    rules_pages: ClassVar[Mapping[str, RulesPage]] = {}  # language -> rules page
    scoring: ClassVar[str] = "2-0"  # "2-0": win 2-0, draw 1-1; "1-0": win 1-0, draw 1/2-1/2
    perft_suite: ClassVar[str] = ""  # reference perft file, relative to the class's module
    # --- board --------------------------------------------------------------------------
    rows: ClassVar[int] = 8
    cols: ClassVar[int] = 8
    vectors: ClassVar[tuple[Vector, ...]] = DIAGONAL
    notation: ClassVar[Notation] = Notation.NUMERIC
    accepts_numeric_input: ClassVar[bool] = False
    initial_fen: ClassVar[str] = ""
    first_to_move: ClassVar[Color] = Color.WHITE
    playing_squares_dark: ClassVar[bool] = True
    side_names: ClassVar[tuple[str, str]] = ("White", "Black")
    # --- rules --------------------------------------------------------------------------
    man_move_vectors: ClassVar[tuple[Vector, ...]] = ((1, -1), (1, 1))  # White's; mirrored
    man_capture_vectors: ClassVar[tuple[Vector, ...]] = ((1, -1), (1, 1))
    men_capture_kings: ClassVar[bool] = True
    flying_kings: ClassVar[bool] = False
    precedence: ClassVar[Precedence | tuple[Criterion, ...]] = Precedence.FREE
    immediate_removal: ClassVar[bool] = False
    no_reversal: ClassVar[bool] = False  # the 180-degree ban between two captures
    mid_capture_promotion: ClassVar[PromotionRule] = PromotionRule.STAYS_MAN
    full_capture_path: ClassVar[bool] = False  # notation lists every landing square
    draw_plies: ClassVar[int] = 100  # plies with no capture and no man advance
    repetitions: ClassVar[int] = 3

    _defined_in: ClassVar[Path | None] = None  # the directory of the class's module

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        module = sys.modules.get(cls.__module__)
        file = getattr(module, "__file__", None)
        cls._defined_in = Path(file).resolve().parent if file else None

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
        self._validate_declarations()
        criteria = self.capture_criteria
        # The capture collector applies the leading MOST_PIECES / MOST_KINGS criteria while
        # it searches (cheap); anything else goes through rank_captures on complete moves.
        native = 0
        if criteria[:1] == (Criterion.MOST_PIECES,):
            native = 2 if criteria[1:2] == (Criterion.MOST_KINGS,) else 1
        self._native_rank = native
        kind = type(self)
        self._post_rank = (kind.rank_captures is not Variant.rank_captures
                           or len(criteria) > native)
        # perft runs on raw bitboards only while the move generation is the engine's own.
        self._fast_perft = all(getattr(kind, name) is getattr(Variant, name)
                               for name in _GENERATION_METHODS)
        self._initial = self.parse_fen(self.initial_fen)

    def _validate_declarations(self) -> None:
        if self.scoring not in SCORINGS:
            raise ValueError(f"{self.key or type(self).__name__}: scoring must be one of "
                             f"{', '.join(SCORINGS)}, not {self.scoring!r}")
        if not isinstance(self.precedence, Precedence):
            bad = [c for c in self.precedence if not isinstance(c, Criterion)]
            if bad:
                raise ValueError(f"{self.key or type(self).__name__}: precedence must be a "
                                 f"Precedence or a tuple of Criterion, got {bad[0]!r}")

    @property
    def capture_criteria(self) -> tuple[Criterion, ...]:
        """The declared capture precedence as an ordered tuple of criteria (``()``: free)."""
        if isinstance(self.precedence, Precedence):
            return self.precedence.criteria
        return tuple(self.precedence)

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
                         self.geometry.size == self.rows * self.cols,
                         self.playing_squares_dark)

    # --- words ------------------------------------------------------------------------------
    def _own_words(self, attr: str) -> object:
        """A words attribute as declared by this ruleset, not inherited from the ruleset it
        subclasses: a plugin built on ``International`` does not show International's rules
        page or names. (Declared on the class that sets ``key`` or a subclass of it.)"""
        for kind in type(self).__mro__:
            if attr in vars(kind):
                return vars(kind)[attr]
            if "key" in vars(kind):
                break
        return getattr(Variant, attr)

    @property
    def own_aliases(self) -> tuple[str, ...]:
        """``aliases`` as declared by this ruleset (not those of the ruleset it subclasses)."""
        aliases: tuple[str, ...] = self._own_words("aliases")  # type: ignore[assignment]
        return tuple(aliases)

    def localized_name(self, lang: str) -> str | None:
        """``name`` in ``lang`` when the ruleset gives it (``display_names``), else None."""
        names: Mapping[str, str] = self._own_words("display_names")  # type: ignore[assignment]
        for code in _lang_candidates(lang):
            for key, value in names.items():
                if key.replace("_", "-").lower() == code and value:
                    return value
        return None

    def summary_text(self, lang: str = "en") -> str:
        """The one-line summary in ``lang`` (English fallback; "" when none is given)."""
        summary: Text = self._own_words("summary")  # type: ignore[assignment]
        text = localize(summary, lang)[0]
        if not text:
            page = self.rules_page(lang)
            text = page[0]["summary"] if page else ""
        return text

    def capture_rule_text(self, lang: str = "en") -> str:
        """Why a capture is forced, for the banner: ``capture_explanation`` or, when the
        ruleset gives none, the English description of its declared precedence."""
        explanation: Text = self._own_words("capture_explanation")  # type: ignore[assignment]
        text = localize(explanation, lang)[0]
        return text or describe_precedence(self.capture_criteria)

    @property
    def has_capture_explanation(self) -> bool:
        return bool(self._own_words("capture_explanation"))

    def rules_page(self, lang: str = "en") -> tuple[RulesPage, str] | None:
        """(rules page, its language) in ``lang`` or the English fallback; None if none."""
        pages: Mapping[str, RulesPage] = self._own_words("rules_pages")  # type: ignore[assignment]
        if not pages:
            return None
        table = {k.replace("_", "-").lower(): v for k, v in pages.items()}
        for code in [*_lang_candidates(lang), "en", *table]:
            if code in table:
                return table[code], code
        return None

    def perft_suite_path(self) -> Path | None:
        """The reference perft file (``perft_suite``, relative to the module of the class
        that declares it), or None when the ruleset declares none."""
        if not self.perft_suite:
            return None
        for kind in type(self).__mro__:
            if "perft_suite" in vars(kind):
                base = vars(kind).get("_defined_in") or Path(".")
                return (base / self.perft_suite).resolve()
        return Path(self.perft_suite).resolve()

    def result_text(self, winner: Color | None) -> str:
        """The result from White's side in this ruleset's ``scoring`` notation."""
        if self.scoring == "1-0":
            if winner is None:
                return "1/2-1/2"
            return "1-0" if winner is Color.WHITE else "0-1"
        if winner is None:
            return "1-1"
        return "2-0" if winner is Color.WHITE else "0-2"

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
        """Every non-capturing move of the side to move, whether or not a capture is forced.

        Engines use it with :meth:`captures`: the legal moves are the captures if there are
        any, else these.
        """
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
        """Every legal capture of the side to move (empty when it has none).

        Complete chains only, deduplicated, after the capture precedence: the declared
        ``precedence`` and the ``rank_captures`` hook.
        """
        if position.turn is Color.WHITE:
            found = self._capture_found(position.white_men, position.white_kings,
                                        position.black_men, position.black_kings, Color.WHITE)
        else:
            found = self._capture_found(position.black_men, position.black_kings,
                                        position.white_men, position.white_kings, Color.BLACK)
        return [Move(path, captured, promotes, key[2])
                for key, (path, captured, promotes) in found.items()]

    def rank_captures(self, position: Position, moves: Sequence[Move]) -> list[Move]:
        """Of the complete captures ``moves`` (all the mover has), the legal ones.

        The default keeps the moves that score highest on the declared ``precedence``
        criteria, in order. Override it for a rule data cannot express; return a subset of
        ``moves`` (never an empty one when ``moves`` is not empty). Both ``captures`` and
        ``perft`` go through it.
        """
        criteria = self.capture_criteria
        if not criteria or len(moves) < 2:
            return list(moves)
        scored = [(tuple(c.score(self, position, m) for c in criteria), m) for m in moves]
        best = max(score for score, _m in scored)
        return [m for score, m in scored if score == best]

    def _capture_found(self, men: Bitboard, kings: Bitboard, om: Bitboard, ok: Bitboard,
                       color: Color) -> dict[tuple[Square, Square, Bitboard],
                                             tuple[tuple[Square, ...], tuple[Square, ...],
                                                   bool]]:
        """The legal captures of the side with ``men`` and ``kings`` against ``om``/``ok``,
        keyed by (origin, destination, captured mask): what ``captures`` and ``perft`` use.
        """
        opp = om | ok
        if not opp:
            return {}
        occupied = men | kings | opp
        man_targets = opp if self.men_capture_kings else om
        # Men that have a jump right now: a cheap bitboard filter before the search.
        starters = 0
        if men and man_targets:
            empty = self.geometry.full & ~occupied
            up, down = self._jumps[color]
            for a, b, src in up:
                starters |= men & src & (man_targets >> a) & (empty >> b)
            for a, b, src in down:
                starters |= men & src & (man_targets << a) & (empty << b)
        if not (starters or kings):
            return {}
        found = self._collect(starters, kings, opp, ok, occupied, color).found
        if self._post_rank and len(found) > 1:
            if color is Color.WHITE:
                position = Position(men, kings, om, ok, color)
            else:
                position = Position(om, ok, men, kings, color)
            moves = [Move(path, captured, promotes, key[2])
                     for key, (path, captured, promotes) in found.items()]
            kept = self.rank_captures(position, moves)
            found = {m.key: found[m.key] for m in kept}
        return found

    def _collect(self, starters: Bitboard, kings: Bitboard, opp: Bitboard,
                 opp_kings: Bitboard, occupied: Bitboard, color: Color) -> _Collector:
        """Complete the capture chains of the men in ``starters`` and of ``kings``."""
        found = _Collector(self._native_rank)
        dirs_man = self._man_captures[color]
        promo = self._promotion[color]
        search = self._search
        man_targets = opp if self.men_capture_kings else opp & ~opp_kings
        while starters:
            low = starters & -starters
            starters ^= low
            sq = low.bit_length() - 1
            search(found, False, dirs_man, promo, sq, (sq,), (), 0, 0, occupied ^ low,
                   man_targets, opp_kings, -1)
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
                                      new_blockers, new_targets | (opp_kings & ~new_mask),
                                      opp_kings, d):
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

        While the ruleset keeps the engine's own ``legal_moves``, ``captures``,
        ``quiet_moves`` and ``apply``, this runs on raw bitboards (quiet moves are never
        turned into Move objects, leaf quiet moves are counted with popcounts) and takes
        its captures from the same code as ``captures``, ``rank_captures`` included. A
        ruleset that overrides any of those methods is counted through them instead.
        """
        if depth <= 0:
            return 1
        if not self._fast_perft:
            return self._walk_perft(position, depth)
        if position.turn is Color.WHITE:
            return self._perft(position.white_men, position.white_kings, position.black_men,
                               position.black_kings, Color.WHITE, depth)
        return self._perft(position.black_men, position.black_kings, position.white_men,
                           position.white_kings, Color.BLACK, depth)

    def _walk_perft(self, position: Position, depth: int) -> int:
        """Perft through the public ``legal_moves`` and ``apply`` (any overridden rules)."""
        moves = self.legal_moves(position)
        if depth == 1:
            return len(moves)
        return sum(self._walk_perft(self.apply(position, m), depth - 1) for m in moves)

    def _perft(self, men: Bitboard, kings: Bitboard, om: Bitboard, ok: Bitboard,
               color: Color, depth: int) -> int:
        """Perft from the mover's side: (men, kings) to move against (om, ok)."""
        occupied = men | kings | om | ok
        g = self.geometry
        empty = g.full & ~occupied
        other = Color.BLACK if color is Color.WHITE else Color.WHITE
        captures = self._capture_found(men, kings, om, ok, color)
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
        return self.draw_outcome(record)

    def draw_outcome(self, record: GameRecord) -> Outcome | None:
        """Hook: the draw rules, checked once the game is not won. The shared rule: a draw
        at the ``repetitions``-th occurrence of a position, or after ``draw_plies`` plies
        with no capture and no man advance. A ruleset may declare its own (for example a
        federation's limit on king moves), reading ``record``'s positions and moves."""
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

    # --- set-up positions -------------------------------------------------------------------
    def position_problems(self, position: Position) -> list[str]:
        """Why ``position`` cannot occur in a game of this ruleset, in words a player can
        read (empty: it can). The default, driven by the ruleset's data: pieces off the
        played squares or two on one square; a side with no pieces; a side with more pieces
        than it starts with (kings are crowned men); a man resting on the row where its side's
        men are crowned (a man that ends a move there is crowned under every
        ``PromotionRule``). A ruleset with other limits extends this list."""
        problems: list[str] = []
        board = (1 << self.geometry.size) - 1
        boards = (position.white_men, position.white_kings, position.black_men,
                  position.black_kings)
        if position.occupied & ~board or any(b < 0 for b in boards):
            problems.append("some pieces are not on the board's played squares")
        if sum(b.bit_count() for b in boards) != position.occupied.bit_count():
            problems.append("a square holds two pieces")
        for color in Color:
            side = self.side_names[color]
            men, kings = position.men(color) & board, position.kings(color) & board
            start = self._initial_pieces(color)
            if not men | kings:
                problems.append(f"{side} has no pieces")
            elif men.bit_count() > start:
                problems.append(f"{side} has {men.bit_count()} men: a side starts with "
                                f"{start}")
            elif (men | kings).bit_count() > start:
                problems.append(f"{side} has {(men | kings).bit_count()} pieces: a side "
                                f"starts with {start}")
            crowned = men & self.promotion_squares(color)
            if crowned:
                squares = ", ".join(self._labels[sq] for sq in _bits(crowned))
                problems.append(f"{side} has men on its crowning row ({squares}): a man that "
                                "reaches it becomes a king")
        return problems

    def check_position(self, position: Position) -> None:
        """Raise ``InvalidPosition`` naming every problem of ``position_problems``."""
        problems = self.position_problems(position)
        if problems:
            raise InvalidPosition(f"impossible position in {self.name}: "
                                  + "; ".join(problems))

    def _initial_pieces(self, color: Color) -> int:
        """How many pieces ``color`` starts with (from ``initial_fen``)."""
        return self.initial_position().pieces(color).bit_count()

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
    """Complete capture chains, deduplicated, filtered as they come by the leading native
    criteria: ``rank`` 0 none, 1 most pieces, 2 most pieces then most kings."""

    __slots__ = ("rank", "best", "found")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.best: tuple[int, int] = (0, 0)
        self.found: dict[tuple[Square, Square, Bitboard],
                         tuple[tuple[Square, ...], tuple[Square, ...], bool]] = {}

    def add(self, path: tuple[Square, ...], captured: tuple[Square, ...], mask: Bitboard,
            kings: int, promotes: bool) -> None:
        if self.rank:
            score = (len(captured), kings if self.rank == 2 else 0)
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
