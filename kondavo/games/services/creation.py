"""Creating games and taking their seats: vs the computer, friend links, joining."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.accounts.services import player_get_or_create_bot
from kondavo.games import clock, hooks, wire
from kondavo.games.engine_errors import engine_error_text
from kondavo.games.errors import GameError
from kondavo.games.history import position_key
from kondavo.games.models import Game
from kondavo.games.moderation import require_not_banned, require_offered
from kondavo.games.services import clocks
from kondavo.games.services.clocks import game_flag_if_expired
from kondavo.games.services.store import SIDES, GameWrite, other
from kondavo.games.timecontrols import get_time_control
from variants import Position, Variant, VariantError, get_variant


def variant_of(key: str) -> Variant:
    try:
        return get_variant(str(key))
    except VariantError as exc:
        raise GameError("bad_request", engine_error_text(exc)) from None


def _start_position_fen(variant: Variant,
                        start_fen: str | None) -> tuple[str | None, str, Position]:
    """Validated (start_fen, current fen, start position): a FEN of the ruleset, and a
    position that can occur in its games (``Variant.check_position``: the editor's and
    "continue from here"'s positions)."""
    if not start_fen:
        position = variant.initial_position()
        return None, variant.format_fen(position), position
    try:
        position = variant.parse_fen(str(start_fen)[:300])
        variant.check_position(position)
    except VariantError as exc:
        raise GameError("bad_request", engine_error_text(exc)) from None
    fen = variant.format_fen(position)
    return fen, fen, position


def _pick_color(color: str) -> str:
    color = (color or "random").lower()
    if color == "random":
        return secrets.choice(SIDES)
    if color not in SIDES:
        raise GameError("bad_request", _("The colour must be white, black or random."))
    return color


def activate(write: GameWrite, *, announce: bool) -> None:
    """Both seats are taken: the game starts now."""
    game = write.game
    game.status = Game.Status.ACTIVE
    game.started = write.now
    if any(kind == Player.Kind.GUEST for kind in write.kinds.values()):
        game.rated = False  # guests never play rated games
    if game.rated and not hooks.rated_allowed(game):
        game.rated = False  # fair play: the daily limit of rated games between the two
    clocks.start(write)
    if announce:
        write.add("players", wire.players_event(game, write.now))


def _new_game(**fields: Any) -> Game:
    for _attempt in range(8):
        try:
            with transaction.atomic():
                return Game.objects.create(**fields)
        except IntegrityError:
            if Game.objects.filter(pk=fields.get("id")).exists():
                fields.pop("id", None)
                continue
            raise
    raise RuntimeError("could not allocate a game id")


@transaction.atomic
def game_create(*, creator: Player, ruleset: str, time_control: str = "untimed",
                color: str = "random", opponent: Player | None = None, rated: bool = False,
                start_fen: str | None = None, now: datetime | None = None) -> Game:
    """A new game. With ``opponent`` both seats are filled and it starts at once; without,
    ``creator`` takes ``color`` and the other seat stays open (status ``waiting``)."""
    now = clock.resolve(now)
    require_not_banned(creator, opponent)
    variant = variant_of(ruleset)
    require_offered(variant.key)
    try:
        tc = get_time_control(time_control)
    except ValueError:
        raise GameError("bad_request", _("Choose a time control from the list.")) from None
    start, fen, position = _start_position_fen(variant, start_fen)
    if opponent is not None and opponent.pk == creator.pk:
        raise GameError("not_allowed", _("You cannot play yourself."))
    hooks.check_start(player=creator, opponent=opponent)  # fair play: cool-downs
    side = _pick_color(color)
    seats = {side: creator, other(side): opponent}
    game = _new_game(
        ruleset=variant.key, white=seats["white"], black=seats["black"], creator=creator,
        status=Game.Status.WAITING, moves=[], ply=0, version=0, start_fen=start, fen=fen,
        quiet_plies=0, repetition=[position_key(position)],
        time_control=tc.key, clock_initial_ms=tc.initial_ms, clock_increment_ms=tc.increment_ms,
        white_ms=tc.initial_ms, black_ms=tc.initial_ms, rated=bool(rated),
    )
    if opponent is not None:
        write = GameWrite.created(game, now)
        activate(write, announce=False)
        clocks.save(write, new_turn=True)
    return game


def computer_games_active(*, player: Player) -> int:
    """How many games ``player`` is playing against the computer right now."""
    return Game.objects.filter(
        Q(white=player, black__kind=Player.Kind.BOT) | Q(black=player, white__kind=Player.Kind.BOT),
        status__in=[Game.Status.ACTIVE, Game.Status.WAITING],
    ).count()


@transaction.atomic
def game_create_vs_computer(*, player: Player, ruleset: str, level: int,
                            color: str = "random", time_control: str = "untimed",
                            start_fen: str | None = None, now: datetime | None = None) -> Game:
    """A game against the bot of ``level`` (1..8); the bot moves at once if it starts.

    A player has at most ``KONDAVO_MAX_COMPUTER_GAMES`` such games going at once (checked
    under a lock on the player's row, so simultaneous requests cannot pass it together)."""
    try:
        bot = player_get_or_create_bot(level=int(level))
    except (TypeError, ValueError):
        raise GameError("bad_request", _("Choose a level from the list.")) from None
    if player.is_bot:
        raise GameError("not_allowed", "bots do not start games")
    cap = int(settings.KONDAVO_MAX_COMPUTER_GAMES)
    Player.objects.select_for_update().filter(pk=player.pk).first()
    if computer_games_active(player=player) >= cap:
        raise GameError("limit_reached", _(
            "You already have %(n)d games against the computer going: finish or resign one "
            "first.") % {"n": cap})
    return game_create(creator=player, ruleset=ruleset, time_control=time_control,
                       color=color, opponent=bot, rated=False, start_fen=start_fen, now=now)


def game_create_friend(*, player: Player, ruleset: str, time_control: str = "untimed",
                       color: str = "random", rated: bool = False,
                       start_fen: str | None = None, now: datetime | None = None) -> Game:
    """A game with an open seat, for the creator to share: the invited person takes the
    seat with ``game_join`` (the page's Join button), never by merely opening the link.
    Rated only between accounts: a guest's request for a rated game makes a casual one, and
    a rated game's seat is for an account only (``game_join``)."""
    rated = bool(rated) and player.kind == Player.Kind.USER and not start_fen
    return game_create(creator=player, ruleset=ruleset, time_control=time_control,
                       color=color, rated=rated, start_fen=start_fen, now=now)


@transaction.atomic
def game_join(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Take the open seat of a waiting game (a no-op for a player already seated)."""
    write = GameWrite.lock(game_id, clock.resolve(now))
    game = write.game
    if game.side_of(player) is not None:
        return game
    if game.status != Game.Status.WAITING:
        raise GameError("not_allowed", _("This game already has two players."))
    require_not_banned(player)
    if player.is_bot:
        raise GameError("not_allowed", "bots join only games against the computer")
    hooks.check_start(player=player, opponent=game.white or game.black)  # fair play
    if game.rated and player.kind != Player.Kind.USER:
        raise GameError("not_allowed", _("Log in to play this rated game."))
    side = "white" if game.white_id is None else "black"
    setattr(game, side, player)
    write.kinds[side] = player.kind
    activate(write, announce=True)
    clocks.save(write, new_turn=True)
    return game


def game_open_for_viewer(*, game_id: str, player: Player | None = None,
                         now: datetime | None = None) -> Game:
    """What the game page calls: flags an expired clock and returns the game. It never
    seats anyone (a link preview must not take a friend game's free seat): the invited
    person joins explicitly (``game_join``). ``player`` is accepted for callers that pass
    the viewer and is not used."""
    game_flag_if_expired(game_id=game_id, now=now)
    game = Game.objects.select_related("white", "black").filter(pk=str(game_id)[:12]).first()
    if game is None:
        raise GameError("not_found", "no such game")
    return game
