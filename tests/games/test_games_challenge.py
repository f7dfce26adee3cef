"""Challenges from a profile and rated friend games: rated only between two accounts
(the whole challenge flow over real sockets: tests/notifications/)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from kondavo.accounts.models import Player
from kondavo.accounts.services import player_claim_guest, player_get_or_create_bot
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.services import (
    challenge_accept,
    challenge_create,
    game_create_friend,
    game_join,
)

pytestmark = pytest.mark.django_db


def account(guest_factory: Any, name: str) -> Player:
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    return player_claim_guest(guest=guest_factory(), user=user)


def test_a_challenge_seats_nobody_until_accepted(guest_factory: Any,
                                                 django_capture_on_commit_callbacks: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from kondavo.games import hooks

    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(hooks.registry, "notifier", lambda **kw: sent.append(kw))
    alice, bob = account(guest_factory, "alice"), account(guest_factory, "bob")
    with django_capture_on_commit_callbacks(execute=True):
        challenge = challenge_create(player=alice, opponent_name="bob", ruleset="english",
                                     time_control="5+3", color="black", rated=True)
    assert challenge.status == "pending" and Game.objects.count() == 0
    [note] = sent
    assert note["recipient_id"] == bob.pk and note["kind"] == "challenge"
    assert note["data"]["from"] == "alice" and note["data"]["color"] == "white"
    assert note["data"]["status"] == "pending" and note["data"]["rated"]
    game = challenge_accept(challenge_id=challenge.pk, player=bob)
    assert game.status == Game.Status.ACTIVE and game.rated
    assert game.side_of(alice) == "black" and game.side_of(bob) == "white"
    answer = [n for n in sent if n["kind"] == "challenge_answer"]
    assert answer[0]["recipient_id"] == alice.pk and answer[0]["url"] == f"/game/{game.id}/"


def test_challenges_that_make_no_sense_are_refused(guest_factory: Any) -> None:
    alice, guest = account(guest_factory, "alice"), guest_factory()
    bot = player_get_or_create_bot(level=3)
    for name, code in (("nobody-here", "not_found"), (bot.name, "not_allowed"),
                       ("alice", "not_allowed")):
        with pytest.raises(GameError) as err:
            challenge_create(player=alice, opponent_name=name, ruleset="english",
                             time_control="5+3")
        assert err.value.code == code
    # A guest may be challenged, but never to a rated game.
    challenge = challenge_create(player=alice, opponent_name=guest.name, ruleset="turkish",
                                 time_control="untimed", rated=True)
    assert not challenge.rated
    assert not challenge_accept(challenge_id=challenge.pk, player=guest).rated
    assert Game.objects.count() == 1


def test_rated_friend_games_are_between_accounts(guest_factory: Any) -> None:
    alice, bob, guest = (account(guest_factory, "alice"), account(guest_factory, "bob"),
                         guest_factory())
    rated = game_create_friend(player=alice, ruleset="international", rated=True)
    assert rated.rated
    with pytest.raises(GameError) as err:
        game_join(game_id=rated.id, player=guest)
    assert err.value.code == "not_allowed"
    assert game_join(game_id=rated.id, player=bob).status == Game.Status.ACTIVE
    assert not game_create_friend(player=guest, ruleset="international", rated=True).rated
