"""Challenges from a player's profile: a game with both seats taken, announced to the
challenged player's open lobby pages (a ``challenge`` frame on their lobby socket).

The game starts at once for both; the challenged player finds it from the notice, or on
their profile. Rated only between two accounts.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import events, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.services.creation import game_create, variant_of


@transaction.atomic
def game_challenge(*, player: Player, opponent_name: str, ruleset: str, time_control: str,
                   color: str = "random", rated: bool = False,
                   now: datetime | None = None) -> Game:
    opponent = Player.objects.filter(name=str(opponent_name)[:64]).first()
    if opponent is None:
        raise GameError("not_found", "no such player")
    if opponent.is_bot:
        raise GameError("not_allowed", "play the computer from the home page")
    if opponent.pk == player.pk:
        raise GameError("not_allowed", "you cannot challenge yourself")
    both_accounts = player.kind == Player.Kind.USER and opponent.kind == Player.Kind.USER
    game = game_create(creator=player, opponent=opponent, ruleset=ruleset,
                       time_control=time_control, color=color,
                       rated=bool(rated) and both_accounts, now=now)
    frame = wire.challenge_frame(game, player, variant_of(ruleset))
    transaction.on_commit(partial(events.publish_player, opponent.pk, frame))
    return game
