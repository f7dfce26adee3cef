"""The check psycopg's connection pool runs on a connection as it hands it out.

Django gives the pool psycopg_pool's ``check_connection`` (``CONN_HEALTH_CHECKS``): an
empty round trip to PostgreSQL on every checkout, so that after a restart the dead
connections are dropped and replaced before a request gets one. A Daphne takes a connection
for every move and every batch of heartbeats, so that was one more round trip per move (8%
of a Daphne's samples in the 1,000-game load run, bench/results/live.md).

``check_quiet_socket`` asks the operating system instead: a PostgreSQL server that shuts a
connection down (a restart, ``pg_terminate_backend``, ``idle_session_timeout``) sends its
``FATAL`` message and closes the socket, so the client's end of an idle connection becomes
readable. A connection whose socket has nothing to read, that is not broken and not
inside a transaction, and that was handed out less than ``QUIET_SECONDS`` ago is handed out
without a round trip; any other gets psycopg_pool's round trip, which raises for a dead
one (the pool then replaces it). The long-idle round trip covers what a socket cannot show:
a peer gone without closing (a network drop, a firewall forgetting the connection).

Checking only connections not used for a second (without looking at the socket) was tried
first: across a PostgreSQL restart it handed out connections used just before the restart
and lost a probe move. Looking at the socket catches exactly those.

``install`` (from the games app's ``ready``) gives each of Django's pools this check in place
of the one Django passed (the pools are Django's; ``check`` cannot be given in the pool
options because Django passes its own as well).
"""

from __future__ import annotations

import select
import threading
import time
import weakref
from typing import Any

QUIET_SECONDS = 30.0

_handed_out: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _socket_is_quiet(conn: Any) -> bool:
    """True when the connection is open, idle, and its socket has nothing to read (no
    message from the server, no end of file): what a live idle connection looks like."""
    from psycopg import pq

    if conn.closed or conn.broken:
        return False
    if conn.info.transaction_status != pq.TransactionStatus.IDLE:
        return False
    try:
        poller = select.poll()  # not select.select: a Daphne's descriptors exceed 1,024
        poller.register(conn.fileno(), select.POLLIN | select.POLLPRI)
        return not poller.poll(0)
    except (OSError, ValueError):
        return False


def check_quiet_socket(conn: Any) -> None:
    """The pool's ``check``: no round trip for a connection handed out less than
    ``QUIET_SECONDS`` ago whose socket is quiet; psycopg_pool's round trip otherwise.
    Raises what the round trip raises (the pool then replaces the connection)."""
    now = time.monotonic()
    with _lock:
        last = _handed_out.get(conn)
        _handed_out[conn] = now
    if last is not None and now - last < QUIET_SECONDS and _socket_is_quiet(conn):
        return
    from psycopg_pool import ConnectionPool

    try:
        ConnectionPool.check_connection(conn)
    except Exception:
        with _lock:
            _handed_out.pop(conn, None)
        raise


def install() -> None:
    """Give the connection pool of every PostgreSQL database that has one this check (the
    pools are Django's, shared by the process's threads, created here unopened if need be).
    A pool Django built without checks (``CONN_HEALTH_CHECKS`` off) is left so."""
    from django.db import connections

    for alias in connections:
        pool = getattr(connections[alias], "pool", None)
        if pool is not None and getattr(pool, "_check", None) is not None:
            pool._check = check_quiet_socket
