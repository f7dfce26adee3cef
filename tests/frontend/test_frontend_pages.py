"""The pages render (Django test client): home, lobby, rules in three languages, game, 404."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from kondavo.accounts.models import Player
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


def test_rules_pages_in_the_other_site_languages(client: Client) -> None:
    # Every built-in page exists in every site language (tests/frontend/test_i18n_rules.py);
    # only a plugin's page falls back to English (test_rulesets_site_wide.py).
    html = client.get("/rules/turkish/", HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert '<html lang="pl"' in html and "<h1>Warcaby tureckie (Dama)</h1>" in html
    assert "Turkish draughts (Dama)" not in html
    assert "Zasady" in html  # the interface itself is Polish


def test_game_page_offers_a_join_button_and_only_a_post_takes_the_seat(client: Client) -> None:
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="english", color="black")
    response = client.get(f"/game/{game.id}/")  # e.g. a chat app's link preview
    assert response.status_code == 200
    html = response.content.decode()
    config = json.loads(re.search(r'id="kondavo-game"[^>]*>(.*?)</script>', html, re.S).group(1))
    assert config["ws"] == f"/ws/game/{game.id}/"
    assert f'action="/games/{game.id}/join"' in html and 'id="btn-join"' in html
    french = client.get(f"/game/{game.id}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Rejoindre la partie" in french
    game.refresh_from_db()
    assert game.status == "waiting" and game.white_id is None
    assert not Player.objects.exclude(pk=creator.pk).filter(kind=Player.Kind.GUEST).exists()

    response = client.post(f"/games/{game.id}/join")
    assert response.status_code == 302 and response["Location"] == f"/game/{game.id}/"
    game.refresh_from_db()
    assert game.status == "active" and game.white_id not in (None, creator.pk)
    html = client.get(f"/game/{game.id}/").content.decode()
    assert 'id="btn-join"' not in html
    # A third visitor finds the seat taken: no button, and a POST changes nothing.
    other = Client()
    assert 'id="btn-join"' not in other.get(f"/game/{game.id}/").content.decode()
    assert other.post(f"/games/{game.id}/join").status_code == 302
    game.refresh_from_db()
    assert game.status == "active"


def test_join_needs_the_csrf_token() -> None:
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="english", color="black")
    client = Client(enforce_csrf_checks=True)
    client.get(f"/game/{game.id}/")
    assert client.post(f"/games/{game.id}/join").status_code == 403
    game.refresh_from_db()
    assert game.status == "waiting"


def test_unknown_pages_are_a_friendly_404(client: Client, settings) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = False
    for url in ("/game/nosuchgame/", "/rules/chess/", "/no/such/page/"):
        response = client.get(url)
        assert response.status_code == 404
        assert "This square is empty" in response.content.decode()
