"""A helper of the games tests: the same call from many threads released at once."""

from __future__ import annotations

from typing import Any


def race(call: Any, threads: int, per_thread: int = 1) -> list[str]:
    """Run ``call()`` from ``threads`` threads released at once (``per_thread`` times each):
    the outcome of every call, ``"ok"`` or the ``GameError`` code it raised."""
    import threading

    from django.db import connection as conn

    from kondavo.games.errors import GameError

    barrier = threading.Barrier(threads)
    outcomes: list[str] = []
    lock = threading.Lock()

    def submit() -> None:
        try:
            barrier.wait()
            for _ in range(per_thread):
                try:
                    call()
                    result = "ok"
                except GameError as exc:
                    result = exc.code
                with lock:
                    outcomes.append(result)
        finally:
            conn.close()

    workers = [threading.Thread(target=submit) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=120)
    return outcomes
