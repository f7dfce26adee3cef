"""What a visitor gets while PostgreSQL or Redis is down: a 503 and one log line, not a 500
and a traceback per request; on a websocket, an ``unavailable`` error frame and the socket
stays open.

- ``OUTAGE_ERRORS`` / ``is_outage``: the errors a backing service that is down, restarting
  or unreachable raises (Django's database errors ``OperationalError`` and
  ``InterfaceError``, which wrap psycopg's and the pool's timeout; redis-py's connection
  errors and timeouts; the bus's ``BusUnavailable``; kombu's
  ``OperationalError`` when the Celery broker is down). Nothing was changed when one is
  raised inside a transaction: it is rolled back.
- ``server_error``: the site's ``handler500`` (kondavo/urls.py). Django calls it for every
  uncaught exception, in a view or in a middleware; for an outage it answers 503 with
  ``Retry-After`` (JSON ``{"error": {"code": "unavailable", ...}}`` when the client asked
  for JSON, else the ``503.html`` page), otherwise Django's own 500 page.
- ``OutageLogFilter``: drops the traceback from Django's log record of such a 503 (one
  line per request: the operator sees the outage, the log is not flooded).
- ``outage_frame_error``: the ``(code, message)`` of the error frame a websocket consumer
  sends when an action hits an outage (the consumer catches ``OUTAGE_ERRORS`` around its
  handlers and keeps the socket open).

The connections recover by themselves: the database pool checks each connection it hands
out (kondavo/settings/base.py ``postgres_pool_settings``) and every Redis client retries
once on a fresh connection (kondavo/redis_clients.py), so the first request after the
restart works.
"""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults
from redis import exceptions as redis_errors

from kondavo.games.bus import BusUnavailable

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = "Kondavo is reconnecting to a service it needs: try again in a few seconds."


def _outage_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [
        OperationalError, InterfaceError, redis_errors.ConnectionError,
        redis_errors.TimeoutError, BusUnavailable]
    try:
        from kombu.exceptions import OperationalError as BrokerUnavailable
    except ImportError:  # no Celery installed
        pass
    else:
        errors.append(BrokerUnavailable)
    return tuple(errors)


OUTAGE_ERRORS = _outage_errors()


def is_outage(exc: BaseException | None) -> bool:
    return isinstance(exc, OUTAGE_ERRORS)


def outage_frame_error() -> tuple[str, str]:
    """The ``error`` frame's code and message for an action that hit an outage."""
    return "unavailable", MESSAGE


def wants_json(request: HttpRequest) -> bool:
    return ("application/json" in request.headers.get("Accept", "")
            or request.content_type == "application/json")


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``: JSON for a client that asked for JSON, else a page."""
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse({"error": {"code": "unavailable", "message": MESSAGE}},
                                status=503)
    else:
        try:
            body = loader.render_to_string("503.html", request=None)
        except Exception:  # a template needing what is down must not make it a 500
            body = f"<!doctype html><title>Briefly unavailable</title><p>{MESSAGE}</p>"
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: 503 for an outage, Django's 500 page for anything else."""
    if is_outage(sys.exc_info()[1]):
        return unavailable_response(request)
    return defaults.server_error(request)


class OutageLogFilter(logging.Filter):
    """One line for a 503 that ``server_error`` made of an outage: its traceback goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if (record.name == "django.request" and getattr(record, "status_code", None) == 503
                and record.exc_info and is_outage(record.exc_info[1])):
            exc = record.exc_info[1]
            first_line = (str(exc).strip().splitlines() or [""])[0]
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {first_line})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
