"""Socket discipline: what one client may cost the live core, checked before any real work.

Three layers, cheapest first:

- ``FrameBudget`` (per socket, this process's memory, O(1) per frame): ``KONDAVO_WS_RATE``
  frames a second with a burst of ``KONDAVO_WS_BURST``. A frame over the budget is refused
  without being parsed; the first refusal of a burst is answered with one ``rate_limited``
  error frame, the next ones are dropped silently. A socket that keeps sending over its
  budget (``KONDAVO_WS_FLOOD_FRAMES`` refused frames, replenished at a tenth of the frame
  rate) is a flood: it is closed with code ``CLOSE_FLOOD`` (4008, "policy violation") and
  its owner cools down.
- ``ConnectGate`` (per process, memory): socket openings per owner, a token bucket
  (``KONDAVO_WS_CONNECT_RATE`` a second, burst ``KONDAVO_WS_CONNECT_BURST``). A reconnect
  storm is refused at the handshake (HTTP 403, ``KONDAVO_WS_REFUSE_DELAY`` seconds late)
  by ``ConnectGateMiddleware``, before the session, the router or a consumer.
- ``SocketRegistry`` (shared by every Daphne: Redis when ``REDIS_URL`` is set, else this
  process's memory): the cool-downs, and the live sockets per owner and per address, each
  with an expiry refreshed by the socket's heartbeats (a killed Daphne's sockets expire by
  themselves). Caps: ``KONDAVO_WS_MAX_PER_PLAYER`` sockets of one player (a guest's session
  or an account), ``KONDAVO_WS_MAX_ANON_PER_IP`` sockets without a player from one address,
  ``KONDAVO_WS_MAX_PER_IP`` sockets in all from one address. A socket over a cap, or whose
  owner is cooling down, is closed with ``CLOSE_REFUSED`` (4029) after an ``error`` frame
  saying why.

The *owner* of a socket is its player when the session has one (so a school behind one
address is not punished for one pupil's flood), else its address (the trusted client
address of ``kondavo.proxy``). Every limit is a setting; 0 turns a cap off.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings

from kondavo.limits import address_key
from kondavo.middleware import LateAnswers
from kondavo.redis_clients import StoreForSettings

log = logging.getLogger(__name__)

# Daphne (autobahn) lets the application send only 1000 and 3000-4999.
CLOSE_TOO_LARGE = 4009  # mirrors 1009 "message too big"
CLOSE_FLOOD = 4008  # mirrors 1008 "policy violation"
CLOSE_REFUSED = 4029  # mirrors HTTP 429: too many sockets, or cooling down

KEY_PREFIX = "kondavo:ws:"


def _setting(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


# What ``FrameBudget.admit`` says of one frame.
ACCEPT = "accept"
REFUSE = "refuse"  # over budget: answer with one error frame
DROP = "drop"  # over budget again in the same burst: no answer at all
FLOOD = "flood"  # the socket floods: close it


class FrameBudget:
    """The frame budget of one socket (see the module docstring)."""

    __slots__ = ("frames", "strikes", "answered", "flooded")

    def __init__(self) -> None:
        rate = _setting("KONDAVO_WS_RATE", 20)
        self.frames = TokenBucket(rate, _setting("KONDAVO_WS_BURST", 40))
        flood = _setting("KONDAVO_WS_FLOOD_FRAMES", 60)
        self.strikes = TokenBucket(max(rate / 10, 0.1), flood) if flood > 0 else None
        self.answered = False  # this burst's refusal has had its error frame
        self.flooded = False  # said FLOOD once: every later frame is dropped

    def admit(self) -> str:
        if self.flooded:
            return DROP
        if self.frames.take():
            self.answered = False
            return ACCEPT
        if self.strikes is not None and not self.strikes.take():
            self.flooded = True
            return FLOOD
        if self.answered:
            return DROP
        self.answered = True
        return REFUSE


# The key of Daphne's ``websocket.receive`` messages that carries the protocol's verdict.
VERDICT_KEY = "kondavo_budget"


def guard_daphne() -> bool:
    """Spend each socket's frame budget inside Daphne's websocket protocol, as a frame is
    parsed and before it is queued for the application.

    Daphne queues every frame it reads for the consumer without limit, and a flooding
    client makes it parse thousands of frames per turn of the event loop while the consumer
    handles one: the consumer's own check comes far too late. Here a frame over the budget
    is dropped at once (O(1), never queued); the consumer gets only the frames within the
    budget, the first refused frame of a burst (to answer it with ``rate_limited``) and the
    flood verdict (to answer ``flooding``, close with 4008 and cool the owner down), each
    marked with ``VERDICT_KEY`` so it does not spend the budget a second time. Consumers
    served some other way (another ASGI server, tests) check the same budget themselves.
    Returns False when Daphne is not installed."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:
        return False
    if getattr(WebSocketProtocol, "kondavo_guarded", False):
        return True

    def on_message(self: Any, payload: bytes, is_binary: bool) -> None:
        if self.muted or not hasattr(self, "application_queue"):
            return
        budget = getattr(self, "kondavo_budget", None)
        if budget is None:
            budget = self.kondavo_budget = FrameBudget()
        verdict = budget.admit()
        if verdict == DROP:
            return
        self.last_ping = time.time()
        if verdict == FLOOD:
            # The frames still queued are the flooder's: drop them, so the consumer gets
            # the verdict next (it answers, cools the owner down); close with 4008 and stop
            # reading: parsing what the client keeps sending is the cost of a flood.
            queue = self.application_queue
            kept = []
            while not queue.empty():
                message = queue.get_nowait()
                if message.get("type") != "websocket.receive":
                    kept.append(message)
            for message in kept:
                queue.put_nowait(message)
            self.application_queue.put_nowait(
                {"type": "websocket.receive", "text": "", VERDICT_KEY: verdict})
            self.sendClose(code=CLOSE_FLOOD, reason="flooding")
            transport = getattr(self, "transport", None)
            if transport is not None:
                transport.pauseProducing()
                from twisted.internet import reactor

                reactor.callLater(2.0, self.dropConnection, abort=True)  # type: ignore[attr-defined]
        elif verdict != ACCEPT:
            self.application_queue.put_nowait(
                {"type": "websocket.receive", "text": "", VERDICT_KEY: verdict})
        elif is_binary:
            self.application_queue.put_nowait(
                {"type": "websocket.receive", "bytes": payload, VERDICT_KEY: verdict})
        else:
            self.application_queue.put_nowait(
                {"type": "websocket.receive", "text": payload.decode("utf8"),
                 VERDICT_KEY: verdict})

    WebSocketProtocol.onMessage = on_message
    WebSocketProtocol.kondavo_guarded = True

    # A websocket's scope carries its socket's file descriptor (SOCKET_FD_KEY), so a
    # seated player's socket can be served first (prioritize_socket).
    from daphne.server import Server

    create_application = Server.create_application

    def with_socket_fd(self: Any, protocol: Any, scope: dict[str, Any]) -> Any:
        if scope.get("type") == "websocket":
            try:
                scope[SOCKET_FD_KEY] = int(protocol.transport.fileno())
            except (AttributeError, TypeError, ValueError, OSError):
                pass
        return create_application(self, protocol, scope)

    Server.create_application = with_socket_fd
    return True


