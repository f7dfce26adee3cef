"""Fixtures shared by the whole test suite.

- ``redis_url``: the REDIS_URL of the Redis started by tests/run_with_services.sh
  (skips when unset). ``celery_test_redis_url``: a separate Redis DB for Celery tests.
- ``daphne_server``: session-scoped real Daphne subprocess serving kondavo.asgi on a free
  loopback port, on the *test* database; yields its base URL (``http://127.0.0.1:PORT``).
  Data you create must be committed to be visible to it: use ``transactional_db``
  (or ``@pytest.mark.django_db(transaction=True)``), not ``db``.
- ``browser_type_launch_args``: pytest-playwright launches Debian's /usr/bin/chromium.
- ``artifacts_dir``: tests/artifacts/ (git-ignored) for screenshots and logs.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

REPO_DIR = Path(__file__).resolve().parent.parent
ARTIFACTS_DIR = REPO_DIR / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests using ``daphne_server`` get ``django_db(transaction=True)`` unless they say
    otherwise: it makes pytest-django create the test database (the subprocess must never
    see the real one) and makes the test's data visible to the subprocess."""
    for item in items:
        if "daphne_server" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "django_db"
        ):
            item.add_marker(pytest.mark.django_db(transaction=True))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def database_url_for(settings_dict: dict[str, Any]) -> str:
    """A DATABASE_URL pointing at exactly this Django database (e.g. the test database)."""
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        name = str(settings_dict["NAME"])
        if name == ":memory:" or name.startswith("file:"):
            raise RuntimeError("an in-memory SQLite database cannot be shared with a subprocess")
        return "sqlite:///" + str(Path(name).resolve())
    if engine.endswith("postgresql"):
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or ""
        port = settings_dict.get("PORT") or ""
        netloc = auth + (f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
        return f"postgres://{netloc}/{quote(str(settings_dict['NAME']), safe='')}"
    raise RuntimeError(f"unsupported database engine for daphne_server: {engine}")


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited early with code {proc.returncode}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"daphne did not listen on port {port} within {timeout}s")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS_DIR


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL is not set: run via `make test` (tests/run_with_services.sh)")
    return url


@pytest.fixture(scope="session")
def celery_test_redis_url() -> str:
    url = os.environ.get("CELERY_TEST_REDIS_URL")
    if not url:
        pytest.skip("CELERY_TEST_REDIS_URL is not set: run via `make test`")
    return url


@pytest.fixture(scope="session")
def daphne_server(
    django_db_setup: None, artifacts_dir: Path
) -> Iterator[str]:
    """Base URL of a real Daphne (HTTP + websockets) running on the test database."""
    from django.db import connection

    settings_dict = connection.settings_dict
    test_name = (settings_dict.get("TEST") or {}).get("NAME") or "test_"
    if not str(settings_dict["NAME"]).startswith(str(test_name)):
        pytest.fail(f"daphne_server: {settings_dict['NAME']!r} is not the test database")
    db_url = database_url_for(settings_dict)
    port = free_port()
    env = os.environ.copy()
    env.update(
        DATABASE_URL=db_url,
        DJANGO_SETTINGS_MODULE="kondavo.settings.test",
        KONDAVO_SERVE_STATIC="true",
        PYTHONUNBUFFERED="1",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    # No Celery worker serves this Daphne: bot moves run in-process (the same task code,
    # off the event loop). Tests with a real worker start their own Daphne.
    env.setdefault("KONDAVO_BOT_INPROCESS", "true")
    log_path = artifacts_dir / "daphne.log"
    cmd = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
    cmd.append("kondavo.asgi:application")
    with open(log_path, "ab") as log:
        log.write(f"\n===== daphne on port {port}, DATABASE_URL={db_url}\n".encode())
        log.flush()
        proc = subprocess.Popen(cmd, cwd=REPO_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            try:
                wait_for_port(port, proc)
            except RuntimeError as exc:
                pytest.fail(f"{exc}\n--- {log_path} ---\n{log_path.read_text(errors='replace')}")
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright: use Debian's Chromium (never `playwright install`)."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": CHROMIUM_ARGS,
    }
