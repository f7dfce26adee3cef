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