class PlayersFirst:
    """The event loop's epoll object with the seated players' sockets served first and the
    others a slice at a time.

    asyncio asks epoll for every ready socket and runs all their callbacks before anything
    else, so when 900 spectators close in the same millisecond, a player's move waits
    behind all 900 close handshakes at every step of its way through the loop. Here the
    players' sockets (``prioritize``) live in an epoll set of their own, read first at
    every turn and itself registered in the main set (a turn that waits wakes for a
    player's socket); the main set is asked for at most ``cap`` ready sockets a turn.
    Epoll is level-triggered and its ready list round-robin (a socket reported and still
    ready goes to the back), so every socket is served in turn, a burst in slices, with
    the players' reads and the callbacks already queued (a move's next step) between
    the slices."""

    def __init__(self, epoll: Any, cap: int) -> None:
        import select

        self._main = epoll
        self._first = select.epoll()
        self._first_fd = self._first.fileno()
        self._main.register(self._first_fd, select.EPOLLIN)
        self._prior: set[int] = set()  # the sockets in the players' set
        self.cap = cap

    def register(self, fd: int, events: int) -> None:
        if fd in self._prior:  # a number reused after a close that skipped unregister
            self._prior.discard(fd)
            try:
                self._first.unregister(fd)
            except OSError:
                pass
        self._main.register(fd, events)

    def modify(self, fd: int, events: int) -> None:
        (self._first if fd in self._prior else self._main).modify(fd, events)

    def unregister(self, fd: int) -> None:
        if fd in self._prior:
            self._prior.discard(fd)
            self._first.unregister(fd)
        else:
            self._main.unregister(fd)

    def prioritize(self, fd: int, events: int) -> None:
        """Serve this socket, registered for ``events``, first from now on (until it is
        unregistered)."""
        if fd not in self._prior:
            self._main.unregister(fd)
            self._first.register(fd, events)
            self._prior.add(fd)

    def poll(self, timeout: float = -1, maxevents: int = -1) -> list[tuple[int, int]]:
        # The players' set is read at every turn, not only when the main set reports it:
        # behind more than ``cap`` ready sockets, its own turn in the main set could come
        # several turns late.
        first: list[tuple[int, int]] = self._first.poll(0) if self._prior else []
        rest: list[tuple[int, int]] = self._main.poll(0 if first else timeout, self.cap + 1)
        for i, (fd, _) in enumerate(rest):
            if fd == self._first_fd:
                del rest[i]
                if not first:  # woken by a player's socket while waiting
                    first = self._first.poll(0)
                break
        return first + rest

    def close(self) -> None:
        self._first.close()
        self._main.close()

    def fileno(self) -> int:
        return int(self._main.fileno())


