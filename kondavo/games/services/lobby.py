"""The lobby: open seeks, cancelling them, accepting one (which starts a game)."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.games import clock, events, hooks, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game, LobbyState, Seek
from kondavo.games.moderation import require_not_banned, require_offered
from kondavo.games.selectors import lobby_version, seek_expiry_cutoff, seeks_open
from kondavo.games.services.creation import game_create, variant_of
from kondavo.games.timecontrols import get_time_control

log = logging.getLogger(__name__)


def _lobby_bump() -> int:
    LobbyState.objects.get_or_create(pk=1)
    LobbyState.objects.filter(pk=1).update(version=F("version") + 1)
    return LobbyState.objects.get(pk=1).version


def _publish_lobby(version: int) -> None:
    seeks = wire.lobby_seeks(seeks_open())
    remember_snapshot(version, seeks)
    events.publish_lobby(version, seeks)


# The lobby as this process last read or heard it: (version, when, the seeks on the wire).
# A crowd opening lobby sockets then costs one read of the version each, not the seeks with
# their players and ratings each (bench/results/live.md, "Fifth round").
SNAPSHOT_SECONDS = 1.0
_snapshot: tuple[int, float, list[dict[str, Any]]] | None = None


def remember_snapshot(version: int, seeks: list[dict[str, Any]]) -> None:
    """The lobby at ``version`` (read here, or published by any process)."""
    global _snapshot
    _snapshot = (version, time.monotonic(), seeks)  # one assignment: no lock needed


def lobby_snapshot() -> tuple[int, list[dict[str, Any]]]:
    """The lobby's version and open seeks (``wire.lobby_seeks``) for a socket opening: the
    seeks this process read or heard at the current version within ``SNAPSHOT_SECONDS``
    (seeks also expire with time, hence the bound), else read now."""
    version = lobby_version()
    cached = _snapshot
    if (cached is not None and cached[0] == version
            and time.monotonic() - cached[1] < SNAPSHOT_SECONDS):
        return version, cached[2]
    seeks = wire.lobby_seeks(seeks_open())
    remember_snapshot(version, seeks)
    return version, seeks


SEEK_COLORS = ("white", "black", "random")


@transaction.atomic
def seek_create(*, player: Player, ruleset: str, time_control: str,
                rated: bool = False, color: str = "random") -> Seek:
    require_not_banned(player)
    variant = variant_of(ruleset)
    require_offered(variant.key)
    color = str(color or "random").lower()
    if color not in SEEK_COLORS:
        raise GameError("bad_request", "color must be white, black or random")
    try:
        tc = get_time_control(time_control)
    except ValueError as exc:
        raise GameError("bad_request", str(exc)) from None
    if player.is_bot:
        raise GameError("not_allowed", "bots do not seek")
    hooks.check_start(player=player)  # fair play: cool-downs
    rated = bool(rated) and player.kind == Player.Kind.USER
    Player.objects.select_for_update().filter(pk=player.pk).first()  # one seek_create at a time
    mine = Seek.objects.filter(player=player, status=Seek.Status.OPEN,
                               created__gte=seek_expiry_cutoff())
    same = mine.filter(ruleset=variant.key, time_control=tc.key, rated=rated,
                       color=color).first()
    if same is not None:
        return same
    cap = int(settings.KONDAVO_MAX_SEEKS)
    if mine.count() >= cap:
        raise GameError("limit_reached", _(
            "You already have %(n)d open seeks: cancel one first.") % {"n": cap})
    seek = Seek.objects.create(player=player, ruleset=variant.key, time_control=tc.key,
                               rated=rated, color=color)
    version = _lobby_bump()
    transaction.on_commit(partial(_publish_lobby, version))
    return seek


def _lock_seek(seek_id: Any) -> Seek:
    if isinstance(seek_id, bool) or not isinstance(seek_id, int | str):
        raise GameError("not_found", "no such seek")
    try:
        pk = int(seek_id)
    except (TypeError, ValueError, OverflowError):
        raise GameError("not_found", "no such seek") from None
    if not 0 < pk < 2**63:
        raise GameError("not_found", "no such seek")
    try:
        return Seek.objects.select_for_update().get(pk=pk)
    except Seek.DoesNotExist:
        raise GameError("not_found", "no such seek") from None


@transaction.atomic
def seek_cancel(*, seek_id: int, player: Player) -> Seek:
    seek = _lock_seek(seek_id)
    if seek.player_id != player.pk:
        raise GameError("not_allowed", "this is not your seek")
    if seek.status != Seek.Status.OPEN:
        return seek
    seek.status = Seek.Status.CANCELLED
    seek.save(update_fields=["status"])
    version = _lobby_bump()
    transaction.on_commit(partial(_publish_lobby, version))
    return seek


def seek_cancel_all(*, player: Player) -> int:
    """Cancel every open seek of ``player`` (e.g. when their last lobby socket closes)."""
    n = 0
    for seek_id in Seek.objects.filter(player=player, status=Seek.Status.OPEN).values_list(
            "pk", flat=True):
        try:
            seek_cancel(seek_id=seek_id, player=player)
        except GameError:  # accepted, cancelled or removed meanwhile: nothing left to do
            continue
        n += 1
    return n


@transaction.atomic
def seek_accept(*, seek_id: int, player: Player, now: datetime | None = None) -> Game:
    """Start a game between the seek's author (playing the seek's colour) and ``player``."""
    now = clock.resolve(now)
    seek = _lock_seek(seek_id)
    if seek.status != Seek.Status.OPEN or seek.created < seek_expiry_cutoff(now):
        raise GameError("not_found", "this seek is no longer open")
    if seek.player_id == player.pk:
        raise GameError("not_allowed", "you cannot accept your own seek")
    require_not_banned(player)
    if player.is_bot:
        raise GameError("not_allowed", "bots do not accept seeks")
    game = game_create(creator=seek.player, ruleset=seek.ruleset,
                       time_control=seek.time_control, color=seek.color, opponent=player,
                       rated=seek.rated, now=now)
    seek.status = Seek.Status.ACCEPTED
    seek.game = game
    seek.save(update_fields=["status", "game"])
    version = _lobby_bump()
    transaction.on_commit(partial(_publish_lobby, version))
    frame = wire.seek_game_frame(version, game)
    for pid in (seek.player_id, player.pk):
        transaction.on_commit(partial(events.publish_player, pid, frame))
    return game


def seek_expire(*, now: datetime | None = None) -> int:
    """Cancel the open seeks older than ``KONDAVO_SEEK_TTL_SECONDS`` (the beat's seek sweep);
    the lobby hears of it once. Listing and accepting ignore expired seeks even before."""
    with transaction.atomic():
        n = Seek.objects.filter(status=Seek.Status.OPEN,
                                created__lt=seek_expiry_cutoff(now)).update(
            status=Seek.Status.CANCELLED)
        if n:
            version = _lobby_bump()
            transaction.on_commit(partial(_publish_lobby, version))
    return n


# A player's open lobby sockets, in the presence store (Redis with REDIS_URL: shared by every
# Daphne). The lobby page pings every 25 s, each ping refreshes the socket's entry; a socket
# that dies without closing counts as gone this long after its last ping.
LOBBY_SOCKET_TTL = 60.0


def _lobby_key(player: Player) -> str:
    return f"lobby-{player.pk}"


def lobby_socket_seen(*, player: Player, socket_id: str) -> None:
    """A lobby socket of ``player`` opened, or pinged."""
    from kondavo.games.presence import store

    now = clock.resolve(None).timestamp()
    try:
        store().refresh(_lobby_key(player), f"spectator:{socket_id}",
                        now + LOBBY_SOCKET_TTL, now)
    except Exception:  # noqa: BLE001 - Redis down: the close falls back to own seeks
        log.warning("lobby presence not recorded for player %s", player.pk)


def lobby_socket_closed(*, player: Player, socket_id: str, own_seeks: set[int]) -> int:
    """A lobby socket of ``player`` closed: when it was their last one, their open seeks
    leave the lobby with it (however they were made). If the presence store cannot be
    reached, the seeks made over this socket (``own_seeks``) go. Returns how many went."""
    from kondavo.games.presence import store

    now = clock.resolve(None).timestamp()
    try:
        view = store().close(_lobby_key(player), f"spectator:{socket_id}", now)
    except Exception:  # noqa: BLE001 - Redis down: fall back to this socket's own seeks
        view = None
    if view is not None and view.spectators > 0:
        return 0  # another lobby socket of theirs is still open
    if view is not None:
        return seek_cancel_all(player=player)
    n = 0
    for seek_id in own_seeks:
        try:
            seek_cancel(seek_id=seek_id, player=player)
            n += 1
        except GameError:
            pass
    return n
