"""The check psycopg's connection pool runs on a connection as it hands it out.

psycopg_pool's own ``check_connection`` is an empty round trip to PostgreSQL on every
checkout: after a restart the dead connections are dropped and replaced before a request
gets one. But a Daphne takes a connection for every move and every batch of heartbeats,
so that was one more round trip per move (8% of a Daphne's samples in the 1,000-game load
run). ``check_unless_fresh`` checks a connection only when it has not been handed out for
``FRESH_SECONDS``: one that was just in use is known good (a connection that failed, as in
a restart, is in a bad state and the pool discards it when it comes back instead of handing
it out again). So an idle pool is still checked after a restart, and a busy one pays no
round trip.

Django builds the pool itself and hands it psycopg_pool's check when ``CONN_HEALTH_CHECKS``
is on (a ``check`` among the pool options would be passed twice), so the settings turn that
off and ``install`` (from the games app's ``ready``) gives each pool this check.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

FRESH_SECONDS = 1.0

_handed_out: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def check_unless_fresh(conn: Any) -> None:
    """The pool's ``check``: psycopg_pool's round trip unless ``conn`` was handed out
    less than ``FRESH_SECONDS`` ago. Raises what the round trip raises (the pool then
    replaces the connection)."""
    now = time.monotonic()
    with _lock:
        last = _handed_out.get(conn)
        _handed_out[conn] = now
    if last is not None and now - last < FRESH_SECONDS:
        return
    from psycopg_pool import ConnectionPool

    try:
        ConnectionPool.check_connection(conn)
    except Exception:
        with _lock:
            _handed_out.pop(conn, None)
        raise


def install() -> None:
    """Give the connection pool of every PostgreSQL database with one this check (the pools
    are Django's, shared by the process's threads, created here unopened if need be)."""
    from django.db import connections

    for alias in connections:
        pool = getattr(connections[alias], "pool", None)
        if pool is not None and hasattr(pool, "_check"):
            pool._check = check_unless_fresh
