"""Leaderboard, history and profile selectors; the SVG chart."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.utils import timezone

from kondavo.accounts.models import Player
from kondavo.games.models import Game
from rating import selectors
from rating.charts import rating_history_svg
from rating.models import Rating
from rating.services import rating_apply_game

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


def put(player: Player, ruleset: str, rating: int, games: int, days_ago: int = 1) -> Rating:
    return Rating.objects.create(
        player=player, ruleset=ruleset, rating=rating, games=games, wins=games,
        last_played=timezone.now() - timedelta(days=days_ago),
    )


def test_leaderboard_orders_qualified_first_then_fills(
    make_user: Callable[[str], Player], make_bot: Callable[[int], Player]
) -> None:
    a, b, c, d = (make_user(n) for n in ("ann", "ben", "cat", "dan"))
    bot = make_bot(4)
    put(a, "international", 1700, 40)
    put(b, "international", 1800, 2)  # too few games: fills after the qualified
    put(c, "international", 1600, 10, days_ago=200)  # inactive: fills too
    put(d, "international", 1650, 8)
    put(bot, "international", 1900, 50)
    put(a, "english", 2000, 40)  # other ruleset: not on this board

    board = selectors.leaderboard("international", min_games=5, active_within_days=90)
    assert [(e.name, e.qualified) for e in board] == [
        ("Kondavo AI 4", True), ("ann", True), ("dan", True), ("ben", False), ("cat", False)
    ]
    assert [e.rank for e in board] == [1, 2, 3, 4, 5]
    assert board[0].is_bot and board[0].bot_level == 4
    assert board[2].provisional and board[2].display == "1650?"
    assert not board[1].provisional and board[1].display == "1700"

    no_bots = selectors.leaderboard("international", include_bots=False)
    assert "Kondavo AI 4" not in [e.name for e in no_bots]

    top2 = selectors.leaderboard("international", min_games=5, active_within_days=90, limit=2)
    assert [e.name for e in top2] == ["Kondavo AI 4", "ann"]


def test_leaderboard_thresholds_from_settings(
    settings: object, make_user: Callable[[str], Player]
) -> None:
    settings.KONDAVO_LEADERBOARD = {  # type: ignore[attr-defined]
        "default": {"min_games": 5, "active_days": 90},
        "spanish": {"min_games": 1},
    }
    assert selectors.leaderboard_thresholds("spanish") == {"min_games": 1, "active_days": 90}
    assert selectors.leaderboard_thresholds("turkish") == {"min_games": 5, "active_days": 90}
    put(make_user("eve"), "spanish", 1550, 1)
    assert [e.qualified for e in selectors.leaderboard("spanish")] == [True]
    del settings.KONDAVO_LEADERBOARD  # type: ignore[attr-defined]
    assert selectors.leaderboard_thresholds("spanish") == {"min_games": 5, "active_days": 90}


def test_empty_ruleset_board_is_empty(make_user: Callable[[str], Player]) -> None:
    Rating.objects.create(player=make_user("zed"), ruleset="turkish")  # 0 games: not listed
    assert selectors.leaderboard("turkish") == []


def test_history_and_ratings_of_player(
    make_user: Callable[[str], Player], finished_game: Callable[..., Game]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    g1 = finished_game(alice, bob, "white", ruleset="spanish")
    g2 = finished_game(bob, alice, "white", ruleset="spanish")
    g3 = finished_game(alice, bob, None, ruleset="international")
    for g in (g1, g2, g3):
        rating_apply_game(game=g)

    history = selectors.rating_history(alice, "spanish")
    assert [(p.game_id, p.rating) for p in history] == [(g1.pk, 1520), (g2.pk, 1498)]
    # Alice 1520 loses to Bob 1480: 40 * (0 - 1/(1 + 10^(-40/400))) = -22.29 -> -22
    assert [p.delta for p in history] == [20, -22]
    assert selectors.rating_history(alice, "english") == []
    # Registry order: international before spanish.
    assert [r.ruleset for r in selectors.ratings_of_player(alice)] == ["international", "spanish"]
    recent = list(selectors.recent_games_of_player(alice))
    assert {g.pk for g in recent} == {g1.pk, g2.pk, g3.pk}


def test_chart_svg_is_escaped_and_plots_every_game() -> None:
    now = timezone.now()
    points = [
        selectors.HistoryPoint(when=now, rating=1520, delta=20, game_id="g1"),
        selectors.HistoryPoint(when=now, rating=1510, delta=-10, game_id="g2"),
    ]
    svg = str(rating_history_svg(points, title='<script>alert("x")</script>'))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<circle") == 2
    assert "1500" in svg or "1520" in svg
    assert str(rating_history_svg([], title="x")) == ""


def test_rating_for_player(
    make_user: Callable[[str], Player],
    make_guest: Callable[[], Player],
    make_bot: Callable[[int], Player],
) -> None:
    alice = make_user("alice")
    assert selectors.rating_for_player(player=alice, ruleset="english") == 1500
    put(alice, "english", 1712, 3)
    assert selectors.rating_for_player(player=alice, ruleset="english") == 1712
    assert selectors.rating_for_player(player=make_bot(6), ruleset="english") == 1500
    assert selectors.rating_for_player(player=make_guest(), ruleset="english") is None
