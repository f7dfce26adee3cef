"""A burst of concurrent GETs against one Daphne on PostgreSQL: errors and peak database
connections, with psycopg's connection pool (the default) and without it (persistent
connections per thread, the previous setting), against PostgreSQL's default
``max_connections=100``.

Run from the repository root with the project's virtualenv:

    .venv/bin/python bench/db_burst.py                 # 250 concurrent GETs, pool of 10
    .venv/bin/python bench/db_burst.py --requests 500 --pool 4

It starts a throwaway PostgreSQL (initdb on a free port, max_connections=100), migrates it,
then for each setting starts a Daphne (kondavo.settings.local, DEBUG off), fires the burst
(one connection per request) and prints the status counts, the time taken and the most
connections PostgreSQL saw at once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import free_port, start_postgres, wait_port  # noqa: E402


async def _get(port: int, path: str) -> int:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 60)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                     .encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 120)
        writer.close()
        return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    except (OSError, TimeoutError, ValueError, IndexError):
        return 0


def burst(port: int, paths: list[str]) -> tuple[Counter[int], float]:
    async def run() -> list[int]:
        return await asyncio.gather(*(_get(port, p) for p in paths))

    t0 = time.monotonic()
    return Counter(asyncio.run(run())), time.monotonic() - t0


def peak_connections(pg_port: int, stop: threading.Event, out: list[int]) -> None:
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=pg_port, user="postgres", dbname="postgres",
                         autocommit=True) as conn:
        while not stop.is_set():
            row = conn.execute("SELECT count(*) FROM pg_stat_activity "
                               "WHERE datname = 'kondavo'").fetchone()
            out.append(int(row[0]) if row else 0)
            time.sleep(0.01)


def run_one(label: str, env: dict[str, str], tmp: Path, pg_port: int,
            paths: list[str]) -> None:
    port = free_port()
    log_path = tmp / f"daphne-{label}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p",
                                 str(port), "kondavo.asgi:application"], cwd=REPO, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_port(port, proc)
        burst(port, paths[:5])  # warm up (imports, first connections)
        stop, samples = threading.Event(), [0]
        watcher = threading.Thread(target=peak_connections, args=(pg_port, stop, samples))
        watcher.start()
        counts, seconds = burst(port, paths)
        stop.set()
        watcher.join()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    errors = sum(n for status, n in counts.items() if status >= 500 or status == 0)
    too_many = log_path.read_text(errors="replace").count("too many clients")
    print(f"{label:<34} {len(paths)} GETs in {seconds:5.2f} s: "
          f"{dict(sorted(counts.items()))}, 5xx/no answer {errors}, "
          f"peak PostgreSQL connections {max(samples)}, 'too many clients' in log {too_many}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=250)
    parser.add_argument("--pool", type=int, default=10, help="DB_POOL_MAX_SIZE")
    parser.add_argument("--max-connections", type=int, default=100,
                        help="PostgreSQL max_connections (its default: 100)")
    args = parser.parse_args()
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-burst-")))
        tmp.chmod(0o755)
        database_url = start_postgres(stack, tmp, args.max_connections)
        pg_port = urlsplit(database_url).port or 5432
        env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "false",
               "DJANGO_SETTINGS_MODULE": "kondavo.settings.local", "LOG_LEVEL": "WARNING",
               "REDIS_URL": ""}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=REPO, env=env, check=True)
        # Pages that read the database and need no session (crawler-like traffic); the
        # unknown game is an expected 404.
        pages = ["/leaderboards/international/", "/leaderboards/english/", "/lobby/",
                 "/games/nosuchgame/state.json"]
        paths = [pages[i % len(pages)] for i in range(args.requests)]
        print(f"PostgreSQL max_connections={args.max_connections}; one Daphne; "
              f"{args.requests} concurrent GETs")
        run_one(f"pool (DB_POOL_MAX_SIZE={args.pool})",
                {**env, "DB_POOL": "true", "DB_POOL_MAX_SIZE": str(args.pool)}, tmp, pg_port,
                paths)
        run_one("no pool (DB_CONN_MAX_AGE=60)",
                {**env, "DB_POOL": "false", "DB_CONN_MAX_AGE": "60"}, tmp, pg_port, paths)


if __name__ == "__main__":
    main()
