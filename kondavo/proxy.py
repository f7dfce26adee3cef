"""The client's address and scheme, taken from proxy headers only when a trusted proxy sent them.

``TrustedProxyMiddleware`` is the outermost ASGI layer (kondavo/asgi.py), for HTTP and
websocket scopes alike. It is the one place that reads ``X-Forwarded-For`` and
``X-Forwarded-Proto``:

- When the direct peer (``scope["client"]``) is in ``KONDAVO_TRUSTED_PROXIES`` (IP addresses
  and CIDR networks, IPv4 and IPv6), the ``X-Forwarded-For`` list is walked from the right,
  skipping trusted hops; the first untrusted address is the client. A garbage entry stops the
  walk: the last trusted hop is then the client (never an address the garbage hid). The
  rightmost ``X-Forwarded-Proto`` value (``http``/``https``, set by the nearest proxy)
  becomes ``scope["scheme"]`` (``ws``/``wss`` for websockets).
- When the peer is not trusted (the default: nothing is trusted), the headers change
  nothing.

Either way both headers are then removed from the scope, so nothing downstream (Django's
``SECURE_PROXY_SSL_HEADER``, a library, a view) can read a value a client chose:
``scope["client"]`` (Django's ``REMOTE_ADDR``) and ``scope["scheme"]`` are the only truth.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_FORWARDED_FOR = b"x-forwarded-for"
_FORWARDED_PROTO = b"x-forwarded-proto"
_CONSUMED = frozenset({_FORWARDED_FOR, _FORWARDED_PROTO})
_SCHEMES = {"http": {"http": "http", "https": "https"},
            "websocket": {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}}


def parse_trusted(value: str | Iterable[str]) -> tuple[IPNetwork, ...]:
    """The networks of a ``KONDAVO_TRUSTED_PROXIES`` value: comma-separated (or an iterable
    of) addresses and CIDRs. Raises ``ValueError`` naming a bad entry."""
    items = value.split(",") if isinstance(value, str) else list(value)
    networks: list[IPNetwork] = []
    for item in items:
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"KONDAVO_TRUSTED_PROXIES: {item!r} is not an IP address or "
                             "CIDR network (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)") from None
    return tuple(networks)


def parse_address(text: str) -> IPAddress | None:
    """An address as proxies write it (``192.0.2.1``, ``2001:db8::1``, ``[2001:db8::1]``, also
    with a ``:port``), or None for anything else (``unknown``, obfuscated names, junk)."""
    text = text.strip()
    if text.startswith("["):  # [v6] or [v6]:port
        end = text.find("]")
        if end < 0:
            return None
        text = text[1:end]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class TrustedProxies:
    """Which peers may speak for the client, and what the client's address then is."""

    def __init__(self, networks: Iterable[IPNetwork]) -> None:
        self.networks = tuple(networks)

    def trusts(self, address: IPAddress | None) -> bool:
        return address is not None and any(address in net for net in self.networks)

    def client_address(self, peer: str, forwarded_for: list[str]) -> str:
        """The client's address seen from ``peer`` (the direct peer's address) given the
        ``X-Forwarded-For`` entries in order (leftmost first)."""
        last_trusted = parse_address(peer)
        if not self.trusts(last_trusted):
            return peer
        for entry in reversed(forwarded_for):
            address = parse_address(entry)
            if address is None:
                break  # garbage: nothing to the left of it can be believed
            if not self.trusts(address):
                return str(address)
            last_trusted = address
        return str(last_trusted)


def _header_values(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> list[str]:
    """The comma-separated items of every ``name`` header, in order."""
    items: list[str] = []
    for key, value in headers:
        if key.lower() == name:
            items.extend(value.decode("latin-1").split(","))
    return items


class TrustedProxyMiddleware:
    """ASGI middleware: ``scope["client"]`` and ``scope["scheme"]`` as the trusted proxies
    say (see the module docstring); other scope types pass through untouched."""

    def __init__(self, app: Any, trusted: TrustedProxies) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if scope["type"] in _SCHEMES:
            scope = self.rewrite(scope)
        return await self.app(scope, receive, send)

    def rewrite(self, scope: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``scope`` with the trusted client, scheme and headers."""
        headers = list(scope.get("headers") or [])
        scope = {**scope, "headers": [(k, v) for k, v in headers if k.lower() not in _CONSUMED]}
        client = scope.get("client")
        if not client:
            return scope
        peer, port = str(client[0]), client[1] if len(client) > 1 else 0
        if not self.trusted.trusts(parse_address(peer)):
            return scope
        forwarded_for = _header_values(headers, _FORWARDED_FOR)
        address = self.trusted.client_address(peer, forwarded_for)
        if address != peer:
            scope["client"] = [address, 0]  # the client's own port is not known here
        else:
            scope["client"] = [peer, port]
        protos = [p.strip().lower() for p in _header_values(headers, _FORWARDED_PROTO)]
        if protos and protos[-1] in _SCHEMES[scope["type"]]:
            scope["scheme"] = _SCHEMES[scope["type"]][protos[-1]]
        return scope
