"""The common variant interface: a ruleset's declared rules, and the parts that use them.

A ruleset is a stateless object. Its rules are data: class attributes that
``Variant.spec`` gathers into one frozen :class:`~variants.spec.RulesSpec` (the same data a
ruleset file declares, the compiled core reads and the endgame tables are named after).
What a ruleset does with them lives in its own modules, each a base class of
:class:`Variant`:

* :mod:`variants.spec`: ``RulesSpec``, the capture-precedence and promotion enums, and
  :func:`~variants.spec.declarative_reason`, the one predicate saying whether a ruleset is
  fully declarative;
* :mod:`variants.movegen`: the move generator (``legal_moves``, ``captures``,
  ``quiet_moves``, ``apply``, ``rank_captures``, ``perft``);
* :mod:`variants.notation`: square labels, move notation, FEN, the board as drawn;
* :mod:`variants.words`: names, summaries, rules pages, the capture banner, scoring;
* :mod:`variants.outcomes`: wins, draws, the draw counter, possible set-up positions.

Declared rules (class attributes of :class:`Variant`, fields of ``RulesSpec``):

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
* draws: ``draw_plies``, ``repetitions``;
* history: ``max_king_moves_with_men`` (see :mod:`variants.history` and ``restrict``).

docs/adding-a-ruleset.md is the guide.
"""

from __future__ import annotations

import sys
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from variants.geometry import DIAGONAL, ORTHOGONAL, Geometry, Vector
from variants.history import History, limit_king_moves
from variants.movegen import MoveGenerator
from variants.notation import FILES, BoardSpec, Notation, RulesetNotation, SquareInfo
from variants.outcomes import RulesetOutcomes
from variants.spec import (
    RESERVED,
    SPEC_FIELDS,
    Criterion,
    Precedence,
    PromotionRule,
    RulesSpec,
    spec_of,
)
from variants.types import Color, Move, Position
from variants.words import (
    SCORINGS,
    RulesetWords,
    RulesPage,
    Text,
    describe_precedence,
    localize,
)


