"""Issue 19 item 1: the client address comes only from trusted proxies, and the edge (the
real nginx configuration of deploy/nginx/) sits in front of the Daphnes.

- ``kondavo.proxy`` with literal scopes: a forged header from an untrusted peer changes
  nothing; a trusted peer is believed; chains of trusted hops; IPv6; garbage.
- A real Daphne (no ``--proxy-headers``): a guest identity over HTTP and a seek over a
  websocket are counted against their real address whatever X-Forwarded-For they forge;
  the same forged headers from a trusted proxy are believed (the test can fail).
- The edge run by ``/usr/sbin/nginx`` in front of a Daphne: a page, a static file and a
  websocket go through; a client's X-Forwarded-For does not reach the app (only a load
  balancer declared in KONDAVO_EDGE_TRUSTED_PROXIES speaks for clients); a burst of
  websocket connections from one address is refused by the edge while another address is
  served; in TLS mode plain HTTP redirects and HTTPS serves.

Every client here connects from its own random loopback address (127.x.y.z), so the rate
counters (in Redis, kept between runs) of one test never meet another's.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import secrets
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from daphne_process import running_daphne
from edge_nginx import NGINX, Edge, running_edge, self_signed_certificate
from hardening_helpers import csrf_headers, make_guest, next_frame, session_cookie

from kondavo.proxy import TrustedProxies, TrustedProxyMiddleware, parse_address, parse_trusted

# --------------------------------------------------------------------------- literal scopes


async def rewritten(scope: dict[str, Any], trusted: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    async def app(inner: dict[str, Any], receive: Any, send: Any) -> None:
        seen.update(inner)

    await TrustedProxyMiddleware(app, TrustedProxies(parse_trusted(trusted)))(
        scope, None, None)
    return seen


def scope_from(peer: str, *headers: tuple[str, str], kind: str = "http") -> dict[str, Any]:
    return {"type": kind, "scheme": "ws" if kind == "websocket" else "http",
            "client": [peer, 40000], "path": "/",
            "headers": [(b"host", b"example.org"),
                        *((k.encode(), v.encode()) for k, v in headers)]}


def forwarded_headers(scope: dict[str, Any]) -> list[bytes]:
    return [k for k, _ in scope["headers"] if k.startswith(b"x-forwarded")]


@pytest.mark.parametrize("trusted", ["", "10.0.0.0/8", "192.0.2.1"])
async def test_a_forged_header_from_an_untrusted_peer_changes_nothing(trusted: str) -> None:
    scope = await rewritten(scope_from("203.0.113.5", ("X-Forwarded-For", "198.51.100.1"),
                                       ("X-Forwarded-Proto", "https")), trusted)
    assert scope["client"] == ["203.0.113.5", 40000]
    assert scope["scheme"] == "http"
    # ...and nothing downstream can read the forged headers (SECURE_PROXY_SSL_HEADER, ...)
    assert forwarded_headers(scope) == []
    assert (b"host", b"example.org") in scope["headers"]


async def test_a_trusted_peer_is_believed() -> None:
    scope = await rewritten(scope_from("10.1.2.3", ("X-Forwarded-For", "198.51.100.1"),
                                       ("X-Forwarded-Proto", "https")), "10.0.0.0/8")
    assert scope["client"][0] == "198.51.100.1"
    assert scope["scheme"] == "https"
    assert forwarded_headers(scope) == []
    ws = await rewritten(scope_from("10.1.2.3", ("X-Forwarded-For", "198.51.100.1"),
                                    ("X-Forwarded-Proto", "https"), kind="websocket"),
                         "10.0.0.0/8")
    assert ws["client"][0] == "198.51.100.1" and ws["scheme"] == "wss"


async def test_chains_are_walked_from_the_right_past_trusted_hops() -> None:
    trusted = "10.0.0.0/8, 192.0.2.7"
    # the client forged the leftmost entry; the load balancer (192.0.2.7) appended the real
    # client; the edge (10.0.0.2) is the peer
    scope = await rewritten(scope_from(
        "10.0.0.2", ("X-Forwarded-For", "1.1.1.1, 198.51.100.9, 192.0.2.7")), trusted)
    assert scope["client"][0] == "198.51.100.9"
    # several headers count as one list, in order
    scope = await rewritten(scope_from("10.0.0.2", ("X-Forwarded-For", "1.1.1.1"),
                                       ("X-Forwarded-For", "198.51.100.9")), trusted)
    assert scope["client"][0] == "198.51.100.9"
    # every hop trusted: the leftmost one is as far as anyone can tell
    scope = await rewritten(scope_from("10.0.0.2", ("X-Forwarded-For", "10.9.9.9, 192.0.2.7")),
                            trusted)
    assert scope["client"][0] == "10.9.9.9"
    # no header from a trusted peer: the peer itself, with its port
    scope = await rewritten(scope_from("10.0.0.2"), trusted)
    assert scope["client"] == ["10.0.0.2", 40000]
    # the rightmost X-Forwarded-Proto is the nearest proxy's word; junk is ignored
    scope = await rewritten(scope_from("10.0.0.2", ("X-Forwarded-Proto", "http, https")),
                            trusted)
    assert scope["scheme"] == "https"
    scope = await rewritten(scope_from("10.0.0.2", ("X-Forwarded-Proto", "gopher")), trusted)
    assert scope["scheme"] == "http"


async def test_ipv6() -> None:
    trusted = "fd00::/8, ::1"
    scope = await rewritten(scope_from("fd00::5", ("X-Forwarded-For", "2001:db8::1")),
                            trusted)
    assert scope["client"][0] == "2001:db8::1"
    scope = await rewritten(scope_from("::1", ("X-Forwarded-For", "[2001:db8::2]:4711")),
                            trusted)
    assert scope["client"][0] == "2001:db8::2"
    scope = await rewritten(scope_from("2001:db8::66", ("X-Forwarded-For", "fd00::1")),
                            trusted)
    assert scope["client"][0] == "2001:db8::66"  # an untrusted v6 peer
    # an IPv4 proxy seen through a dual-stack socket as ::ffff:a.b.c.d is still trusted
    scope = await rewritten(scope_from("::ffff:10.0.0.2", ("X-Forwarded-For", "192.0.2.99")),
                            "10.0.0.0/8")
    assert scope["client"][0] == "192.0.2.99"


@pytest.mark.parametrize("header, client", [
    ("198.51.100.1, not-an-address, 10.0.0.3", "10.0.0.3"),  # stop: the last trusted hop
    ("198.51.100.1, unknown", "10.0.0.2"),  # garbage right away: the peer
    ("", "10.0.0.2"),
    (" , ,", "10.0.0.2"),
    ("198.51.100.1:8080", "198.51.100.1"),  # a port is allowed
    ("999.1.1.1", "10.0.0.2"),
    ("[2001:db8::1", "10.0.0.2"),
])
async def test_garbage_stops_the_walk(header: str, client: str) -> None:
    scope = await rewritten(scope_from("10.0.0.2", ("X-Forwarded-For", header)), "10.0.0.0/8")
    assert scope["client"][0] == client


async def test_other_scopes_pass_through() -> None:
    scope = {"type": "lifespan"}
    assert await rewritten(scope, "10.0.0.0/8") == {"type": "lifespan"}


def test_settings_value_is_checked() -> None:
    assert parse_trusted("") == ()
    assert [str(n) for n in parse_trusted(" 10.0.0.0/8 ,192.0.2.7,fd00::/8,")] == [
        "10.0.0.0/8", "192.0.2.7/32", "fd00::/8"]
    with pytest.raises(ValueError, match="web.internal"):
        parse_trusted("10.0.0.0/8,web.internal")
    assert parse_address("unknown") is None
    assert str(parse_address("192.0.2.1:80")) == "192.0.2.1"


# --------------------------------------------------------------------------- a real Daphne

pytestmark_db = pytest.mark.django_db(transaction=True)
# A low per-address guest and creation rate: what a forged address would dodge.
LIMITS_ENV = {"KONDAVO_GUEST_RATE": "3/h", "KONDAVO_CREATE_RATE_IP": "2/m",
              "AXES_FAILURE_LIMIT": "3",
              "KONDAVO_CREATE_RATE_PLAYER": "1000/m", "KONDAVO_SERVE_STATIC": "true",
              "KONDAVO_BOT_INPROCESS": "true",
              # the app's own socket caps stay out of the way of the edge's
              "KONDAVO_WS_CONNECT_RATE": "1000", "KONDAVO_WS_CONNECT_BURST": "1000",
              "KONDAVO_WS_MAX_PER_IP": "0", "KONDAVO_WS_MAX_ANON_PER_IP": "0"}


class Server:
    def __init__(self, base_url: str, log_path: Path) -> None:
        self.base_url = base_url
        self.ws_url = base_url.replace("http://", "ws://")
        self.log_path = log_path
        self.log_start = log_path.stat().st_size
        host, port = base_url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)

    def assert_no_traceback(self) -> None:
        with open(self.log_path, "rb") as f:
            f.seek(self.log_start)
            log = f.read().decode("utf-8", "replace")
        assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="module")
def daphne_trusting_nobody(django_db_setup: None, artifacts_dir: Path) -> Iterator[Server]:
    from django.db import connection

    log_path = artifacts_dir / "daphne-edge-untrusted.log"
    with running_daphne(connection.settings_dict, log_path, KONDAVO_TRUSTED_PROXIES="",
                        **LIMITS_ENV) as (_proc, base_url):
        server = Server(base_url, log_path)
        yield server
    server.assert_no_traceback()


@pytest.fixture(scope="module")
def daphne_trusting_loopback(django_db_setup: None, artifacts_dir: Path) -> Iterator[Server]:
    """A Daphne that trusts 127.0.0.1: the edge's address in these tests (and the address a
    test connects from to play a trusted proxy)."""
    from django.db import connection

    log_path = artifacts_dir / "daphne-edge-trusted.log"
    with running_daphne(connection.settings_dict, log_path, KONDAVO_TRUSTED_PROXIES="127.0.0.1",
                        **LIMITS_ENV) as (_proc, base_url):
        server = Server(base_url, log_path)
        yield server
    server.assert_no_traceback()


def random_loopback() -> str:
    """A loopback address of its own (not 127.0.0.1, which plays the trusted proxy)."""
    return f"127.{secrets.randbelow(254) + 1}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


def forged() -> str:
    """A forged client address, never the same twice in practice."""
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


def request_from(source: str, host: str, port: int, method: str, path: str,
                 headers: dict[str, str] | None = None, body: bytes | None = None,
                 *, tls: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request sent from the local address ``source``."""
    conn: http.client.HTTPConnection
    if tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(host, port, timeout=30, source_address=(source, 0),
                                           context=context)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=30, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def guest_post(server: Any, source: str, xff: str | None) -> tuple[int, bytes]:
    """``POST /accounts/guest/`` (a new guest identity: counted per address) from ``source``,
    a fresh visitor each time, with an X-Forwarded-For of ``xff``."""
    headers = csrf_headers()
    if xff is not None:
        headers["X-Forwarded-For"] = xff
    status, _headers, body = request_from(source, server.host, server.port, "POST",
                                          "/accounts/guest/", headers)
    return status, body