def players_first(loop: Any = None) -> bool:
    """Give ``loop`` (without one, Daphne's, when this process runs under Daphne) a
    ``PlayersFirst`` epoll serving ``KONDAVO_LOOP_SOCKETS_PER_TURN`` other sockets a turn (0
    leaves the loop as it is). False when there is no epoll-based loop to change."""
    import selectors
    import sys

    cap = int(_setting("KONDAVO_LOOP_SOCKETS_PER_TURN", 32))
    if loop is None:
        loop = getattr(sys.modules.get("daphne.server"), "twisted_loop", None)
    selector = getattr(loop, "_selector", None)
    if cap <= 0 or not isinstance(selector, selectors.EpollSelector):
        return False
    inner = selector._selector  # type: ignore[attr-defined]
    if isinstance(inner, PlayersFirst):
        inner.cap = cap
    else:
        selector._selector = PlayersFirst(inner, cap)  # type: ignore[attr-defined]
    return True


SOCKET_FD_KEY = "kondavo.socket_fd"  # the socket's file descriptor, in a websocket's scope


def prioritize_fd(fd: Any) -> bool:
    """Serve this socket first on the running event loop: see ``PlayersFirst``. False when
    the loop does not allow it or ``fd`` is not one of its sockets."""
    import asyncio
    import select
    import selectors

    selector = getattr(asyncio.get_running_loop(), "_selector", None)
    inner = getattr(selector, "_selector", None)
    if not isinstance(fd, int) or not isinstance(inner, PlayersFirst):
        return False
    key = selector.get_map().get(fd)  # type: ignore[union-attr]
    if key is None:
        return False
    inner.prioritize(fd, (select.EPOLLIN if key.events & selectors.EVENT_READ else 0)
                     | (select.EPOLLOUT if key.events & selectors.EVENT_WRITE else 0))
    return True


