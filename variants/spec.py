"""The rules specification: a ruleset's rules as one frozen value, and the one predicate that
says whether a ruleset is nothing more than that value.

:class:`RulesSpec` holds exactly the rules a data-only ruleset file declares (board, men,
kings, captures, draws): the compiled core is built from it
(:func:`bots.engine.native.rules_spec`), the endgame tables are named after its
:meth:`~RulesSpec.digest`, and :func:`variants.toml_rulesets` reads and writes it. A Python
ruleset declares the same values as class attributes; ``Variant.spec`` gathers them.

What a ruleset is *besides* its spec lives elsewhere: words (names, summaries, rules pages)
in :mod:`variants.words`, notation and FEN in :mod:`variants.notation`, the move generator
in :mod:`variants.movegen`, results in :mod:`variants.outcomes`.

:func:`declarative_reason` answers "is this ruleset fully declarative?" for the whole project
(the compiled core, the reference generator, the conformance kit): ``None`` when its moves
follow from its spec alone, otherwise why not, in words an operator can act on.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from variants.geometry import DIAGONAL, ORTHOGONAL, Vector
from variants.types import Color, Move, Position

if TYPE_CHECKING:
    from variants.base import Variant


class Criterion(enum.Enum):
    """One capture-precedence criterion: among the complete captures, keep those that score
    highest on it. A ruleset lists criteria in order (``precedence = (Criterion.A, ...)``);
    each one only breaks ties left by the ones before it.
    """

    MOST_PIECES = "most_pieces"  # the capture taking the most pieces
    MOST_KINGS = "most_kings"  # the capture taking the most kings
    WITH_KING = "with_king"  # a capture made by a king over one made by a man
    EARLIEST_KING = "earliest_king"  # the capture meeting a king earliest in its chain
    MOST_VALUE = "most_value"  # the capture taking the most value (``piece_values``)

    def score(self, variant: Variant, position: Position, move: Move) -> int | tuple[int, ...]:
        """This criterion's score of ``move`` (higher wins; scores of one criterion compare)."""
        enemy_kings = position.kings(position.turn.opponent)
        if self is Criterion.MOST_PIECES:
            return len(move.captured)
        if self is Criterion.MOST_KINGS:
            return (move.captured_mask & enemy_kings).bit_count()
        if self is Criterion.WITH_KING:
            return (position.kings(position.turn) >> move.path[0]) & 1
        if self is Criterion.MOST_VALUE:
            man, king = variant.piece_values
            kings = (move.captured_mask & enemy_kings).bit_count()
            return man * (len(move.captured) - kings) + king * kings
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
        from variants.words import describe_precedence

        return describe_precedence(self.criteria)


_PRECEDENCE_CRITERIA: dict[Precedence, tuple[Criterion, ...]] = {
    Precedence.FREE: (),
    Precedence.MAX_PIECES: (Criterion.MOST_PIECES,),
    Precedence.MAX_PIECES_THEN_KINGS: (Criterion.MOST_PIECES, Criterion.MOST_KINGS),
}


class PromotionRule(enum.Enum):
    """What happens to a man that lands on the far row in the middle of a capture.

    A man that *ends* its move on the far row is crowned under every rule.
    """

    STAYS_MAN = "stays_man"  # goes on capturing as a man if it can (International, Turkish)
    ENDS_MOVE = "ends_move"  # crowned at once and the move ends there (English, Spanish)
    CONTINUES_AS_KING = "continues_as_king"  # crowned at once, goes on as a king (Russian)


KING_LANDINGS = ("any", "next")
"""``king_landing``: a flying king's capture lands on any empty square behind the piece it
takes (``"any"``), or only on the square right behind it (``"next"``)."""

Vectors = tuple[Vector, ...]