def assert_app_rate_limited(status: int, body: bytes) -> None:
    assert status == 429, body
    assert json.loads(body)["error"]["code"] == "rate_limited", body  # the app's, not the edge's


@pytestmark_db
def test_http_forged_addresses_do_not_dodge_a_per_address_limit(
        daphne_trusting_nobody: Server) -> None:
    source = random_loopback()
    results = [guest_post(daphne_trusting_nobody, source, forged()) for _ in range(4)]
    assert [status for status, _ in results[:3]] == [200, 200, 200], results
    assert_app_rate_limited(*results[3])
    # another address is still served
    assert guest_post(daphne_trusting_nobody, random_loopback(), None)[0] == 200


@pytestmark_db
def test_a_static_path_escaping_its_directory_is_a_400(daphne_trusting_nobody: Server) -> None:
    """Without the edge (``make run`` serves /static/ from the app): ``..`` is refused as a
    suspicious request, not answered with a 500 (the fixture checks the log for tracebacks)."""
    server = daphne_trusting_nobody
    for path in ("/static/../../kondavo/settings/base.py", "/static/%2e%2e/x.css"):
        status, _headers, body = request_from(random_loopback(), server.host, server.port,
                                              "GET", path)
        assert status in (400, 404) and b"SECRET_KEY" not in body, (path, status)
    status, _headers, _body = request_from(random_loopback(), server.host, server.port, "GET",
                                           "/static/../../kondavo/settings/base.py")
    assert status == 400