def prioritize_socket(scope: dict[str, Any]) -> bool:
    """Serve this websocket (a seated player's) first on its event loop."""
    return prioritize_fd(scope.get(SOCKET_FD_KEY))


class _LazyText:
    """A debug log argument formatted only if the line is written: ``str()`` (or a format
    spec) calls ``fn(*args, **kwargs)`` then."""

    __slots__ = ("fn", "args", "kwargs")

    def __init__(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def __str__(self) -> str:
        return str(self.fn(*self.args, **self.kwargs))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


# autobahn's helpers that build debug log arguments, by the modules Daphne runs through:
# ``pformat`` of the whole configuration at every opening, ``hltype``/``hlval`` (qualified
# names and values styled by click) at every frame sent and every close.
_LAZY_AUTOBAHN = {
    "autobahn.websocket.protocol": ("pformat", "hltype", "hlval"),
    "autobahn.twisted.websocket": ("hltype", "hlval"),
}


def lazy_autobahn_debug() -> bool:
    """autobahn (Daphne's websocket protocol) formats the arguments of its debug log lines
    whether or not debug logging is on: it pretty-prints its whole configuration at every
    websocket opening (about 7% of a Daphne's CPU while a crowd opens sockets) and styles a
    qualified name and two values with click at every frame it sends and at every close
    (about 3 microseconds a frame; a tenth of the main loop's time while a crowd closes).
    Replace those helpers in autobahn's modules with ones that format only if the line is
    written. A call with arguments the log line would not take as they are (``pformat``
    with options) runs at once, as before. False when autobahn is not installed."""
    import importlib

    try:
        modules = {name: importlib.import_module(name) for name in _LAZY_AUTOBAHN}
    except ImportError:
        return False
    for name, helpers in _LAZY_AUTOBAHN.items():
        module = modules[name]
        for helper in helpers:
            real = getattr(module, helper, None)
            if real is None or getattr(real, "kondavo_lazy", False):
                continue
            setattr(module, helper, _lazy(real, eager_with_options=helper == "pformat"))
    return True


def _lazy(real: Any, eager_with_options: bool) -> Any:
    def lazy(*args: Any, **kwargs: Any) -> Any:
        if eager_with_options and (len(args) > 1 or kwargs):
            return real(*args, **kwargs)
        return _LazyText(real, args, kwargs)

    lazy.kondavo_lazy = True  # type: ignore[attr-defined]
    lazy.__wrapped__ = real  # type: ignore[attr-defined]
    return lazy


class ConnectGate:
    """Socket openings per owner in this process: a bounded table of token buckets."""

    def __init__(self, size: int = 50_000) -> None:
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._size = size

    def allow(self, owner: str) -> bool:
        rate = _setting("KONDAVO_WS_CONNECT_RATE", 5)
        if rate <= 0:
            return True
        bucket = self._buckets.get(owner)
        if bucket is None:
            bucket = TokenBucket(rate, _setting("KONDAVO_WS_CONNECT_BURST", 60))
            self._buckets[owner] = bucket
            if len(self._buckets) > self._size:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(owner)
        return bucket.take()


connect_gate = ConnectGate()


class ConnectGateMiddleware:
    """The opening gate as the first thing a websocket meets (just inside the trusted
    address, ``kondavo.proxy``): a refused opening gets its HTTP 403 before the session,
    the router or a consumer exist. The 403 comes ``KONDAVO_WS_REFUSE_DELAY`` seconds late:
    a client that retries as soon as it is refused retries at that pace instead of as fast
    as the handshakes go (each refused handshake still costs the server's HTTP and
    websocket parsing). At most ``KONDAVO_WS_REFUSE_HELD`` refusals wait at once in a
    process; beyond, the 403 is immediate. An honest page never meets the gate."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.late = LateAnswers("KONDAVO_WS_REFUSE_DELAY", "KONDAVO_WS_REFUSE_HELD")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        if connect_gate.allow(owner_of(scope, None).address):
            return await self.app(scope, receive, send)
        await receive()  # websocket.connect
        if self.late.reserve():
            await self.late.wait()
        await send({"type": "websocket.close", "code": 1000})  # before accept: a 403


@dataclass(frozen=True, slots=True)
class SocketOwner:
    """Who a socket belongs to, for the caps: its player (if any) and its address."""

    address: str
    player_id: int | None

    @property
    def key(self) -> str:
        return f"player:{self.player_id}" if self.player_id is not None else f"ip:{self.address}"


def owner_of(scope: dict[str, Any], player_id: int | None) -> SocketOwner:
    """The owner of a socket; its address as per-address limits count it (an IPv6
    address by its /64: ``kondavo.limits.address_key``)."""
    client = scope.get("client") or ("0.0.0.0", 0)
    return SocketOwner(address=address_key(str(client[0])), player_id=player_id)


def socket_ttl() -> float:
    """How long a registered socket counts without a refresh (heartbeats refresh it)."""
    return _setting("KONDAVO_WS_SOCKET_TTL_SECONDS", 90)


def refresh_every() -> float:
    return socket_ttl() / 3


def _caps(owner: SocketOwner) -> list[tuple[str, int]]:
    """The (registry key, cap) pairs a socket of ``owner`` counts against."""
    caps: list[tuple[str, int]] = []
    if owner.player_id is not None:
        caps.append((f"player:{owner.player_id}", int(_setting("KONDAVO_WS_MAX_PER_PLAYER", 20))))
    else:
        caps.append((f"anon:{owner.address}", int(_setting("KONDAVO_WS_MAX_ANON_PER_IP", 100))))
    caps.append((f"ip:{owner.address}", int(_setting("KONDAVO_WS_MAX_PER_IP", 1000))))
    return [(key, cap) for key, cap in caps if cap > 0]


class Refused(Exception):
    """A socket the registry will not admit; ``message`` says why (for the error frame)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RegistryStore(Protocol):
    def cooling(self, key: str, now: float) -> bool: ...

    def cool(self, key: str, until: float) -> None: ...

    def add(self, caps: list[tuple[str, int]], socket_id: str, expires: float,
            now: float) -> str | None: ...

    def refresh(self, keys: list[str], socket_id: str, expires: float) -> None: ...

    def remove(self, keys: list[str], socket_id: str) -> None: ...


class MemoryRegistry:
    """The embedded mode's registry: one process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: dict[str, dict[str, float]] = {}
        self._cool: dict[str, float] = {}

    def cooling(self, key: str, now: float) -> bool:
        with self._lock:
            until = self._cool.get(key)
            if until is not None and until <= now:
                del self._cool[key]
                until = None
            return until is not None

    def cool(self, key: str, until: float) -> None:
        with self._lock:
            self._cool[key] = max(until, self._cool.get(key, 0.0))

    def add(self, caps: list[tuple[str, int]], socket_id: str, expires: float,
            now: float) -> str | None:
        with self._lock:
            for key, cap in caps:
                members = self._sets.setdefault(key, {})
                for member in [m for m, e in members.items() if e <= now]:
                    del members[member]
                if len(members) >= cap:
                    return key
            for key, _cap in caps:
                self._sets[key][socket_id] = expires
            return None

    def refresh(self, keys: list[str], socket_id: str, expires: float) -> None:
        with self._lock:
            for key in keys:
                members = self._sets.get(key)
                if members is not None and socket_id in members:
                    members[socket_id] = expires

    def remove(self, keys: list[str], socket_id: str) -> None:
        with self._lock:
            for key in keys:
                members = self._sets.get(key)
                if members is not None:
                    members.pop(socket_id, None)
                    if not members:
                        del self._sets[key]


# Admits a socket under every cap at once, or names the first cap it is over.
# KEYS: the capped sets; ARGV: socket id, expiry, now, then one cap per key.
_ADD_SCRIPT = """
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[3])
  if redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then return key end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[1])
  redis.call('EXPIREAT', key, math.ceil(tonumber(ARGV[2])) + 1)
