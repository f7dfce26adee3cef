"""How every Redis client of the site connects, so that a Redis restart costs a reconnect.

One set of redis-py connection options, used by the bus
(kondavo/games/bus.py), the Django cache (``caches_for``), the presence store
(kondavo/games/presence.py) and, in kombu's terms, the Celery broker
(``celery_settings_for``):

- a short connect timeout: a command during an outage fails in about a second, it never
  waits for the operating system's TCP timeout;
- one immediate retry, on a fresh connection, of a command that failed with a connection
  error or a timeout: a pooled connection whose server restarted fails once, and that
  first failure is hidden, so the first call after Redis is back succeeds;
- TCP keepalive: a connection whose server vanished without closing it (a host lost, a
  network cut) is found dead within about 25 s instead of hanging a blocking read.

``socket_timeout`` (a whole command) is each client's own: the bus's pub/sub connections wait
(no read timeout), the cache and presence use ``DEFAULT_SOCKET_TIMEOUT``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from redis import exceptions as redis_errors
from redis.backoff import ExponentialBackoff

T = TypeVar("T")

CONNECT_TIMEOUT = 1.0
DEFAULT_SOCKET_TIMEOUT = 2.0
RETRIES = 1

# A server gone without a word: probed after 10 s idle, then every 5 s, dropped after 3.
KEEPALIVE_OPTIONS: dict[int, int] = (
    {socket.TCP_KEEPIDLE: 10, socket.TCP_KEEPINTVL: 5, socket.TCP_KEEPCNT: 3}
    if hasattr(socket, "TCP_KEEPIDLE") else {})


def connection_options(*, asyncio: bool = False,
                       connect_timeout: float = CONNECT_TIMEOUT) -> dict[str, Any]:
    """redis-py keyword arguments for ``ConnectionPool.from_url`` / ``Redis.from_url``:
    ``asyncio=True`` for ``redis.asyncio`` (its own ``Retry`` class)."""
    if asyncio:
        from redis.asyncio.retry import Retry as AsyncRetry

        retry: Any = AsyncRetry(ExponentialBackoff(cap=0.05, base=0.01), RETRIES)
    else:
        from redis.retry import Retry

        retry = Retry(ExponentialBackoff(cap=0.05, base=0.01), RETRIES)
    options: dict[str, Any] = {
        "socket_connect_timeout": connect_timeout,
        "retry": retry,
        "retry_on_error": [redis_errors.ConnectionError, redis_errors.TimeoutError],
    }
    if KEEPALIVE_OPTIONS:
        options["socket_keepalive"] = True
        options["socket_keepalive_options"] = dict(KEEPALIVE_OPTIONS)
    return options


def kombu_transport_options() -> dict[str, Any]:
    """The same for kombu's Redis transport (the Celery broker), in its option names: the
    publisher of a web process reconnects at its first message after a restart."""
    options: dict[str, Any] = {
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "retry_on_timeout": True,
        "health_check_interval": 10,
    }
    if KEEPALIVE_OPTIONS:
        options["socket_keepalive"] = True
        options["socket_keepalive_options"] = dict(KEEPALIVE_OPTIONS)
    return options


class StoreForSettings(Generic[T]):
    """One store per ``REDIS_URL`` value, made on first use: ``redis_store(url)`` when the
    settings name a Redis server (shared by every process), else ``memory_store()`` (this
    process only, the embedded mode). Calling the object returns the current one."""

    def __init__(self, redis_store: Callable[[str], T], memory_store: Callable[[], T]) -> None:
        self._redis_store = redis_store
        self._memory_store = memory_store
        self._stores: dict[str, T] = {}
        self._lock = threading.Lock()

    def __call__(self) -> T:
        from django.conf import settings

        url = getattr(settings, "REDIS_URL", None) or ""
        found = self._stores.get(url)
        if found is None:
            with self._lock:
                found = self._stores.get(url)
                if found is None:
                    found = self._redis_store(url) if url else self._memory_store()
                    self._stores[url] = found
        return found

    def clear(self) -> None:
        """Forget the stores (tests)."""
        with self._lock:
            self._stores.clear()
