"""The bus: group messages between web processes (Redis pub/sub), or inside one (embedded).

Every live message (a move's frames, a presence change, the lobby's seeks, a notification)
is addressed to a *group* (``game.<id>``, ``lobby``, ``player.<pk>``, ``notify.<pk>``) and
goes to each process that has a socket in that group. ``kondavo.games.events`` publishes;
``kondavo.games.hub`` subscribes, one subscription per group per process, and hands each
message to the process's sockets. The bus is that transport and nothing else.

- **RedisBus** (``KONDAVO_BUS_URLS``: ``CHANNEL_REDIS_URLS``, else ``REDIS_URL``): a group is
  a Redis pub/sub channel (``<prefix>:<group>``) on the shard its name hashes to (CRC-32
  modulo the number of URLs, so every process must list the same URLs in the same order).
  Publishing is one ``PUBLISH``; a process reads all its groups of a shard from one
  connection. A move costs Redis one command and each subscribed process one pushed
  message (channels-redis' list-based layer, used before, cost about 12 commands a move).
  Pub/sub keeps nothing: a message published while a process is disconnected is lost to
  it. So a subscription that loses its connection (a Redis restart) connects again with a
  growing pause, subscribes to its groups again and then yields ``RECONNECTED``: the hub
  tells its sockets to resync. A publish that fails raises (``BusUnavailable`` after
  ``operation_timeout``); the publisher tries again for a while (events.Publisher).
- **LocalBus** (no Redis: the embedded mode, one process): a publish is put on the queue of
  every subscription of the process with that group, through its event loop (thread-safe,
  never waits). Nothing can be lost.

``add`` returns once the subscription is in force (Redis confirmed it), so a consumer that
subscribes and then reads the game's state misses no event published after that read.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
import zlib
from typing import Any

import msgpack
from django.conf import settings
from redis import asyncio as aioredis
from redis import exceptions as redis_errors

log = logging.getLogger(__name__)

RECONNECTED = "bus.reconnected"
# What an unreachable, restarting or stalled Redis raises.
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    redis_errors.ConnectionError, redis_errors.TimeoutError, OSError, TimeoutError)


class BusUnavailable(Exception):
    """The bus's Redis did not take a message within ``operation_timeout``."""


def shard_of(group: str, shards: int) -> int:
    return zlib.crc32(group.encode()) % shards if shards > 1 else 0


