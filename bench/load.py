"""Load test: N concurrent games between scripted websocket clients on a real Daphne + Redis.

Run from the repository root with the project's virtualenv (``.venv/bin/python``):

    # saturation: 200 games moving as fast as the server answers, 1 Daphne, PostgreSQL
    .venv/bin/python bench/load.py --games 200 --think 0
    # realistic: 1,000 games, each side thinking 1 s on average (0.5-1.5 s), 2 Daphnes
    .venv/bin/python bench/load.py --games 1000 --think 1.0 --daphnes 2
    # the same against services you run yourself (nothing started but the Daphnes)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kondavo REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/load.py --games 500 --think 1.0 --daphnes 2
    # against servers already running (no services, no Daphne started)
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --url http://127.0.0.1:8001

Services: without ``REDIS_URL`` a throwaway ``redis-server`` is started on a free loopback port;
without ``DATABASE_URL`` a throwaway PostgreSQL cluster (``initdb`` + ``pg_ctl`` from
/usr/lib/postgresql/*/bin, as tests/run_with_services.sh does; ``--db sqlite`` for a SQLite
file instead). The database is migrated, then ``--daphnes`` Daphne processes share the Redis
channel layer (``DB_CONN_MAX_AGE`` defaults to 60 for them: persistent connections; with the
settings' default of 0 every database call opens a new PostgreSQL backend, which alone cost
about 3x in throughput here: ``DB_CONN_MAX_AGE=0 .venv/bin/python bench/load.py``). Games are
created over HTTP as a browser does (guest sessions, ``POST /games/new/friend``, the friend's
``POST /games/<id>/join``); both players connect to ``/ws/game/<id>/`` (with several Daphnes
the two players of a game sit on different ones, so every move crosses the Redis layer). When
every socket has its state, all games start: each side waits ``--think`` seconds (jittered
uniformly 0.5x-1.5x; 0 = answer at once) and plays a random legal move from the server's
frames, up to ``--plies`` plies, then the side to move resigns.

Prints: moves/s, the move -> opponent latency (from sending a move to the opponent's socket
receiving it) p50/p95/p99/max, error frames, client failures, moves whose frame never arrived,
stalls (a socket silent for ``STALL_SECONDS`` while waiting sends ``resync``, as the game page
heals a lost frame; a socket that stalls a 4th time fails),
and the client's own event-loop lag (a busy client inflates the latencies it measures).
The open-file limit is raised (``resource.setrlimit``) for this process and the Daphnes.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import glob
import http.cookiejar
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import websockets

REPO = Path(__file__).resolve().parent.parent
CSRF = "b" * 32
STALL_SECONDS = 30.0  # a socket silent this long while waiting sends a resync


def raise_open_files(wanted: int = 65536) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        try:  # root may raise the hard limit too
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
        except (ValueError, OSError):
            wanted = hard
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return max(soft, target)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes] | None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


# --------------------------------------------------------------------------- services

def start_redis(stack: ExitStack, tmp: Path) -> str:
    if not shutil.which("redis-server"):
        sys.exit("redis-server not found: install it or set REDIS_URL")
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp), "--maxclients", "20000"],
        stdout=subprocess.DEVNULL)
    stack.callback(lambda: (proc.terminate(), proc.wait()))
    wait_port(port, proc)
    return f"redis://127.0.0.1:{port}/0"


def start_postgres(stack: ExitStack, tmp: Path, max_connections: int = 400) -> str:
    """A throwaway PostgreSQL on a free loopback port; its URL. Stopped with ``stack``."""
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                  key=lambda p: [int(x) for x in Path(p).parent.name.split(".") if x.isdigit()])
    if not bins:
        sys.exit("PostgreSQL binaries not found: install postgresql, set DATABASE_URL "
                 "or pass --db sqlite")
    pgbin = Path(bins[-1])
    data = tmp / "pg"
    data.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root
        shutil.chown(data, "postgres", "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    subprocess.run([*prefix, str(pgbin / "initdb"), "-D", str(data), "-U", "postgres",
                    "--auth=trust"], check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    opts = (f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off "
            f"-c max_connections={max_connections}")
    subprocess.run([*prefix, str(pgbin / "pg_ctl"), "-D", str(data), "-w", "-l",
                    str(data / "server.log"), "-o", opts, "start"], check=True,
                   stdout=subprocess.DEVNULL)
    stack.callback(lambda: subprocess.run(
        [*prefix, str(pgbin / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
        stdout=subprocess.DEVNULL, check=False))
    subprocess.run([str(pgbin / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U",
                    "postgres", "kondavo"], check=True)
    return f"postgres://postgres@127.0.0.1:{port}/kondavo"


def start_servers(stack: ExitStack, count: int, db: str) -> list[str]:
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-bench-")))
    tmp.chmod(0o755)
    redis_url = os.environ.get("REDIS_URL") or start_redis(stack, tmp)
    database_url = os.environ.get("DATABASE_URL") or (
        f"sqlite:///{tmp / 'bench.sqlite3'}" if db == "sqlite" else start_postgres(stack, tmp))
    env = {**os.environ, "REDIS_URL": redis_url, "DATABASE_URL": database_url,
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.local", "DEBUG": "false",
           "LOG_LEVEL": "WARNING"}
    env.setdefault("DB_CONN_MAX_AGE", "60")
    # Every simulated player comes from 127.0.0.1: the per-address limits on guests and on
    # game creation (KONDAVO_GUEST_RATE, KONDAVO_CREATE_RATE_IP) would stop the bench.
    env.setdefault("KONDAVO_GUEST_RATE", "")
    env.setdefault("KONDAVO_CREATE_RATE_IP", "")
    # Every game is created, and every socket connected, before any game starts: a first
    # move may come much later than a player would make it (30 s by default).
    env.setdefault("KONDAVO_FIRST_MOVE_SECONDS", "900")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                   cwd=REPO, env=env, check=True)
    urls = []
    for i in range(count):
        port = free_port()
        log = open(tmp / f"daphne-{i}.log", "wb")  # noqa: SIM115
        stack.callback(log.close)
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "kondavo.asgi:application"], cwd=REPO, env=env, stdout=log,
            stderr=subprocess.STDOUT)

        def stop(p: subprocess.Popen[bytes] = proc) -> None:
            p.terminate()  # Daphne may hang on SIGTERM (pool threads): then SIGKILL
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

        stack.callback(stop)
        wait_port(port, proc)
        urls.append(f"http://127.0.0.1:{port}")
    print(f"started Daphne {', '.join(urls)}; Redis {redis_url}; "
          f"database {database_url.split(':')[0]}; DB_POOL={env.get('DB_POOL', 'true')} "
          f"(DB_POOL_MAX_SIZE={env.get('DB_POOL_MAX_SIZE', '10')}), "
          f"else DB_CONN_MAX_AGE={env['DB_CONN_MAX_AGE']}")
    return urls


# --------------------------------------------------------------------------- clients

class Http:
    """One browser-like HTTP session (cookies kept)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> Any:
        with self.opener.open(self.base + path, timeout=60) as r:
            return r.read()

    def post_json(self, path: str, data: dict[str, str]) -> Any:
        body = "&".join(f"{k}={v}" for k, v in data.items()).encode()
        req = urllib.request.Request(self.base + path, data=body, method="POST", headers={
            "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
            "X-CSRFToken": CSRF, "Cookie": f"csrftoken={CSRF}; {self.cookie()}",
            "Referer": self.base + "/"})
        with urllib.request.urlopen(req, timeout=60) as r:
            self.jar.extract_cookies(r, req)  # the session made by this first action
            return json.loads(r.read())

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar if c.name != "csrftoken")


