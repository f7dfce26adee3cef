"""The Redis channel layer: channels-redis' ``RedisChannelLayer``, made to ride out a Redis
restart (settings: ``channel_layers_for`` in kondavo/settings/base.py; design and operation:
docs/deploying.md, "Redis and PostgreSQL restarts").

channels-redis raises every Redis error to its caller. In a consumer's receive loop that
error kills the consumer, and Daphne closes the socket with 1011: a Redis restart closed
every socket of every Daphne. This layer changes four things and nothing else:

- **Receiving never raises for an outage.** The one coroutine per process that polls Redis
  (channels-redis' ``receive_single``, under its receive lock) retries with a short
  exponential backoff (``retry_delay`` doubling up to ``max_retry_delay``); the consumers
  simply wait, their sockets stay open.
- **Sending is bounded.** ``send`` and ``group_send`` give up after ``operation_timeout``
  seconds and raise ``ChannelLayerUnavailable`` (nothing hangs on a dead server). The
  connections get the site's Redis options (kondavo/redis_clients.py: a short connect
  timeout, one immediate retry on a fresh connection, TCP keepalive), so the first command
  after Redis is back succeeds; at the first outage error the shard's idle pooled
  connections are dropped.
- **Group memberships survive.** A Redis restart loses the groups (they live in Redis'
  memory). The layer remembers the groups its own process's channels joined (``group_add``
  minus ``group_discard``) and a watch task checks every ``watch_interval`` seconds, with
  one pipelined round trip per shard, that a marker key of this process is still there. A
  missing marker means the shard lost its data (restart, flush): the watch adds the
  process's memberships on that shard again, increments ``generation`` and, when
  ``rejoin_message_type`` is set, sends ``{"type": rejoin_message_type, "generation": n}``
  to each re-joined channel. ``group_add`` during an outage is therefore not an error (the
  membership is added when Redis is back), nor is ``group_discard`` (an entry in a Redis
  that lost it is gone; otherwise it expires after ``group_expiry`` as usual).
- **Consumers may resync.** Events sent while Redis was down are lost: the re-join message
  (or a change of ``generation``) tells a consumer to send its client a fresh state. The
  game page also heals by itself: ``pong`` carries the game's version, and a gap makes the
  page resync.

Sharding (several ``hosts``) is channels-redis' own: a group or a process channel lives on
the shard its name hashes to (``consistent_hash`` fixes the shard of a direct send to a
process channel). Each shard has its own marker, so one shard's restart re-joins only that
shard's groups.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from channels.exceptions import ChannelFull
from channels_redis.core import RedisChannelLayer
from channels_redis.utils import create_pool
from redis import exceptions as redis_errors

from kondavo.redis_clients import connection_options

log = logging.getLogger(__name__)

# What an unreachable, restarting or stalled Redis raises (OSError: refused, reset, ...;
# TimeoutError is also asyncio's since Python 3.11).
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    redis_errors.ConnectionError, redis_errors.TimeoutError, OSError, TimeoutError)


class ChannelLayerUnavailable(Exception):
    """The channel layer's Redis could not be reached within the layer's
    ``operation_timeout``: the message was not sent."""


class ResilientRedisChannelLayer(RedisChannelLayer):
    """channels-redis' layer that survives Redis restarts (see the module docstring).

    Extra ``CONFIG`` keys: ``operation_timeout`` (s, bound on one send, group send, add or
    discard), ``connect_timeout`` (s), ``retry_delay`` / ``max_retry_delay`` (s, the
    receive poller's and the watch's backoff), ``watch_interval`` (s) and
    ``rejoin_message_type`` (None: no message; consumers then only see ``generation``).
    """

    def __init__(self, *, operation_timeout: float = 5.0, connect_timeout: float = 1.0,
                 retry_delay: float = 0.1, max_retry_delay: float = 2.0,
                 watch_interval: float = 1.0, rejoin_message_type: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.operation_timeout = operation_timeout
        self.connect_timeout = connect_timeout
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self.watch_interval = watch_interval
        self.rejoin_message_type = rejoin_message_type
        # Incremented each time this process's groups were re-joined after a data loss.
        self.generation = 0
        # group -> {local channel -> time added}: what to add again after a data loss.
        self._members: dict[str, dict[str, float]] = {}
        self._adds_since_prune = 0
        self._marker = f"{self.prefix}:alive:{self.client_prefix}"
        self._marked: set[int] = set()  # shards this process has set its marker on
        self._down: set[int] = set()  # shards whose last command failed
        self._watch: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None

    def consistent_hash(self, value: str) -> int:
        """channels-redis 4.3 picks the shard of a process channel (``name!suffix``) from
        its full name in ``send`` but from its process part (``name!``) in ``receive``: with
        several shards a direct send lands where nobody reads. Both use the process part."""
        if isinstance(value, str) and "!" in value:
            value = self.non_local_name(value)
        return int(super().consistent_hash(value))

    # ------------------------------------------------------------------ connections

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        for key, value in connection_options(asyncio=True,
                                             connect_timeout=self.connect_timeout).items():
            host.setdefault(key, value)
        return create_pool(host)

    def _outage(self, index: int | None, exc: BaseException) -> None:
        """Note a failed command on shard ``index`` (None: unknown): drop that shard's idle
        connections in this loop, and have the watch check the shards now."""
        shards = range(self.ring_size) if index is None else [index]
        first = not self._down.issuperset(shards)
        self._down.update(shards)
        if first:
            log.warning("channel layer: Redis shard %s unreachable (%s: %s); retrying",
                        "all" if index is None else index, type(exc).__name__, exc)
        try:
            layer = self._layers.get(asyncio.get_running_loop())
        except RuntimeError:
            layer = None
        if layer is not None:
            for i in shards:
                redis = layer._connections.get(i)
                if redis is not None:
                    task = asyncio.ensure_future(
                        redis.connection_pool.disconnect(inuse_connections=False))
                    task.add_done_callback(_ignore_result)
        self._poke()

    def _poke(self) -> None:
        """Wake the watch (from any thread or loop)."""
        watch, wake = self._watch, self._wake
        if watch is None or wake is None or watch.done():
            return
        loop = watch.get_loop()
        try:
            same = asyncio.get_running_loop() is loop
        except RuntimeError:
            same = False
        if same:
            wake.set()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    async def _bounded(self, coro: Any, index: int | None, what: str) -> Any:
        try:
            return await asyncio.wait_for(coro, self.operation_timeout)
        except OUTAGE_ERRORS as exc:
            self._outage(index, exc)
            raise ChannelLayerUnavailable(
                f"channel layer: {what} failed, Redis unreachable "
                f"({type(exc).__name__}: {exc})") from exc

    # ------------------------------------------------------------------ sending

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        index = self.consistent_hash(channel) if "!" in channel else None
        await self._bounded(super().send(channel, message), index, f"send to {channel}")

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self._bounded(super().group_send(group, message), self.consistent_hash(group),
                            f"group_send to {group}")

    # ------------------------------------------------------------------ receiving

    async def receive_single(self, channel: str) -> Any:
        """channels-redis' poll of Redis, retried through an outage instead of raised."""
        delay = self.retry_delay
        while True:
            try:
                return await super().receive_single(channel)
            except OUTAGE_ERRORS as exc:
                self._outage(self.consistent_hash(channel) if "!" in channel else None, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_retry_delay)

    async def _clean_receive_backup(self, index: int, channel: str) -> None:
        # A backup copy left by an outage is at worst delivered again (consumers skip the
        # versions they have seen) or lost with Redis' data.
        try:
            await super()._clean_receive_backup(index, channel)
        except OUTAGE_ERRORS as exc:
            self._outage(index, exc)

    # ------------------------------------------------------------------ groups

    def _is_local(self, channel: str) -> bool:
        return f"{self.client_prefix}!" in channel

    async def group_add(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)  # a bad name is refused before it is remembered
        self.require_valid_channel_name(channel)
        local = self._is_local(channel)
        if local:
            self._members.setdefault(group, {})[channel] = time.time()
            self._adds_since_prune += 1
            if self._adds_since_prune >= 1000:
                self._prune_members()
            self._ensure_watch()
        try:
            await self._bounded(super().group_add(group, channel),
                                self.consistent_hash(group), f"group_add to {group}")
        except ChannelLayerUnavailable:
            if not local:
                raise
            log.info("channel layer: %s joins %s when Redis is back", channel, group)

    async def group_discard(self, group: str, channel: str) -> None:
        members = self._members.get(group)
        if members is not None:
            members.pop(channel, None)
            if not members:
                del self._members[group]
        try:
            await self._bounded(super().group_discard(group, channel),
                                self.consistent_hash(group), f"group_discard from {group}")
        except ChannelLayerUnavailable:
            pass  # gone with Redis' data, or expires after group_expiry

    def _prune_members(self) -> None:
        """Forget memberships older than ``group_expiry`` (channels-redis drops them from
        the groups too), e.g. of a consumer that died without discarding its groups."""
        self._adds_since_prune = 0
        oldest = time.time() - self.group_expiry
        for group in list(self._members):
            members = self._members[group]
            for channel in [c for c, added in members.items() if added < oldest]:
                del members[channel]
            if not members:
                del self._members[group]

    async def flush(self) -> None:
        """channels-redis' flush (every message and group of the prefix): this process's
        memberships are gone too, not to be added again."""
        self._members.clear()
        await super().flush()

    # ------------------------------------------------------------------ the watch

    def _ensure_watch(self) -> None:
        """Run the watch in the running loop (the Daphne loop that serves the consumers;
        a new one if that loop changed, as between tests)."""
        loop = asyncio.get_running_loop()
        if self._watch is not None and not self._watch.done() \
                and self._watch.get_loop() is loop:
            return
        self._wake = asyncio.Event()
        self._watch = loop.create_task(self._watch_shards(), name="channel-layer-watch")

    async def _watch_shards(self) -> None:
        delay = self.retry_delay
        while True:
            assert self._wake is not None
            self._wake.clear()
            for index in range(self.ring_size):
                await self._check_shard(index)
            if self._down:
                wait = delay
                delay = min(delay * 2, self.max_retry_delay)
            else:
                wait, delay = self.watch_interval, self.retry_delay
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except TimeoutError:
                pass

    async def _check_shard(self, index: int) -> None:
        """One round trip: did the shard keep this process's marker? If not, join the
        process's groups on it again."""
        ttl = max(60, int(self.watch_interval * 30))
        try:
            connection = self.connection(index)
            pipe = connection.pipeline(transaction=False)
            pipe.exists(self._marker)
            pipe.set(self._marker, 1, ex=ttl)
            existed, _ = await asyncio.wait_for(pipe.execute(), self.operation_timeout)
            if not existed:
                rejoined = await asyncio.wait_for(self._rejoin(index),
                                                  self.operation_timeout * 5)
                if index in self._marked or index in self._down:
                    await self._rejoined(index, rejoined)
        except OUTAGE_ERRORS as exc:
            self._outage(index, exc)
            return
        except Exception:  # the watch must go on whatever happens
            log.exception("channel layer: checking Redis shard %s failed", index)
            return
        self._marked.add(index)
        if index in self._down:
            self._down.discard(index)
            log.warning("channel layer: Redis shard %s reachable again", index)

    async def _rejoin(self, index: int) -> set[str]:
        """Add this process's memberships of the groups on shard ``index`` again; returns
        the channels concerned."""
        self._prune_members()
        channels: set[str] = set()
        connection = self.connection(index)
        pipe = connection.pipeline(transaction=False)
        for group, members in list(self._members.items()):
            if self.consistent_hash(group) != index or not members:
                continue
            key = self._group_key(group)
            pipe.zadd(key, dict(members))
            pipe.expire(key, self.group_expiry)
            channels.update(members)
        if channels:
            await pipe.execute()
        return channels

    async def _rejoined(self, index: int, channels: set[str]) -> None:
        """Count a re-join and tell the channels, through Redis like any message (the
        process's poller may be blocked reading Redis: only a message there wakes it)."""
        self.generation += 1
        log.warning("channel layer: Redis shard %s lost its data; %d channels re-joined "
                    "their groups (generation %d)", index, len(channels), self.generation)
        if self.rejoin_message_type:
            notice = {"type": self.rejoin_message_type, "generation": self.generation}
            for channel in channels:
                try:
                    await self.send(channel, dict(notice))
                except (ChannelFull, ChannelLayerUnavailable):
                    pass  # it has messages waiting anyway, or its shard is down in turn


def _ignore_result(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
