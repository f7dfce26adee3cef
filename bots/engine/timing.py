"""Time per move from the game clock.

In an untimed game a level searches on its fixed budget (:class:`~bots.engine.levels.Level`
and :class:`~bots.engine.levels.EngineConfig`). With a clock, the bot spends a share of
what it has left, plus most of its increment, never more than its level's cap and never so
much that the clock could run out:

- a reserve is kept back (``RESERVE_FRACTION`` of the remaining time, at least
  ``MIN_RESERVE`` seconds: what the server needs to receive and record the move);
- the rest is shared over the moves still expected (``MOVES_TO_GO``, fewer late in the game
  is not assumed: draughts games run long; a control of so many moves says how many are
  left in it), and ``INCREMENT_SHARE`` of the increment is added (it comes back after the
  move);
- one move never takes more than ``MAX_SHARE`` of the time above the reserve.

The result is capped by the level's own time (``cap``); below ``FLOOR`` seconds the search
still completes its first iteration (a legal move is always returned), so a bot whose clock
is nearly out plays at once instead of losing on time.

With a clock that allots less than the cap, the share is the search's *target*, not its
limit (:func:`budget`): the compiled core starts no new iteration past 0.7 of the target and
stops one under way at twice it, both stretched while its best move keeps changing or its
score falls (``bots/native/search.c``, Time), and never passes the limit, ``STRETCH`` times
the share (still within ``MAX_SHARE`` of what is above the reserve). Moves average about
the share; time a settled position does not need stays on the clock, where it raises the
share of the moves that follow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MOVES_TO_GO: Final = 30
INCREMENT_SHARE: Final = 0.8
RESERVE_FRACTION: Final = 0.1
MIN_RESERVE: Final = 0.5  # seconds
MAX_SHARE: Final = 0.25
FLOOR: Final = 0.01
STRETCH: Final = 3.0


@dataclass(frozen=True, slots=True)
class Clock:
    """The bot's clock when it is asked to move: seconds left, the per-move increment and,
    in a control of so many moves in so much time, the moves still to play in it."""

    remaining: float
    increment: float = 0.0
    moves_to_go: int | None = None

    def __post_init__(self) -> None:
        if self.increment < 0:
            raise ValueError("the increment cannot be negative")
        if self.moves_to_go is not None and self.moves_to_go < 1:
            raise ValueError("the moves to go are at least one")


def spare_time(clock: Clock) -> float:
    """Seconds on ``clock`` above the reserve (negative: the reserve is already eaten)."""
    remaining = max(0.0, clock.remaining)
    return remaining - max(MIN_RESERVE, RESERVE_FRACTION * remaining)


def clock_share(clock: Clock) -> float:
    """Seconds the bot may think on this move given ``clock`` alone (no level cap)."""
    spare = spare_time(clock)
    if spare <= 0:
        return FLOOR
    share = spare / (clock.moves_to_go or MOVES_TO_GO) + INCREMENT_SHARE * clock.increment
    return max(FLOOR, min(share, MAX_SHARE * spare))


@dataclass(frozen=True, slots=True)
class Budget:
    """One search's time: ``limit`` seconds at most; with a ``target`` (a clock's share),
    the search ends after an iteration once it has used a share of the target
    (``bots/native/search.c``, Time)."""

    limit: float
    target: float | None = None


def budget(cap: float, clock: Clock | None) -> Budget:
    """The time of one search: the level's ``cap`` without a clock; with one, the clock's
    share as the target when it is below the cap (the limit then stretches to ``STRETCH``
    times the share, within the cap and ``MAX_SHARE`` of the spare time), else the cap."""
    cap = max(FLOOR, cap)
    if clock is None:
        return Budget(cap)
    share = clock_share(clock)
    if share >= cap:
        return Budget(cap)
    limit = max(share, min(cap, STRETCH * share, MAX_SHARE * spare_time(clock)))
    return Budget(limit, share)
