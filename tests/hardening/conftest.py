"""Fixtures of the hardening tests: a Daphne of their own per module (its log is checked
for tracebacks). Helpers are in hardening_helpers.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from daphne_process import running_daphne


class DaphneUnderTest:
    def __init__(self, base_url: str, log_path: Path) -> None:
        self.base_url = base_url
        self.ws_url = base_url.replace("http://", "ws://")
        self.log_path = log_path
        self.log_start = log_path.stat().st_size if log_path.exists() else 0

    def log_since_start(self) -> str:
        with open(self.log_path, "rb") as f:
            f.seek(self.log_start)
            return f.read().decode("utf-8", "replace")


@pytest.fixture(scope="module")
def hardened_daphne(django_db_setup: None, artifacts_dir: Path,
                    request: pytest.FixtureRequest) -> Iterator[DaphneUnderTest]:
    """A Daphne on the test database for one test module; ``env`` overrides come from a
    module-level ``DAPHNE_ENV`` dict."""
    from django.db import connection

    env = {"KONDAVO_SERVE_STATIC": "true", "KONDAVO_BOT_INPROCESS": "true",
           **getattr(request.module, "DAPHNE_ENV", {})}
    log_path = artifacts_dir / f"daphne-{request.module.__name__.rsplit('.', 1)[-1]}.log"
    try:
        with running_daphne(connection.settings_dict, log_path, **env) as (_proc, base_url):
            yield DaphneUnderTest(base_url, log_path)
    except RuntimeError as exc:
        pytest.fail(str(exc))




@pytest.fixture(autouse=True)
def _daphne_done_before_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that used the module's Daphne: wait (at most 10 s) until the Daphne has
    seen every socket close and none of its database sessions is in the middle of work, so
    the test database's flush (TRUNCATE) does not deadlock with a closing socket's queries.
    Torn down before pytest-django's flush (plugin fixtures are set up first)."""
    yield
    if "hardened_daphne" not in request.fixturenames:
        return
    import time

    from django.db import connection

    daphne: DaphneUnderTest = request.getfixturevalue("hardened_daphne")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        log = daphne.log_since_start()
        closed = log.count('"WSDISCONNECT ') >= log.count('"WSCONNECT ')
        busy = 0
        if closed and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid()"
                    " AND state IN ('active', 'idle in transaction')")
                busy = cursor.fetchone()[0]
        if closed and not busy:
            return
        time.sleep(0.05)
