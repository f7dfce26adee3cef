"""Issue 9 item 3: bounded database connections. A real Daphne on real PostgreSQL with a
pool of 4 connections answers a burst of 250 concurrent requests with 0 errors, and never
holds more than its pool's connections."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hardening_helpers import make_guest
from http_burst import ConnectionWatch, burst

from kondavo.games.services import game_create
from kondavo.settings.base import parse_database_url

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

POOL = 4
DAPHNE_ENV = {"DB_POOL": "true", "DB_POOL_MIN_SIZE": "1", "DB_POOL_MAX_SIZE": str(POOL),
              "DB_POOL_TIMEOUT": "60"}


def test_pool_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgres://k@127.0.0.1:5432/kondavo"
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "7")
    monkeypatch.setenv("DB_POOL_TIMEOUT", "12")
    db = parse_database_url(url)
    assert db["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 7, "timeout": 12.0}
    assert db["CONN_MAX_AGE"] == 0  # Django refuses a pool with persistent connections
    monkeypatch.setenv("DB_POOL", "false")
    monkeypatch.setenv("DB_CONN_MAX_AGE", "60")
    db = parse_database_url(url)
    assert "pool" not in db["OPTIONS"] and db["CONN_MAX_AGE"] == 60
    monkeypatch.setenv("DB_POOL", "true")
    monkeypatch.setenv("DB_POOL_MIN_SIZE", "9")
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        parse_database_url(url)


@pytest.fixture
def postgres() -> None:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.skip("needs PostgreSQL (DATABASE_URL), as tests/run_with_services.sh sets")


def test_a_burst_of_250_requests_waits_for_the_pool_without_errors(
        postgres: None, hardened_daphne: Any) -> None:
    from django.db import connection

    games = [game_create(creator=make_guest(), opponent=make_guest(), ruleset="international")
             for _ in range(5)]
    paths = []
    for i in range(250):  # pages and JSON that each read the database
        kind = i % 3
        if kind == 0:
            paths.append(f"/games/{games[i % 5].id}/state.json")
        elif kind == 1:
            paths.append("/leaderboards/international/")
        else:
            paths.append(f"/profile/{games[i % 5].white.name}/")
    with ConnectionWatch(connection.settings_dict) as watch:
        before = watch.count()
        statuses, seconds = burst(hardened_daphne.base_url, paths)
    assert statuses == {200: 250}, statuses
    # The pool bounds the Daphne's connections: the watcher's and this test's own come on top.
    assert watch.peak - before <= POOL, (watch.peak, before)
    log = hardened_daphne.log_since_start()
    assert "too many clients" not in log and "Traceback" not in log, log[-3000:]
    print(f"250 concurrent GETs: {dict(statuses)} in {seconds:.2f} s, "
          f"peak connections {watch.peak} (before {before}, pool {POOL})")


def test_the_pool_hands_out_a_quiet_connection_without_a_round_trip_and_replaces_a_dead_one(
        postgres: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """kondavo.dbpool's check on real PostgreSQL: a connection in recent use whose socket is
    quiet costs no round trip; one whose server end went away (as in a restart) is noticed
    from its socket, fails psycopg_pool's round trip and is replaced, so the query after it
    works; a connection not handed out for ``QUIET_SECONDS`` gets the round trip."""
    import time

    import psycopg
    from django.db import connections
    from psycopg_pool import ConnectionPool

    from kondavo import dbpool

    settings_dict = dict(connections["default"].settings_dict)
    settings_dict.update(parse_database_url(os.environ["DATABASE_URL"]))
    settings_dict["OPTIONS"]["pool"] = {"min_size": 1, "max_size": 1, "timeout": 10.0}
    connections.settings["pooled-check"] = settings_dict
    wrapper = connections["pooled-check"]
    round_trips: list[int] = []
    real_check = ConnectionPool.check_connection

    def counting_check(conn: Any) -> None:
        round_trips.append(conn.info.backend_pid)
        real_check(conn)

    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(counting_check))
    try:
        dbpool.install()
        pool = wrapper.pool
        assert isinstance(pool, ConnectionPool) and pool._check is dbpool.check_quiet_socket
        pool.open(wait=True)

        def use() -> int:
            with pool.connection() as conn:
                return conn.execute("SELECT pg_backend_pid()").fetchone()[0]

        first = use()  # never handed out before: checked
        assert round_trips == [first]
        for _ in range(5):  # in recent use, socket quiet: no round trip
            assert use() == first
        assert round_trips == [first]

        with psycopg.connect(**wrapper.get_connection_params(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [first])
        time.sleep(0.5)  # the server's FATAL message and end of file reach the socket
        second = use()  # the dead one failed its round trip and was replaced
        assert second != first
        assert round_trips[:2] == [first, first], round_trips

        count = len(round_trips)
        monkeypatch.setattr(dbpool.time, "monotonic",
                            lambda: time.monotonic_ns() / 1e9 + dbpool.QUIET_SECONDS + 1)
        assert use() == second  # unused for longer than QUIET_SECONDS: checked again
        assert round_trips[count:] == [second]
    finally:
        wrapper.close_pool()
        del connections.settings["pooled-check"]
