"""Rate limits on actions (creating guests, games, seeks), counted in Django's cache.

The counting is django-ratelimit's (fixed windows, atomic cache increments); the cache is
Redis in production (shared by every web process) and this process's memory in the embedded
default. A rate is a setting such as ``"10/m"`` (count per s, m, h or d); an empty rate
turns that limit off. A refused action raises ``RateLimited`` (a ``GameError`` with code
``rate_limited``), which views answer with HTTP 429 and consumers with an ``error`` frame.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage

from kondavo.games.errors import GameError


class RateLimited(GameError):
    def __init__(self, message: str) -> None:
        super().__init__("rate_limited", message)


def rate_limit(*, action: str, keys: Iterable[str], setting: str) -> None:
    """Count one ``action`` for each of ``keys`` (e.g. ``"player:12"``, ``"ip:1.2.3.4"``)
    against the rate in ``settings.<setting>``; raise ``RateLimited`` if any is over it.
    Every key is counted, so a refused attempt still uses up the window."""
    rate = str(getattr(settings, setting, "") or "").strip()
    if not rate:
        return
    over = False
    for key in keys:
        usage = get_usage(None, group=f"kondavo.{action}", key=lambda _g, _r, k=key: k,
                          rate=rate, increment=True)
        if usage is not None and usage["should_limit"]:
            over = True
    if over:
        raise RateLimited(_("Too many requests (at most %(rate)s): please wait a little "
                            "and try again.") % {"rate": rate})


def creation_limit(*, player_id: int, ip: str) -> None:
    """One game or seek created by ``player_id`` from ``ip``: ``KONDAVO_CREATE_RATE_PLAYER``
    per player and ``KONDAVO_CREATE_RATE_IP`` per address (computer games, friend links and
    seeks together)."""
    rate_limit(action="create", keys=[f"player:{player_id}"],
               setting="KONDAVO_CREATE_RATE_PLAYER")
    rate_limit(action="create", keys=[f"ip:{ip}"], setting="KONDAVO_CREATE_RATE_IP")
