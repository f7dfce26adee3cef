"""Player services. Views, consumers and tasks go through these, never through Player.objects
directly for creation."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from .models import BOT_LEVEL_MAX, BOT_LEVEL_MIN, Player

GUEST_SESSION_KEY = "kondavo_guest_key"
LAST_SEEN_RESOLUTION = timedelta(minutes=1)


def _touch(player: Player) -> None:
    now = timezone.now()
    if now - player.last_seen >= LAST_SEEN_RESOLUTION:
        player.last_seen = now
        Player.objects.filter(pk=player.pk).update(last_seen=now)


# Guest names: 10 characters of a 31-letter alphabet without look-alikes (0/O, 1/I/L) are
# 49 random bits, so two guests practically never draw the same name (the database's unique
# constraint and a retry settle the rare case). Sign-up names can never start with "Guest".
GUEST_NAME_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
GUEST_NAME_LENGTH = 10


def _guest_name() -> str:
    return "Guest-" + "".join(secrets.choice(GUEST_NAME_ALPHABET)
                              for _ in range(GUEST_NAME_LENGTH))


def _free_name(base: str) -> str:
    """``base`` if no Player uses it, else ``base-2``, ``base-3``..."""
    base = base[:56] or "player"
    name, n = base, 1
    while Player.objects.filter(name=name).exists():
        n += 1
        name = f"{base}-{n}"
    return name


def player_get_guest(*, request_session: Any) -> Player | None:
    """The guest Player whose key is in this session, or None (nothing is created)."""
    key = request_session.get(GUEST_SESSION_KEY) if request_session is not None else None
    if not key:
        return None
    player = Player.objects.filter(kind=Player.Kind.GUEST, guest_key=key).first()
    if player is not None:
        _touch(player)
    return player


def player_get_or_create_guest(*, request_session: Any) -> Player:
    """The guest Player whose key is in this session, created (and stored) if missing.

    Called only when a visitor does something that needs an identity (creating or joining a
    game, seeking): merely reading pages never creates a guest or a session."""
    player = player_get_guest(request_session=request_session)
    if player is not None:
        return player
    for _attempt in range(8):
        try:
            with transaction.atomic():
                player = Player.objects.create(
                    kind=Player.Kind.GUEST,
                    guest_key=secrets.token_hex(16),
                    name=_guest_name(),
                )
        except IntegrityError:
            continue
        request_session[GUEST_SESSION_KEY] = player.guest_key
        return player
    raise RuntimeError("could not allocate a unique guest name")


def player_for_user(*, user: AbstractBaseUser) -> Player:
    """The Player of a registered user, created on first use (named after the username)."""
    try:
        player = Player.objects.get(user=user)
    except Player.DoesNotExist:
        try:
            with transaction.atomic():
                player = Player.objects.create(
                    kind=Player.Kind.USER, user=user, name=_free_name(user.get_username())
                )
        except IntegrityError:  # a concurrent request created it first
            player = Player.objects.get(user=user)
    _touch(player)
    return player


def player_get_or_create_bot(*, level: int) -> Player:
    """The single bot Player of a level 1..8, named "Kondavo AI <level>"."""
    if not isinstance(level, int) or not BOT_LEVEL_MIN <= level <= BOT_LEVEL_MAX:
        raise ValueError(f"bot level must be {BOT_LEVEL_MIN}..{BOT_LEVEL_MAX}, got {level!r}")
    try:
        with transaction.atomic():
            player, _ = Player.objects.get_or_create(
                kind=Player.Kind.BOT,
                bot_level=level,
                defaults={"name": f"Kondavo AI {level}"},
            )
    except IntegrityError:
        player = Player.objects.get(kind=Player.Kind.BOT, bot_level=level)
    return player


def player_claim_guest(*, guest: Player, user: AbstractBaseUser) -> Player:
    """A guest who signs up keeps their games: the guest row becomes the user's Player.

    If the user already has a Player (logging in to an existing account), that Player is
    returned unchanged and the guest is left as it is.
    """
    existing = Player.objects.filter(user=user).first()
    if existing is not None:
        return existing
    if guest.kind != Player.Kind.GUEST:
        raise ValueError(f"{guest} is not a guest")
    with transaction.atomic():
        guest = Player.objects.select_for_update().get(pk=guest.pk)
        guest.kind = Player.Kind.USER
        guest.user = user
        guest.guest_key = None
        username = user.get_username()
        guest.name = username if username == guest.name else _free_name(username)
        guest.last_seen = timezone.now()
        guest.save()
    return guest
