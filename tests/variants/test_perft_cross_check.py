"""The fast perft path and the move generator players use must count the same tree."""

from __future__ import annotations

import pytest

from variants import get_variant, variant_keys
from variants.conformance import check_perft_matches_moves, random_playouts, reference_nodes
from variants.registry import BUILTINS


@pytest.mark.parametrize("key", variant_keys())
def test_perft_agrees_with_legal_moves_over_random_games(key: str) -> None:
    variant = get_variant(key)
    stats = random_playouts(variant, games=6, seed=11, max_plies=160, keep_positions=400)
    # Late positions have kings, long captures and promotions: the interesting cases.
    positions = stats.positions[::8]
    assert len(positions) >= 20
    total = sum(check_perft_matches_moves(variant, p, depth=2) for p in positions)
    assert total > 0


@pytest.mark.parametrize("key", variant_keys())
def test_perft_agrees_with_legal_moves_from_start(key: str) -> None:
    """Against the ruleset's own reference figure: any installed ruleset, plugins too."""
    variant = get_variant(key)
    expected = reference_nodes(variant, variant.initial_fen, 3)
    if expected is None:
        pytest.skip(f"{key} declares no reference perft at depth 3 from the start")
    assert check_perft_matches_moves(variant, variant.initial_position(), 3) == expected


def test_builtin_reference_figures_from_start() -> None:
    got = {v.key: reference_nodes(v, v.initial_fen, 3) for v in BUILTINS}
    assert got == {"international": 658, "english": 302, "brazilian": 302, "spanish": 302,
                   "turkish": 708}
