"""Hypothesis property tests over random playouts of every ruleset."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from variants import Position, Variant, get_variant, variant_keys
from variants.conformance import (
    check_apply_deterministic,
    check_fen_round_trip,
    check_notation_round_trip,
    random_playouts,
)

BUILTIN_KEYS = ["international", "english", "brazilian", "spanish", "turkish"]


def _playout(variant: Variant, seed: int, plies: int) -> list[Position]:
    rng = random.Random(seed)
    position = variant.initial_position()
    seen = [position]
    for _ in range(plies):
        legal = variant.legal_moves(position)
        if not legal:
            break
        position = variant.apply(position, rng.choice(legal))
        seen.append(position)
    return seen


_settings = settings(max_examples=40, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_settings
@given(key=st.sampled_from(BUILTIN_KEYS), seed=st.integers(0, 2**32),
       plies=st.integers(0, 120))
def test_fen_round_trip(key: str, seed: int, plies: int) -> None:
    variant = get_variant(key)
    check_fen_round_trip(variant, _playout(variant, seed, plies))


@_settings
@given(key=st.sampled_from(BUILTIN_KEYS), seed=st.integers(0, 2**32),
       plies=st.integers(0, 120))
def test_apply_is_deterministic(key: str, seed: int, plies: int) -> None:
    variant = get_variant(key)
    for position in _playout(variant, seed, plies)[-5:]:
        check_apply_deterministic(variant, position)


@_settings
@given(key=st.sampled_from(BUILTIN_KEYS), seed=st.integers(0, 2**32),
       plies=st.integers(0, 120))
def test_notation_round_trip(key: str, seed: int, plies: int) -> None:
    variant = get_variant(key)
    for position in _playout(variant, seed, plies)[-5:]:
        check_notation_round_trip(variant, position)


@settings(max_examples=10, deadline=None)
@given(key=st.sampled_from(BUILTIN_KEYS), seed=st.integers(0, 2**32))
def test_playout_invariants(key: str, seed: int) -> None:
    stats = random_playouts(get_variant(key), games=2, seed=seed, max_plies=400)
    assert stats.games == 2
    assert sum(stats.outcomes.values()) == 2


def test_every_registered_ruleset_passes_the_playout_invariants() -> None:
    for key in variant_keys():
        random_playouts(get_variant(key), games=3, seed=11)