@pytestmark_db
def test_forged_addresses_do_not_dodge_the_login_lockout(
        daphne_trusting_nobody: Server) -> None:
    from urllib.parse import urlencode

    source = random_loopback()

    def failed_login(xff: str) -> tuple[int, bytes]:
        headers = csrf_headers(**{"Content-Type": "application/x-www-form-urlencoded",
                                  "X-Forwarded-For": xff})
        body = urlencode({"username": "walter", "password": "wrong"}).encode()
        status, _headers, content = request_from(
            source, daphne_trusting_nobody.host, daphne_trusting_nobody.port, "POST",
            "/accounts/login/", headers, body)
        return status, content

    results = [failed_login(forged()) for _ in range(3)]
    assert [status for status, _ in results] == [200, 200, 429]  # AXES_FAILURE_LIMIT=3
    assert b"Too many failed logins" in results[2][1]


@pytestmark_db
def test_http_a_trusted_proxy_is_believed(daphne_trusting_loopback: Server) -> None:
    """The positive control: from the trusted 127.0.0.1 every forwarded address is its own
    client, so the limit is not reached; from an untrusted address the header is ignored."""
    statuses = [guest_post(daphne_trusting_loopback, "127.0.0.1", forged())[0]
                for _ in range(5)]
    assert statuses == [200] * 5
    source = random_loopback()
    results = [guest_post(daphne_trusting_loopback, source, forged()) for _ in range(4)]
    assert_app_rate_limited(*results[3])