def _pack(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


def _unpack(data: bytes) -> dict[str, Any]:
    message = msgpack.unpackb(data, raw=False)
    if not isinstance(message, dict):
        raise ValueError("a bus message must be a map")
    return message


class Subscription:
    """One event loop's groups on the bus. ``get`` returns the next message of any of
    them (a dict with its ``group``), or ``{"type": RECONNECTED}``."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        self.groups: set[str] = set()

    async def add(self, group: str) -> None:
        raise NotImplementedError

    async def discard(self, group: str) -> None:
        raise NotImplementedError

    async def get(self) -> dict[str, Any]:
        return await self.queue.get()

    async def close(self) -> None:
        self.groups.clear()


# --------------------------------------------------------------------------- in-process


class LocalSubscription(Subscription):
    def __init__(self, bus: LocalBus) -> None:
        super().__init__()
        self.bus = bus
        bus.subscriptions.add(self)

    async def add(self, group: str) -> None:
        self.groups.add(group)

    async def discard(self, group: str) -> None:
        self.groups.discard(group)

    def put(self, message: dict[str, Any]) -> None:
        try:
            on_loop = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self.queue.put_nowait(message)
        elif not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, message)
            except RuntimeError:  # closed meanwhile
                pass


class LocalBus:
    """The bus of one process (the embedded mode): no Redis, nothing to lose."""

    def __init__(self) -> None:
        self.subscriptions: weakref.WeakSet[LocalSubscription] = weakref.WeakSet()

    def subscribe(self) -> LocalSubscription:
        return LocalSubscription(self)

    async def publish(self, group: str, message: dict[str, Any]) -> None:
        self.publish_now(group, message)

    def publish_now(self, group: str, message: dict[str, Any]) -> None:
        """From any thread or loop: never waits."""
        for sub in list(self.subscriptions):
            if group in sub.groups:
                sub.put(message)

    def describe(self) -> str:
        return "in-process"


# --------------------------------------------------------------------------- Redis


def _serve_first(connection: Any) -> bool:
    """The event loop serves this pub/sub connection's socket before the crowd's
    (``kondavo.games.discipline.PlayersFirst``). redis-py keeps its stream writer private;
    without one (another client version), nothing changes."""
    from kondavo.games.discipline import prioritize_fd

    transport = getattr(getattr(connection, "_writer", None), "transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    return prioritize_fd(sock.fileno()) if sock is not None else False


class RedisSubscription(Subscription):
    """One pub/sub connection per shard, each read by its own task."""

    def __init__(self, bus: RedisBus) -> None:
        super().__init__()
        self.bus = bus
        n = len(bus.urls)
        self.pubsubs: list[Any] = [None] * n
        self.readers: list[asyncio.Task[None] | None] = [None] * n
        self.lost = [False] * n
        # One command at a time per connection: two first subscribes at once would each
        # open a connection, and only the second would be read.
        self.locks = [asyncio.Lock() for _ in range(n)]
        self.confirm: dict[bytes, asyncio.Future[None]] = {}
        self.served_first: list[Any] = [None] * n  # the connection each shard's is

    def _pubsub(self, shard: int) -> Any:
        ps = self.pubsubs[shard]
        if ps is None:
            ps = self.pubsubs[shard] = self.bus.client(shard, pubsub=True).pubsub()
        return ps

    async def add(self, group: str) -> None:
        channel = self.bus.channel(group)
        waiting = self.confirm.get(channel)
        if waiting is not None:  # another socket of this process is subscribing to it
            try:
                await asyncio.wait_for(asyncio.shield(waiting), self.bus.operation_timeout)
            except TimeoutError:
                pass
            return
        if group in self.groups:
            return
        self.groups.add(group)
        shard = shard_of(group, len(self.bus.urls))
        if self.lost[shard]:  # the reader subscribes everything again when it reconnects
            return
        done = self.loop.create_future()
        self.confirm[channel] = done
        try:
            try:
                async with self.locks[shard]:
                    await asyncio.wait_for(self._pubsub(shard).subscribe(channel),
                                           self.bus.operation_timeout)
                self._read(shard)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the reader reconnects and subscribes again
                log.warning("bus: could not subscribe to %s now (%r)", group, exc)
                self._lose(shard)
                return
            try:  # Redis answers in order: the confirmation comes unless the link is gone
                await asyncio.wait_for(asyncio.shield(done), self.bus.operation_timeout)
            except TimeoutError:  # a very busy process: the subscription still comes
                log.warning("bus: %s not confirmed within %g s", group,
                            self.bus.operation_timeout)
        finally:
            if self.confirm.get(channel) is done:
                del self.confirm[channel]
            if not done.done():
                done.set_result(None)

    async def discard(self, group: str) -> None:
        if group not in self.groups:
            return
        self.groups.discard(group)
        shard = shard_of(group, len(self.bus.urls))
        ps = self.pubsubs[shard]
        if ps is None or self.lost[shard]:
            return
        try:
            async with self.locks[shard]:
                await asyncio.wait_for(ps.unsubscribe(self.bus.channel(group)),
                                       self.bus.operation_timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a lost connection forgets its subscriptions anyway
            log.warning("bus: could not unsubscribe from %s (%r)", group, exc)
            self._lose(shard)

    def _read(self, shard: int) -> None:
        task = self.readers[shard]
        if task is None or task.done():
            self.readers[shard] = self.loop.create_task(self._reader(shard))

    def _lose(self, shard: int) -> None:
        """The shard's connection is gone or suspect: the reader starts again from a new
        one (and the hub resyncs its sockets once it is back)."""
        self.lost[shard] = True
        task = self.readers[shard]
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()  # its connection is dropped: a half-read reply does not matter
            self.readers[shard] = None
        self._read(shard)

    async def _reader(self, shard: int) -> None:
        pause = self.bus.retry_delay
        while True:
            try:
                if self.lost[shard]:
                    count = await self._resubscribe(shard)
                    log.warning("bus: shard %d is back; subscribed again to its %d groups",
                                shard, count)
                    pause = self.bus.retry_delay
                    self.queue.put_nowait({"type": RECONNECTED, "shard": shard})
                ps = self.pubsubs[shard]
                if ps is None or not ps.subscribed:
                    if not any(shard_of(g, len(self.bus.urls)) == shard for g in self.groups):
                        self.readers[shard] = None
                        return  # nothing to read on this shard; ``add`` starts a reader
                    await asyncio.sleep(0.05)  # a subscribe is on its way
                    continue
                if ps.connection is not self.served_first[shard]:
                    # Every move from another process arrives here: served before a crowd.
                    self.served_first[shard] = ps.connection
                    _serve_first(ps.connection)
                message = await ps.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self.lost[shard]:
                    log.warning("bus: shard %d connection lost (%r); reconnecting", shard, exc)
                self.lost[shard] = True
                await asyncio.sleep(pause)
                pause = min(pause * 2, self.bus.max_retry_delay)
                continue
            if message is not None:
                self._handle(message)

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "message":
            try:
                self.queue.put_nowait(_unpack(message["data"]))
            except Exception:
                log.exception("bus: a message could not be decoded")
        elif kind == "subscribe":
            done = self.confirm.get(message.get("channel", b""))
            if done is not None and not done.done():
                done.set_result(None)

    async def _resubscribe(self, shard: int) -> int:
        async with self.locks[shard]:
            old, self.pubsubs[shard] = self.pubsubs[shard], None
            if old is not None:
                try:
                    await old.aclose()
                except Exception:
                    pass
            channels = [self.bus.channel(g) for g in self.groups
                        if shard_of(g, len(self.bus.urls)) == shard]
            if channels:
                await asyncio.wait_for(self._pubsub(shard).subscribe(*channels),
                                       self.bus.operation_timeout)
            self.lost[shard] = False
            return len(channels)

    async def close(self) -> None:
        await super().close()
        for task in self.readers:
            if task is not None:
                task.cancel()
        for ps in self.pubsubs:
            if ps is not None:
                try:
                    await ps.aclose()
                except Exception:
                    pass


class RedisBus:
    """Redis pub/sub over ``urls`` (shards). Clients are made per event loop."""

    def __init__(self, urls: list[str], prefix: str, *, operation_timeout: float = 5.0,
                 retry_delay: float = 0.1, max_retry_delay: float = 2.0) -> None:
        if not urls:
            raise ValueError("RedisBus needs at least one Redis URL")
        self.urls = list(urls)
        self.prefix = prefix
        self.operation_timeout = operation_timeout
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[int, bool], Any]] = \
            weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def channel(self, group: str) -> bytes:
        return f"{self.prefix}:{group}".encode()

    def client(self, shard: int, *, pubsub: bool = False) -> Any:
        """This event loop's client of ``shard`` (pub/sub connections never time out a read:
        they wait for messages; outages show up as connection errors)."""
        from kondavo.redis_clients import connection_options

        loop = asyncio.get_running_loop()
        with self._lock:
            clients = self._clients.setdefault(loop, {})
            found = clients.get((shard, pubsub))
            if found is None:
                options = connection_options(asyncio=True)
                if pubsub:  # a lost connection must reach the reader: no silent retry
                    from redis.asyncio.retry import Retry
                    from redis.backoff import NoBackoff

                    options["retry"] = Retry(NoBackoff(), 0)
                    options["retry_on_error"] = []
                    options["socket_timeout"] = None
                else:
                    options["socket_timeout"] = self.operation_timeout
                found = clients[(shard, pubsub)] = aioredis.Redis.from_url(
                    self.urls[shard], **options)
            return found

    def subscribe(self) -> RedisSubscription:
        return RedisSubscription(self)

    async def publish(self, group: str, message: dict[str, Any]) -> None:
        shard = shard_of(group, len(self.urls))
        try:
            await asyncio.wait_for(
                self.client(shard).publish(self.channel(group), _pack(message)),
                self.operation_timeout)
        except TimeoutError as exc:
            raise BusUnavailable(f"shard {shard} did not answer in "
                                 f"{self.operation_timeout:g} s") from exc
        except OUTAGE_ERRORS as exc:
            raise BusUnavailable(f"shard {shard}: {exc}") from exc

    def describe(self) -> str:
        return f"Redis pub/sub on {len(self.urls)} shard(s)"


Bus = LocalBus | RedisBus
_bus: tuple[tuple[Any, ...], Bus] | None = None
_bus_lock = threading.Lock()


def bus() -> Bus:
    """The process's bus, from the settings (a new one when they change: tests)."""
    global _bus
    urls = tuple(getattr(settings, "KONDAVO_BUS_URLS", ()) or ())
    key = (urls, getattr(settings, "KONDAVO_BUS_PREFIX", "kondavo"),
           float(getattr(settings, "KONDAVO_BUS_TIMEOUT", 5.0)))
    with _bus_lock:
        if _bus is None or _bus[0] != key:
            made: Bus = (RedisBus(list(urls), key[1], operation_timeout=key[2]) if urls
                         else LocalBus())
            _bus = (key, made)
        return _bus[1]
