"""Glicko-2 for puzzle ratings, as Glickman describes it ("Example of the Glicko-2 system",
2013): pure functions, no Django.

Each attempt is a rating period of one game: the player meets the puzzle, the puzzle meets
the player. The pip package ``glicko2`` was considered and not used: its volatility
iteration uses the rating where the algorithm needs the rating deviation (step 5's ``f``).

The tests check Glickman's worked example (1500/200/0.06 against three opponents ->
1464.06, 151.52, 0.05999).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
TAU = 0.5  # how much the volatility may change (Glickman: 0.3 to 1.2)
EPSILON = 0.000001
MIN_DEVIATION = 45.0   # a rating never claims to be more certain than this
MAX_DEVIATION = 350.0
MIN_RATING = 400.0
MAX_RATING = 3200.0


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The expected score of ``player`` against ``opponent`` (0..1)."""
    return _e((player.rating - START_RATING) / SCALE, (opponent.rating - START_RATING) / SCALE,
              opponent.deviation / SCALE)


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility (the Illinois algorithm of Glickman's example)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)
                / (2.0 * (phi * phi + v + ex) ** 2)) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, games: list[tuple[Rating, float]], *, tau: float = TAU,
           bounded: bool = True) -> Rating:
    """``player`` after one rating period against ``games`` ((opponent, score) pairs, score
    0..1). ``bounded``: clamp the result to the site's rating and deviation ranges."""
    mu = (player.rating - START_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not games:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return _bound(Rating(player.rating, phi_star * SCALE, sigma), bounded)
    v_inv = 0.0
    total = 0.0
    for opponent, score in games:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score must be within 0..1, not {score!r}")
        mu_j = (opponent.rating - START_RATING) / SCALE
        phi_j = opponent.deviation / SCALE
        e = _e(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / v_inv
    delta = v * total
    sigma2 = _volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma2 * sigma2)
    phi2 = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu2 = mu + phi2 * phi2 * total
    return _bound(Rating(mu2 * SCALE + START_RATING, phi2 * SCALE, sigma2), bounded)


def _bound(r: Rating, bounded: bool) -> Rating:
    if not bounded:
        return r
    return Rating(min(MAX_RATING, max(MIN_RATING, r.rating)),
                  min(MAX_DEVIATION, max(MIN_DEVIATION, r.deviation)), r.volatility)


def rate_attempt(player: Rating, puzzle: Rating, score: float) -> tuple[Rating, Rating]:
    """One attempt: the player scored ``score`` (1 solved, 0.5 solved after a hint, 0
    failed) against the puzzle; both ratings move (the puzzle scores ``1 - score``)."""
    return (update(player, [(puzzle, score)]), update(puzzle, [(player, 1.0 - score)]))