@dataclass(frozen=True, slots=True)
class RulesSpec:
    """A ruleset's rules as data: what a ruleset file declares and the compiled core reads.

    Vectors are (rank step, file step) pairs as White sees them (rank steps mirrored for
    Black). ``None`` for the kings' vectors means every direction of the board.
    """

    # --- board ------------------------------------------------------------------------------
    board: str = "diagonal"  # "diagonal" (dark squares) or "orthogonal" (every square)
    rows: int = 8
    cols: int = 8
    playable_parity: int = 0  # diagonal: (rank + file) % 2 of the played squares; 0: a1
    number_from_bottom_right: bool = False  # diagonal: numbering from White's near right
    initial_fen: str = ""
    first_to_move: Color = Color.WHITE
    # --- men --------------------------------------------------------------------------------
    man_move_vectors: Vectors = ((1, -1), (1, 1))
    man_capture_vectors: Vectors = ((1, -1), (1, 1))
    men_capture_kings: bool = True
    # --- kings ------------------------------------------------------------------------------
    king_move_vectors: Vectors | None = None
    king_capture_vectors: Vectors | None = None
    flying_kings: bool = False  # kings move any distance
    flying_captures: bool | None = None  # kings capture from afar; None: as flying_kings
    king_landing: str = "any"  # see KING_LANDINGS
    # --- captures ---------------------------------------------------------------------------
    precedence: tuple[Criterion, ...] = ()
    piece_values: tuple[int, int] = (1, 1)  # (man, king), for a precedence by value
    immediate_removal: bool = False
    no_reversal: bool = False
    mid_capture_promotion: PromotionRule = PromotionRule.STAYS_MAN
    # --- draws and history ------------------------------------------------------------------
    draw_plies: int = 100
    repetitions: int = 3
    max_king_moves_with_men: int = 0  # 0: no limit (a rule that reads the game's history)

    def __post_init__(self) -> None:
        # Accept the convenient spellings (a named Precedence, lists) and store one form, so
        # that two specs of the same rules are equal and hash alike.
        precedence: object = self.precedence
        if isinstance(precedence, Precedence):
            object.__setattr__(self, "precedence", precedence.criteria)
        else:
            object.__setattr__(self, "precedence", tuple(self.precedence))
        for name in ("man_move_vectors", "man_capture_vectors", "king_move_vectors",
                     "king_capture_vectors"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple((int(a), int(b)) for a, b in value))
        object.__setattr__(self, "piece_values", tuple(self.piece_values))

    @property
    def vectors(self) -> Vectors:
        """Every direction of the board."""
        return DIAGONAL if self.board == "diagonal" else ORTHOGONAL

    def as_mapping(self) -> dict[str, Any]:
        """The spec as plain data (lists, strings, numbers), field by field."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, enum.Enum):
                value = value.name.lower() if isinstance(value, Color) else value.value
            elif f.name == "precedence":
                value = [c.value for c in value]
            elif isinstance(value, tuple):
                value = json.loads(json.dumps(value))
            out[f.name] = value
        return out

    def digest(self) -> str:
        """A stable hex digest of the rules (the endgame tables' file names use it)."""
        text = json.dumps(self.as_mapping(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the defaults, as :meth:`as_mapping` gives them."""
        default = RulesSpec().as_mapping()
        return {k: v for k, v in self.as_mapping().items() if default[k] != v}


SPEC_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(RulesSpec))

RESERVED: Mapping[str, object] = {}
"""Fields the spec names whose rules the generators do not implement yet: a ruleset that
declares another value than this is refused (``Variant`` raises ``ValueError``)."""


def spec_of(variant: Variant) -> RulesSpec:
    """The :class:`RulesSpec` a ruleset's class attributes declare."""
    kind = type(variant)
    board = "orthogonal" if tuple(kind.vectors) == ORTHOGONAL else "diagonal"
    values: dict[str, Any] = {}
    for name in SPEC_FIELDS:
        if name == "board":
            values[name] = board
        elif name == "precedence":
            values[name] = variant.capture_criteria
        elif hasattr(kind, name):
            value = getattr(kind, name)
            if name.endswith("_vectors") and value is not None:
                value = tuple((int(a), int(b)) for a, b in value)
            elif name == "piece_values":
                value = (int(value[0]), int(value[1]))
            values[name] = value
    return RulesSpec(**values)


# --- the predicate ----------------------------------------------------------------------------

OUTCOME_HOOKS = ("is_advance", "resets_draw_counter")
"""Hooks outside the move generator whose override also changes what the spec says: the
draw counter (the compiled core counts it itself)."""

HISTORY_HOOKS = ("restrict",)
"""Hooks that read the game so far: a ruleset with one needs the history to know its moves."""

# Class attributes of Variant that are not rules (identity, words, notation, engine
# settings): a ruleset may set them and stay declarative.
_NOT_RULES = frozenset({
    "key", "name", "aliases", "pdn_gametype", "display_names", "summary",
    "capture_explanation", "rules_pages", "scoring", "perft_suite", "notation",
    "accepts_numeric_input", "side_names", "playing_squares_dark", "full_capture_path",
    "vectors", "precedence", "eval_weights", "outcome_reasons", "special_outcome_pieces",
})


def generation_hooks() -> tuple[str, ...]:
    """Every method of the move generator (public hooks and the private parts a subclass
    could still replace): overriding any of them leaves the spec."""
    from variants.movegen import MoveGenerator

    return tuple(name for name, value in vars(MoveGenerator).items()
                 if callable(value) and not name.startswith("__"))


def overridden_hooks(variant: Variant) -> tuple[str, ...]:
    """The move-generation, draw-counter and history hooks ``variant``'s class replaces
    (outside the library's own classes), in a stable order."""
    from variants import base, movegen, outcomes

    library = {movegen.__name__, outcomes.__name__, base.__name__}
    kind = type(variant)
    out: list[str] = []
    for name in (*generation_hooks(), *OUTCOME_HOOKS, *HISTORY_HOOKS):
        for klass in kind.__mro__:
            if name in klass.__dict__:
                if klass.__module__ not in library:
                    out.append(name)
                break
    return tuple(out)


def declarative_reason(variant: Variant, ignore: tuple[str, ...] = ()) -> str | None:
    """``None`` when ``variant``'s moves follow from its :class:`RulesSpec` alone (no
    generation override, no history hook, every rule value one the spec can say); otherwise
    why not. A ruleset that is not declarative is played by the pure-Python engine and
    checked against the reference generator only where that generator can follow it."""
    from variants.base import Variant as VariantBase

    kind = type(variant)
    name = kind.__name__
    hooks = [h for h in overridden_hooks(variant) if h not in ignore]
    history = [h for h in hooks if h in HISTORY_HOOKS]
    if history:
        return (f"{name} overrides {history[0]} (a rule that reads the game so far: only the "
                "Python engine follows it)")
    if hooks:
        return f"{name} overrides {hooks[0]} (move generation in Python)"
    spec = variant.spec
    if spec.max_king_moves_with_men and "restrict" not in ignore:
        return (f"max_king_moves_with_men = {spec.max_king_moves_with_men} (a rule that reads "
                "the game so far: only the Python engine follows it)")
    # Board layouts other than the two families' are more than the spec can say.
    for klass in kind.__mro__:
        if "_square_coords" in klass.__dict__:
            if klass.__module__ != VariantBase.__module__:
                return f"{name} overrides _square_coords (a board layout the spec cannot say)"
            break
    if tuple(kind.vectors) not in (DIAGONAL, ORTHOGONAL):
        return f"{name} declares vectors={kind.vectors!r} (a board the spec cannot say)"
    # A class attribute of Variant that is neither a rule of the spec nor one of the
    # settings above: a rule the spec does not know.
    declared: dict[str, object] = {}
    for klass in reversed(VariantBase.__mro__):
        declared.update(vars(klass))
    for attr, default in declared.items():
        if attr.startswith("_") or attr in _NOT_RULES or attr in SPEC_FIELDS:
            continue
        if callable(default) or isinstance(default, (property, staticmethod, classmethod)):
            continue
        if getattr(kind, attr, default) != default:
            return f"{name} declares {attr}={getattr(kind, attr)!r} (not a rule of the spec)"
    return None


def is_declarative(variant: Variant) -> bool:
    """``declarative_reason(variant) is None``."""
    return declarative_reason(variant) is None


__all__ = ["HISTORY_HOOKS", "KING_LANDINGS", "OUTCOME_HOOKS", "RESERVED", "SPEC_FIELDS",
           "Criterion", "Precedence", "PromotionRule", "RulesSpec", "declarative_reason",
           "generation_hooks", "is_declarative", "overridden_hooks", "spec_of"]
