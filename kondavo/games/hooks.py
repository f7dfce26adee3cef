"""The games app's explicit links to the apps built on it (set in their ``AppConfig.ready``).

- ``game_finished``: a Django signal sent inside the transaction that finishes a game
  (``sender=Game, game=<the locked, saved game>``). The rating app receives it; an error in a
  receiver rolls the finishing transaction back (``send``, not ``send_robust``).
- the bot mover: ``register_bot_mover(fn)`` with ``fn(game_id, expected_ply)``, called on
  commit whenever a bot is to move. Without one a bot game cannot go on, so
  ``request_bot_move`` raises ``ImproperlyConfigured`` instead of leaving the game hanging.
- the rating reader: ``register_rating_reader(fn)`` with ``fn(player=, ruleset=)`` -> int or
  None, for the players' ratings in payloads. Without one no rating is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

game_finished = Signal()

BotMover = Callable[[str, int], None]
RatingReader = Callable[..., "int | None"]


class _Registry:
    bot_mover: BotMover | None = None
    rating_reader: RatingReader | None = None


registry = _Registry()


def register_bot_mover(fn: BotMover) -> None:
    registry.bot_mover = fn


def register_rating_reader(fn: RatingReader) -> None:
    registry.rating_reader = fn


def request_bot_move(game_id: str, expected_ply: int) -> None:
    mover = registry.bot_mover
    if mover is None:
        raise ImproperlyConfigured(
            "no bot mover is registered (is the bots app in INSTALLED_APPS?)")
    mover(game_id, expected_ply)


def player_rating(*, player: Any, ruleset: str) -> int | None:
    reader = registry.rating_reader
    if reader is None:
        return None
    value = reader(player=player, ruleset=ruleset)
    return int(value) if value is not None else None


def send_game_finished(game: Any) -> None:
    game_finished.send(sender=type(game), game=game)
