"""Time per move from the game clock (bots.engine.timing) and its use by the levels."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.engine import EngineConfig, search_level
from bots.engine.levels import get_level
from bots.engine.timing import (
    FLOOR,
    MAX_SHARE,
    MIN_RESERVE,
    RESERVE_FRACTION,
    STRETCH,
    Budget,
    Clock,
    budget,
    clock_share,
)
from variants import get_variant


@settings(deadline=None)  # arithmetic only: a loaded machine must not fail it
@given(remaining=st.floats(min_value=-5, max_value=7200),
       increment=st.floats(min_value=0, max_value=60),
       cap=st.floats(min_value=0.01, max_value=30))
def test_never_more_than_its_share(remaining: float, increment: float, cap: float) -> None:
    clock = Clock(remaining, increment)
    allotted = budget(cap, clock)
    t = allotted.limit
    assert FLOOR <= t <= max(FLOOR, cap)
    # A target is the clock's share, below the cap, within the limit and at most a
    # STRETCH-th of it (unless the limit is held down to the share by the cap or the clock).
    if allotted.target is not None:
        assert allotted.target == clock_share(clock) < cap
        assert allotted.target <= t <= STRETCH * allotted.target + 1e-9
    else:
        assert t == pytest.approx(max(FLOOR, min(cap, clock_share(clock))))
    spare = remaining - max(MIN_RESERVE, RESERVE_FRACTION * max(remaining, 0))
    # Never more than a quarter of what is left above the reserve (or the floor).
    assert t <= max(FLOOR, MAX_SHARE * spare) + 1e-9
    # The reserve is never touched: after the move the clock still holds it (plus the
    # increment it earns), unless the floor (one iteration, a few ms) is all it can do.
    if t > FLOOR:
        assert remaining - t >= min(MIN_RESERVE, remaining) - 1e-9


def test_untimed_games_use_the_level_budget() -> None:
    assert budget(1.0, None) == Budget(1.0)
    assert budget(0.3, None) == Budget(0.3)
    assert budget(0.0, None) == Budget(FLOOR)


def test_the_clock_shapes_the_share() -> None:
    # 5 minutes left, no increment: about 1/30 of 90% of it, capped by the level (which is
    # then the limit, with no target: the clock has more than the level may use).
    assert clock_share(Clock(300)) == pytest.approx(270 / 30)
    assert budget(1.5, Clock(300)) == Budget(1.5)
    # 10 s left: a fraction of a second as the target, three times that as the limit.
    tight = budget(1.5, Clock(10))
    assert tight.target == pytest.approx(9 / 30)
    assert tight.limit == pytest.approx(STRETCH * 9 / 30)
    # Below the level's cap the limit stops at the cap.
    assert budget(0.5, Clock(10)).limit == 0.5
    # 0.3 s left: as fast as possible.
    assert budget(1.5, Clock(0.3)) == Budget(FLOOR, FLOOR)
    # The increment comes back after the move: most of it is spent.
    assert budget(5.0, Clock(10, increment=2)).target == pytest.approx(9 / 30 + 1.6)
    # One move never takes more than a quarter of what is above the reserve, stretched or not.
    assert clock_share(Clock(3, increment=10)) == pytest.approx(MAX_SHARE * 2.5)
    assert budget(60, Clock(3, increment=10)).limit == pytest.approx(MAX_SHARE * 2.5)
    assert budget(60, Clock(10, increment=1)).target == pytest.approx(9 / 30 + 0.8)
    assert budget(60, Clock(10, increment=1)).limit == pytest.approx(MAX_SHARE * 9)
    # A control of so many moves: the spare time over the moves still to play in it.
    assert budget(60, Clock(30, moves_to_go=10)).target == pytest.approx(27 / 10)
    assert clock_share(Clock(30, moves_to_go=1)) == pytest.approx(MAX_SHARE * 27)
    with pytest.raises(ValueError):
        Clock(30, moves_to_go=0)
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


@pytest.mark.timing
def test_a_clocked_search_ends_near_its_target_not_at_its_limit() -> None:
    variant = get_variant("international")
    start = variant.initial_position()
    aimed = search_level(variant, start, level=8, seed=1, time_limit=30.0, target_time=0.1,
                         book=False)
    # Stretched at most 3 x 1.5 times while the root is unsettled: far below the limit.
    assert aimed.move is not None and aimed.stopped and aimed.depth >= 4
    assert aimed.elapsed < 2.0
