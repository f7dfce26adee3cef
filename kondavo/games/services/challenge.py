"""Challenges: one player invites another (from a profile or the lobby).

Nobody is seated before the challenged player says yes: ``challenge_create`` stores a
pending ``Challenge`` and notifies the challenged player (``hooks.notify``: the
notification socket on every page of theirs); ``challenge_accept`` creates the game with
both seats taken and tells the challenger; ``challenge_decline`` (optionally blocking the
challenger), ``challenge_cancel`` (the challenger withdraws) and the expiry
(``KONDAVO_CHALLENGE_TTL_SECONDS``: ``challenge_expire``, the beat's sweep; accepting
checks the time itself) end it without a game.

Challenges are rate limited per sender (``KONDAVO_CHALLENGE_RATE``) and per address
(``KONDAVO_CHALLENGE_RATE_IP``) through ``kondavo.ratelimits``; a player's block list
(``player_block``) refuses a blocked sender's challenges with a message that says no more
than that. A new challenge to the same player replaces the sender's pending one. Rated only
between two accounts.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import wraps
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.games import clock, hooks, selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Block, Challenge, Game
from kondavo.games.moderation import require_not_banned, require_offered
from kondavo.games.services.creation import _pick_color, game_create, variant_of
from kondavo.games.timecontrols import get_time_control
from kondavo.ratelimits import rate_limit

SWEEP_LIMIT = 1000


def challenge_ttl() -> float:
    return float(getattr(settings, "KONDAVO_CHALLENGE_TTL_SECONDS", 300))


def _key(challenge: Challenge) -> str:
    return f"challenge:{challenge.pk}"


def _tell_opponent(challenge: Challenge, now: datetime, *, read: bool | None) -> None:
    hooks.notify(recipient_id=challenge.opponent_id, kind="challenge", key=_key(challenge),
                 data=wire.challenge_data(challenge, now),
                 url=selectors.game_url(challenge.game_id) if challenge.game_id else "",
                 read=read)


def _tell_challenger(challenge: Challenge, now: datetime) -> None:
    hooks.notify(recipient_id=challenge.challenger_id, kind="challenge_answer",
                 key=_key(challenge) + ":answer", data=wire.challenge_answer_data(challenge, now),
                 url=selectors.game_url(challenge.game_id) if challenge.game_id else "")


def _opponent(name: str) -> Player:
    opponent = Player.objects.filter(name=str(name)[:64]).first()
    if opponent is None:
        raise GameError("not_found", _("No such player."))
    return opponent


@transaction.atomic
def challenge_create(*, player: Player, opponent_name: str, ruleset: str, time_control: str,
                     color: str = "random", rated: bool = False, address: str | None = None,
                     now: datetime | None = None) -> Challenge:
    """A pending challenge to ``opponent_name``; nothing is seated until it is accepted."""
    now = clock.resolve(now)
    # Every attempt counts, a refused one too (before any lookup: a script pays first).
    rate_limit(action="challenge", keys=[f"player:{player.pk}"], setting="KONDAVO_CHALLENGE_RATE")
    if address:
        rate_limit(action="challenge", keys=[f"ip:{address}"],
                   setting="KONDAVO_CHALLENGE_RATE_IP")
    opponent = _opponent(opponent_name)
    if opponent.is_bot:
        raise GameError("not_allowed", _("Play the computer from the home page."))
    if opponent.pk == player.pk:
        raise GameError("not_allowed", _("You cannot challenge yourself."))
    require_not_banned(player)
    variant = variant_of(ruleset)
    require_offered(variant.key)
    try:
        tc = get_time_control(time_control)
    except ValueError as exc:
        raise GameError("bad_request", str(exc)) from None
    color = (color or "random").lower()
    if color != "random":
        _pick_color(color)  # refuses anything but white/black/random
    if Block.objects.filter(blocker=opponent, blocked=player).exists():
        # Says only that this player refuses; not since when, nor anything about the list.
        raise GameError("not_allowed", _("%(name)s is not accepting challenges from you.")
                        % {"name": opponent.name})
    both_accounts = player.kind == Player.Kind.USER and opponent.kind == Player.Kind.USER
    # A new challenge to the same player replaces the pending one.
    for old in Challenge.objects.select_for_update(of=("self",)).filter(
            challenger=player, opponent=opponent, status=Challenge.Status.PENDING):
        old.status = Challenge.Status.CANCELLED
        old.answered = now
        old.save(update_fields=["status", "answered"])
        old.challenger, old.opponent = player, opponent
        _tell_opponent(old, now, read=True)
    challenge = Challenge.objects.create(
        challenger=player, opponent=opponent, ruleset=variant.key, time_control=tc.key,
        color=color, rated=bool(rated) and both_accounts, created=now,
        expires_at=now + timedelta(seconds=challenge_ttl()))
    _tell_opponent(challenge, now, read=False)
    return challenge


def _locked(challenge_id: object) -> Challenge:
    try:
        pk = int(str(challenge_id))
    except ValueError:
        raise GameError("bad_request", "a challenge id is a number") from None
    challenge = (Challenge.objects.select_for_update(of=("self",))
                 .select_related("challenger", "opponent").filter(pk=pk).first())
    if challenge is None:
        raise GameError("not_found", _("No such challenge."))
    return challenge


class _Expired(GameError):
    """A pending challenge found past its time (expired after the refusing transaction)."""

    def __init__(self, challenge_id: int) -> None:
        super().__init__("not_allowed", _("This challenge is no longer open."))
        self.challenge_id = challenge_id


def _still_open(challenge: Challenge, now: datetime) -> None:
    status = wire.challenge_status(challenge, now)
    if status == Challenge.Status.EXPIRED and challenge.status == Challenge.Status.PENDING:
        raise _Expired(challenge.pk)
    if status != Challenge.Status.PENDING:
        raise GameError("not_allowed", _("This challenge is no longer open."))


F = TypeVar("F", bound=Callable[..., Any])


def _expiring(fn: F) -> F:
    """Run ``fn`` in a transaction; a challenge it found past its time is marked expired
    (both players told) in a transaction of its own before the refusal is raised."""
    atomic = transaction.atomic(fn)

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return atomic(*args, **kwargs)
        except _Expired as exc:
            _expire_one(exc.challenge_id, clock.resolve(kwargs.get("now")))
            raise GameError(exc.code, exc.message) from None

    return wrapper  # type: ignore[return-value]


@_expiring
def challenge_accept(*, challenge_id: object, player: Player,
                     now: datetime | None = None) -> Game:
    """The challenged player says yes: the game starts, both seated; the challenger is
    told (a ``challenge_answer`` with the game). Accepting twice gives the same game."""
    now = clock.resolve(now)
    challenge = _locked(challenge_id)
    if challenge.opponent_id != player.pk:
        raise GameError("not_found", _("No such challenge."))
    if challenge.status == Challenge.Status.ACCEPTED and challenge.game is not None:
        return challenge.game
    _still_open(challenge, now)
    both_accounts = (challenge.challenger.kind == Player.Kind.USER
                     and player.kind == Player.Kind.USER)
    game = game_create(creator=challenge.challenger, opponent=player,
                       ruleset=challenge.ruleset, time_control=challenge.time_control,
                       color=challenge.color, rated=challenge.rated and both_accounts, now=now)
    challenge.status = Challenge.Status.ACCEPTED
    challenge.game = game
    challenge.answered = now
    challenge.save(update_fields=["status", "game", "answered"])
    _tell_opponent(challenge, now, read=True)
    _tell_challenger(challenge, now)
    return game


@_expiring
def challenge_decline(*, challenge_id: object, player: Player, block: bool = False,
                      now: datetime | None = None) -> Challenge:
    """The challenged player says no (``block``: and refuses this sender from now on)."""
    now = clock.resolve(now)
    challenge = _locked(challenge_id)
    if challenge.opponent_id != player.pk:
        raise GameError("not_found", _("No such challenge."))
    if block:
        Block.objects.get_or_create(blocker=player, blocked=challenge.challenger)
    if challenge.status == Challenge.Status.DECLINED:
        return challenge
    _still_open(challenge, now)
    challenge.status = Challenge.Status.DECLINED
    challenge.answered = now
    challenge.save(update_fields=["status", "answered"])
    _tell_opponent(challenge, now, read=True)
    _tell_challenger(challenge, now)
    return challenge


@_expiring
def challenge_cancel(*, challenge_id: object, player: Player,
                     now: datetime | None = None) -> Challenge:
    """The challenger withdraws a pending challenge."""
    now = clock.resolve(now)
    challenge = _locked(challenge_id)
    if challenge.challenger_id != player.pk:
        raise GameError("not_found", _("No such challenge."))
    if challenge.status == Challenge.Status.CANCELLED:
        return challenge
    _still_open(challenge, now)
    challenge.status = Challenge.Status.CANCELLED
    challenge.answered = now
    challenge.save(update_fields=["status", "answered"])
    _tell_opponent(challenge, now, read=True)
    return challenge


def _expire(challenge: Challenge, now: datetime) -> None:
    challenge.status = Challenge.Status.EXPIRED
    challenge.answered = now
    challenge.save(update_fields=["status", "answered"])
    _tell_opponent(challenge, now, read=None)
    _tell_challenger(challenge, now)


def challenge_expire(*, now: datetime | None = None) -> int:
    """Mark pending challenges past ``expires_at`` expired and tell both players (the
    beat's sweep; idempotent: a challenge answered meanwhile is skipped). Accepting and
    declining already refuse an expired challenge. Returns how many expired."""
    now = clock.resolve(now)
    ids = list(Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__lte=now)
               .order_by().values_list("pk", flat=True)[:SWEEP_LIMIT])
    return sum(1 for pk in ids if _expire_one(pk, now))


@transaction.atomic
def _expire_one(challenge_id: int, now: datetime) -> bool:
    """Expire one challenge if it is still pending and past its time."""
    challenge = _locked(challenge_id)
    if challenge.status != Challenge.Status.PENDING or challenge.expires_at > now:
        return False
    _expire(challenge, now)
    return True


@transaction.atomic
def player_block(*, player: Player, name: str, now: datetime | None = None) -> None:
    """``player`` refuses challenges from ``name`` from now on (their pending ones are
    declined without telling the sender more than a decline)."""
    now = clock.resolve(now)
    other = _opponent(name)
    if other.pk == player.pk:
        raise GameError("not_allowed", _("You cannot block yourself."))
    Block.objects.get_or_create(blocker=player, blocked=other)
    for pk in Challenge.objects.filter(challenger=other, opponent=player,
                                       status=Challenge.Status.PENDING).values_list("pk",
                                                                                    flat=True):
        challenge = _locked(pk)
        if wire.challenge_status(challenge, now) == Challenge.Status.PENDING:
            challenge.status = Challenge.Status.DECLINED
            challenge.answered = now
            challenge.save(update_fields=["status", "answered"])
            _tell_opponent(challenge, now, read=True)
            _tell_challenger(challenge, now)


@transaction.atomic
def player_unblock(*, player: Player, name: str) -> None:
    Block.objects.filter(blocker=player, blocked=_opponent(name)).delete()


def blocked_names(*, player: Player) -> list[str]:
    """The names on ``player``'s block list."""
    return list(Block.objects.filter(blocker=player).order_by("blocked__name")
                .values_list("blocked__name", flat=True))
