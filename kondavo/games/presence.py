"""Per-socket presence with a heartbeat and an expiry: nothing to leak when a socket dies.

Each open game socket is one entry of its game, ``<role>:<socket id>`` (role ``white``,
``black`` or ``spectator``), whose score is the moment it expires: ``now + ttl`` when the
socket opens and at each heartbeat (the page pings every ``heartbeat`` seconds), ``now``
when it closes cleanly. A socket that dies any other way (a killed Daphne, a consumer that
failed, a lost network) simply stops being refreshed and counts as gone ``ttl`` seconds
after its last heartbeat at most. A side is online while one of its entries has not
expired; when none is left, it left at the latest expiry among its entries. A game's entries
also hold when the store began keeping them (``epoch``): a player the store has never seen
counts as gone from then at the earliest, so a store that lost its data (a Redis restart)
never makes a present player claimable at once.

Stores: Redis (``REDIS_URL`` set: one sorted set per game, shared by every Daphne) or, in
the embedded mode, this process's memory (one Daphne). Entries older than ``KEEP`` are
dropped, and a game's Redis key expires ``KEEP`` after its last write.

Times are epoch seconds from ``kondavo.games.clock`` (tests move it).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from django.conf import settings

from kondavo.redis_clients import StoreForSettings

ROLES = ("white", "black", "spectator")
KEEP = 3600.0
KEY_PREFIX = "kondavo:presence:"


def ttl_seconds() -> float:
    """How long a socket counts as present after its last heartbeat."""
    return float(getattr(settings, "KONDAVO_PRESENCE_TTL_SECONDS", 12.0))


def heartbeat_seconds() -> float:
    """How often the game page pings (well under the ttl: two may be lost)."""
    return float(getattr(settings, "KONDAVO_PRESENCE_HEARTBEAT_SECONDS", 5.0))


@dataclass(frozen=True)
class PresenceView:
    """Who is at a game at ``now``: per side, online or since when gone; spectators."""

    now: float
    online: dict[str, bool] = field(default_factory=dict)
    left_at: dict[str, float | None] = field(default_factory=dict)  # None: never seen
    spectators: int = 0
    # Since when the store has kept this game's presence (its entries are lost with a Redis
    # restart, or a restart of the embedded mode's process); None: it has none.
    epoch: float | None = None


EPOCH = "epoch:"  # the entry holding ``PresenceView.epoch``


def view_of(entries: dict[str, float], now: float) -> PresenceView:
    online = {"white": False, "black": False}
    latest: dict[str, float | None] = {"white": None, "black": None}
    spectators = 0
    for member, expires in entries.items():
        role = member.split(":", 1)[0]
        live = expires > now
        if role == "spectator":
            spectators += live
        elif role in online:
            online[role] = online[role] or live
            prev = latest[role]
            latest[role] = expires if prev is None else max(prev, expires)
    left_at = {side: (None if online[side] else latest[side]) for side in online}
    return PresenceView(now, online, left_at, spectators, entries.get(EPOCH))


class PresenceStore(Protocol):
    def refresh(self, game_id: str, member: str, expires: float,
                now: float) -> PresenceView: ...

    def close(self, game_id: str, member: str, now: float) -> PresenceView: ...

    def view(self, game_id: str, now: float) -> PresenceView: ...


class MemoryPresence:
    """One process's presence (the embedded mode: a single Daphne)."""

    def __init__(self) -> None:
        self._games: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def _prune(self, entries: dict[str, float], now: float) -> None:
        for member in [m for m, e in entries.items() if e < now - KEEP]:
            del entries[member]

    def refresh(self, game_id: str, member: str, expires: float,
                now: float) -> PresenceView:
        with self._lock:
            entries = self._games.setdefault(game_id, {})
            entries[member] = expires
            self._prune(entries, now)
            entries.setdefault(EPOCH, now)
            return view_of(dict(entries), now)

    def close(self, game_id: str, member: str, now: float) -> PresenceView:
        with self._lock:
            entries = self._games.setdefault(game_id, {})
            if member in entries:
                entries[member] = min(entries[member], now)
            return view_of(dict(entries), now)

    def view(self, game_id: str, now: float) -> PresenceView:
        with self._lock:
            return view_of(dict(self._games.get(game_id, {})), now)


class RedisPresence:
    """Presence shared by every Daphne: a sorted set per game (member -> expiry)."""

    def __init__(self, url: str) -> None:
        import redis

        from kondavo.redis_clients import DEFAULT_SOCKET_TIMEOUT, connection_options

        # A call during a Redis outage fails within about a second (callers log and go on);
        # the first call after the restart succeeds on a fresh connection.
        self._redis = redis.Redis.from_url(url, socket_timeout=DEFAULT_SOCKET_TIMEOUT,
                                           **connection_options())

    @staticmethod
    def _key(game_id: str) -> str:
        return KEY_PREFIX + game_id

    @staticmethod
    def _entries(raw: Any) -> dict[str, float]:
        return {(m.decode() if isinstance(m, bytes) else str(m)): float(s) for m, s in raw}

    def refresh(self, game_id: str, member: str, expires: float,
                now: float) -> PresenceView:
        key = self._key(game_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(key, {member: expires})
        pipe.zremrangebyscore(key, "-inf", now - KEEP)
        pipe.zadd(key, {EPOCH: now}, nx=True)
        pipe.expire(key, int(KEEP))
        pipe.zrange(key, 0, -1, withscores=True)
        return view_of(self._entries(pipe.execute()[-1]), now)

    def close(self, game_id: str, member: str, now: float) -> PresenceView:
        key = self._key(game_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(key, {member: now}, xx=True, lt=True)
        pipe.zrange(key, 0, -1, withscores=True)
        return view_of(self._entries(pipe.execute()[-1]), now)

    def view(self, game_id: str, now: float) -> PresenceView:
        raw = self._redis.zrange(self._key(game_id), 0, -1, withscores=True)
        return view_of(self._entries(raw), now)


# The presence store for the current settings (Redis when ``REDIS_URL`` is set).
store: StoreForSettings[PresenceStore] = StoreForSettings(RedisPresence, MemoryPresence)


def epoch(moment: datetime) -> float:
    return moment.timestamp()
