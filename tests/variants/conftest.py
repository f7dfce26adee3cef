"""Helpers for the rules-engine tests: pure Python, no database, no Django."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from variants import Variant, get_variant


def notations(variant: Variant, fen: str) -> list[str]:
    """The legal moves of ``fen`` in notation, sorted."""
    position = variant.parse_fen(fen)
    legal = variant.legal_moves(position)
    return sorted(variant.format_move(position, m, legal) for m in legal)


@pytest.fixture
def moves_of() -> Callable[[str, str], list[str]]:
    def run(key: str, fen: str) -> list[str]:
        return notations(get_variant(key), fen)

    return run
