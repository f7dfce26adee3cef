"""Time per move from the game clock.

In an untimed game a level searches on its fixed budget (:class:`~bots.engine.levels.Level`
and :class:`~bots.engine.levels.EngineConfig`). With a clock, the bot spends a share of
what it has left, plus most of its increment, never more than its level's cap and never so
much that the clock could run out:

- a reserve is kept back (``RESERVE_FRACTION`` of the remaining time, at least
  ``MIN_RESERVE`` seconds: what the server needs to receive and record the move);
- the rest is shared over the moves still expected (``MOVES_TO_GO``, fewer late in the game
  is not assumed: draughts games run long), and ``INCREMENT_SHARE`` of the increment is
  added (it comes back after the move);
- one move never takes more than ``MAX_SHARE`` of the time above the reserve.

The result is capped by the level's own time (``cap``); below ``FLOOR`` seconds the search
still completes its first iteration (a legal move is always returned), so a bot whose clock
is nearly out plays at once instead of losing on time.
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


@dataclass(frozen=True, slots=True)
class Clock:
    """The bot's clock when it is asked to move: seconds left and the per-move increment."""

    remaining: float
    increment: float = 0.0

    def __post_init__(self) -> None:
        if self.increment < 0:
            raise ValueError("the increment cannot be negative")


def clock_share(clock: Clock) -> float:
    """Seconds the bot may think on this move given ``clock`` alone (no level cap)."""
    remaining = max(0.0, clock.remaining)
    reserve = max(MIN_RESERVE, RESERVE_FRACTION * remaining)
    spare = remaining - reserve
    if spare <= 0:
        return FLOOR
    share = spare / MOVES_TO_GO + INCREMENT_SHARE * clock.increment
    return max(FLOOR, min(share, MAX_SHARE * spare))


def move_time(cap: float, clock: Clock | None) -> float:
    """The time limit of one search: the level's ``cap``, shortened by the clock if any."""
    if clock is None:
        return max(FLOOR, cap)
    return max(FLOOR, min(cap, clock_share(clock)))