SEEKERS: list[int] = []  # the guests lobby_seek made, whose seeks must be gone at the end


@pytest.fixture(autouse=True)
async def seeks_left_with_their_sockets() -> Any:
    """Waits for the Daphne to finish with the lobby sockets a test closed (their seeks
    leave with them) before the database is emptied for the next test."""
    yield
    from kondavo.games.models import Seek

    def open_seeks() -> int:
        return Seek.objects.filter(player_id__in=SEEKERS, status="open").count()

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while SEEKERS and await database_sync_to_async(open_seeks)() and loop.time() < deadline:
        await asyncio.sleep(0.05)
    SEEKERS.clear()


async def lobby_seek(ws_url: str, origin: str, source: str, xff: str | None) -> dict[str, Any]:
    """A new guest opens a lobby socket from ``source`` (X-Forwarded-For ``xff``) and makes
    a seek; returns the frame that answers it (``seeks`` or ``error``)."""
    player = await database_sync_to_async(make_guest)()
    SEEKERS.append(player.pk)
    headers = {"Cookie": await database_sync_to_async(session_cookie)(player)}
    if xff is not None:
        headers["X-Forwarded-For"] = xff
    async with websockets.connect(ws_url + "/ws/lobby/", origin=origin,  # type: ignore[arg-type]
                                  additional_headers=headers, open_timeout=10,
                                  local_addr=(source, 0)) as ws:
        await next_frame(ws, "seeks")
        await ws.send(json.dumps({"t": "seek", "d": {"variant": "international",
                                                     "time_control": "5+3"}}))
        while True:
            frame = await next_frame(ws)
            if frame["t"] == "error" or (frame["t"] == "seeks" and any(
                    s.get("mine") for s in frame["d"]["seeks"])):
                return frame


@pytestmark_db
async def test_websocket_forged_addresses_do_not_dodge_a_per_address_limit(
        daphne_trusting_nobody: Server, daphne_trusting_loopback: Server) -> None:
    server = daphne_trusting_nobody
    source = random_loopback()
    frames = [await lobby_seek(server.ws_url, server.base_url, source, forged())
              for _ in range(3)]
    assert [f["t"] for f in frames] == ["seeks", "seeks", "error"], frames
    assert frames[2]["d"]["code"] == "rate_limited"
    # positive control: the same forged headers from a trusted proxy are distinct clients
    trusting = daphne_trusting_loopback
    frames = [await lobby_seek(trusting.ws_url, trusting.base_url, "127.0.0.1", forged())
              for _ in range(3)]
    assert [f["t"] for f in frames] == ["seeks", "seeks", "seeks"], frames


# --------------------------------------------------------------------------- the edge

needs_nginx = pytest.mark.skipif(not NGINX.is_file(),
                                 reason=f"{NGINX} is missing (apt-get install nginx)")
STATIC_PROBE = "edge-probe.css"


@pytest.fixture(scope="module")
def static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("edge-static")
    (root / STATIC_PROBE).write_text("body { color: #123456; }\n")
    return root


