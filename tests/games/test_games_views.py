"""HTTP endpoints: CSRF-protected creation, join, state.json and PDN."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from kondavo.games.models import Game, Seek

pytestmark = pytest.mark.django_db

TOKEN = "k" * 32


def client() -> Client:
    c = Client(enforce_csrf_checks=True)
    c.get("/")  # a guest Player in the session
    c.cookies["csrftoken"] = TOKEN
    return c


def test_urls() -> None:
    assert reverse("games:new_computer") == "/games/new/computer"
    assert reverse("games:new_friend") == "/games/new/friend"
    assert reverse("games:seek") == "/games/seek"
    assert reverse("games:state", args=["abcd2345"]) == "/games/abcd2345/state.json"
    assert reverse("games:pdn", args=["abcd2345"]) == "/games/abcd2345/pdn"
    assert reverse("games:join", args=["abcd2345"]) == "/games/abcd2345/join"


def test_csrf_is_enforced() -> None:
    c = client()
    response = c.post("/games/new/friend", {"ruleset": "international"})
    assert response.status_code == 403
    assert not Game.objects.exists()


def test_new_computer_redirects_to_game_page() -> None:
    c = client()
    response = c.post("/games/new/computer", {"ruleset": "english", "level": "3",
                                              "color": "white", "time_control": "5+3"},
                      HTTP_X_CSRFTOKEN=TOKEN)
    assert response.status_code == 302
    game = Game.objects.get()
    assert response["Location"] == f"/game/{game.id}/"
    assert game.status == "active" and game.black.is_bot and game.black.bot_level == 3
    state = c.get(f"/games/{game.id}/state.json").json()
    assert state["t"] == "state" and state["d"]["you"] == "white"
    assert state["d"]["players"]["black"]["kind"] == "bot"
    assert state["d"]["board"]["first_to_move"] == "black"


def test_new_friend_json_and_join() -> None:
    a, b = client(), client()
    response = a.post("/games/new/friend", {"ruleset": "turkish", "color": "white",
                                            "time_control": "untimed"},
                      HTTP_X_CSRFTOKEN=TOKEN, HTTP_ACCEPT="application/json")
    assert response.status_code == 201
    game_id = response.json()["id"]
    assert response.json()["url"] == f"/game/{game_id}/"
    assert b.get(f"/games/{game_id}/state.json").json()["d"]["status"] == "waiting"
    joined = b.post(f"/games/{game_id}/join", HTTP_X_CSRFTOKEN=TOKEN)
    assert joined.status_code == 302
    state = b.get(f"/games/{game_id}/state.json").json()["d"]
    assert state["status"] == "active" and state["you"] == "black"
    again = client().post(f"/games/{game_id}/join", HTTP_X_CSRFTOKEN=TOKEN,
                          HTTP_ACCEPT="application/json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_allowed"


def test_bad_requests() -> None:
    c = client()
    r = c.post("/games/new/computer", {"ruleset": "nope", "level": "3"},
               HTTP_X_CSRFTOKEN=TOKEN, HTTP_ACCEPT="application/json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    r = c.post("/games/new/computer", {"ruleset": "english", "level": "12"},
               HTTP_X_CSRFTOKEN=TOKEN, HTTP_ACCEPT="application/json")
    assert r.status_code == 400
    # The site's own form (no JSON asked for) goes back to its page, which shows the message.
    r = c.post("/games/new/computer", {"ruleset": "english", "level": "12"},
               HTTP_X_CSRFTOKEN=TOKEN, HTTP_REFERER="http://testserver/?ruleset=english")
    assert r.status_code == 303 and r["Location"] == "http://testserver/?ruleset=english"
    assert "Choose a level from the list." in c.get("/?ruleset=english").content.decode()
    assert c.get("/games/zzzzzzzz/state.json").status_code == 404
    assert c.get("/games/new/friend").status_code == 405


def test_seek_and_pdn(guest_factory: Any) -> None:
    c = client()
    r = c.post("/games/seek", {"ruleset": "brazilian", "time_control": "3+2"},
               HTTP_X_CSRFTOKEN=TOKEN, HTTP_ACCEPT="application/json")
    assert r.status_code == 201 and Seek.objects.filter(pk=r.json()["seek"]).exists()
    r = c.post("/games/new/friend", {"ruleset": "international"}, HTTP_X_CSRFTOKEN=TOKEN)
    game_id = r["Location"].split("/")[2]
    pdn = c.get(f"/games/{game_id}/pdn")
    assert pdn.status_code == 200 and "attachment" in pdn["Content-Disposition"]
    assert b'[Result "*"]' in pdn.content
