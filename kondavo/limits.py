"""Limits on everything a client sends, checked before any work is done on it.

- ``decode_frame`` / ``decode_json_body``: a websocket frame or an HTTP JSON body becomes
  Python data only if it fits: byte size first, then nesting depth (scanned on the raw text,
  so a deeply nested document never reaches the recursive JSON parser), then, while walking
  the parsed value, integer magnitude, finite numbers, string length (no NUL) and list/object
  sizes. Anything else raises ``ClientInputError`` with a stable ``code``.
- ``RequestLimitsMiddleware``: a request whose path or query string holds a NUL byte or
  another control character, or is absurdly long, gets a 400 before any view (PostgreSQL
  refuses NUL in text, which would otherwise surface as a 500).
- ``client_ip``: the client's address; ``address_key``: what per-address limits count it
  as (an IPv6 address by its /64).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse, JsonResponse

# Defaults far above what the site's own pages send, far below what hurts.
MAX_FRAME_BYTES = 4096
MAX_BODY_BYTES = 16 * 1024
MAX_DEPTH = 6
MAX_STRING = 512
MAX_ITEMS = 64  # list items, or object keys
MAX_INT = 2**53 - 1  # the integers a browser's JSON handles exactly
MAX_PATH_CHARS = 2048


class ClientInputError(ValueError):
    """Client data refused by a limit. ``code`` is a protocol error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class Limits:
    max_bytes: int = MAX_FRAME_BYTES
    max_depth: int = MAX_DEPTH
    max_string: int = MAX_STRING
    max_items: int = MAX_ITEMS
    max_int: int = MAX_INT


FRAME_LIMITS = Limits()
BODY_LIMITS = Limits(max_bytes=MAX_BODY_BYTES)

_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def _nesting_depth(text: str, stop_above: int) -> int:
    """The deepest ``[``/``{`` nesting of JSON ``text`` (brackets inside strings do not
    count); stops counting once past ``stop_above``."""
    depth = deepest = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_above:
                    return deepest
        elif token in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ClientInputError("bad_json", f"{name} is not allowed")


def _check(value: Any, limits: Limits) -> None:
    if isinstance(value, str):
        if len(value) > limits.max_string:
            raise ClientInputError("too_large", f"strings are limited to {limits.max_string} "
                                                "characters")
        if "\x00" in value:
            raise ClientInputError("bad_request", "strings must not contain NUL")
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        if not -limits.max_int <= value <= limits.max_int:  # also refuses inf and nan
            raise ClientInputError("bad_request", f"numbers are limited to ±{limits.max_int}")
    elif isinstance(value, list):
        if len(value) > limits.max_items:
            raise ClientInputError("too_large", f"lists are limited to {limits.max_items} items")
        for item in value:
            _check(item, limits)
    elif isinstance(value, dict):
        if len(value) > limits.max_items:
            raise ClientInputError("too_large", f"objects are limited to {limits.max_items} keys")
        for key, item in value.items():
            _check(key, limits)
            _check(item, limits)


def decode_json(raw: str | bytes, limits: Limits) -> Any:
    """``raw`` parsed as JSON within ``limits``, or ``ClientInputError``."""
    size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
    if size > limits.max_bytes:
        raise ClientInputError("too_large", f"messages are limited to {limits.max_bytes} bytes")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ClientInputError("bad_json", "the message is not UTF-8") from None
    if _nesting_depth(raw, limits.max_depth) > limits.max_depth:
        raise ClientInputError("bad_request", f"nesting is limited to {limits.max_depth} levels")
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except ClientInputError:
        raise
    except (ValueError, RecursionError):
        raise ClientInputError("bad_json", "the message is not JSON") from None
    _check(value, limits)
    return value


def decode_frame(raw: str | bytes, limits: Limits = FRAME_LIMITS) -> dict[str, Any]:
    """A websocket frame ``{"t": type, "d": {...}}``: returns it with ``d`` always a dict."""
    frame = decode_json(raw, limits)
    if not isinstance(frame, dict) or not isinstance(frame.get("t"), str):
        raise ClientInputError("bad_request", 'a frame is {"t": type, "d": data}')
    data = frame.get("d")
    if data is None:
        frame["d"] = {}
    elif not isinstance(data, dict):
        raise ClientInputError("bad_request", '"d" must be an object')
    return frame


def decode_json_body(body: bytes, limits: Limits = BODY_LIMITS) -> dict[str, Any]:
    """An HTTP request's JSON body, which must be an object (an empty body is ``{}``)."""
    value = decode_json(body or b"{}", limits)
    if not isinstance(value, dict):
        raise ClientInputError("bad_request", "the body must be a JSON object")
    return value


def int_field(data: dict[str, Any], name: str, *, low: int, high: int) -> int:
    """``data[name]`` as an integer in ``low..high`` (a whole-number float or a decimal string
    is accepted, as form fields send text)."""
    value = data.get(name)
    if isinstance(value, bool):
        value = None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and re.fullmatch(r"-?\d{1,18}", value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or not low <= value <= high:
        raise ClientInputError("bad_request", f"{name} must be an integer {low}..{high}")
    return value


# --------------------------------------------------------------------------- HTTP

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def request_problem(path: str, query_string: str) -> str | None:
    """Why a request line is refused, or None."""
    if len(path) > MAX_PATH_CHARS or len(query_string) > MAX_PATH_CHARS:
        return "the address is too long"
    if _CONTROL.search(path) or _CONTROL.search(unquote(query_string)):
        return "the address contains control characters"
    return None


class RequestLimitsMiddleware:
    """400 for a request line no view should see (see ``request_problem``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = request_problem(request.path, request.META.get("QUERY_STRING", ""))
        if problem is not None:
            return JsonResponse({"error": {"code": "bad_request", "message": problem}},
                                status=400)
        return self.get_response(request)


def client_ip(request: HttpRequest) -> str:
    """The client's address: ``REMOTE_ADDR``, which Django's ASGI handler fills from
    ``scope["client"]``. ``kondavo.proxy.TrustedProxyMiddleware`` (the outermost ASGI layer)
    put the address there: the X-Forwarded-For client only when the request came through a
    proxy in ``KONDAVO_TRUSTED_PROXIES``, otherwise the direct peer. No header is read here,
    so a client cannot dodge a limit by forging one."""
    # (A request built without an address, as in tests, counts as 0.0.0.0.)
    return str(request.META.get("REMOTE_ADDR") or "0.0.0.0")


def address_key(address: str) -> str:
    """What per-address limits count by: an IPv4 address as it is, an IPv6 address by its
    /64 network (one subscriber commonly holds a whole /64 and could rotate through it)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class ClientFaultLogFilter(logging.Filter):
    """Drops the traceback from Django's "suspicious operation" records (``django.security.*``:
    too many form fields, a body over the size limit, a bad Host header...). The client gets
    a 400, the log keeps one line: a hostile client must not fill the log with tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security"):
            record.exc_info = None
            record.exc_text = None
        return True
