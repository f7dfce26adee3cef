"""Run blocking work later, off the event loop, without a Celery worker (the embedded mode).

When called from a thread serving a bound event loop (``events.bind_loop``: a consumer's
service call, a view under Daphne), the work is scheduled on that *main* event loop and run
in a worker thread from there, so its publishes go back through the main loop
(the in-memory layer is not thread-safe). Anywhere else (a plain script), a daemon timer
thread is used.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from django.db import connections

from kondavo.games import events

log = logging.getLogger(__name__)

_tasks: set[asyncio.Task[Any]] = set()  # strong references until done


def _main_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop of this thread, or the one bound for it (``events.bind_loop``)."""
    return events.publisher.bound_loop()


def run_later(func: Callable[..., Any], *args: Any, delay: float = 0.0) -> None:
    """Call ``func(*args)`` in a worker thread after ``delay`` seconds; errors are logged.
    Dropped (with a warning) when the main event loop has stopped: the process is
    shutting down, and a job started now would only hold up its exit."""
    loop = _main_loop()
    if loop is None or loop.is_closed():  # not under an event loop (or a stale one)
        _run_in_timer_thread(func, *args, delay=delay)
        return
    if not loop.is_running():
        log.warning("background job %s dropped: the event loop has stopped",
                    getattr(func, "__name__", func))
        return
    _run_on_loop(loop, func, *args, delay=delay)


def _run_in_timer_thread(func: Callable[..., Any], *args: Any, delay: float) -> None:
    def target() -> None:
        try:
            func(*args)
        except Exception:
            log.exception("background job %s failed", getattr(func, "__name__", func))
        finally:
            connections.close_all()

    timer = threading.Timer(max(delay, 0.0), target)
    timer.daemon = True
    timer.start()


def _run_on_loop(loop: asyncio.AbstractEventLoop, func: Callable[..., Any], *args: Any,
                 delay: float) -> None:
    def job() -> None:
        try:
            func(*args)
        finally:
            connections.close_all()  # this pool thread may never run Django code again

    async def runner() -> None:
        events.bind_loop(loop)  # the job's sends come back to this loop
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            await database_sync_to_async(job, thread_sensitive=False)()
        except Exception:
            log.exception("background job %s failed", getattr(func, "__name__", func))

    def start() -> None:
        task = loop.create_task(runner())
        _tasks.add(task)
        task.add_done_callback(_tasks.discard)

    try:
        loop.call_soon_threadsafe(start)
    except RuntimeError:  # the loop was closed in the meantime: shutting down
        log.warning("background job %s dropped: the event loop is closed",
                    getattr(func, "__name__", func))