def create_game(base: str, ruleset: str) -> tuple[str, str, str]:
    white, black = Http(base), Http(base)
    white.get("/")
    black.get("/")
    game = white.post_json("/games/new/friend", {"ruleset": ruleset, "color": "white",
                                                 "time_control": "untimed"})
    black.post_json(f"/games/{game['id']}/join", {})
    return game["id"], white.cookie(), black.cookie()


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.errors = 0
        self.finished = 0
        self.connected = 0
        self.lag: list[float] = []
        self.stalls = 0


def think_time(mean: float, rng: random.Random) -> float:
    return rng.uniform(0.5 * mean, 1.5 * mean) if mean > 0 else 0.0


async def player(url: str, origin: str, cookie: str, side: str, plies: int, think: float,
                 sent_at: dict[int, float], stats: Stats, rng: random.Random,
                 ready: asyncio.Semaphore, go: asyncio.Event) -> None:
    async with ready:  # bounded concurrent handshakes
        ws = await websockets.connect(url, origin=origin, additional_headers={"Cookie": cookie},
                                      open_timeout=120, max_queue=None, compression=None)
        first = json.loads(await ws.recv())
    async with ws:
        stats.connected += 1
        await go.wait()
        frame: dict[str, Any] | None = first
        first_move = True
        stalls = 0
        while True:
            if frame is None:
                try:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), STALL_SECONDS))
                except TimeoutError:
                    # Nothing for STALL_SECONDS: ask for the state (as the game page does
                    # on a version gap) instead of waiting forever; give up after a few.
                    stats.stalls += 1
                    stalls += 1
                    if stalls > 3:
                        raise
                    await ws.send(json.dumps({"t": "resync"}))
                    continue
            t, d = frame["t"], frame["d"]
            frame = None
            if t == "end" or (t == "state" and d.get("status") in ("finished", "aborted")):
                if side == "white":
                    stats.finished += 1
                return
            if t in ("state", "move"):
                if t == "move" and d["turn"] == side:  # the opponent's move reached us
                    stamp = sent_at.pop(d["ply"], None)
                    if stamp is not None:
                        stats.latencies.append(time.perf_counter() - stamp)
                state = {"ply": d["ply"], "turn": d["turn"], "legal": d["legal"]}
            elif t == "error":
                stats.errors += 1
                await ws.send(json.dumps({"t": "resync"}))
                continue
            else:
                continue
            if state["turn"] != side or not state["legal"]:
                continue
            if state["ply"] >= plies:
                await ws.send(json.dumps({"t": "resign"}))
                continue
            # Spread the games' first moves over one think time, then think before each move.
            delay = rng.uniform(0, think) if first_move else think_time(think, rng)
            first_move = False
            if delay:
                await asyncio.sleep(delay)
            move = rng.choice(state["legal"])["notation"]
            sent_at[state["ply"] + 1] = time.perf_counter()
            stats.moves += 1
            await ws.send(json.dumps({"t": "move", "d": {"ply": state["ply"], "move": move}}))