class Variant(RulesetWords, RulesetNotation, MoveGenerator, RulesetOutcomes):
    """Base of every ruleset. Subclasses declare data; the parts above do the rest."""

    perft_suite: ClassVar[str] = ""  # reference perft file, relative to the class's module
    # --- board --------------------------------------------------------------------------
    rows: ClassVar[int] = 8
    cols: ClassVar[int] = 8
    vectors: ClassVar[tuple[Vector, ...]] = DIAGONAL
    initial_fen: ClassVar[str] = ""
    first_to_move: ClassVar[Color] = Color.WHITE
    # --- rules (the fields of RulesSpec) --------------------------------------------------
    man_move_vectors: ClassVar[tuple[Vector, ...]] = ((1, -1), (1, 1))  # White's; mirrored
    man_capture_vectors: ClassVar[tuple[Vector, ...]] = ((1, -1), (1, 1))
    men_capture_kings: ClassVar[bool] = True
    king_move_vectors: ClassVar[tuple[Vector, ...] | None] = None  # None: every direction
    king_capture_vectors: ClassVar[tuple[Vector, ...] | None] = None
    flying_kings: ClassVar[bool] = False
    flying_captures: ClassVar[bool | None] = None  # None: as flying_kings
    king_landing: ClassVar[str] = "any"
    precedence: ClassVar[Precedence | tuple[Criterion, ...]] = Precedence.FREE
    piece_values: ClassVar[tuple[int, int]] = (1, 1)  # (man, king)
    immediate_removal: ClassVar[bool] = False
    no_reversal: ClassVar[bool] = False  # the 180-degree ban between two captures
    mid_capture_promotion: ClassVar[PromotionRule] = PromotionRule.STAYS_MAN
    max_king_moves_with_men: ClassVar[int] = 0  # 0: no limit (read from the history)

    rules: ClassVar[RulesSpec | None] = None  # the rules as one value (see __init_subclass__)

    _defined_in: ClassVar[Path | None] = None  # the directory of the class's module

    def __init_subclass__(cls, **kwargs: object) -> None:
        """A ruleset declares its rules either as one value, ``rules = RulesSpec(...)``, or
        field by field as class attributes (``flying_kings = True``); ``rules`` is unpacked
        into the attributes here, so both read the same way and ``spec`` gathers them."""
        super().__init_subclass__(**kwargs)
        module = sys.modules.get(cls.__module__)
        file = getattr(module, "__file__", None)
        cls._defined_in = Path(file).resolve().parent if file else None
        rules = cls.__dict__.get("rules")
        if rules is not None:
            _unpack_rules(cls, rules)

    def __init__(self) -> None:
        self.geometry = Geometry.build(self.rows, self.cols, self._square_coords(),
                                       self.vectors)
        self._init_generator()
        self._labels = tuple(self._label(i) for i in range(self.geometry.size))
        self._by_label = {label: i for i, label in enumerate(self._labels)}
        self._validate_declarations()
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
        for field, default in RESERVED.items():
            value = getattr(self, field)
            if (tuple(value) if isinstance(value, list) else value) != default:
                raise ValueError(f"{self.key or type(self).__name__}: {field} = {value!r} is "
                                 "not supported yet")

    @property
    def capture_criteria(self) -> tuple[Criterion, ...]:
        """The declared capture precedence as an ordered tuple of criteria (``()``: free)."""
        if isinstance(self.precedence, Precedence):
            return self.precedence.criteria
        return tuple(self.precedence)

    @cached_property
    def spec(self) -> RulesSpec:
        """The declared rules as one frozen value (:class:`~variants.spec.RulesSpec`)."""
        return spec_of(self)

    # --- hooks a ruleset family provides ---------------------------------------------------
    def _square_coords(self) -> list[tuple[int, int]]:
        """(rank, file) of every playable square, in internal index order."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.key!r}>"

    # --- rules that read the game so far (variants.history) --------------------------------
    def restrict(self, history: History, moves: list[Move]) -> list[Move]:
        """Hook: of ``moves`` (the legal moves of ``history.position`` by the position
        alone), those the game so far allows. ``history`` holds the positions since at least
        the last irreversible move, oldest first. Return a subset of ``moves``; an empty list
        means the side to move has no legal move (it loses). The default applies
        ``max_king_moves_with_men``. Overriding it makes the ruleset non-declarative: it is
        played by the pure-Python engine, which applies the hook along every line it reads.
        """
        return limit_king_moves(history, moves, self.max_king_moves_with_men)

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

    def initial_position(self) -> Position:
        return self._initial



def _unpack_rules(cls: type[Variant], rules: object) -> None:
    """Set ``cls``'s rule attributes from its declared ``rules``."""
    if not isinstance(rules, RulesSpec):
        raise TypeError(f"{cls.__name__}.rules must be a RulesSpec, not {rules!r}")
    board = "orthogonal" if tuple(cls.vectors) == ORTHOGONAL else "diagonal"
    if rules.board != board:
        raise TypeError(f"{cls.__name__}: rules.board is {rules.board!r} but the class is a "
                        f"{board} ruleset (subclass DiagonalVariant or OrthogonalVariant)")
    for name in SPEC_FIELDS:
        if name == "board" or (board == "orthogonal" and name in _DIAGONAL_ONLY):
            continue
        setattr(cls, name, getattr(rules, name))
    cls.rules = None  # unpacked: ``spec`` is the one value to read


_DIAGONAL_ONLY = ("playable_parity", "number_from_bottom_right")


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


__all__ = [
    "FILES", "ORTHOGONAL", "SCORINGS", "BoardSpec", "Criterion", "DiagonalVariant", "Notation",
    "OrthogonalVariant", "Precedence", "PromotionRule", "RulesPage", "RulesSpec", "SquareInfo",
    "Text", "Variant", "describe_precedence", "localize",
]
