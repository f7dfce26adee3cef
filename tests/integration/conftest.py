"""A production-shaped stack for integration tests: Daphne + Celery worker (+ beat) on Redis.

``stack`` starts a real Daphne with ``KONDAVO_BOT_INPROCESS=false``: bot moves become Celery
messages on a real Redis broker, played by real ``celery -A kondavo worker`` subprocesses
(started by the test through ``stack.worker()``), and the periodic sweeps come from a real
``celery beat`` (``stack.beat()``), all on the same *test* database as Daphne (see
``daphne_server`` in tests/conftest.py). The Celery and database settings are the
production defaults (visibility timeout, sweep periods, bot stall time, persistent
connections). The channel layer and the broker get their own Redis DB numbers (flushed
before each test), so nothing else in the suite shares their messages. Every process is
killed in a finalizer; logs go to tests/artifacts/integration-*.log. Helpers:
integration_stack.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration_stack import (
    BROKER_DB,
    LAYER_DB,
    PRODUCTION_DEFAULTS,
    Stack,
    database_url_for,
    free_port,
    redis_db_url,
    wait_for_port,
)


@pytest.fixture
def stack(django_db_setup: None, redis_url: str, artifacts_dir: Path) -> Iterator[Stack]:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the integration stack runs on PostgreSQL (the services pass of make test)")
    settings_dict = connection.settings_dict
    test_name = (settings_dict.get("TEST") or {}).get("NAME") or "test_"
    if not str(settings_dict["NAME"]).startswith(str(test_name)):
        pytest.fail(f"stack: {settings_dict['NAME']!r} is not the test database")
    import redis

    layer_url, broker_url = redis_db_url(redis_url, LAYER_DB), redis_db_url(redis_url, BROKER_DB)
    for url in (layer_url, broker_url):
        redis.Redis.from_url(url).flushdb()
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for(settings_dict),
        "DJANGO_SETTINGS_MODULE": "kondavo.settings.test",
        "REDIS_URL": layer_url,
        "CELERY_BROKER_URL": broker_url,
        "KONDAVO_BOT_INPROCESS": "false",
        "KONDAVO_SERVE_STATIC": "true",
        "DB_CONN_MAX_AGE": "60",
        "PYTHONUNBUFFERED": "1",
        # The tests here time level 8's search from the start position, which is in the
        # opening book (played at once otherwise).
        "KONDAVO_ENGINE_BOOK": "off",
    }
    for name in PRODUCTION_DEFAULTS:  # whatever the suite's environment says
        env.pop(name, None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    port = free_port()
    s = Stack(f"http://127.0.0.1:{port}", env, broker_url, artifacts_dir)
    try:
        daphne = s.spawn("daphne", [sys.executable, "-m", "daphne", "-b", "127.0.0.1",
                                    "-p", str(port), "kondavo.asgi:application"])
        try:
            wait_for_port(port, daphne.popen)
        except RuntimeError as exc:
            pytest.fail(f"{exc}\n{daphne.log()}")
        yield s
    finally:
        for proc in reversed(s.procs):
            proc.kill()
