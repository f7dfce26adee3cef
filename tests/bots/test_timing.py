"""Time per move from the game clock (bots.engine.timing) and its use by the levels."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.engine import EngineConfig, search_level
from bots.engine.levels import get_level
from bots.engine.timing import (
    FLOOR,
    MAX_SHARE,
    MIN_RESERVE,
    RESERVE_FRACTION,
    Clock,
    clock_share,
    move_time,
)
from variants import get_variant


@given(remaining=st.floats(min_value=-5, max_value=7200),
       increment=st.floats(min_value=0, max_value=60),
       cap=st.floats(min_value=0.01, max_value=30))
def test_never_more_than_its_share(remaining: float, increment: float, cap: float) -> None:
    clock = Clock(remaining, increment)
    t = move_time(cap, clock)
    assert FLOOR <= t <= max(FLOOR, cap)
    spare = remaining - max(MIN_RESERVE, RESERVE_FRACTION * max(remaining, 0))
    # Never more than a quarter of what is left above the reserve (or the floor).
    assert t <= max(FLOOR, MAX_SHARE * spare) + 1e-9
    # The reserve is never touched: after the move the clock still holds it (plus the
    # increment it earns), unless the floor (one iteration, a few ms) is all it can do.
    if t > FLOOR:
        assert remaining - t >= min(MIN_RESERVE, remaining) - 1e-9


def test_untimed_games_use_the_level_budget() -> None:
    assert move_time(1.0, None) == 1.0
    assert move_time(0.3, None) == 0.3


def test_the_clock_shapes_the_share() -> None:
    # 5 minutes left, no increment: about 1/30 of 90% of it, capped by the level.
    assert clock_share(Clock(300)) == pytest.approx(270 / 30)
    assert move_time(1.5, Clock(300)) == 1.5
    # 10 s left: a fraction of a second. 0.3 s left: as fast as possible.
    assert move_time(1.5, Clock(10)) == pytest.approx(9 / 30)
    assert move_time(1.5, Clock(0.3)) == FLOOR
    # The increment comes back after the move: most of it is spent.
    assert move_time(5.0, Clock(10, increment=2)) == pytest.approx(9 / 30 + 1.6)
    assert clock_share(Clock(3, increment=10)) == pytest.approx(MAX_SHARE * 2.5)
    with pytest.raises(ValueError):
        Clock(10, increment=-1)


@pytest.mark.timing
def test_levels_take_the_clock_into_account() -> None:
    config = EngineConfig(move_time=0.2, max_move_time=0.3)
    top = get_level(8)
    assert top.time_limit(config) == 0.2
    assert top.time_limit(config, timed=True) == 0.3
    variant = get_variant("english")
    start = variant.initial_position()
    # A nearly flagged bot answers at once; one with time thinks up to the level's cap.
    hurried = search_level(variant, start, level=8, seed=1, config=config,
                           clock=Clock(remaining=0.4), book=False)
    assert hurried.move is not None and hurried.elapsed < 0.2
    relaxed = search_level(variant, start, level=8, seed=1, config=config,
                           clock=Clock(remaining=600), book=False)
    assert relaxed.move is not None and relaxed.elapsed < 0.3 + 0.25
