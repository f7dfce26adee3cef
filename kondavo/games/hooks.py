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
- the rating changes reader: ``register_rating_changes_reader(fn)`` with ``fn(game)`` -> a
  mapping of side to ``{before, after, delta}``, or None: what a finished rated game did to
  its players' ratings (the rating app's record). Without one no change is shown.
- the ruleset choices reader: ``register_ruleset_choices_reader(fn)`` with ``fn()`` -> a
  mapping of ruleset key to ``(enabled, position)``: the operator's choices made in the admin
  (the front end's rows). Without one the ``KONDAVO_RULESETS`` setting alone decides.
- the notifier: ``register_notifier(fn)`` with ``fn(recipient_id=, kind=, key=, data=,
  url=, read=)``: a notification for one player (the notifications app stores it, inside the
  caller's transaction, and sends it on commit). ``key`` names what it is about (one
  notification per player and key: a later one updates it). Without one nothing is sent.
- the game events listener: ``register_game_events_listener(fn)`` with
  ``fn(GameEvents)``, called after the commit of every game write that published frames
  (the notifications app turns a seat taken, a rematch offer and a move of an untimed game
  into notifications). It must be cheap for the frames it ignores: it runs on the move path.
- state extras: ``register_state_extra(key, fn)`` with ``fn(game, viewer)`` -> a JSON-ready
  value put under ``key`` in the game's ``state`` (the chat app: the rooms' last lines; the
  fair-play app: why a game asked as rated is casual). Without one the key is absent.
- the chat frame handler: ``register_chat_handler(fn)`` with ``fn(game_id=, player=,
  address=, t=, data=)`` -> a frame for the sender or None, for the game socket's ``chat*``
  frames (run off the event loop; raises ``GameError``). Without one they answer
  ``unknown_type``.
- the start check: ``register_start_check(fn)`` with ``fn(player=, opponent=)``, raising
  ``GameError`` when ``player`` may not start or join a game against a person now (the
  fair-play app's cool-down); ``opponent`` None: not known yet (a friend link, a seek).
- the rated check: ``register_rated_check(fn)`` with ``fn(game)`` -> bool, asked when a
  rated game's seats are both taken: False makes it casual (the fair-play app's daily limit
  of rated games between the same two players).
- ``game_finished`` also carries ``frames``: the ``(t, d)`` pairs of the finishing write
  (an abort's ``end`` names the side that aborted).
- ``runs_without_workers()``: whether no Celery worker serves this server, so the apps
  built on games do in this process (off the request) what they would otherwise send to a
  worker: the one place that reads the settings for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

from kondavo.games.errors import GameError

game_finished = Signal()

BotMover = Callable[[str, int], None]
RatingReader = Callable[..., "int | None"]
BotRatingReader = Callable[[str, int], "int | None"]
RatingChangesReader = Callable[[Any], "dict[str, Any] | None"]
RulesetChoicesReader = Callable[[], Mapping[str, tuple[bool, int]]]
Notifier = Callable[..., None]


@dataclass(frozen=True, slots=True)
class GameEvents:
    """What one committed game write published: the game's seats and the frames' types and
    payloads (``frames``: ``(t, d)`` pairs, in order)."""

    game_id: str
    white_id: int | None
    black_id: int | None
    creator_id: int | None
    kinds: Mapping[str, str | None]
    timed: bool
    frames: tuple[tuple[str, Mapping[str, Any]], ...]


GameEventsListener = Callable[[GameEvents], None]
StateExtra = Callable[[Any, Any], Any]
ChatHandler = Callable[..., "dict[str, Any] | None"]
StartCheck = Callable[..., None]
RatedCheck = Callable[[Any], bool]


class _Registry:
    bot_mover: BotMover | None = None
    rating_reader: RatingReader | None = None
    bot_rating_reader: BotRatingReader | None = None
    rating_changes_reader: RatingChangesReader | None = None
    ruleset_choices_reader: RulesetChoicesReader | None = None
    notifier: Notifier | None = None
    game_events_listener: GameEventsListener | None = None
    chat_handler: ChatHandler | None = None
    start_check: StartCheck | None = None
    rated_check: RatedCheck | None = None
    state_extras: dict[str, StateExtra]

    def __init__(self) -> None:
        self.state_extras = {}


registry = _Registry()


def register_state_extra(key: str, fn: StateExtra) -> None:
    registry.state_extras[key] = fn


def register_chat_handler(fn: ChatHandler) -> None:
    registry.chat_handler = fn


def register_start_check(fn: StartCheck) -> None:
    registry.start_check = fn


def register_rated_check(fn: RatedCheck) -> None:
    registry.rated_check = fn


def runs_without_workers() -> bool:
    """True when this server has no Celery worker to take its tasks: eager Celery (no
    broker: ``make run``, the embedded mode) or ``KONDAVO_BOT_INPROCESS`` (bot moves and
    background work run in the web process, whether or not a broker is configured)."""
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
                or getattr(settings, "KONDAVO_BOT_INPROCESS", False))


