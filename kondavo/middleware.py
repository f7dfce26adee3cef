"""How a web process runs Django's HTTP requests on threads (ASGI, Daphne).

- ``RequestThreads`` (around Django's ASGI app, ``kondavo/asgi.py``): Django enters a new
  ``ThreadSensitiveContext`` for every request, and asgiref then starts a thread for that
  request's thread-sensitive work (the middlewares, a sync view) and, at its end, a second
  thread to join the first: two thread starts and a join per request, about a third of a
  Daphne's samples under a burst of small requests. Here each request borrows a
  long-lived single-thread executor from a small pool instead (asgiref's
  ``ThreadSensitiveContext(executor=...)``, entered before Django's, which then adds
  nothing), and gives it back when its thread is idle. A thread also keeps its database
  connection between requests as ``CONN_MAX_AGE`` intends (a thread per request lost it).
- ``SyncChainMiddleware`` (last in ``MIDDLEWARE``): Django runs each middleware in the mode
  of the handler below it. The ``MiddlewareMixin`` ones can run either way, so below an
  async handler they run async, and each hops to its thread and back for each of its
  methods (with the site's list: messages, clickjacking and axes below the sync-only
  ``PlayerMiddleware``, seven hops a request). A sync-only middleware innermost makes
  Django adapt once there; every middleware above it runs sync, one after the other, in
  the request's thread (four hops: into the thread, the view, the signals).

- ``LateRefusals`` (around ``RequestThreads``): an HTTP 429 (a rate limit, the login
  lockout, the analysis board's one-request-in-flight) is sent ``KONDAVO_HTTP_REFUSE_DELAY``
  seconds late (default 1), as the websocket opening gate answers its 403s
  (``kondavo.games.discipline.ConnectGateMiddleware``). A refused request still costs its
  parsing and Django's middleware chain (about 5 CPU ms); a client that asks again as soon
  as it is refused, ignoring ``Retry-After``, now asks once a second per connection
  instead of as fast as the server answers. The response waits after Django is done with
  it (no thread is held); at most ``KONDAVO_HTTP_REFUSE_HELD`` (2,000) wait at once in a
  process, beyond which they are sent at once (``LateAnswers``, shared with the opening
  gate). An honest visitor meets a 429 rarely and loses a second.

Together they cut the CPU a web process spends on requests (bench/results/live.md, "Fifth
round", "Seventh round"): what a flood of refused requests (the analysis board's 429s, a
scanner's 404s) takes from live play on the same machine.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

# Executors kept idle for the next requests; a burst beyond them gets new ones, shut down
# when given back.
IDLE_THREADS = 16


class RequestThreads:
    """ASGI middleware: HTTP requests run their thread-sensitive work on pooled threads."""

    def __init__(self, app: Any, idle: int = IDLE_THREADS) -> None:
        self.app = app
        self.idle = idle
        self._free: list[ThreadPoolExecutor] = []
        self._lock = threading.Lock()
        self.started = 0  # executors made (for tests and the lab)

    def _borrow(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._free:
                return self._free.pop()
            self.started += 1
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="kondavo-request")

    def _give_back(self, executor: ThreadPoolExecutor) -> None:
        """Back to the pool once its thread is idle (a request whose client went away may
        leave its view running there: the next request must not wait behind it)."""

        def idle(_: Future[None]) -> None:
            with self._lock:
                if len(self._free) < self.idle:
                    self._free.append(executor)
                    return
            executor.shutdown(wait=False)

        executor.submit(lambda: None).add_done_callback(idle)

    def close(self, timeout: float = 10.0) -> None:
        """End the idle threads, their database connections closed first."""
        from django.db import connections

        with self._lock:
            free, self._free = self._free, []
        for executor in free:
            executor.submit(connections.close_all).result(timeout)
            executor.shutdown(wait=True)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        executor = self._borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
        finally:
            self._give_back(executor)


class LateAnswers:
    """Refusals answered late, one mechanism for HTTP 429s (``LateRefusals``) and refused
    websocket openings (``kondavo.games.discipline.ConnectGateMiddleware``): a refusal that
    ``reserve``s a place waits ``delay_setting`` seconds (``wait``); at most
    ``held_setting`` wait at once in a process, beyond which (or with a delay of 0) the
    refusal goes at once."""

    def __init__(self, delay_setting: str, held_setting: str) -> None:
        self.delay_setting, self.held_setting = delay_setting, held_setting
        self.held = 0  # refusals waiting now (for tests and the lab)

    def reserve(self) -> bool:
        if (float(getattr(settings, self.delay_setting, 1.0)) > 0
                and self.held < int(getattr(settings, self.held_setting, 2000))):
            self.held += 1
            return True
        return False

    async def wait(self) -> None:
        """The reserved wait; its place is given back however it ends."""
        try:
            await asyncio.sleep(float(getattr(settings, self.delay_setting, 1.0)))
        finally:
            self.held -= 1

    def cancel(self) -> None:
        """Give back a place reserved but not waited for."""
        self.held -= 1


class LateRefusals:
    """ASGI middleware: HTTP 429 responses are sent late (see the module)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.late = LateAnswers("KONDAVO_HTTP_REFUSE_DELAY", "KONDAVO_HTTP_REFUSE_HELD")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        kept: list[dict[str, Any]] = []

        async def sending(message: dict[str, Any]) -> None:
            if kept:
                kept.append(message)
            elif (message["type"] == "http.response.start" and message.get("status") == 429
                  and self.late.reserve()):
                kept.append(message)
            else:
                await send(message)

        try:
            await self.app(scope, receive, sending)
        except BaseException:
            if kept:
                self.late.cancel()
            raise
        if kept:
            await self.late.wait()
            for message in kept:
                await send(message)


class SyncChainMiddleware:
    """Sync-only and doing nothing itself: see the module."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)
