"""Issue 9 item 5: login throttling (django-axes), sign-up throttling, reserved names, guests
made only on a first action (no rows for crawlers), guest names that cannot collide."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from hardening_helpers import csrf_headers, http

from kondavo.accounts.models import Player
from kondavo.accounts.names import name_is_reserved
from kondavo.accounts.services import GUEST_NAME_LENGTH, player_get_or_create_guest

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "draughts-Board-77"


def test_login_is_throttled_per_address(settings: Any) -> None:
    User.objects.create_user("walter", password=PASSWORD)
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = attacker.post("/accounts/login/", {"username": "walter", "password": "nope"})
        assert response.status_code == 200  # the form again, with its error
    response = attacker.post("/accounts/login/", {"username": "walter", "password": "nope"})
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    # Even the right password is refused from that address during the cool-off...
    response = attacker.post("/accounts/login/", {"username": "walter", "password": PASSWORD})
    assert response.status_code == 429 and "_auth_user_id" not in attacker.session
    # ...while another address logs in normally.
    walter = Client(REMOTE_ADDR="198.51.100.7")
    response = walter.post("/accounts/login/", {"username": "walter", "password": PASSWORD})
    assert response.status_code == 302 and "_auth_user_id" in walter.session


def test_signup_is_throttled_per_address(settings: Any) -> None:
    settings.KONDAVO_SIGNUP_RATE = "3/h"
    client = Client(REMOTE_ADDR="203.0.113.10")
    for i in range(3):
        response = client.post("/accounts/signup/", {
            "username": f"spam{i}", "password1": PASSWORD, "password2": PASSWORD})
        assert response.status_code == 302
        client.logout()
    response = client.post("/accounts/signup/", {
        "username": "spam9", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 429
    assert "Too many requests" in response.content.decode()
    assert not User.objects.filter(username="spam9").exists()
    other = Client(REMOTE_ADDR="198.51.100.8")
    assert other.post("/accounts/signup/", {
        "username": "honest", "password1": PASSWORD, "password2": PASSWORD}).status_code == 302


@pytest.mark.parametrize("name", [
    "Kondavo.AI.8", "Kondavo AI 8", "kondavo_ai", "K0NDAV0", "Guest-ABCD", "guest_abcd",
    "GUEST1234", "admin", "Administrator", "moderator", "Staff-Team", "root", "support",
    "ＫＯＮＤＡＶＯ",  # full-width letters fold to "kondavo"
])
def test_reserved_names_are_refused_at_signup(name: str) -> None:
    assert name_is_reserved(name)
    client = Client()
    response = client.post("/accounts/signup/", {
        "username": name, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200
    assert not User.objects.filter(username=name).exists()


@pytest.mark.parametrize("name", ["alice", "Marek_Nowak", "draughtsfan", "ana.maria", "bob99"])
def test_ordinary_names_are_free(name: str) -> None:
    assert not name_is_reserved(name)


def test_reading_pages_creates_no_guest_and_no_session(hardened_daphne: Any) -> None:
    """Crawlers, health checks and 404s: no Player row, no session row, no cookie."""
    base = hardened_daphne.base_url
    for path in ("/", "/lobby/", "/rules/", "/rules/english/", "/leaderboards/",
                 "/leaderboards/international/", "/no/such/page/", "/game/nosuchgame/",
                 "/accounts/login/", "/accounts/signup/", "/static/frontend/site.css"):
        status, _ = http("GET", base + path)
        assert status in (200, 404), (path, status)
    assert not Player.objects.filter(kind=Player.Kind.GUEST).exists()
    assert not Session.objects.exists()


def test_a_guest_is_made_on_the_first_action(hardened_daphne: Any) -> None:
    base = hardened_daphne.base_url
    headers = csrf_headers(**{"Accept": "application/json"})
    status, body = http("POST", base + "/accounts/guest/", headers=headers)
    assert status == 200
    guest = Player.objects.get(kind=Player.Kind.GUEST)
    assert re.fullmatch(rf"Guest-[A-HJKMNP-Z2-9]{{{GUEST_NAME_LENGTH}}}", guest.name)
    assert Session.objects.count() == 1
    # Creating a game (a form post without a session) also makes one, and only one.
    form = csrf_headers(**{"Content-Type": "application/x-www-form-urlencoded",
                           "Accept": "application/json"})
    status, _ = http("POST", base + "/games/new/friend", body=b"ruleset=english",
                     headers=form)
    assert status == 201
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == 2


def test_guest_creation_is_rate_limited_per_address(settings: Any) -> None:
    settings.KONDAVO_GUEST_RATE = "2/h"
    for _ in range(2):
        assert Client(REMOTE_ADDR="203.0.113.11").post("/accounts/guest/").status_code == 200
    response = Client(REMOTE_ADDR="203.0.113.11").post("/accounts/guest/")
    assert response.status_code == 429 and response.json()["error"]["code"] == "rate_limited"
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == 2


def test_guest_names_do_not_collide() -> None:
    names = {player_get_or_create_guest(request_session={}).name for _ in range(300)}
    assert len(names) == 300
    assert all(len(n) == len("Guest-") + GUEST_NAME_LENGTH for n in names)
