"""A refused game creation from the home page keeps the visitor's choices and says why in
their language: the page's script shows the JSON refusal in place (tests/browser/
test_i18n_phone_errors.py); without scripts the form posts, comes back to the home page
with the message, and the form is filled in as it was sent (real views, real database)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from kondavo.games.models import Game

pytestmark = pytest.mark.django_db

TOKEN = "k" * 32


def _client(lang: str) -> Client:
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE=lang)
    client.cookies["csrftoken"] = TOKEN
    return client


def _checked(html: str, name: str) -> str:
    found = re.search(rf'<input type="radio" name="{name}" value="([^"]+)"[^>]*\bchecked\b', html)
    assert found, name
    return found.group(1)


def _selected(html: str, select_id: str) -> str:
    block = html.split(f'id="{select_id}"', 1)[1].split("</select>", 1)[0]
    found = re.search(r'<option value="([^"]+)" selected>', block)
    assert found, select_id
    return found.group(1)


@pytest.mark.parametrize(("lang", "words"), [
    ("tr", "Bilgisayara karşı zaten 3 oyununuz sürüyor"),
    ("pl", "Masz już 3 trwające partie z komputerem"),
])
def test_a_refused_form_comes_back_filled_in(settings: object, lang: str, words: str) -> None:
    client = _client(lang)
    client.get("/")
    form = {"ruleset": "turkish", "level": "6", "color": "black", "time_control": "untimed",
            "csrfmiddlewaretoken": TOKEN}
    for _ in range(3):  # KONDAVO_MAX_COMPUTER_GAMES games going: the fourth is refused
        made = client.post("/games/new/computer", form, HTTP_X_CSRFTOKEN=TOKEN,
                           HTTP_ACCEPT="application/json")
        assert made.status_code == 201
    refused = client.post("/games/new/computer", form, HTTP_REFERER="http://testserver/")
    assert refused.status_code == 303 and refused["Location"] == "http://testserver/"
    html = client.get("/").content.decode()
    assert words in html
    assert _checked(html, "ruleset") == "turkish" and _checked(html, "color") == "black"
    assert _selected(html, "level") == "6" and _selected(html, "time-control") == "untimed"
    assert Game.objects.count() == 3
    # The choices are kept once: the next visit shows the defaults again.
    html = client.get("/").content.decode()
    assert words not in html and _checked(html, "color") == "random"
    assert _selected(html, "level") == "3"


def test_a_json_refusal_says_when_to_retry() -> None:
    """A rate-limited creation answers 429 with Retry-After (the page says "try again in")."""
    from django.test import override_settings

    client = _client("es")
    client.get("/")
    with override_settings(KONDAVO_CREATE_RATE_PLAYER="1/m"):
        form = {"ruleset": "spanish", "level": "1"}
        first = client.post("/games/new/computer", form, HTTP_X_CSRFTOKEN=TOKEN,
                            HTTP_ACCEPT="application/json")
        assert first.status_code == 201
        second = client.post("/games/new/computer", form, HTTP_X_CSRFTOKEN=TOKEN,
                             HTTP_ACCEPT="application/json")
    assert second.status_code == 429 and 1 <= int(second["Retry-After"]) <= 120
    assert second.json()["error"]["message"] == (
        "Demasiadas solicitudes (como máximo 1 por minuto): espera un poco y vuelve a "
        "intentarlo.")
