"""Admission control of the analysis board's engine requests, checked before any search.

In this order, each refusal carrying a ``Retry-After``:

1. **one request in flight per visitor** (the visitor is the session when it is a real one,
   else the browser: its CSRF cookie, which every POST from the page carries, at the trusted
   client address, ``kondavo.limits.client_ip``; else the address alone): a second one while
   the first waits gets 429 ``busy``. Reading a page never makes a session, so two visitors
   without one behind the same address (a household, a carrier's NAT, a second browser) do
   not hold each other up; a client that makes up cookies gains no more than one that makes
   new sessions, as the address's rate below is counted whatever it sends;
2. **a sliding-window rate** (``KONDAVO_ANALYSIS_RATE`` a minute) counted for the address
   and for the session (``kondavo.ratelimits``): 429 ``rate_limited``; a forged header or
   a new session does not give a new budget, the address is always counted;
3. **a site-wide cap** of ``KONDAVO_ANALYSIS_MAX_QUEUED`` analyses queued or running: 503
   ``queue_full``.

Both holds (the visitor's and the site's) are keys in Django's cache set with ``add`` (atomic:
``SET NX`` in Redis) and an expiry a little past the longest wait, so they are shared by every
web process in production (Redis cache), are this process's memory in the embedded mode, and a
process that dies holding one loses it within seconds. The site-wide cap is
``KONDAVO_ANALYSIS_MAX_QUEUED`` slot keys: a request takes a free one or is refused.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext as _

from kondavo.limits import client_ip
from kondavo.ratelimits import RateLimited, rate_limit

PREFIX = "kondavo:analysis"
HOLD_MARGIN = 5.0  # seconds a hold outlives the longest wait (a dead process's hold expires)


@dataclass
class Refused(Exception):
    """An engine request not admitted: answer ``status`` with ``code`` and ``message`` and
    a ``Retry-After`` of ``retry_after`` seconds."""

    status: int
    code: str
    message: str
    retry_after: int


@dataclass
class Ticket:
    """What an admitted request holds until it is answered (:func:`release`)."""

    token: str
    keys: list[str] = field(default_factory=list)


def max_queued() -> int:
    return max(1, int(getattr(settings, "KONDAVO_ANALYSIS_MAX_QUEUED", 8)))


def wait_seconds() -> float:
    return max(1.0, float(getattr(settings, "KONDAVO_ANALYSIS_WAIT_SECONDS", 10.0)))


def session_key(request: HttpRequest) -> str | None:
    """The request's session key when the session exists (a forged cookie is none)."""
    session = getattr(request, "session", None)
    if session is None or not session.session_key:
        return None
    session.items()  # loads it: an unknown key is dropped (session_key becomes None)
    return session.session_key or None


def browser_key(request: HttpRequest) -> str | None:
    """A digest of the request's CSRF cookie (the secret itself is never stored)."""
    secret = request.COOKIES.get(settings.CSRF_COOKIE_NAME)
    if not secret:
        return None
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()[:24]


def visitor_keys(request: HttpRequest) -> tuple[str, list[str]]:
    """(the visitor's one-in-flight key, the keys its rate is counted for)."""
    ip = f"ip:{client_ip(request)}"
    session = session_key(request)
    rate_keys = [ip] + ([f"session:{session}"] if session else [])
    if session:
        return f"session:{session}", rate_keys
    browser = browser_key(request)
    return (f"{ip}:browser:{browser}" if browser else ip), rate_keys


def admit(request: HttpRequest) -> Ticket:
    """Admit one engine request of ``request``'s visitor or raise :class:`Refused`."""
    hold = wait_seconds() + HOLD_MARGIN
    ticket = Ticket(uuid.uuid4().hex)
    visitor, rate_keys = visitor_keys(request)
    busy_key = f"{PREFIX}:busy:{visitor}"
    if not cache.add(busy_key, ticket.token, timeout=hold):
        raise Refused(429, "busy", _("The engine is still working on your previous "
                                     "request: wait for its answer."), 1)
    ticket.keys.append(busy_key)
    try:
        rate_limit(action="analysis", keys=rate_keys, setting="KONDAVO_ANALYSIS_RATE")
    except RateLimited as exc:
        release(ticket)
        raise Refused(429, "rate_limited", exc.message, exc.retry_after) from None
    slots = max_queued()
    first = random.randrange(slots)  # spread the probes over the slots
    for i in range(slots):
        slot_key = f"{PREFIX}:slot:{(first + i) % slots}"
        if cache.add(slot_key, ticket.token, timeout=hold):
            ticket.keys.append(slot_key)
            return ticket
    release(ticket)
    raise Refused(503, "queue_full", _("The engine is busy with other players' analyses: "
                                       "trying again in a moment."), 2)


def release(ticket: Ticket) -> None:
    """Give back what ``ticket`` holds (a key that expired and was taken by another
    request since is left alone)."""
    for key in ticket.keys:
        if cache.get(key) == ticket.token:
            cache.delete(key)
    ticket.keys.clear()


def in_use() -> int:
    """Slots taken now, site-wide (for tests and the lab)."""
    return sum(1 for i in range(max_queued()) if cache.get(f"{PREFIX}:slot:{i}") is not None)
