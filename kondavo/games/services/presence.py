"""Sockets at a game: opening, heartbeats, closing (``kondavo.games.presence`` stores them).

Each function returns the game's ``presence`` payload after the change, or None when the
game does not exist or the presence store did not answer (logged: presence then shows
everyone online and claims are refused until it answers again).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from kondavo.accounts.models import Player
from kondavo.games import clock, events, presence, selectors, wire
from kondavo.games.models import Game

log = logging.getLogger(__name__)


def presence_member(*, game: Game, player: Player | None, socket_id: str) -> str:
    """The presence entry of a socket: its role at the board, then the socket's id."""
    role = game.side_of(player) or "spectator"
    return f"{role}:{socket_id}"


def _refresh(game: Game, member: str, now: datetime) -> presence.PresenceView | None:
    at = now.timestamp()
    try:
        return presence.store().refresh(game.id, member, at + presence.ttl_seconds(), at)
    except Exception:
        log.warning("presence store unavailable", exc_info=True)
        return None


def game_presence_open(*, game: Game, member: str, now: datetime | None = None,
                       publish: bool = True) -> dict[str, Any]:
    """A socket opened: counted present for ``ttl`` seconds; tells the game's sockets."""
    view = _refresh(game, member, clock.resolve(now))
    payload = wire.presence_payload(game, view)
    if publish and view is not None:
        events.publish_presence(game.id, payload)
    return payload


Beat = tuple[str, str, Game | None]  # (game id, member, the game as the socket last read it)


def game_heartbeats(beats: list[Beat], now: datetime | None = None,
                    ) -> list[tuple[int, dict[str, Any], Game] | None]:
    """The heartbeats of several sockets (``kondavo.games.heartbeats`` batches them): one
    read of every game's version and status, one round trip to the presence store. Per
    beat: the game's version as the database has it, the presence after the refresh and
    the game (read again only while it was waiting for a player: the seats cannot have
    changed otherwise), or None for a game that no longer exists."""
    rows = selectors.games_version_status(game_ids=[game_id for game_id, _, _ in beats])
    at = clock.resolve(now).timestamp()
    expires = at + presence.ttl_seconds()
    games: list[Game | None] = []
    for game_id, _, seen in beats:
        row = rows.get(str(game_id)[:12])
        game = seen
        if row is not None and (game is None or game.status == Game.Status.WAITING):
            game = selectors.game_get(game_id=game_id)
        if row is None or game is None:
            games.append(None)
            continue
        game.status = row[1]
        games.append(game)
    live = [(i, game) for i, game in enumerate(games) if game is not None]
    try:
        views: list[presence.PresenceView | None] = list(presence.store().refresh_many(
            [(game.id, beats[i][1], expires) for i, game in live], at))
    except Exception:
        log.warning("presence store unavailable", exc_info=True)
        views = [None] * len(live)
    out: list[tuple[int, dict[str, Any], Game] | None] = [None] * len(beats)
    for (i, game), view in zip(live, views, strict=True):
        out[i] = (rows[str(game.id)][0], wire.presence_payload(game, view), game)
    return out


def game_presence_close(*, game: Game, member: str, now: datetime | None = None,
                        publish: bool = True) -> dict[str, Any] | None:
    """A socket closed cleanly: gone now; tells the game's sockets (``publish``), or leaves
    that to the caller (a batch of closings tells each game once). The presence payload, or
    None when the presence store could not be reached (nothing to tell)."""
    at = clock.resolve(now).timestamp()
    try:
        view: presence.PresenceView | None = presence.store().close(game.id, member, at)
    except Exception:
        log.warning("presence store unavailable", exc_info=True)
        return None
    payload = wire.presence_payload(game, view)
    if publish:
        events.publish_presence(game.id, payload)
    return payload