async def loop_lag(stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.05)
        stats.lag.append(time.perf_counter() - t - 0.05)


def pct(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))] * 1000


async def run(urls: list[str], games: int, plies: int, ruleset: str, seed: int,
              think: float) -> None:
    loop = asyncio.get_running_loop()
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(32)

    async def make(i: int) -> tuple[str, str, str, str]:
        base = urls[i % len(urls)]
        async with sem:
            game_id, wc, bc = await loop.run_in_executor(None, create_game, base, ruleset)
        return base, game_id, wc, bc

    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(32))
    created = await asyncio.gather(*(make(i) for i in range(games)))
    print(f"created {games} games in {time.perf_counter() - t0:.1f}s")
    stats = Stats()
    rng = random.Random(seed)
    ready, go = asyncio.Semaphore(64), asyncio.Event()
    tasks = []
    sent: list[dict[int, float]] = []
    for i, (base, game_id, wc, bc) in enumerate(created):
        sent_at: dict[int, float] = {}
        sent.append(sent_at)
        # the opponent connects to another server when there are several
        other = urls[(i + 1) % len(urls)]
        for side, cookie, server in (("black", bc, other), ("white", wc, base)):
            ws_url = server.replace("http://", "ws://") + f"/ws/game/{game_id}/"
            tasks.append(asyncio.ensure_future(player(
                ws_url, server, cookie, side, plies, think, sent_at, stats,
                random.Random(rng.random()), ready, go)))
    t_conn = time.perf_counter()
    while stats.connected + sum(t.done() for t in tasks) < len(tasks):
        await asyncio.sleep(0.1)
    print(f"{stats.connected} sockets connected in {time.perf_counter() - t_conn:.1f}s")
    stop = asyncio.Event()
    lagger = asyncio.ensure_future(loop_lag(stats, stop))
    t1 = time.perf_counter()
    go.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.perf_counter() - t1
    stop.set()
    await lagger
    failures = [r for r in results if isinstance(r, BaseException)]
    lat, lag = sorted(stats.latencies), sorted(stats.lag)
    lost = sum(len(s) for s in sent)
    print(f"games: {games}  servers: {len(urls)}  think: {think:g}s  plies: {plies}  "
          f"moves: {stats.moves}  wall: {wall:.1f}s")
    print(f"moves/s: {stats.moves / wall:.0f}")
    print(f"move -> opponent latency ms: p50 {pct(lat, .5):.1f}  p95 {pct(lat, .95):.1f}  "
          f"p99 {pct(lat, .99):.1f}  max {pct(lat, 1):.1f}  (n={len(lat)})")
    print(f"finished games: {stats.finished}  error frames: {stats.errors}  "
          f"client failures: {len(failures)}  moves never seen by the opponent: {lost}  "
          f"stalls ({STALL_SECONDS:g} s silent, resynced): {stats.stalls}")
    print(f"client event-loop lag ms: p50 {pct(lag, .5):.1f}  p99 {pct(lag, .99):.1f}")
    for f in failures[:3]:
        print("  failure:", repr(f))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--plies", type=int, default=40, help="moves per game before resigning")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds each side thinks before a move (0: saturate)")
    ap.add_argument("--ruleset", default="international")
    ap.add_argument("--url", action="append", help="base URL of a running server (repeatable)")
    ap.add_argument("--daphnes", "--servers", type=int, default=1, dest="daphnes",
                    help="Daphne processes to start")
    ap.add_argument("--db", choices=("postgres", "sqlite"), default="postgres",
                    help="database to start when DATABASE_URL is not set")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    limit = raise_open_files()
    if limit < 2 * args.games + 200:
        print(f"warning: the open-file limit is {limit} for {2 * args.games} sockets")

    with ExitStack() as stack:
        urls = args.url or start_servers(stack, args.daphnes, args.db)
        asyncio.run(run(urls, args.games, args.plies, args.ruleset, args.seed, args.think))


if __name__ == "__main__":
    main()
