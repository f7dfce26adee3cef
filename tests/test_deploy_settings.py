"""Settings docs/deploying.md tells operators to use: the PgBouncer switch and the trusted
proxies value (a bad entry stops the server at start, naming it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kondavo.settings.base import parse_database_url

REPO_DIR = Path(__file__).resolve().parent.parent


def test_server_side_cursors_can_be_turned_off_for_pgbouncer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgres://kondavo@pgbouncer:6432/kondavo"
    assert parse_database_url(url)["DISABLE_SERVER_SIDE_CURSORS"] is False
    monkeypatch.setenv("DB_DISABLE_SERVER_SIDE_CURSORS", "true")
    database = parse_database_url(url)
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert "prepare_threshold" not in database["OPTIONS"]  # Django's default: none prepared


def asgi_import(trusted: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KONDAVO_TRUSTED_PROXIES": trusted,
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.test"}
    return subprocess.run([sys.executable, "-c", "import kondavo.asgi"], cwd=REPO_DIR, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_bad_trusted_proxy_entry_stops_the_server_at_start() -> None:
    bad = asgi_import("10.0.0.0/8,edge.internal")
    assert bad.returncode != 0 and "'edge.internal' is not an IP address" in bad.stderr
    assert asgi_import("10.0.0.0/8, fd00::/8").returncode == 0
