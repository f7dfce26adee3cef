"""Leaderboard pages, the JSON endpoint and profiles."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse

from kondavo.accounts.models import Player
from kondavo.games.models import Game
from rating.services import rating_apply_game

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture
def played(
    make_user: Callable[[str], Player],
    make_bot: Callable[[int], Player],
    finished_game: Callable[..., Game],
) -> dict[str, object]:
    alice, bob, bot = make_user("alice"), make_user("bob"), make_bot(2)
    games = [
        finished_game(alice, bob, "white"),
        finished_game(bob, bot, "black"),
        finished_game(alice, bot, None),
    ]
    for g in games:
        rating_apply_game(game=g)
    return {"alice": alice, "bob": bob, "bot": bot, "games": games}


def test_urls() -> None:
    assert reverse("rating:leaderboards") == "/leaderboards/"
    assert reverse("rating:leaderboard", args=["english"]) == "/leaderboards/english/"
    assert reverse("rating:leaderboard_json", args=["english"]) == "/leaderboards/english.json"
    assert reverse("rating:profile", args=["alice"]) == "/profile/alice/"


def test_index_has_a_tab_per_ruleset(client: Client, played: dict[str, object]) -> None:
    from variants import variant_keys

    html = client.get("/leaderboards/").content.decode()
    for key in variant_keys():
        assert f'href="/leaderboards/{key}/"' in html


def test_board_lists_players_with_bot_badge_and_filter(
    client: Client, played: dict[str, object]
) -> None:
    response = client.get("/leaderboards/international/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "alice" in html and "bob" in html and "Kondavo AI 2" in html
    assert "badge-bot" in html
    assert 'class="provisional"' in html
    html = client.get("/leaderboards/international/?bots=0").content.decode()
    assert "Kondavo AI 2" not in html and "alice" in html


def test_empty_ruleset_shows_friendly_state(client: Client, played: dict[str, object]) -> None:
    response = client.get("/leaderboards/turkish/")
    assert response.status_code == 200
    assert "empty-state" in response.content.decode()


def test_unknown_ruleset_is_404(client: Client) -> None:
    assert client.get("/leaderboards/chess/").status_code == 404
    assert client.get("/leaderboards/chess.json").status_code == 404


def test_json(client: Client, played: dict[str, object]) -> None:
    data = client.get("/leaderboards/international.json").json()
    assert data["ruleset"] == "international"
    names = [e["name"] for e in data["entries"]]
    assert set(names) == {"alice", "bob", "Kondavo AI 2"}
    assert all(e["provisional"] for e in data["entries"])
    assert [e["rank"] for e in data["entries"]] == [1, 2, 3]
    ratings = [e["rating"] for e in data["entries"]]
    assert ratings == sorted(ratings, reverse=True)
    bot = next(e for e in data["entries"] if e["bot"])
    assert bot["bot_level"] == 2
    data = client.get("/leaderboards/international.json?bots=0").json()
    assert all(not e["bot"] for e in data["entries"])
    assert client.get("/leaderboards/english.json").json()["entries"] == []


def test_profile(client: Client, played: dict[str, object]) -> None:
    response = client.get("/profile/alice/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<svg" in html and "rating-chart" in html
    for game in played["games"]:  # type: ignore[attr-defined]
        if game.white_id == played["alice"].pk or game.black_id == played["alice"].pk:  # type: ignore[attr-defined]
            assert f"{game.pk}" in html
    try:
        pdn = reverse("games:pdn", args=[played["games"][0].pk])  # type: ignore[index]
    except NoReverseMatch:
        pdn = None
    if pdn:
        assert pdn in html
    assert client.get("/profile/nobody/").status_code == 404


def test_profile_without_rated_games_and_escaping(client: Client) -> None:
    Player.objects.create(kind=Player.Kind.USER, name='<b>"mallory"')
    response = client.get(reverse("rating:profile", args=['<b>"mallory"']))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<b>" not in html and "&lt;b&gt;&quot;mallory&quot;" in html
    assert "empty-state" in html
