"""Pure Elo maths against hand-computed values (rating/elo.py)."""

from __future__ import annotations

import pytest

from rating import elo

pytestmark = pytest.mark.embedded


@pytest.mark.parametrize(
    ("rating", "opponent", "expected"),
    [
        (1500, 1500, 0.5),
        # 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.316227766) = 0.759746927
        (1600, 1400, 0.759746927),
        (1400, 1600, 0.240253073),
        # 1 / (1 + 10^(-400/400)) = 1 / 1.1
        (2000, 1600, 0.909090909),
        (1600, 2000, 0.090909091),
    ],
)
def test_expected_score(rating: int, opponent: int, expected: float) -> None:
    assert elo.expected_score(rating, opponent) == pytest.approx(expected, abs=1e-9)
    assert elo.expected_score(rating, opponent) + elo.expected_score(
        opponent, rating
    ) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("rating", "games", "k"),
    [
        (1500, 0, 40),
        (1500, 29, 40),  # 29 played: this is the 30th, still provisional
        (1500, 30, 20),  # boundary: established from the 31st game on
        (2399, 30, 20),
        (2400, 30, 10),  # boundary: 2400 and above
        (2650, 500, 10),
        (2500, 29, 40),  # provisional wins over the 2400 rule
        (100, 1000, 20),
    ],
)
def test_k_factor_boundaries(rating: int, games: int, k: int) -> None:
    assert elo.k_factor(rating, games) == k


def test_provisional_boundary() -> None:
    assert elo.is_provisional(0)
    assert elo.is_provisional(29)
    assert not elo.is_provisional(30)


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        (2.5, 3),  # Python's round(2.5) is 2: we round halves away from zero
        (-2.5, -3),
        (0.5, 1),
        (-0.5, -1),
        (1.5, 2),
        (4.805, 5),
        (-4.805, -5),
        (2.4999, 2),
        (-2.4999, -2),
        (0.0, 0),
        (-0.4, 0),
        (19.999999999, 20),
        (2.4999999999999996, 3),  # float noise around an exact half
    ],
)
def test_round_half_away_from_zero(value: float, rounded: int) -> None:
    assert elo.round_half_away(value) == rounded


@pytest.mark.parametrize(
    ("rating", "games", "opponent", "score", "delta"),
    [
        (1500, 0, 1500, elo.WIN, 20),  # 40 * 0.5
        (1500, 0, 1500, elo.LOSS, -20),
        (1500, 0, 1500, elo.DRAW, 0),
        (1500, 30, 1500, elo.WIN, 10),  # 20 * 0.5
        (2400, 30, 2400, elo.WIN, 5),  # 10 * 0.5
        (2399, 30, 2399, elo.WIN, 10),
        # favourite wins: 20 * (1 - 0.759746927) = 4.805 -> 5
        (1600, 30, 1400, elo.WIN, 5),
        (1400, 30, 1600, elo.LOSS, -5),
        # upset: 20 * 0.759746927 = 15.195 -> 15
        (1400, 30, 1600, elo.WIN, 15),
        # draw against a weaker player: 20 * (0.5 - 0.759746927) = -5.195 -> -5
        (1600, 30, 1400, elo.DRAW, -5),
        # provisional: 40 * (1 - 0.909090909) = 3.636 -> 4
        (2000, 0, 1600, elo.WIN, 4),
        # 40 * (0 - 0.909090909) = -36.36 -> -36
        (2000, 0, 1600, elo.LOSS, -36),
        # established at 2400+: 10 * (1 - 0.909090909) = 0.909 -> 1
        (2400, 30, 2000, elo.WIN, 1),
    ],
)
def test_rating_delta(rating: int, games: int, opponent: int, score: float, delta: int) -> None:
    assert elo.rating_delta(rating, games, opponent, score) == delta


def test_rating_delta_refuses_bad_score() -> None:
    with pytest.raises(ValueError):
        elo.rating_delta(1500, 0, 1500, 0.3)


def test_rate_game_same_k_is_zero_sum() -> None:
    # Both provisional (K 40) or both established below 2400 (K 20): equal K.
    pairs = [(1500, 1500), (1623, 1411), (2380, 2399), (900, 2100)]
    for (white, black), games in [(pair, g) for pair in pairs for g in (0, 10, 30, 200)]:
        for score in (elo.WIN, elo.DRAW, elo.LOSS):
            out = elo.rate_game(elo.Side(white, games), elo.Side(black, games), score)
            assert out.white_delta == -out.black_delta


def test_rate_game_mixed_k() -> None:
    # A newcomer (K 40) beats an established 1500 (K 20): +20 and -10.
    out = elo.rate_game(elo.Side(1500, 0), elo.Side(1500, 45), elo.WIN)
    assert (out.white_delta, out.black_delta) == (20, -10)
    # Upset: an established 2400 (K 10) loses to a 2000 newcomer (K 40).
    out = elo.rate_game(elo.Side(2400, 100), elo.Side(2000, 3), elo.LOSS)
    assert (out.white_delta, out.black_delta) == (-9, 36)
