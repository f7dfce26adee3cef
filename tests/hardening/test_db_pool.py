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


@pytest.mark.timing  # the peak is sampled every 20 ms: a closed backend lingers on a busy host
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
