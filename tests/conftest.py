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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daphne_process import running_daphne

# The engine's endgame tables are solved in a background thread the first time a process
# creates a ruleset's engine (bots.engine.tables): in the test processes, where plugin
# tests create many rulesets, that would be seconds of CPU behind timed tests. They are
# off here unless a test turns them on (tests/bots/test_tables.py).
os.environ.setdefault("KONDAVO_ENGINE_TABLES", "off")
# A test that does turn them on (the puzzle prover's English tables) gets tables up to
# 20 MB (four pieces on 8x8): the five-piece ones (374 MB, minutes of CPU) are a deployment's
# to build (`python -m bots.engine.tables build`), not a fresh CI machine's. Tests of five
# pieces build them explicitly (tests/bots/test_tables.py, slow).
os.environ.setdefault("KONDAVO_ENGINE_TABLES_MB", "20")

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


# A test that drives a real browser or depends on wall-clock time (markers ``browser`` and
# ``timing``) gets this many more tries when it fails (pytest-rerunfailures, as Playwright
# advises for CI): a machine shared with other jobs can miss a deadline once. A retried test
# is reported (``R`` in the progress line, ``RERUN`` in the summary; tests/run_with_services.sh
# lists them at the end); a failure that repeats still fails. KONDAVO_TEST_RERUNS=0 turns it off.
WALL_CLOCK_RERUNS = int(os.environ.get("KONDAVO_TEST_RERUNS", "2"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests using ``daphne_server`` get ``django_db(transaction=True)`` unless they say
    otherwise: it makes pytest-django create the test database (the subprocess must never
    see the real one) and makes the test's data visible to the subprocess. Browser and
    timing tests get ``WALL_CLOCK_RERUNS`` retries unless they carry their own ``flaky``."""
    for item in items:
        if "daphne_server" in getattr(item, "fixturenames", ()) and not item.get_closest_marker(
            "django_db"
        ):
            item.add_marker(pytest.mark.django_db(transaction=True))
        if WALL_CLOCK_RERUNS > 0 and not item.get_closest_marker("flaky") and (
                item.get_closest_marker("browser") or item.get_closest_marker("timing")):
            item.add_marker(pytest.mark.flaky(reruns=WALL_CLOCK_RERUNS, reruns_delay=1))


@pytest.fixture(autouse=True)
def _empty_rate_limit_cache(request: pytest.FixtureRequest) -> None:
    """Rate-limit counters (Django's cache) start empty in every test that uses Django."""
    if not any(name in request.fixturenames for name in
               ("db", "transactional_db", "django_db_setup", "client", "settings")) and \
            request.node.get_closest_marker("django_db") is None:
        return
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Every test starts in the site's default language, whatever an earlier test (or a
    view or consumer it ran in this thread) left activated."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def fresh_socket_registry(settings: Any) -> None:
    """Each test counts its own sockets and cool-downs: the socket registry and the connect
    gate (kondavo/games/discipline.py) outlive a test, in this process and in Redis. Socket
    test packages use it from an autouse fixture of their own."""
    from kondavo.games import discipline

    discipline.registry.clear()
    discipline.connect_gate._buckets.clear()
    if settings.REDIS_URL:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL)
        keys = list(client.scan_iter(discipline.KEY_PREFIX + "*"))
        if keys:
            client.delete(*keys)


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS_DIR


def _service_url(name: str) -> str:
    url = os.environ.get(name)
    if not url:
        pytest.skip(f"{name} is not set: run via `make test` (tests/run_with_services.sh)")
    return url


@pytest.fixture(scope="session")
def redis_url() -> str:
    return _service_url("REDIS_URL")


@pytest.fixture(scope="session")
def celery_test_redis_url() -> str:
    return _service_url("CELERY_TEST_REDIS_URL")


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
    # No Celery worker serves this Daphne: bot moves run in-process (the same task code,
    # off the event loop). Tests with a real worker start their own Daphne.
    overrides = {"KONDAVO_SERVE_STATIC": "true",
                 "KONDAVO_BOT_INPROCESS": os.environ.get("KONDAVO_BOT_INPROCESS", "true")}
    try:
        with running_daphne(settings_dict, artifacts_dir / "daphne.log", **overrides) as (
                _proc, base_url):
            yield base_url
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright: use Debian's Chromium (never `playwright install`)."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": CHROMIUM_ARGS,
    }
