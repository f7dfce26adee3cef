"""Elo arithmetic. Pure functions, no Django.

Policy
------
- Everyone starts at :data:`START_RATING` (1500) in every ruleset, bots included.
- K factor, from the games already rated *before* this one, in that ruleset:
  40 while provisional (the first :data:`PROVISIONAL_GAMES` = 30 rated games, shown with a
  "?"), then 20, then 10 once the rating is at or above :data:`HIGH_RATING` (2400).
  Provisional takes precedence: a provisional player at 2400+ still uses K = 40.
- Scores: win 1, draw 0.5, loss 0.
- Rounding: each player's delta ``K * (score - expected)`` is rounded to the nearest integer,
  halves away from zero (2.5 -> 3, -2.5 -> -3; not Python's banker's rounding), so two players
  with the same K always get exactly opposite deltas and ratings stay integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START_RATING = 1500
PROVISIONAL_GAMES = 30
HIGH_RATING = 2400
K_PROVISIONAL = 40
K_ESTABLISHED = 20
K_HIGH = 10

WIN = 1.0
DRAW = 0.5
LOSS = 0.0


def expected_score(rating: float, opponent: float) -> float:
    """Expected score of a player rated ``rating`` against ``opponent`` (0..1)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def is_provisional(games: int) -> bool:
    """True while fewer than PROVISIONAL_GAMES rated games have been played."""
    return games < PROVISIONAL_GAMES


def k_factor(rating: int, games: int) -> int:
    """K for a player with ``rating`` who has played ``games`` rated games so far."""
    if is_provisional(games):
        return K_PROVISIONAL
    if rating >= HIGH_RATING:
        return K_HIGH
    return K_ESTABLISHED


def round_half_away(value: float) -> int:
    """Nearest integer; exact halves go away from zero."""
    # A tiny epsilon absorbs float noise such as 2.4999999999999996 for an exact 2.5.
    magnitude = math.floor(abs(value) + 0.5 + 1e-9)
    return int(math.copysign(magnitude, value)) if magnitude else 0


def rating_delta(rating: int, games: int, opponent: int, score: float) -> int:
    """Integer change for one player after one game scored ``score`` (1, 0.5 or 0)."""
    if score not in (WIN, DRAW, LOSS):
        raise ValueError(f"score must be 1, 0.5 or 0, not {score!r}")
    k = k_factor(rating, games)
    return round_half_away(k * (score - expected_score(rating, opponent)))


@dataclass(frozen=True)
class Side:
    rating: int
    games: int


@dataclass(frozen=True)
class Outcome:
    white_delta: int
    black_delta: int


def rate_game(white: Side, black: Side, white_score: float) -> Outcome:
    """Deltas for both players of one game; ``white_score`` is 1, 0.5 or 0."""
    return Outcome(
        white_delta=rating_delta(white.rating, white.games, black.rating, white_score),
        black_delta=rating_delta(black.rating, black.games, white.rating, 1.0 - white_score),
    )
