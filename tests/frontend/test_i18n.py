"""The pages speak the visitor's language: rating, accounts and home, ruleset names included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone, translation

from frontend.naming import ruleset_name
from kondavo.accounts.models import Player
from kondavo.accounts.services import player_for_user
from kondavo.games.models import Game
from rating.services import rating_apply_game
from variants import default_registry, get_variant
from variants.registry import BUILTINS

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]

REPO = Path(__file__).resolve().parents[2]
LANGS = ("fr", "it", "es", "pt_BR", "tr", "pl")
CATALOGS = ("frontend/locale", "rating/locale", "kondavo/accounts/locale")

RULESET_NAMES = {
    "fr": {"international": "Dames internationales", "english": "Dames anglaises",
           "brazilian": "Dames brésiliennes", "spanish": "Dames espagnoles",
           "turkish": "Dames turques (Dama)"},
    "it": {"international": "Dama internazionale", "english": "Dama inglese",
           "brazilian": "Dama brasiliana", "spanish": "Dama spagnola", "turkish": "Dama turca"},
}
ENGLISH_NAMES = ("English checkers", "Brazilian", "Turkish (Dama)")


def _text(html: str) -> str:
    """The page without its tags, so that attribute values and markup do not count."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _get(client: Client, url: str, lang: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200, url
    html = response.content.decode()
    assert f'<html lang="{lang}"' in html
    return html


@pytest.fixture
def alice() -> Player:
    """A registered player with a rated win, a casual loss and a game in progress."""
    alice = player_for_user(user=User.objects.create_user("alice", password="pw-alice-Xy9!"))
    bob = player_for_user(user=User.objects.create_user("bob", password="pw-bob-Xy9!"))
    rated = Game.objects.create(ruleset="international", white=alice, black=bob,
                                status=Game.Status.FINISHED, winner="white", rated=True,
                                reason=Game.Reason.RESIGN, fen="", finished=timezone.now())
    rating_apply_game(game=rated)
    Game.objects.create(ruleset="english", white=bob, black=alice, status=Game.Status.FINISHED,
                        winner="white", rated=False, reason=Game.Reason.RESIGN, fen="",
                        finished=timezone.now())
    Game.objects.create(ruleset="turkish", white=alice, black=bob,
                        status=Game.Status.ACTIVE, rated=False, fen="")
    return alice


# --------------------------------------------------------------------------- catalogs


