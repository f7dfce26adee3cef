"""Helpers of the hardening tests (imported as a top-level module, like the other test
folders' helper modules): guests with session cookies, HTTP and websocket helpers."""

from __future__ import annotations

import asyncio
import json
import secrets
import urllib.error
import urllib.request
from typing import Any


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