@pytest.fixture(scope="module")
def edge_and_lb(daphne_trusting_loopback: Server, static_root: Path,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Edge, str]]:
    """The edge (plain mode) in front of a Daphne that trusts it; it trusts one load
    balancer address of its own, which it returns with the edge."""
    lb = random_loopback()
    with running_edge(tmp_path_factory.mktemp("edge"),
                      upstreams=[f"127.0.0.1:{daphne_trusting_loopback.port}"],
                      static_root=static_root, mode="plain",
                      trusted_proxies=lb) as edge:
        yield edge, lb


class EdgeAsServer:
    def __init__(self, edge: Edge) -> None:
        self.host, self.port = "127.0.0.1", edge.http_port


@needs_nginx
@pytestmark_db
def test_edge_serves_pages_and_static_files(edge_and_lb: tuple[Edge, str]) -> None:
    edge, _lb = edge_and_lb
    source = random_loopback()
    status, headers, body = request_from(source, "127.0.0.1", edge.http_port, "GET", "/")
    assert status == 200 and b"Kondavo" in body
    assert headers["server"] == "nginx"  # no version (server_tokens off)
    status, headers, body = request_from(source, "127.0.0.1", edge.http_port, "GET",
                                         f"/static/{STATIC_PROBE}")
    assert status == 200 and b"#123456" in body and headers["content-type"] == "text/css"
    status, _headers, _body = request_from(source, "127.0.0.1", edge.http_port, "GET",
                                           "/static/missing.css")
    assert status == 404  # from the volume, never from a Daphne
    # a browser's POST carries its Origin (host and port): Django's CSRF check must see the
    # same host and port through the edge
    status, _headers, body = request_from(
        source, "127.0.0.1", edge.http_port, "POST", "/accounts/guest/",
        csrf_headers(Origin=f"http://127.0.0.1:{edge.http_port}"))
    assert status == 200, body
    # a body over the edge's limit never reaches a Daphne
    status, _headers, _body = request_from(source, "127.0.0.1", edge.http_port, "POST",
                                           "/analysis/eval", {"Content-Type": "text/plain"},
                                           b"x" * (300 * 1024))
    assert status == 413


@needs_nginx
@pytestmark_db
def test_edge_overwrites_a_client_sent_forwarded_for(edge_and_lb: tuple[Edge, str]) -> None:
    edge, lb = edge_and_lb
    server = EdgeAsServer(edge)
    source = random_loopback()
    results = [guest_post(server, source, forged()) for _ in range(4)]
    assert [status for status, _ in results[:3]] == [200, 200, 200], results
    assert_app_rate_limited(*results[3])
    # Only the declared load balancer speaks for its clients: each one is its own address.
    statuses = [guest_post(server, lb, forged())[0] for _ in range(5)]
    assert statuses == [200] * 5


@needs_nginx
@pytestmark_db
async def test_edge_upgrades_websockets_and_forged_addresses_change_nothing(
        edge_and_lb: tuple[Edge, str]) -> None:
    edge, _lb = edge_and_lb
    source = random_loopback()
    frames = [await lobby_seek(edge.ws_url, edge.base_url, source, forged()) for _ in range(3)]
    assert [f["t"] for f in frames] == ["seeks", "seeks", "error"], frames
    assert frames[2]["d"]["code"] == "rate_limited"


async def ws_attempt(edge: Edge, source: str) -> tuple[int, str, Any]:
    """(status, edge error code or "", open socket or None) of one websocket connection."""
    try:
        ws = await websockets.connect(edge.ws_url + "/ws/lobby/", origin=edge.base_url,
                                      open_timeout=15, local_addr=(source, 0))
    except websockets.InvalidStatus as exc:
        body = exc.response.body or b""
        code = json.loads(body)["error"]["code"] if body.startswith(b"{") else ""
        return exc.response.status_code, code, None
    return 101, "", ws


@needs_nginx
@pytestmark_db
async def test_edge_refuses_a_burst_of_websockets_from_one_address(
        edge_and_lb: tuple[Edge, str]) -> None:
    edge, _lb = edge_and_lb
    source = random_loopback()
    attempts = await asyncio.gather(*(ws_attempt(edge, source)
                                      for _ in range(ws_conn_limit() + 60)))
    try:
        opened = [ws for status, _code, ws in attempts if ws is not None]
        refused = [(status, code) for status, code, _ws in attempts if status != 101]
        # the edge refused the excess itself (its own JSON codes), before any Daphne
        assert refused and set(refused) <= {(429, "edge_rate_limited"),
                                            (503, "edge_too_many_connections")}, refused
        assert 0 < len(opened) <= ws_conn_limit()
        # another address is served at once
        status, _code, ws = await ws_attempt(edge, random_loopback())
        assert status == 101
        await ws.close()
    finally:
        await asyncio.gather(*(ws.close() for _s, _c, ws in attempts if ws is not None))
    assert "limiting" in edge.log()  # the refusals are logged


