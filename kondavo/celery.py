"""The Celery application `kondavo`, configured from Django settings (namespace CELERY).

Run a worker with:  celery -A kondavo worker -Q bots,celery --prefetch-multiplier=1
The analysis board's searches have a queue of their own (``bots.tasks.analysis_eval``):
                    celery -A kondavo worker -Q analysis --prefetch-multiplier=1 --concurrency=1
Without REDIS_URL the settings make every task run eagerly in-process instead.

A worker that consumes an engine queue (``analysis``, ``bots``, ``bots-fast``) makes sure the
endgame tables are in the cache directory when it starts (``worker_ready``): a thread solves
those that are missing (the Docker image has them built in, so there it only checks), and
the worker's engines pick them up from the directory (``bots.engine.tables.refresh``). The
thread runs at the lowest CPU priority, and workers starting together solve each table once.
Web processes never solve them.
"""

import os
import threading
from typing import Any

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kondavo.settings.local")

app = Celery("kondavo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

ENGINE_QUEUES = frozenset({"analysis", "bots", "bots-fast"})


def worker_queues(consumer: Any) -> set[str]:
    """The queue names a starting worker consumes (empty when they cannot be read)."""
    try:
        return {queue.name for queue in consumer.task_consumer.queues}
    except AttributeError:
        return set()


@worker_ready.connect
def solve_missing_tables(sender: Any = None, **_kwargs: Any) -> threading.Thread | None:
    """In a worker of an engine queue: solve the endgame tables missing from the cache
    directory, in a thread, so the worker consumes at once."""
    if not worker_queues(sender) & ENGINE_QUEUES:
        return None
    thread = threading.Thread(target=_solve_tables, name="tables", daemon=True)
    thread.start()
    return thread


def _solve_tables() -> None:
    """The tables thread: at the lowest CPU priority (on Linux a thread has its own nice
    value), so solving tables never slows the worker's bot moves or the web processes on
    the same machine; the workers starting together solve each table once
    (``bots.engine.tables.load_or_solve``)."""
    from bots.analysis import lower_thread_priority
    from bots.engine import tables

    lower_thread_priority(19)
    tables.solve_all()
