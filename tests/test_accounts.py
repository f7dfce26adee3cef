"""Player model, services, middleware and the websocket scope helper."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.sessions.backends.db import SessionStore
from django.db import IntegrityError
from django.test import Client

from kondavo.accounts.middleware import get_player_for_scope
from kondavo.accounts.models import Player
from kondavo.accounts.services import (
    GUEST_SESSION_KEY,
    player_claim_guest,
    player_for_user,
    player_get_or_create_bot,
    player_get_or_create_guest,
)

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


def test_guest_is_created_once_per_session() -> None:
    session: dict[str, str] = {}
    guest = player_get_or_create_guest(request_session=session)
    assert guest.kind == Player.Kind.GUEST
    assert re.fullmatch(r"Guest-[A-HJKMNP-Z2-9]{10}", guest.name)
    assert session[GUEST_SESSION_KEY] == guest.guest_key
    assert player_get_or_create_guest(request_session=session) == guest
    assert player_get_or_create_guest(request_session={}) != guest


def test_bot_per_level() -> None:
    bot = player_get_or_create_bot(level=3)
    assert (bot.kind, bot.bot_level, bot.name) == (Player.Kind.BOT, 3, "Kondavo AI 3")
    assert player_get_or_create_bot(level=3) == bot
    for bad in (0, 9):
        with pytest.raises(ValueError):
            player_get_or_create_bot(level=bad)


def test_bot_level_constraint_in_database() -> None:
    with pytest.raises(IntegrityError):
        Player.objects.create(kind=Player.Kind.BOT, bot_level=12, name="bad bot")


def test_player_for_user_and_claiming_a_guest() -> None:
    alice = User.objects.create_user("alice", password="pw-alice-123")
    player = player_for_user(user=alice)
    assert (player.kind, player.user, player.name) == (Player.Kind.USER, alice, "alice")
    assert player_for_user(user=alice) == player

    guest = player_get_or_create_guest(request_session={})
    bob = User.objects.create_user("bob", password="pw-bob-123")
    claimed = player_claim_guest(guest=guest, user=bob)
    assert claimed.pk == guest.pk  # same row: the guest's games stay theirs
    assert (claimed.kind, claimed.user, claimed.guest_key, claimed.name) == (
        Player.Kind.USER, bob, None, "bob"
    )
    assert player_for_user(user=bob).pk == guest.pk
    # An existing account keeps its own Player; the guest is untouched.
    other_guest = player_get_or_create_guest(request_session={})
    assert player_claim_guest(guest=other_guest, user=alice) == player
    other_guest.refresh_from_db()
    assert other_guest.kind == Player.Kind.GUEST


def test_middleware_creates_a_guest_only_when_needed() -> None:
    client = Client()
    client.get("/")
    assert GUEST_SESSION_KEY not in client.session
    assert not Player.objects.filter(kind=Player.Kind.GUEST).exists()
    client.post("/accounts/guest/")
    key = client.session[GUEST_SESSION_KEY]
    guest = Player.objects.get(guest_key=key)
    client.get("/")
    client.post("/accounts/guest/")
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == 1
    assert client.session[GUEST_SESSION_KEY] == guest.guest_key

    carol = User.objects.create_user("carol", password="pw-carol-123")
    client.force_login(carol)
    client.get("/")
    assert Player.objects.get(user=carol).kind == Player.Kind.USER


@pytest.mark.django_db(transaction=True)
async def test_get_player_for_scope() -> None:
    from asgiref.sync import sync_to_async

    session = SessionStore()
    guest = await sync_to_async(player_get_or_create_guest)(request_session=session)
    await sync_to_async(session.save)()
    loaded = SessionStore(session_key=session.session_key)
    scope = {"user": AnonymousUser(), "session": loaded}
    assert await get_player_for_scope(scope) == guest
    assert await get_player_for_scope({"user": AnonymousUser(), "session": SessionStore()}) is None

    dave = await sync_to_async(User.objects.create_user)("dave", password="pw-dave-123")
    player = await get_player_for_scope({"user": dave, "session": loaded})
    assert player is not None and player.user_id == dave.pk


@pytest.mark.embedded
@pytest.mark.django_db(transaction=True)
def test_sign_up_hashes_the_password_before_its_transaction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Hashing takes a good part of a second on purpose; on SQLite a transaction holds the
    write lock from its start, so a sign-up hashing inside one held up every game's moves
    (the lab's forged-address attack in the embedded mode)."""
    from django.db import connection

    during: list[bool] = []
    real = User.set_password

    def spy(user: User, raw: str | None) -> None:
        during.append(connection.in_atomic_block)
        real(user, raw)

    monkeypatch.setattr(User, "set_password", spy)
    response = Client().post("/accounts/signup/", {
        "username": "hasher", "password1": "Un-mot-de-passe-9",
        "password2": "Un-mot-de-passe-9"})
    assert response.status_code == 302
    assert during == [False]
    assert User.objects.get(username="hasher").check_password("Un-mot-de-passe-9")