def ws_conn_limit() -> int:
    """The edge's cap on open websockets per address, as deploy/nginx/kondavo/site.conf has
    it."""
    import re

    from edge_nginx import DEPLOY

    site = (DEPLOY / "kondavo" / "site.conf").read_text()
    block = site[site.index("location /ws/"):]
    return int(re.search(r"limit_conn kondavo_conn (\d+);", block).group(1))  # type: ignore[union-attr]


@pytest.mark.timing
@needs_nginx
@pytestmark_db
async def test_edge_caps_open_websockets_per_address(edge_and_lb: tuple[Edge, str]) -> None:
    """Sockets held open from one address: the one past the cap is refused with the edge's
    503 even when the connection rate allows it; closing one makes room again."""
    edge, _lb = edge_and_lb
    cap = ws_conn_limit()
    source = random_loopback()
    held: list[Any] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    refusal: tuple[int, str] | None = None
    try:
        while refusal is None and loop.time() < deadline:
            status, code, ws = await ws_attempt(edge, source)
            if ws is not None:
                held.append(ws)
            elif code == "edge_rate_limited":  # the connection rate: wait for a token
                await asyncio.sleep(0.1)
            else:
                refusal = (status, code)
        assert refusal == (503, "edge_too_many_connections")
        assert len(held) == cap
        await held.pop().close()
        while loop.time() < deadline:  # the edge sees the close a moment later
            status, code, ws = await ws_attempt(edge, source)
            if ws is not None:
                held.append(ws)
                break
            await asyncio.sleep(0.1)
        assert len(held) == cap
    finally:
        await asyncio.gather(*(ws.close() for ws in held))


@needs_nginx
@pytestmark_db
def test_edge_in_tls_mode_redirects_and_serves_https(
        daphne_trusting_loopback: Server, static_root: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    certs = self_signed_certificate(tmp_path_factory.mktemp("certs"))
    with running_edge(tmp_path_factory.mktemp("edge-tls"),
                      upstreams=[f"127.0.0.1:{daphne_trusting_loopback.port}"],
                      static_root=static_root, mode="tls", certs_dir=certs) as edge:
        source = random_loopback()
        status, headers, _body = request_from(source, "127.0.0.1", edge.http_port, "GET",
                                              "/rules/?x=1")
        assert status == 301
        assert headers["location"] == f"https://127.0.0.1:{edge.https_port}/rules/?x=1"
        status, _headers, body = request_from(source, "127.0.0.1", edge.https_port, "GET",
                                              "/rules/", tls=True)
        assert status == 200 and b"Kondavo" in body


@needs_nginx
@pytestmark_db
def test_edge_spreads_over_an_upstream_group_and_skips_a_dead_daphne(
        daphne_trusting_loopback: Server, static_root: Path, artifacts_dir: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Daphnes on other machines (docs/deploying.md): an upstream group named in
    KONDAVO_UPSTREAM. Both Daphnes serve; when one dies, every request still succeeds."""
    from django.db import connection

    log_path = artifacts_dir / "daphne-edge-second.log"
    with running_daphne(connection.settings_dict, log_path, KONDAVO_TRUSTED_PROXIES="127.0.0.1",
                        **LIMITS_ENV) as (second, second_url):
        upstreams = [f"127.0.0.1:{daphne_trusting_loopback.port}",
                     second_url.removeprefix("http://")]
        with running_edge(tmp_path_factory.mktemp("edge-group"), upstreams=upstreams,
                          static_root=static_root) as edge:
            assert "upstream kondavo_web" in (
                edge.conf_dir / "conf.d" / "kondavo-upstreams.conf").read_text()
            source = random_loopback()

            def get() -> int:
                return request_from(source, "127.0.0.1", edge.http_port, "GET", "/rules/")[0]

            assert [get() for _ in range(6)] == [200] * 6
            second.terminate()
            second.wait(timeout=10)
            assert [get() for _ in range(6)] == [200] * 6
            # the dead one was still in the rotation: the edge tried it and moved on
            second_address = second_url.removeprefix("http://")
            assert f'upstream: "http://{second_address}/rules/"' in edge.log()
