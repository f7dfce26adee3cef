"""A burst of concurrent HTTP GETs and a watch on PostgreSQL's connection count: shared by
the pool test and bench/db_burst.py."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit


async def _get(host: str, port: int, path: str, timeout: float) -> int:
    """One HTTP/1.1 GET on its own connection; the status code (0: no answer)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                     .encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)
        writer.close()
        return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    except (TimeoutError, OSError, ValueError, IndexError):
        return 0


def burst(base_url: str, paths: list[str], timeout: float = 120) -> tuple[Counter[int], float]:
    """GET every path at once (one connection each); (status counts, seconds taken)."""
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80

    async def run() -> list[int]:
        return await asyncio.gather(*(_get(host, port, p, timeout) for p in paths))

    t0 = time.monotonic()
    statuses = asyncio.run(run())
    return Counter(statuses), time.monotonic() - t0


class ConnectionWatch:
    """Samples ``pg_stat_activity`` (connections to one database) every 20 ms in a thread;
    ``peak`` is the most seen at once."""

    def __init__(self, settings_dict: dict[str, Any]) -> None:
        import psycopg

        self.conn = psycopg.connect(
            dbname="postgres", user=settings_dict.get("USER") or None,
            password=settings_dict.get("PASSWORD") or None,
            host=settings_dict.get("HOST") or "127.0.0.1", port=settings_dict.get("PORT") or None,
            autocommit=True)
        self.database = str(settings_dict["NAME"])
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def count(self) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [self.database]
        ).fetchone()
        return int(row[0]) if row else 0

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.count())
            time.sleep(0.02)

    def __enter__(self) -> ConnectionWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.conn.close()
