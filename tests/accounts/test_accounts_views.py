"""Sign up (guest keeps their games), log in, log out, change password."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from kondavo.accounts.models import Player
from kondavo.accounts.services import GUEST_SESSION_KEY, player_for_user
from kondavo.games.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]

PASSWORD = "draughts-Board-77"


def guest_of(client: Client) -> Player:
    """The guest Player behind this client's session (made on its first action)."""
    client.post(reverse("accounts:guest"))
    return Player.objects.get(guest_key=client.session[GUEST_SESSION_KEY])


def a_game(white: Player, black: Player) -> Game:
    return Game.objects.create(ruleset="international", white=white, black=black, fen="")


def test_url_names() -> None:
    assert reverse("accounts:signup") == "/accounts/signup/"
    assert reverse("accounts:login") == "/accounts/login/"
    assert reverse("accounts:logout") == "/accounts/logout/"
    assert reverse("accounts:password_change") == "/accounts/password/"


def test_signup_keeps_the_guests_games(client: Client) -> None:
    guest = guest_of(client)
    other = Player.objects.create(kind=Player.Kind.USER, name="opponent")
    game = a_game(guest, other)

    page = client.get(reverse("accounts:signup"))
    assert page.status_code == 200 and "csrfmiddlewaretoken" in page.content.decode()
    response = client.post(
        reverse("accounts:signup"),
        {"username": "newbie", "email": "", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("rating:profile", args=["newbie"])
    user = User.objects.get(username="newbie")
    assert user.email == ""
    player = player_for_user(user=user)
    assert player.pk == guest.pk and player.kind == Player.Kind.USER
    game.refresh_from_db()
    assert game.white_id == player.pk
    # Logged in straight away.
    assert int(client.session["_auth_user_id"]) == user.pk


def test_signup_with_email_and_safe_next(client: Client) -> None:
    response = client.post(
        reverse("accounts:signup"),
        {"username": "mail", "email": "m@example.com", "password1": PASSWORD,
         "password2": PASSWORD, "next": "https://evil.example/"},
    )
    assert response.status_code == 302 and response["Location"] == "/profile/mail/"
    assert User.objects.get(username="mail").email == "m@example.com"


def test_signup_errors_are_shown_and_escaped(client: Client) -> None:
    User.objects.create_user("taken", password=PASSWORD)
    response = client.post(
        reverse("accounts:signup"),
        {"username": "taken", "password1": PASSWORD, "password2": "different-Pass-1"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "field-error" in html
    assert User.objects.filter(username="taken").count() == 1
    response = client.post(
        reverse("accounts:signup"),
        {"username": "<script>", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200
    assert "<script>" not in response.content.decode()
    # A bot's name cannot be taken by a user.
    Player.objects.create(kind=Player.Kind.BOT, bot_level=1, name="Kondavo-AI")
    response = client.post(
        reverse("accounts:signup"),
        {"username": "kondavo-ai", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200 and not User.objects.filter(username="kondavo-ai")


def test_login_leaves_guest_games_with_the_guest(client: Client) -> None:
    user = User.objects.create_user("carol", password=PASSWORD)
    carol = player_for_user(user=user)
    guest = guest_of(client)
    game = a_game(guest, carol)

    assert client.get(reverse("accounts:login")).status_code == 200
    response = client.post(
        reverse("accounts:login"), {"username": "carol", "password": PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == "/profile/carol/"
    game.refresh_from_db()
    assert game.white_id == guest.pk
    assert Player.objects.get(pk=guest.pk).kind == Player.Kind.GUEST


def test_login_wrong_password(client: Client) -> None:
    User.objects.create_user("dave", password=PASSWORD)
    response = client.post(reverse("accounts:login"), {"username": "dave", "password": "nope"})
    assert response.status_code == 200 and "_auth_user_id" not in client.session


def test_logout_is_post_only(client: Client) -> None:
    user = User.objects.create_user("erin", password=PASSWORD)
    client.force_login(user)
    assert client.get(reverse("accounts:logout")).status_code == 405
    response = client.post(reverse("accounts:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_csrf_is_enforced() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        reverse("accounts:signup"),
        {"username": "nocsrf", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 403
    assert not User.objects.filter(username="nocsrf").exists()


def test_password_change(client: Client) -> None:
    assert client.get(reverse("accounts:password_change")).status_code == 302  # login first
    user = User.objects.create_user("fay", password=PASSWORD)
    player_for_user(user=user)
    client.force_login(user)
    assert client.get(reverse("accounts:password_change")).status_code == 200
    new = "another-Secret-88"
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_change_done")
    assert client.get(response["Location"]).status_code == 200  # still logged in
    user.refresh_from_db()
    assert user.check_password(new) and not user.check_password(PASSWORD)
    # Wrong old password: form error, nothing changes.
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": "wrong", "new_password1": "x-Y-z-12345", "new_password2": "x-Y-z-12345"},
    )
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.check_password(new)