end
return false
"""


class RedisRegistry:
    """The registry shared by every Daphne: a sorted set per key (socket id -> expiry)."""

    def __init__(self, url: str) -> None:
        import redis

        from kondavo.redis_clients import DEFAULT_SOCKET_TIMEOUT, connection_options

        self._redis = redis.Redis.from_url(url, socket_timeout=DEFAULT_SOCKET_TIMEOUT,
                                           health_check_interval=30, **connection_options())
        self._add = self._redis.register_script(_ADD_SCRIPT)

    def cooling(self, key: str, now: float) -> bool:
        return bool(self._redis.exists(KEY_PREFIX + "cool:" + key))

    def cool(self, key: str, until: float) -> None:
        seconds = max(1, int(until - time.time() + 0.999))
        self._redis.set(KEY_PREFIX + "cool:" + key, "1", ex=seconds)

    def add(self, caps: list[tuple[str, int]], socket_id: str, expires: float,
            now: float) -> str | None:
        keys = [KEY_PREFIX + key for key, _cap in caps]
        over = self._add(keys=keys, args=[socket_id, expires, now, *[cap for _k, cap in caps]])
        if not over:
            return None
        over = over.decode() if isinstance(over, bytes) else str(over)
        return over[len(KEY_PREFIX):]

    def refresh(self, keys: list[str], socket_id: str, expires: float) -> None:
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.zadd(KEY_PREFIX + key, {socket_id: expires}, xx=True)
            pipe.expireat(KEY_PREFIX + key, int(expires) + 1)
        pipe.execute()

    def remove(self, keys: list[str], socket_id: str) -> None:
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.zrem(KEY_PREFIX + key, socket_id)
        pipe.execute()


# The registry for the current settings (Redis when ``REDIS_URL`` is set).
registry: StoreForSettings[RegistryStore] = StoreForSettings(RedisRegistry, MemoryRegistry)


_CAP_MESSAGES = {
    "player": "too many open connections for this player: close a tab and reload",
    "anon": "too many open connections from your address without a session",
    "ip": "too many open connections from your address",
}


def socket_admit(owner: SocketOwner, socket_id: str) -> list[str]:
    """Register a new socket of ``owner``: the registry keys it counts under (for
    ``socket_refresh`` and ``socket_release``). Raises ``Refused`` when the owner is cooling
    down or a cap is full. A registry that does not answer admits (logged): the caps are a
    defence, never a reason to turn players away."""
    now = time.time()
    caps = _caps(owner)
    try:
        if registry().cooling(owner.key, now):
            raise Refused("cooling_down", "this connection sent too many frames: wait a minute "
                                          "before reconnecting")
        over = registry().add(caps, socket_id, now + socket_ttl(), now)
    except Refused:
        raise
    except Exception:
        log.warning("socket registry unavailable: socket admitted", exc_info=True)
        return []
    if over is not None:
        raise Refused("too_many_sockets", _CAP_MESSAGES[over.split(":", 1)[0]])
    return [key for key, _cap in caps]


def socket_refresh(keys: list[str], socket_id: str) -> None:
    if not keys:
        return
    try:
        registry().refresh(keys, socket_id, time.time() + socket_ttl())
    except Exception:
        log.warning("socket registry unavailable", exc_info=True)


def socket_release(keys: list[str], socket_id: str) -> None:
    if not keys:
        return
    try:
        registry().remove(keys, socket_id)
    except Exception:
        log.warning("socket registry unavailable", exc_info=True)


def cool_down(owner: SocketOwner) -> None:
    """``owner`` flooded: its new sockets are refused for ``KONDAVO_WS_COOLDOWN_SECONDS``."""
    seconds = _setting("KONDAVO_WS_COOLDOWN_SECONDS", 60)
    if seconds <= 0:
        return
    log.warning("socket flood from %s: cooling down for %.0f s", owner.key, seconds)
    try:
        registry().cool(owner.key, time.time() + seconds)
    except Exception:
        log.warning("socket registry unavailable", exc_info=True)