@pytest.mark.parametrize("catalog", CATALOGS)
@pytest.mark.parametrize("lang", LANGS)
def test_every_catalog_is_compiled(catalog: str, lang: str) -> None:
    po = REPO / catalog / lang / "LC_MESSAGES" / "django.po"
    mo = po.with_suffix(".mo")
    assert po.is_file() and mo.is_file()
    assert "#, fuzzy" not in po.read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_french_and_italian_catalogs_are_complete(lang: str) -> None:
    for catalog in CATALOGS:
        text = (REPO / catalog / lang / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
        entries = text.split("\n\n")[1:]  # after the header
        empty = [e for e in entries if re.search(r'^msgstr(\[\d\])? ""$', e, re.M)
                 and not re.search(r'^msgstr(\[\d\])? ""\n"', e, re.M)]
        assert not empty, (catalog, empty)


# --------------------------------------------------------------------------- ruleset names


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_ruleset_names_are_translated_at_display_time(lang: str) -> None:
    with translation.override(lang):
        for key, name in RULESET_NAMES[lang].items():
            assert ruleset_name(get_variant(key)) == name
        # The ruleset "Spanish" is not the language "Spanish".
        assert translation.gettext("Spanish") != ruleset_name(get_variant("spanish"))
    with translation.override("en"):
        assert ruleset_name(get_variant("english")) == "English checkers"
    # Every built-in names itself in every site language; any installed plugin has a name.
    for variant in BUILTINS:
        for code in LANGS:
            assert variant.localized_name(code), (variant.key, code)
    for variant in default_registry():
        assert ruleset_name(variant, lang)


def test_a_plugin_name_is_shown_as_written() -> None:
    class Plugin:
        key = "frisian"
        name = "Frisian (plugin)"

    class Nameless:
        key = "nameless"
        name = ""

    with translation.override("fr"):
        assert ruleset_name(Plugin()) == "Frisian (plugin)"
        assert ruleset_name(Nameless()) == "nameless"  # not the catalog header


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_home_shows_translated_ruleset_names(client: Client, lang: str) -> None:
    text = _text(_get(client, "/", lang))
    for name in RULESET_NAMES[lang].values():
        assert name in text
    for english in ENGLISH_NAMES:
        assert english not in text


def test_home_in_french(client: Client) -> None:
    text = _text(_get(client, "/", "fr"))
    assert "Jouez aux dames maintenant" in text and "Play draughts now" not in text
    assert "Classements" in text and "Leaderboards" not in text


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_lobby_gets_translated_ruleset_names(client: Client, lang: str) -> None:
    html = _get(client, "/lobby/", lang)
    for name in RULESET_NAMES[lang].values():
        assert f">{name}</option>" in html
    assert "English checkers" not in html


# --------------------------------------------------------------------------- leaderboards


def test_empty_leaderboard_in_french(client: Client) -> None:
    text = _text(_get(client, "/leaderboards/english/", "fr"))
    assert "Masquer les bots" in text and "Hide bots" not in text
    assert "Aucune partie classée en Dames anglaises pour l'instant." in text
    assert "Jouez une partie classée pour inaugurer ce classement !" in text
    for english in ("No rated games in", "Play a rated game", "English checkers", "Brazilian"):
        assert english not in text
    for name in RULESET_NAMES["fr"].values():  # the tabs
        assert name in text


def test_leaderboard_in_italian(client: Client, alice: Player) -> None:
    text = _text(_get(client, "/leaderboards/international/", "it"))
    assert "Classifiche" in text and "Nascondi i bot" in text
    assert "Giocatore" in text and "Punteggio" in text and "V / P / S" in text
    assert "In classifica: almeno 5 partite valide per il punteggio" in text
    assert "Dama internazionale" in text and "Dama turca" in text
    for english in ("Leaderboards", "Hide bots", "Ranked:", "Turkish (Dama)", "International"):
        assert english not in text
    empty = _text(_get(client, "/leaderboards/spanish/", "it"))
    assert "Ancora nessuna partita valida per il punteggio a Dama spagnola." in empty


def test_leaderboard_json_name_is_translated(client: Client) -> None:
    data = client.get("/leaderboards/brazilian.json", HTTP_ACCEPT_LANGUAGE="fr").json()
    assert data["ruleset"] == "brazilian" and data["name"] == "Dames brésiliennes"


# --------------------------------------------------------------------------- profiles


def test_profile_in_french(client: Client, alice: Player) -> None:
    html = _get(client, "/profile/alice/", "fr")
    text = _text(html)
    for french in ("Classements Elo", "Parties récentes", "Variante", "Couleur", "Adversaire",
                   "Résultat", "Revoir", "blancs", "noirs", "victoire", "défaite", "en cours",
                   "(amicale)", "(classée)", "1 partie classée", "Dames internationales",
                   "Dames anglaises", "Dames turques (Dama)"):
        assert french in text, french
    for english in ("Ratings", "Recent games", "Colour", "Opponent", "Replay", "white",
                    "in progress", "(casual)", "loss", "rated game", "English checkers",
                    "Turkish (Dama)"):
        assert english not in text, english
    # The SVG chart's labels too.
    assert "alice : évolution du classement Elo en Dames internationales" in html
    assert "partie 1 : " in html and "rating history" not in html


def test_profile_without_games_in_italian(client: Client) -> None:
    player_for_user(user=User.objects.create_user("carla", password="pw-carla-Xy9!"))
    text = _text(_get(client, "/profile/carla/", "it"))
    assert "Ancora nessuna partita valida per il punteggio." in text
    assert "Ancora nessuna partita." in text
    assert "No rated games yet." not in text and "No games yet." not in text


# --------------------------------------------------------------------------- accounts


def test_signup_in_french(client: Client) -> None:
    client.post("/accounts/guest/")  # become a guest
    text = _text(_get(client, "/accounts/signup/", "fr"))
    assert "Créer un compte" in text
    assert "Vous jouez sous le nom Guest-" in text
    assert "seront transférées sur votre nouveau compte" in text
    assert "E-mail (facultatif)" in text
    assert "Vous avez déjà un compte ?" in text
    for english in ("Create an account", "You are playing as", "will move to your new account",
                    "E-mail (optional)", "Already have an account?"):
        assert english not in text


def test_signup_and_login_in_italian(client: Client) -> None:
    text = _text(_get(client, "/accounts/signup/", "it"))
    assert "Crea un account" in text and "E-mail (facoltativa)" in text
    assert "Create an account" not in text and "E-mail (optional)" not in text
    text = _text(_get(client, "/accounts/login/", "it"))
    assert "Prima volta qui?" in text and "New here?" not in text


def test_signup_welcome_message_in_french(client: Client) -> None:
    response = client.post("/accounts/signup/", {
        "username": "dora", "password1": "Un-mot-de-passe-9", "password2": "Un-mot-de-passe-9",
    }, HTTP_ACCEPT_LANGUAGE="fr", follow=True)
    assert "Bienvenue sur Kondavo, dora !" in response.content.decode()


def test_password_change_in_french(client: Client) -> None:
    client.force_login(User.objects.create_user("eve", password="pw-eve-Xy9!"))
    text = _text(_get(client, "/accounts/password/", "fr"))
    assert "Modifier le mot de passe" in text and "Change password" not in text
