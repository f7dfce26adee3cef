"""A production-shaped stack for integration tests: Daphne + Celery worker (+ beat) on Redis.

``stack`` starts a real Daphne with ``KONDAVO_BOT_INPROCESS=false``: bot moves and flag
checks become Celery messages on a real Redis broker, played by real
``celery -A kondavo worker`` subprocesses (started by the test through ``stack.worker()``)
on the same *test* database as Daphne (see ``daphne_server`` in tests/conftest.py). The
channel layer and the broker get their own Redis DB numbers (flushed before each test), so
nothing else in the suite shares their messages. Every process is killed in a finalizer;
logs go to tests/artifacts/integration-*.log. Helpers: integration_stack.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from integration_stack import (
    BROKER_DB,
    LAYER_DB,
    VISIBILITY_TIMEOUT,
    Stack,
    database_url_for,
    free_port,
    redis_db_url,
    wait_for_port,
)


@pytest.fixture
def stack(django_db_setup: None, redis_url: str, artifacts_dir: Path,
          settings: Any) -> Iterator[Stack]:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the integration stack runs on PostgreSQL (the services pass of make test)")
    settings_dict = connection.settings_dict
    test_name = (settings_dict.get("TEST") or {}).get("NAME") or "test_"
    if not str(settings_dict["NAME"]).startswith(str(test_name)):
        pytest.fail(f"stack: {settings_dict['NAME']!r} is not the test database")
    # Games created in this process must not schedule flag checks on the suite's broker.
    settings.KONDAVO_FLAG_TIMERS = False

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
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "PYTHONUNBUFFERED": "1",
    }
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
