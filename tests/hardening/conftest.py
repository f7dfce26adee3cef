"""Fixtures of the hardening tests: a Daphne of their own (its log is checked for
tracebacks), guests with session cookies, and small HTTP/websocket helpers."""

from __future__ import annotations

import asyncio
import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def make_guest(name: str | None = None) -> Any:
    from kondavo.accounts.models import Player

    return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                 name=name or f"Guest-H{secrets.token_hex(5)}")


def session_cookie(player: Any) -> str:
    from django.contrib.sessions.backends.db import SessionStore

    from kondavo.accounts.services import GUEST_SESSION_KEY

    store = SessionStore()
    store[GUEST_SESSION_KEY] = player.guest_key
    store.create()
    return f"sessionid={store.session_key}"


def http(method: str, url: str, *, body: bytes | None = None,
         headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, bytes]:
    """One HTTP request; returns (status, body) for any status."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


async def next_frame(ws: Any, t: str | None = None, timeout: float = 10) -> dict[str, Any]:
    """The next frame (of type ``t``, skipping others)."""
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if t is None or frame["t"] == t:
            return frame


CSRF_TOKEN = "k" * 16 + "0123456789abcdef"  # 32 characters: a valid unmasked CSRF secret


def csrf_headers(cookie: str = "", **extra: str) -> dict[str, str]:
    """Headers that pass Django's CSRF check (cookie and header carry the same secret)."""
    cookies = "; ".join(c for c in (f"csrftoken={CSRF_TOKEN}", cookie) if c)
    return {"Cookie": cookies, "X-CSRFToken": CSRF_TOKEN, **extra}
