"""How the web process runs Django's HTTP requests on threads (kondavo/middleware.py):
requests borrow pooled threads (``RequestThreads``) and the middleware chain runs in the
request's thread without a hop per middleware (``SyncChainMiddleware``), through Django's
real ASGI handler."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.testing import HttpCommunicator
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.asgi import get_asgi_application

from kondavo.middleware import LateRefusals, RequestThreads

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thread each request's session middleware ran in."""
    names: list[str] = []
    real = SessionMiddleware.process_request

    def process_request(self: SessionMiddleware, request: Any) -> None:
        names.append(threading.current_thread().name)
        real(self, request)

    monkeypatch.setattr(SessionMiddleware, "process_request", process_request)
    return names


async def get(app: Any, path: str = "/rules/") -> int:
    response = await HttpCommunicator(app, "GET", path, headers=[(b"host", b"localhost")]
                                      ).get_response(timeout=30)
    return int(response["status"])


@pytest.fixture
def pools() -> Any:
    """RequestThreads made by a test, closed after it (their threads hold connections)."""
    made: list[RequestThreads] = []

    def make(app: Any, **kwargs: Any) -> RequestThreads:
        made.append(RequestThreads(app, **kwargs))
        return made[-1]

    yield make
    time.sleep(0.2)  # executors go back to their pool once idle
    for pool in made:
        pool.close()
    gc.collect()  # the connections of threads Django started per request (no pool) close


async def test_requests_reuse_pooled_threads(seen: list[str], pools: Any) -> None:
    app = pools(get_asgi_application(), idle=4)
    for _ in range(5):
        assert await get(app) == 200
        await asyncio.sleep(0.05)  # the request's executor goes back once its thread idles
    await asyncio.sleep(0.1)  # the last executor goes back once its thread is idle
    assert app.started == 1, seen
    assert len(set(seen)) == 1 and seen[0].startswith("kondavo-request"), seen

    statuses = await asyncio.gather(*(get(app) for _ in range(6)))  # at once: more threads
    assert statuses == [200] * 6
    await asyncio.sleep(0.1)
    assert 1 < app.started <= 7
    assert len(app._free) <= 4  # the burst's extra threads were shut down, not kept
    before = app.started
    assert await get(app) == 200  # and a pooled one serves the next request
    assert app.started == before


async def test_without_the_pool_each_request_starts_a_thread(seen: list[str],
                                                             pools: Any) -> None:
    """What ``RequestThreads`` replaces (Django's own behaviour under ASGI)."""
    app = get_asgi_application()
    for _ in range(3):
        assert await get(app) == 200
    assert len(set(seen)) == 3, seen


async def test_the_middleware_chain_runs_without_a_hop_per_middleware(
        monkeypatch: pytest.MonkeyPatch, settings: Any, pools: Any) -> None:
    hops: list[str] = []
    real_call = SyncToAsync.__call__

    async def counting(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await real_call(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counting)
    assert settings.MIDDLEWARE[-1] == "kondavo.middleware.SyncChainMiddleware"
    app = pools(get_asgi_application())
    assert await get(app) == 200
    with_chain = len(hops)

    hops.clear()
    settings.MIDDLEWARE = settings.MIDDLEWARE[:-1]
    assert await get(pools(get_asgi_application())) == 200
    without_chain = len(hops)
    # The MiddlewareMixin middlewares below the last sync-only one hop for each method
    # when they run async (messages, clickjacking: three hops more).
    assert with_chain <= 4 and without_chain >= with_chain + 3, (with_chain, without_chain,
                                                                  hops)


# --------------------------------------------------------------------------- LateRefusals

def answering(status: int, finished: list[float]) -> Any:
    """An ASGI app answering ``status``; records when it returned."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})
        finished.append(time.perf_counter())

    return app


async def call(app: Any) -> tuple[list[tuple[float, dict[str, Any]]], float]:
    """(each message sent with its time, when the call started)."""
    sent: list[tuple[float, dict[str, Any]]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append((time.perf_counter(), message))

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    start = time.perf_counter()
    await app({"type": "http", "method": "POST", "path": "/x"}, receive, send)
    return sent, start


async def test_a_429_is_sent_late_after_the_app_is_done(settings: Any) -> None:
    settings.KONDAVO_HTTP_REFUSE_DELAY = 0.4
    finished: list[float] = []
    late = LateRefusals(answering(429, finished))
    sent, start = await call(late)
    assert [m["type"] for _, m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0][1]["status"] == 429
    assert finished[0] - start < 0.2  # Django (and its thread) was done at once
    assert sent[0][0] - finished[0] >= 0.39  # the answer waited after it
    assert late.late.held == 0


async def test_other_answers_go_at_once_and_the_held_are_bounded(settings: Any) -> None:
    settings.KONDAVO_HTTP_REFUSE_DELAY = 0.4
    settings.KONDAVO_HTTP_REFUSE_HELD = 1
    finished: list[float] = []
    ok = LateRefusals(answering(200, finished))
    sent, start = await call(ok)
    assert sent[0][1]["status"] == 200 and sent[-1][0] <= finished[0]  # before the app ended
    late = LateRefusals(answering(429, finished))
    (first, s1), (second, s2) = await asyncio.gather(call(late), call(late))
    delays = sorted([first[0][0] - s1, second[0][0] - s2])
    assert delays[0] < 0.2 and delays[1] >= 0.39, delays  # one held, one sent at once
    assert late.late.held == 0
    settings.KONDAVO_HTTP_REFUSE_DELAY = 0  # off
    sent, start = await call(late)
    assert sent[0][0] - start < 0.2
