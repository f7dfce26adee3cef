"""Kondavo's rules engine: pure Python, no Django.

    >>> from variants import get_variant
    >>> v = get_variant("international")
    >>> len(v.legal_moves(v.initial_position()))
    9
"""

from variants.base import (
    BoardSpec,
    Criterion,
    DiagonalVariant,
    Notation,
    OrthogonalVariant,
    Precedence,
    PromotionRule,
    RulesPage,
    RulesSpec,
    SquareInfo,
    Text,
    Variant,
)
from variants.errors import (
    AmbiguousMove,
    IllegalMove,
    InvalidFEN,
    InvalidNotation,
    InvalidPDN,
    InvalidPosition,
    InvalidSquare,
    PDNMoveError,
    UnknownVariant,
    VariantError,
)
from variants.game import GameRecord, PlayedMove
from variants.registry import Registry, default_registry, get_variant, variant_keys
from variants.types import Bitboard, Color, Move, Outcome, Position, Reason, Square

__all__ = [
    "AmbiguousMove", "Bitboard", "BoardSpec", "Color", "Criterion", "DiagonalVariant",
    "GameRecord", "IllegalMove", "InvalidFEN", "InvalidNotation", "InvalidPDN", "InvalidPosition",
    "InvalidSquare",
    "Move", "Notation", "OrthogonalVariant", "Outcome", "PDNMoveError", "PlayedMove", "Position",
    "Precedence", "PromotionRule", "Reason", "Registry", "RulesPage", "RulesSpec", "Square",
    "SquareInfo",
    "Text", "UnknownVariant", "Variant", "VariantError", "default_registry", "get_variant",
    "variant_keys",
]
