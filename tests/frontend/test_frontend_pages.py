"""The pages render (Django test client): home, lobby, rules in three languages, game, 404."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from kondavo.accounts.services import player_get_or_create_guest
from kondavo.games import services as games
from variants import variant_keys

pytestmark = pytest.mark.django_db


def test_home_lists_every_ruleset_and_posts_to_the_games_app(client: Client) -> None:
    html = client.get("/").content.decode()
    for key in variant_keys():
        assert f'value="{key}"' in html
    assert 'action="/games/new/computer"' in html
    assert 'formaction="/games/new/friend"' in html
    assert "csrfmiddlewaretoken" in html
    assert 'action="/i18n/setlang/"' in html


@pytest.mark.parametrize(("lang", "title"), [("en", "Spanish draughts"),
                                             ("fr", "Dames espagnoles"),
                                             ("it", "Dama spagnola")])
def test_rules_page_in_three_languages(client: Client, lang: str, title: str) -> None:
    html = client.get("/rules/spanish/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert f'<html lang="{lang}"' in html
    assert f"<h1>{title}</h1>" in html
    board = json.loads(re.search(r'id="kondavo-rules-board"[^>]*>(.*?)</script>', html,
                                 re.S).group(1))
    assert board["fen"] == "W:W1-12:B21-32" and len(board["board"]["squares"]) == 32


def test_other_languages_fall_back_to_english_rules(client: Client) -> None:
    html = client.get("/rules/turkish/", HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert '<html lang="pl"' in html and "Turkish draughts (Dama)" in html
    assert "Zasady" in html  # the interface itself is Polish


def test_game_page_seats_a_second_visitor(client: Client) -> None:
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="english", color="black")
    response = client.get(f"/game/{game.id}/")
    assert response.status_code == 200
    html = response.content.decode()
    config = json.loads(re.search(r'id="kondavo-game"[^>]*>(.*?)</script>', html, re.S).group(1))
    assert config["ws"] == f"/ws/game/{game.id}/"
    game.refresh_from_db()
    assert game.status == "active" and game.white_id is not None


def test_unknown_pages_are_a_friendly_404(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = False
    for url in ("/game/nosuchgame/", "/rules/chess/", "/no/such/page/"):
        response = client.get(url)
        assert response.status_code == 404
        assert "This square is empty" in response.content.decode()
