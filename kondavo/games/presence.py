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

Stores: Redis (``REDIS_URL`` set, shared by every Daphne) or, in the embedded mode, this
process's memory (one Daphne). The players' entries (and the epoch) are kept apart from the
spectators': a game's view reads the few player entries and only the *number* of live
spectators, so opening, refreshing or closing a socket costs the same with 5 spectators or
5,000 (before, each read every entry: a crowd's cost grew with its square). A spectator's
entry is removed when it closes or expires; a player's is kept ``KEEP`` (its expiry is when
that side left), and a game's Redis keys expire ``KEEP`` after their last write.

Times are epoch seconds from ``kondavo.games.clock`` (tests move it).
"""

from __future__ import annotations

import heapq
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


def view_of(entries: dict[str, float], now: float, spectators: int = 0) -> PresenceView:
    """The view from the players' entries (and any spectator entries among them) plus a
    count of live spectators kept apart."""
    online = {"white": False, "black": False}
    latest: dict[str, float | None] = {"white": None, "black": None}
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


def is_spectator(member: str) -> bool:
    return member.startswith("spectator:")


class PresenceStore(Protocol):
    def refresh(self, game_id: str, member: str, expires: float,
                now: float) -> PresenceView: ...

    def refresh_many(self, beats: list[tuple[str, str, float]],
                     now: float) -> list[PresenceView]: ...

    def close(self, game_id: str, member: str, now: float) -> PresenceView: ...

    def view(self, game_id: str, now: float) -> PresenceView: ...


class _Spectators:
    """Live spectator entries with their expiry; expired ones are dropped as time passes
    (a heap of expiries, stale heap items skipped), so counting them is O(1)."""

    def __init__(self) -> None:
        self.expiry: dict[str, float] = {}
        self.heap: list[tuple[float, str]] = []

    def set(self, member: str, expires: float) -> None:
        self.expiry[member] = expires
        heapq.heappush(self.heap, (expires, member))

    def remove(self, member: str) -> None:
        self.expiry.pop(member, None)

    def live(self, now: float) -> int:
        heap, expiry = self.heap, self.expiry
        while heap and heap[0][0] <= now:
            expires, member = heapq.heappop(heap)
            if expiry.get(member) == expires:
                del expiry[member]
        if len(heap) > 4 * len(expiry) + 64:  # mostly stale items: rebuild
            self.heap = [(e, m) for m, e in expiry.items()]
            heapq.heapify(self.heap)
        return len(expiry)


class MemoryPresence:
    """One process's presence (the embedded mode: a single Daphne)."""

    def __init__(self) -> None:
        self._games: dict[str, dict[str, float]] = {}  # players' entries and the epoch
        self._spectators: dict[str, _Spectators] = {}
        self._lock = threading.Lock()

    def _prune(self, entries: dict[str, float], now: float) -> None:
        for member in [m for m, e in entries.items() if e < now - KEEP]:
            del entries[member]

    def refresh(self, game_id: str, member: str, expires: float,
                now: float) -> PresenceView:
        with self._lock:
            entries = self._games.setdefault(game_id, {})
            spectators = self._spectators.setdefault(game_id, _Spectators())
            if is_spectator(member):
                spectators.set(member, expires)
            else:
                entries[member] = expires
                self._prune(entries, now)
            entries.setdefault(EPOCH, now)
            return view_of(dict(entries), now, spectators.live(now))

    def refresh_many(self, beats: list[tuple[str, str, float]],
                     now: float) -> list[PresenceView]:
        """``refresh`` of each (game id, member, expiry)."""
        return [self.refresh(game_id, member, expires, now)
                for game_id, member, expires in beats]

    def close(self, game_id: str, member: str, now: float) -> PresenceView:
        with self._lock:
            entries = self._games.setdefault(game_id, {})
            spectators = self._spectators.setdefault(game_id, _Spectators())
            if is_spectator(member):
                spectators.remove(member)
            elif member in entries:
                entries[member] = min(entries[member], now)
            return view_of(dict(entries), now, spectators.live(now))

    def view(self, game_id: str, now: float) -> PresenceView:
        with self._lock:
            spectators = self._spectators.get(game_id)
            return view_of(dict(self._games.get(game_id, {})), now,
                           spectators.live(now) if spectators is not None else 0)


class RedisPresence:
    """Presence shared by every Daphne: per game, a sorted set of the players' entries
    (member -> expiry, and the epoch) and one of the spectators' (member -> expiry)."""

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
    def _spectators_key(game_id: str) -> str:
        return KEY_PREFIX + game_id + ":spectators"

    @staticmethod
    def _entries(raw: Any) -> dict[str, float]:
        return {(m.decode() if isinstance(m, bytes) else str(m)): float(s) for m, s in raw}

    def _read(self, pipe: Any, game_id: str, now: float) -> PresenceView:
        """Queue the view's two reads (a few player entries, a count) and run ``pipe``."""
        pipe.zrange(self._key(game_id), 0, -1, withscores=True)
        pipe.zcount(self._spectators_key(game_id), f"({now}", "+inf")
        results = pipe.execute()
        return view_of(self._entries(results[-2]), now, int(results[-1]))

    def _queue_refresh(self, pipe: Any, game_id: str, member: str, expires: float,
                       now: float) -> None:
        """Queue a refresh's writes and the view's two reads (the last two results)."""
        key, spectators = self._key(game_id), self._spectators_key(game_id)
        if is_spectator(member):
            pipe.zadd(spectators, {member: expires})
            pipe.zremrangebyscore(spectators, "-inf", now)
            pipe.expire(spectators, int(KEEP))
        else:
            pipe.zadd(key, {member: expires})
            pipe.zremrangebyscore(key, "-inf", now - KEEP)
        pipe.zadd(key, {EPOCH: now}, nx=True)
        pipe.expire(key, int(KEEP))
        pipe.zrange(key, 0, -1, withscores=True)
        pipe.zcount(spectators, f"({now}", "+inf")

    def refresh(self, game_id: str, member: str, expires: float,
                now: float) -> PresenceView:
        return self.refresh_many([(game_id, member, expires)], now)[0]

    def refresh_many(self, beats: list[tuple[str, str, float]],
                     now: float) -> list[PresenceView]:
        """Every refresh in one pipeline (one round trip for a batch of heartbeats)."""
        pipe = self._redis.pipeline(transaction=False)
        ends = []
        for game_id, member, expires in beats:
            self._queue_refresh(pipe, game_id, member, expires, now)
            ends.append(len(pipe))
        results = pipe.execute()
        return [view_of(self._entries(results[end - 2]), now, int(results[end - 1]))
                for end in ends]

    def close(self, game_id: str, member: str, now: float) -> PresenceView:
        pipe = self._redis.pipeline(transaction=False)
        if is_spectator(member):
            pipe.zrem(self._spectators_key(game_id), member)
        else:
            pipe.zadd(self._key(game_id), {member: now}, xx=True, lt=True)
        return self._read(pipe, game_id, now)

    def view(self, game_id: str, now: float) -> PresenceView:
        return self._read(self._redis.pipeline(transaction=False), game_id, now)


# The presence store for the current settings (Redis when ``REDIS_URL`` is set).
store: StoreForSettings[PresenceStore] = StoreForSettings(RedisPresence, MemoryPresence)


def epoch(moment: datetime) -> float:
    return moment.timestamp()
