"""kondavo/outages.py: an outage of PostgreSQL or Redis is a 503 with Retry-After and one log
line; any other uncaught exception is still the site's 500 page."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import pytest
from django.db import OperationalError
from django.test import RequestFactory
from redis.exceptions import ConnectionError as RedisConnectionError

from kondavo.outages import OutageLogFilter, is_outage, server_error

pytestmark = pytest.mark.embedded


def handled(exc: BaseException, **headers: str) -> Any:
    request = RequestFactory().get("/game/abc/", headers=headers)
    try:
        raise exc
    except type(exc):  # handler500 runs while Django handles the exception
        return server_error(request)


def test_an_outage_is_a_503_page_or_json_with_retry_after() -> None:
    page = handled(OperationalError("couldn't get a connection after 10.00 sec"))
    assert page.status_code == 503 and int(page["Retry-After"]) > 0
    assert b"Back in a moment" in page.content
    data = handled(RedisConnectionError("Error 111 connecting"), accept="application/json")
    assert data.status_code == 503 and int(data["Retry-After"]) > 0
    assert json.loads(data.content)["error"]["code"] == "unavailable"


def test_any_other_error_is_still_a_500() -> None:
    response = handled(ValueError("a bug"))
    assert response.status_code == 500 and "Retry-After" not in response
    assert not is_outage(ValueError()) and is_outage(OperationalError())


def test_the_503_is_logged_on_one_line() -> None:
    try:
        raise OperationalError("couldn't get a connection after 10.00 sec\nmore")
    except OperationalError:
        exc_info = sys.exc_info()
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "%s: %s",
                               ("Service Unavailable", "/game/abc/"), exc_info)
    record.status_code = 503
    assert OutageLogFilter().filter(record)
    assert record.exc_info is None
    assert record.getMessage() == ("Service Unavailable: /game/abc/ (OperationalError: "
                                   "couldn't get a connection after 10.00 sec)")
    other = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "x", (), exc_info)
    other.status_code = 500
    OutageLogFilter().filter(other)
    assert other.exc_info is not None  # a real 500 keeps its traceback
