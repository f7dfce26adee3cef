"""The games app's explicit links to the apps built on it (set in their ``AppConfig.ready``).

- ``game_finished``: a Django signal sent inside the transaction that finishes a game
  (``sender=Game, game=<the locked, saved game>``). The rating app receives it; an error in a
  receiver rolls the finishing transaction back (``send``, not ``send_robust``).
- the bot mover: ``register_bot_mover(fn)`` with ``fn(game_id, expected_ply)``, called on
  commit whenever a bot is to move. Without one a bot game cannot go on, so
  ``request_bot_move`` raises ``ImproperlyConfigured`` instead of leaving the game hanging.
- the rating reader: ``register_rating_reader(fn)`` with ``fn(player=, ruleset=)`` -> int or
  None, for the players' ratings in payloads. Without one no rating is shown.
- the bot rating reader: ``register_bot_rating_reader(fn)`` with ``fn(ruleset, level)`` ->
  int or None, a computer level's nominal rating in a ruleset (the bots app's measurements).
  Without one a bot shows its level alone.
- the ruleset choices reader: ``register_ruleset_choices_reader(fn)`` with ``fn()`` -> a
  mapping of ruleset key to ``(enabled, position)``: the operator's choices made in the admin
  (the front end's rows). Without one the ``KONDAVO_RULESETS`` setting alone decides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

game_finished = Signal()

BotMover = Callable[[str, int], None]
RatingReader = Callable[..., "int | None"]
BotRatingReader = Callable[[str, int], "int | None"]
RulesetChoicesReader = Callable[[], Mapping[str, tuple[bool, int]]]


class _Registry:
    bot_mover: BotMover | None = None
    rating_reader: RatingReader | None = None
    bot_rating_reader: BotRatingReader | None = None
    ruleset_choices_reader: RulesetChoicesReader | None = None


registry = _Registry()


def register_bot_mover(fn: BotMover) -> None:
    registry.bot_mover = fn


def register_rating_reader(fn: RatingReader) -> None:
    registry.rating_reader = fn


def register_bot_rating_reader(fn: BotRatingReader) -> None:
    registry.bot_rating_reader = fn


def register_ruleset_choices_reader(fn: RulesetChoicesReader) -> None:
    registry.ruleset_choices_reader = fn


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


def bot_rating(ruleset: str, level: int) -> int | None:
    """The nominal rating of the computer's ``level`` in ``ruleset``; None when unknown."""
    reader = registry.bot_rating_reader
    if reader is None:
        return None
    value = reader(ruleset, level)
    return int(value) if value is not None else None


def ruleset_choices() -> Mapping[str, tuple[bool, int]]:
    """The operator's per-ruleset choices (key -> ``(enabled, position)``); empty without a
    reader."""
    reader = registry.ruleset_choices_reader
    return reader() if reader is not None else {}


def send_game_finished(game: Any) -> None:
    game_finished.send(sender=type(game), game=game)