def state_extras(game: Any, viewer: Any) -> dict[str, Any]:
    """The registered extras of a game's ``state`` for ``viewer``."""
    return {key: fn(game, viewer) for key, fn in registry.state_extras.items()}


def chat_frame(*, game_id: str, player: Any, address: str, t: str,
               data: Mapping[str, Any]) -> dict[str, Any] | None:
    """A ``chat*`` frame of a game socket (``unknown_type`` without a chat app)."""
    handler = registry.chat_handler
    if handler is None:
        raise GameError("unknown_type", f"unknown frame type {t[:32]!r}")
    return handler(game_id=game_id, player=player, address=address, t=t, data=data)


def check_start(*, player: Any, opponent: Any = None) -> None:
    """Raise ``GameError`` if ``player`` may not start or join a game now."""
    check = registry.start_check
    if check is not None and player is not None:
        check(player=player, opponent=opponent)


def rated_allowed(game: Any) -> bool:
    check = registry.rated_check
    return True if check is None else bool(check(game))


def register_bot_mover(fn: BotMover) -> None:
    registry.bot_mover = fn


def register_rating_reader(fn: RatingReader) -> None:
    registry.rating_reader = fn


def register_bot_rating_reader(fn: BotRatingReader) -> None:
    registry.bot_rating_reader = fn


def register_rating_changes_reader(fn: RatingChangesReader) -> None:
    registry.rating_changes_reader = fn


def register_ruleset_choices_reader(fn: RulesetChoicesReader) -> None:
    registry.ruleset_choices_reader = fn


def register_notifier(fn: Notifier) -> None:
    registry.notifier = fn


def register_game_events_listener(fn: GameEventsListener) -> None:
    registry.game_events_listener = fn


def notify(*, recipient_id: int, kind: str, key: str, data: Mapping[str, Any],
           url: str = "", read: bool | None = False) -> None:
    """A notification for ``recipient_id`` (no-op without a notifier). ``read``: False
    marks it unread (new news), True read, None leaves it as it was."""
    notifier = registry.notifier
    if notifier is not None:
        notifier(recipient_id=recipient_id, kind=kind, key=key, data=dict(data), url=url,
                 read=read)


def game_events(events: GameEvents) -> None:
    """After a game write's commit: tell the listener (errors are the listener's to log)."""
    listener = registry.game_events_listener
    if listener is not None:
        listener(events)


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


def rating_changes(game: Any) -> dict[str, Any] | None:
    """Per side ``{before, after, delta}`` of a rated game; None when unknown or not rated."""
    reader = registry.rating_changes_reader
    return reader(game) if reader is not None else None


def ruleset_choices() -> Mapping[str, tuple[bool, int]]:
    """The operator's per-ruleset choices (key -> ``(enabled, position)``); empty without a
    reader."""
    reader = registry.ruleset_choices_reader
    return reader() if reader is not None else {}


def send_game_finished(game: Any, frames: Any = ()) -> None:
    game_finished.send(sender=type(game), game=game,
                       frames=tuple((f["t"], f["d"]) for f in frames))
