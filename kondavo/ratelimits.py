"""The site's one keyed rate limiter: sliding windows counted in Django's cache.

Every per-player, per-session and per-address limit on HTTP requests and websocket actions
(guests, sign-ups, game and seek creation, the analysis board) goes through
:func:`rate_limit`. A rate is a setting such as ``"10/m"`` (count per s, m, h or d, with an
optional multiplier: ``"100/5m"``; a bare number is per minute); an empty or zero rate turns
that limit off. A setting may list several rates, comma-separated, each counted on its own
window: ``"60/10m,150/h,400/d"`` lets a burst through (a classroom starting together) and
then slows the same key down step by step (a script keeps meeting the longer windows).

The window slides: the count of one key is the two-window weighted estimate
``previous * (1 - elapsed / window) + current``, where ``current`` counts the actions since
the start of the current fixed window and ``previous`` those of the one before. Unlike a
fixed window, a client cannot spend the whole rate at the end of one window and again at the
start of the next. Each window's counter is one cache key incremented atomically (``add``
then ``incr``: ``INCR`` in Redis), so the count is shared by every web process when the cache
is Redis (production) and is this process's memory in the embedded default. Every attempt is
counted, a refused one too, so a client that keeps hammering stays refused.

A refused action raises :class:`RateLimited` (a ``GameError`` with code ``rate_limited`` and
``retry_after`` in whole seconds), which views answer with HTTP 429 and a ``Retry-After``
header and consumers with an ``error`` frame. (The per-socket frame budget of the game
consumers is a different thing: a token bucket in the socket's own memory.)
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from kondavo.games.errors import GameError
from kondavo.limits import address_key

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*(?:/\s*(\d*)\s*([smhd])\s*)?$")
_PREFIX = "kondavo:rl"


class RateLimited(GameError):
    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = max(1, int(retry_after))


@dataclass(frozen=True)
class Rate:
    count: int
    window: int  # seconds

    def __str__(self) -> str:
        return f"{self.count}/{self.window}s"


def parse_rate(value: object) -> Rate | None:
    """``"10/m"``, ``"100/5m"``, ``"3/s"`` or a bare count per minute (``120``); None (no
    limit) for an empty or zero rate. A rate that does not parse is a configuration error."""
    text = str(value if value is not None else "").strip()
    if not text:
        return None
    match = _RATE.match(text)
    if match is None:
        raise ValueError(f"bad rate {text!r}: expected e.g. '10/m', '100/5m' or '120'")
    count = int(match.group(1))
    unit = match.group(3) or "m"
    window = int(match.group(2) or 1) * _UNITS[unit]
    if count <= 0 or window <= 0:
        return None
    return Rate(count, window)


def parse_rates(value: object) -> list[Rate]:
    """Every rate of a setting: ``"60/10m,150/h"`` -> two rates (empty: none)."""
    return [rate for part in str(value if value is not None else "").split(",")
            if (rate := parse_rate(part)) is not None]


def _bump(key: str, bucket: int, window: int) -> int:
    """Count one in ``key``'s window ``bucket``; returns the new count."""
    name = f"{_PREFIX}:{key}:{window}:{bucket}"
    cache.add(name, 0, timeout=2 * window + 1)
    try:
        return int(cache.incr(name))
    except ValueError:  # expired between add and incr: start again
        cache.add(name, 1, timeout=2 * window + 1)
        return 1


def hit(key: str, rate: Rate, now: float | None = None) -> tuple[bool, int]:
    """Count one action for ``key`` against ``rate``. Returns (over the rate, seconds until
    the estimate is back under it: 0 when not over)."""
    now = time.time() if now is None else now
    window = rate.window
    bucket = int(now // window)
    elapsed = now - bucket * window
    current = _bump(key, bucket, window)
    previous = int(cache.get(f"{_PREFIX}:{key}:{window}:{bucket - 1}") or 0)
    weight = 1.0 - elapsed / window
    estimate = previous * weight + current
    if estimate <= rate.count:
        return False, 0
    # When may one more action pass (counting it)? previous * (1 - t / W) + current + 1 <= n
    if current >= rate.count:  # only the next window helps: there, ``current`` fades
        wait = (window - elapsed) + window * (1 - (rate.count - 1) / current)
    else:  # the previous window's share must fade
        wait = window * (1 - (rate.count - current - 1) / previous) - elapsed
    return True, max(1, math.ceil(wait))


def rate_limit(*, action: str, keys: Iterable[str], setting: str) -> None:
    """Count one ``action`` for each of ``keys`` (e.g. ``"player:12"``, ``"ip:1.2.3.4"``,
    ``"session:..."``) against the rate in ``settings.<setting>``; raise ``RateLimited`` if
    any is over it. Every key is counted, so a refused attempt still uses up the window."""
    rates = parse_rates(getattr(settings, setting, ""))
    if not rates:
        return
    retry = 0
    shown = ""
    for key in keys:
        if key.startswith("ip:"):  # an IPv6 client counts by its /64
            key = "ip:" + address_key(key[3:])
        for rate in rates:
            over, wait = hit(f"{action}:{key}", rate)
            if over and wait > retry:
                retry = wait
                shown = rate_text(rate)
    if retry:
        raise RateLimited(_("Too many requests (at most %(rate)s): please wait a little "
                            "and try again.") % {"rate": shown}, retry)


def rate_text(rate: Rate) -> str:
    """A rate in words, in the current language: ``120/m`` -> "120 a minute",
    ``60/10m`` -> "60 every 10 minutes"."""
    units: tuple[tuple[int, Callable[[], str], Callable[[int], str]], ...] = (
        (86400, lambda: _("%(count)s a day"),
         lambda n: ngettext("%(count)s every %(n)s day", "%(count)s every %(n)s days", n)),
        (3600, lambda: _("%(count)s an hour"),
         lambda n: ngettext("%(count)s every %(n)s hour", "%(count)s every %(n)s hours", n)),
        (60, lambda: _("%(count)s a minute"),
         lambda n: ngettext("%(count)s every %(n)s minute", "%(count)s every %(n)s minutes",
                            n)),
        (1, lambda: _("%(count)s a second"),
         lambda n: ngettext("%(count)s every %(n)s second", "%(count)s every %(n)s seconds",
                            n)),
    )
    for seconds, one, many in units:
        if rate.window % seconds == 0:
            n = rate.window // seconds
            text = one() if n == 1 else many(n)
            return text % {"count": rate.count, "n": n}
    raise AssertionError("every window is a whole number of seconds")


def creation_limit(*, player_id: int, ip: str) -> None:
    """One game or seek created by ``player_id`` from ``ip``: ``KONDAVO_CREATE_RATE_PLAYER``
    per player and ``KONDAVO_CREATE_RATE_IP`` per address (computer games, friend links and
    seeks together)."""
    rate_limit(action="create", keys=[f"player:{player_id}"],
               setting="KONDAVO_CREATE_RATE_PLAYER")
    rate_limit(action="create", keys=[f"ip:{ip}"], setting="KONDAVO_CREATE_RATE_IP")
