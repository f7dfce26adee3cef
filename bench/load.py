"""Load test: N concurrent games between scripted websocket clients on real Daphnes + Redis.

Run from the repository root with the project's virtualenv (``.venv/bin/python``):

    # realistic: 200 games, each side thinking 1 s on average (0.5-1.5 s), 2 Daphnes
    .venv/bin/python bench/load.py --games 200 --think 1.0 --daphnes 2
    # the issue's target shape: 1,000 games, a move every 4 s on average per game
    .venv/bin/python bench/load.py --games 1000 --think 4.0 --daphnes 2 --plies 30
    # scale-out shape: 4 Daphnes, the bus sharded over 2 Redis servers
    .venv/bin/python bench/load.py --games 400 --think 2.0 --daphnes 4 --redis-shards 2
    # saturation: raise the rate by 1.5x every 15 s until p99 passes 100 ms
    .venv/bin/python bench/load.py --games 200 --think 2.0 --daphnes 2 --saturate
    # against servers already running (no services, no Daphne started; no CPU figures)
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --url http://127.0.0.1:8001

Services: without ``REDIS_URL`` a throwaway ``redis-server`` is started on a free loopback port;
without ``DATABASE_URL`` a throwaway PostgreSQL cluster (``initdb`` + ``pg_ctl`` from
/usr/lib/postgresql/*/bin, as tests/run_with_services.sh does; ``--db sqlite`` for a SQLite
file instead); ``--redis-shards K`` starts K more Redis servers and gives the Daphnes
``CHANNEL_REDIS_URLS`` (the bus sharded over them). The database is migrated, then
``--daphnes`` Daphne processes share the bus (``DB_CONN_MAX_AGE`` defaults to 60:
persistent connections). Games are created over HTTP as a browser does (guest sessions,
``POST /games/new/friend``, the friend's ``POST /games/<id>/join``); each player is its own
guest connecting from its own loopback address (127.40.0.1, ...: per-address limits and socket
caps see one visitor per player) to ``/ws/game/<id>/``, the two players of a game on different
Daphnes when there are several (every move crosses the bus). When every socket has
its state, all games start: each side thinks ``--think`` seconds on average (``--pacing``:
uniform over 0.5x-1.5x, or exponential; the first moves spread over one think time, so games
are not in lock-step) and plays a random legal move, up to ``--plies`` plies, then resigns.
Like the game page, each socket pings every ``heartbeat_ms`` (5 s; ``--no-heartbeat`` to
leave it out): its presence at the game is kept alive that way (a player away from the
board gets a "your turn" notification for untimed games) and each ``pong`` costs the
server a version check.

Prints: moves sent and confirmed, moves/s (confirmed), latency p50/p95/p99/max from sending a
move to the mover's own confirmation frame and to the opponent's frame, error frames, client
failures, lost moves (never confirmed, or never delivered to the opponent), moves seen only
after a resync (a socket silent for ``STALL_SECONDS`` while waiting sends ``resync``),
**moves/s per server CPU-second** (user + system CPU of the Daphnes, Redis and PostgreSQL,
backends included, from /proc, over the measured interval), the load generator's own CPU and
event-loop lag (a busy client inflates the latencies it measures). ``--saturate`` plays on
(a new game when one ends) and divides the think time by ``--step-factor`` every
``--step-seconds`` until the opponent latency's p99 passes ``--p99-bound`` ms: the saturation
rate is the best confirmed moves/s of a step within the bound. ``--json`` writes the figures.
The load generator is its own process (never the Daphnes' event loop), but on a 2-core
machine its CPU competes with the servers': the output says so.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import functools
import glob
import http.client
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
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

REPO = Path(__file__).resolve().parent.parent
CSRF = "b" * 32
STALL_SECONDS = 30.0  # a socket silent this long while waiting sends a resync
SERVER_PIDS: list[int] = []  # the server processes started or found (their CPU is measured)


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
    SERVER_PIDS.append(proc.pid)
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
    SERVER_PIDS.append(int((data / "postmaster.pid").read_text().split()[0]))
    return f"postgres://postgres@127.0.0.1:{port}/kondavo"


def start_servers(stack: ExitStack, count: int, db: str, shards: int = 0) -> list[str]:
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-bench-")))
    tmp.chmod(0o755)
    for name, find in (("REDIS_URL", redis_pid), ("DATABASE_URL", postgres_pid)):
        if os.environ.get(name) and (pid := find(os.environ[name])) is not None:
            SERVER_PIDS.append(pid)  # a local server of the caller's: its CPU counts too
    redis_url = os.environ.get("REDIS_URL") or start_redis(stack, tmp)
    database_url = os.environ.get("DATABASE_URL") or (
        f"sqlite:///{tmp / 'bench.sqlite3'}" if db == "sqlite" else start_postgres(stack, tmp))
    env = {**os.environ, "REDIS_URL": redis_url, "DATABASE_URL": database_url,
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.local", "DEBUG": "false",
           "LOG_LEVEL": "WARNING"}
    if shards:  # the bus sharded over its own Redis servers
        env["CHANNEL_REDIS_URLS"] = ",".join(start_redis(stack, tmp) for _ in range(shards))
    env.setdefault("DB_CONN_MAX_AGE", "60")
    # Every simulated player comes from 127.0.0.1: the per-address limits on guests and on
    # game creation (KONDAVO_GUEST_RATE, KONDAVO_CREATE_RATE_IP) would stop the bench.
    env.setdefault("KONDAVO_GUEST_RATE", "")
    env.setdefault("KONDAVO_CREATE_RATE_IP", "")
    env.setdefault("KONDAVO_CREATE_RATE_PLAYER", "")  # --saturate: a new game per finished one
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
        SERVER_PIDS.append(proc.pid)
        urls.append(f"http://127.0.0.1:{port}")
    layer = (f"bus on {shards} Redis shards" if shards else "bus on it")
    print(f"started Daphne {', '.join(urls)}; Redis {redis_url} ({layer}); "
          f"database {database_url.split(':')[0]}; DB_POOL={env.get('DB_POOL', 'true')} "
          f"(DB_POOL_MAX_SIZE={env.get('DB_POOL_MAX_SIZE', '10')}), "
          f"else DB_CONN_MAX_AGE={env['DB_CONN_MAX_AGE']}")
    return urls


# --------------------------------------------------------------------------- clients

class _SourceHTTPHandler(urllib.request.HTTPHandler):
    """Connects from a given loopback address (each simulated visitor has its own)."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(functools.partial(http.client.HTTPConnection,
                                              source_address=(self.source, 0)), req)


class Http:
    """One browser-like HTTP session (cookies kept), optionally from its own loopback address
    (``source``, e.g. 127.10.0.7) and with extra headers on every request."""

    def __init__(self, base: str, source: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        self.base = base
        self.source = source
        self.headers = dict(headers or {})
        self.jar = http.cookiejar.CookieJar()
        sourced: list[Any] = [_SourceHTTPHandler(source)] if source else []
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  *sourced)
        # POSTs: cookies sent by hand (the CSRF one too), redirects answered, not followed
        self.raw = urllib.request.build_opener(
            _NoRedirect, *([_SourceHTTPHandler(source)] if source else []))

    def get(self, path: str) -> Any:
        req = urllib.request.Request(self.base + path, headers=self.headers)
        with self.opener.open(req, timeout=60) as r:
            return r.read()

    def post(self, path: str, data: dict[str, str], accept: str = "application/json"
             ) -> tuple[int, bytes]:
        """A CSRF-valid form POST; (status, body) whatever the status (redirects not
        followed)."""
        body = urllib.parse.urlencode(data).encode()
        req = urllib.request.Request(self.base + path, data=body, method="POST", headers={
            **self.headers, "Content-Type": "application/x-www-form-urlencoded",
            "Accept": accept, "X-CSRFToken": CSRF,
            "Cookie": f"csrftoken={CSRF}; {self.cookie()}", "Referer": self.base + "/"})
        try:
            with self.raw.open(req, timeout=60) as r:
                self.jar.extract_cookies(r, req)
                return r.status, r.read()
        except urllib.error.HTTPError as exc:
            self.jar.extract_cookies(exc, req)
            return exc.code, exc.read()

    def post_json(self, path: str, data: dict[str, str]) -> Any:
        status, body = self.post(path, data)
        if status >= 400:
            raise RuntimeError(f"POST {path}: {status} {body[:200]!r}")
        return json.loads(body)

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar if c.name != "csrftoken")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def create_game(base: str, ruleset: str, white_addr: str | None = None,
                black_addr: str | None = None) -> tuple[str, str, str]:
    """A friend game between two new guests, each from its own address when given."""
    white, black = Http(base, source=white_addr), Http(base, source=black_addr)
    game = white.post_json("/games/new/friend", {"ruleset": ruleset, "color": "white",
                                                 "time_control": "untimed"})
    black.post_json(f"/games/{game['id']}/join", {})
    return game["id"], white.cookie(), black.cookie()


def player_address(i: int) -> str:
    """Each simulated player connects from its own loopback address (127.40.0.1, ...), so
    per-address limits and socket caps see as many visitors as there are players."""
    return f"127.{40 + i // 62500}.{i // 250 % 250}.{i % 250 + 1}"


# --------------------------------------------------------------------------- CPU

def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from the state on (3rd)


def tree_cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system) of these processes, their live descendants, and their
    reaped children (e.g. PostgreSQL backends that have exited), from /proc."""
    return sum(tree_cpu_by_role(pids).values())


def _role(pid: int) -> str:
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "other"
    return {"redis-server": "redis", "postgres": "postgres"}.get(comm, "daphne")


def tree_cpu_by_role(pids: list[int]) -> dict[str, float]:
    """``tree_cpu_seconds`` split by server role (daphne, postgres, redis): which server a
    move's CPU goes to."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))) is not None:
            stats[int(entry)] = st
            children.setdefault(int(st[1]), []).append(int(entry))
    totals: dict[str, float] = {}
    seen: set[int] = set()
    for root in pids:
        role, todo, ticks = _role(root), [root], 0
        while todo:
            pid = todo.pop()
            if pid in seen or pid not in stats:
                continue
            seen.add(pid)
            st = stats[pid]
            ticks += int(st[11]) + int(st[12])  # utime, stime
            if pid == root:
                ticks += int(st[13]) + int(st[14])  # cutime, cstime: reaped children
            todo.extend(children.get(pid, []))
        totals[role] = totals.get(role, 0.0) + ticks / tick
    return totals


def redis_pid(url: str) -> int | None:
    try:
        import redis

        return int(redis.Redis.from_url(url, socket_timeout=2).info("server")["process_id"])
    except Exception:
        return None


def postgres_pid(url: str) -> int | None:
    """The postmaster of a local PostgreSQL: the parent of this connection's backend."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3) as conn:
            backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
        st = _stat(int(backend))
        return int(st[1]) if st else None
    except Exception:
        return None


# --------------------------------------------------------------------------- players

@dataclass
class MoveRecord:
    sent: float
    confirmed: float | None = None  # the mover's own socket had it back
    arrived: float | None = None  # the opponent's socket had it
    healed: bool = False  # seen only through a resync's state


@dataclass
class Stats:
    moves: list[MoveRecord] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    finished: int = 0
    connected: int = 0
    stalls: int = 0
    pings: int = 0
    lag: list[float] = field(default_factory=list)


class Pace:
    """The mean think time, shared by every player (``--saturate`` lowers it step by step)."""

    def __init__(self, mean: float, kind: str, heartbeat: bool = True) -> None:
        self.mean, self.kind, self.heartbeat = mean, kind, heartbeat

    def think(self, rng: random.Random) -> float:
        if self.mean <= 0:
            return 0.0
        if self.kind == "exponential":
            return min(rng.expovariate(1 / self.mean), 5 * self.mean)
        return rng.uniform(0.5 * self.mean, 1.5 * self.mean)


def mark(records: dict[int, MoveRecord], ply: int, side: str, mover: str, now: float,
         healed: bool = False) -> None:
    rec = records.get(ply)
    if rec is None:
        return
    if side == mover and rec.confirmed is None:
        rec.confirmed, rec.healed = now, rec.healed or healed
    elif side != mover and rec.arrived is None:
        rec.arrived, rec.healed = now, rec.healed or healed


async def player(url: str, origin: str, cookie: str, source: str | None, side: str,
                 plies: int, pace: Pace, records: dict[int, MoveRecord], stats: Stats,
                 rng: random.Random, ready: asyncio.Semaphore, go: asyncio.Event) -> None:
    """One seated player: waits for ``go``, then thinks and plays random legal moves;
    resigns at ``plies``. ``records`` (shared with the opponent) is keyed by the ply after
    the move; ``mark`` times its confirmation and its arrival."""
    local = {"local_addr": (source, 0)} if source else {}
    async with ready:  # bounded concurrent handshakes
        ws = await websockets.connect(url, origin=origin, additional_headers={"Cookie": cookie},
                                      open_timeout=120, max_queue=None, compression=None,
                                      **local)
        first = json.loads(await ws.recv())
    async with ws:
        stats.connected += 1
        beat = None
        if pace.heartbeat:  # as the game page: a ping every heartbeat_ms from its opening
            every = float(first.get("d", {}).get("heartbeat_ms", 5000)) / 1000
            beat = asyncio.ensure_future(heartbeat(ws, every, rng.uniform(0, every), stats))
        try:
            await go.wait()
            await play(ws, first, side, plies, pace, records, stats, rng)
        finally:
            if beat is not None:
                beat.cancel()


async def heartbeat(ws: Any, every: float, first: float, stats: Stats) -> None:
    await asyncio.sleep(first)
    while True:
        try:
            await ws.send('{"t": "ping"}')
        except websockets.ConnectionClosed:
            return
        stats.pings += 1
        await asyncio.sleep(every)


async def play(ws: Any, first: dict[str, Any], side: str, plies: int, pace: Pace,
               records: dict[int, MoveRecord], stats: Stats, rng: random.Random) -> None:
    """The player's side of the game, from its first frame to the end."""
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
        now = time.perf_counter()
        if t == "end" or (t == "state" and d.get("status") in ("finished", "aborted")):
            if side == "white":
                stats.finished += 1
            return
        if t == "state":
            for ply in range(1, d["ply"] + 1):
                mark(records, ply, side, "white" if ply % 2 else "black", now, True)
        elif t == "move":
            mark(records, d["ply"], side, "black" if d["turn"] == "white" else "white",
                 now)
        elif t == "error":
            stats.errors[d.get("code", "?")] += 1
            await ws.send(json.dumps({"t": "resync"}))
            continue
        if t not in ("state", "move"):
            continue
        if d["turn"] != side or not d["legal"]:
            continue
        if d["ply"] >= plies:
            await ws.send(json.dumps({"t": "resign"}))
            continue
        # Spread the games' first moves over one think time, then think before each move.
        delay = rng.uniform(0, pace.mean) if first_move else pace.think(rng)
        first_move = False
        if delay:
            await asyncio.sleep(delay)
        move = rng.choice(d["legal"])["notation"]
        rec = MoveRecord(time.perf_counter())
        records[d["ply"] + 1] = rec
        stats.moves.append(rec)
        await ws.send(json.dumps({"t": "move", "d": {"ply": d["ply"], "move": move}}))


async def loop_lag(stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.05)
        stats.lag.append(time.perf_counter() - t - 0.05)


def pct(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))] * 1000


def figures(moves: list[MoveRecord], wall: float, cpu: float) -> dict[str, Any]:
    """The report of a set of moves sent over ``wall`` seconds, ``cpu`` server CPU seconds."""
    confirmed = [m for m in moves if m.confirmed is not None]
    own = sorted(m.confirmed - m.sent for m in confirmed)  # type: ignore[operator]
    opp = sorted(m.arrived - m.sent for m in moves if m.arrived is not None)
    lost = sum(1 for m in moves if m.confirmed is None or m.arrived is None)
    rate = len(confirmed) / wall if wall else 0.0
    # The run in 10-second slices (by when a move was sent): where the latency comes from.
    start = min((m.sent for m in moves), default=0.0)
    slices: dict[int, list[float]] = {}
    for m in moves:
        if m.arrived is not None:
            slices.setdefault(int((m.sent - start) // 10), []).append(m.arrived - m.sent)
    timeline = [{"from_s": k * 10, "moves": len(v), "p50": round(pct(sorted(v), .5), 1),
                 "p99": round(pct(sorted(v), .99), 1)} for k, v in sorted(slices.items())]
    return {
        "timeline": timeline,
        "sent": len(moves), "confirmed": len(confirmed), "lost": lost,
        "healed_by_resync": sum(m.healed for m in moves), "wall_s": round(wall, 1),
        "moves_per_s": round(rate, 1), "server_cpu_s": round(cpu, 1),
        "moves_per_cpu_s": round(len(confirmed) / cpu, 1) if cpu else None,
        "server_cpu_share": round(cpu / wall, 2) if wall else None,
        "own_ms": {q: round(pct(own, v), 1) for q, v in (("p50", .5), ("p95", .95),
                                                        ("p99", .99), ("max", 1.0))},
        "opponent_ms": {q: round(pct(opp, v), 1) for q, v in (("p50", .5), ("p95", .95),
                                                             ("p99", .99), ("max", 1.0))},
    }


def print_figures(f: dict[str, Any]) -> None:
    print(f"moves sent {f['sent']}  confirmed {f['confirmed']}  in {f['wall_s']} s  "
          f"moves/s {f['moves_per_s']}")
    for key, what in (("own_ms", "move -> mover's confirmation"),
                      ("opponent_ms", "move -> opponent's frame   ")):
        q = f[key]
        print(f"{what} ms: p50 {q['p50']:>8}  p95 {q['p95']:>8}  p99 {q['p99']:>8}  "
              f"max {q['max']:>8}")
    print("to the opponent by 10 s slice (moves, p50/p99 ms): " + "  ".join(
        f"{t['from_s']}s {t['moves']} {t['p50']:.0f}/{t['p99']:.0f}" for t in f["timeline"]))
    print(f"server CPU {f['server_cpu_s']} s ({f['server_cpu_share']} cores)  "
          f"moves/s per server CPU-second: {f['moves_per_cpu_s']}")
    print(f"lost (never confirmed, or never delivered to the opponent): {f['lost']}  "
          f"seen only after a resync: {f['healed_by_resync']}")


class Bench:
    """Games, their players and the measurements of one run."""

    def __init__(self, urls: list[str], server_pids: list[int], args: argparse.Namespace
                 ) -> None:
        self.urls, self.pids, self.args = urls, server_pids, args
        self.stats = Stats()
        self.pace = Pace(args.think, args.pacing, not args.no_heartbeat)
        self.rng = random.Random(args.seed)
        self.stop = False

    def cpu(self) -> float:
        return tree_cpu_seconds(self.pids) if self.pids else 0.0

    def cpu_roles(self) -> dict[str, float]:
        return tree_cpu_by_role(self.pids) if self.pids else {}

    async def create(self, n: int) -> list[tuple[int, str, str, str, str]]:
        loop = asyncio.get_running_loop()
        sem = asyncio.Semaphore(32)

        async def make(i: int) -> tuple[int, str, str, str, str]:
            base = self.urls[i % len(self.urls)]
            async with sem:
                game_id, wc, bc = await loop.run_in_executor(
                    None, create_game, base, self.args.ruleset, player_address(2 * i),
                    player_address(2 * i + 1))
            return i, base, game_id, wc, bc

        return await asyncio.gather(*(make(i) for i in range(n)))

    async def game(self, i: int, base: str, game_id: str, wc: str, bc: str,
                   ready: asyncio.Semaphore, go: asyncio.Event, again: bool) -> None:
        """Both players of one game; with ``again``, a new game when it ends (--saturate)."""
        loop = asyncio.get_running_loop()
        while True:
            records: dict[int, MoveRecord] = {}
            other = self.urls[(i + 1) % len(self.urls)]  # the opponent on another server
            await asyncio.gather(*(player(
                server.replace("http://", "ws://") + f"/ws/game/{game_id}/", server, cookie,
                player_address(2 * i + (side == "black")), side, self.args.plies, self.pace,
                records, self.stats, random.Random(self.rng.random()), ready, go)
                for side, cookie, server in (("black", bc, other), ("white", wc, base))))
            if not again or self.stop:
                return
            game_id, wc, bc = await loop.run_in_executor(
                None, create_game, base, self.args.ruleset, player_address(2 * i),
                player_address(2 * i + 1))

    async def start(self, again: bool) -> list[asyncio.Future[Any]]:
        t0 = time.perf_counter()
        created = await self.create(self.args.games)
        print(f"created {len(created)} games in {time.perf_counter() - t0:.1f}s", flush=True)
        ready, self.go = asyncio.Semaphore(64), asyncio.Event()
        tasks = [asyncio.ensure_future(self.game(*c, ready, self.go, again)) for c in created]
        t_conn = time.perf_counter()
        while (self.stats.connected + sum(t.done() for t in tasks) < 2 * len(tasks)
               and not all(t.done() for t in tasks)):
            await asyncio.sleep(0.1)
        print(f"{self.stats.connected} sockets connected in {time.perf_counter() - t_conn:.1f}s",
              flush=True)
        return tasks


async def run(urls: list[str], pids: list[int], args: argparse.Namespace) -> dict[str, Any]:
    asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(32))
    bench = Bench(urls, pids, args)
    stop = asyncio.Event()
    lagger = asyncio.ensure_future(loop_lag(bench.stats, stop))
    if args.saturate:
        result = await saturate(bench, args)
    else:
        tasks = await bench.start(again=False)
        roles0, own0, t1 = bench.cpu_roles(), os.times(), time.perf_counter()
        bench.go.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        wall = time.perf_counter() - t1
        roles = {k: v - roles0.get(k, 0.0) for k, v in bench.cpu_roles().items()}
        cpu, own1 = sum(roles.values()), os.times()
        failures = [r for r in results if isinstance(r, BaseException)]
        result = figures(bench.stats.moves, wall, cpu)
        result.update(client_cpu_s=round(own1.user + own1.system - own0.user - own0.system, 1),
                      failures=len(failures), finished=bench.stats.finished,
                      errors=dict(bench.stats.errors), stalls=bench.stats.stalls,
                      server_cpu_by_role={k: round(v, 1) for k, v in sorted(roles.items())})
        print(f"games: {args.games}  servers: {len(urls)}  think: {args.think:g}s "
              f"({args.pacing})  plies: {args.plies}")
        print_figures(result)
        print(f"heartbeats sent: {bench.stats.pings}")
        print(f"finished games: {bench.stats.finished}  error frames: "
              f"{dict(bench.stats.errors) or 0}  client failures: {len(failures)}  stalls "
              f"({STALL_SECONDS:g} s silent, resynced): {bench.stats.stalls}")
        for f in failures[:3]:
            print("  failure:", repr(f))
        print("server CPU by role: " + ", ".join(
            f"{k} {v} s" for k, v in result["server_cpu_by_role"].items()))
        print(f"load generator CPU {result['client_cpu_s']} s over {result['wall_s']} s")
    stop.set()
    await lagger
    lag = sorted(bench.stats.lag)
    result["client_lag_ms"] = {"p50": round(pct(lag, .5), 1), "p99": round(pct(lag, .99), 1)}
    print(f"client event-loop lag ms: p50 {pct(lag, .5):.1f}  p99 {pct(lag, .99):.1f}")
    return result


async def saturate(bench: Bench, args: argparse.Namespace) -> dict[str, Any]:
    """Offered rate up by ``--step-factor`` each ``--step-seconds`` until the opponent
    latency's p99 passes ``--p99-bound`` ms; the saturation rate is the best confirmed rate
    of a step within the bound."""
    args.plies = max(args.plies, 10_000) if args.plies <= 0 else args.plies
    tasks = await bench.start(again=True)
    bench.go.set()
    steps = []
    mean = args.think if args.think > 0 else 2.0
    try:
        while True:
            bench.pace.mean = mean
            await asyncio.sleep(min(2.0, args.step_seconds / 4))  # settle to the new pace
            first, cpu0, t0 = len(bench.stats.moves), bench.cpu(), time.perf_counter()
            await asyncio.sleep(args.step_seconds)
            wall, cpu = time.perf_counter() - t0, bench.cpu() - cpu0
            moves = bench.stats.moves[first:len(bench.stats.moves)]
            await asyncio.sleep(1.0)  # the last moves' answers
            f = figures(moves, wall, cpu)
            f["think_s"] = round(mean, 3)
            f["offered_per_s"] = round(args.games / mean, 1) if mean else None
            steps.append(f)
            print(f"think {mean:7.3f} s  offered {f['offered_per_s']}/s  moves/s "
                  f"{f['moves_per_s']:>7}  p50 {f['opponent_ms']['p50']:>8}  p99 "
                  f"{f['opponent_ms']['p99']:>8} ms  lost {f['lost']:>4}  per CPU-s "
                  f"{f['moves_per_cpu_s']}", flush=True)
            if f["opponent_ms"]["p99"] > args.p99_bound or mean < 0.02 or any(
                    t.done() for t in tasks):
                break
            mean /= args.step_factor
    finally:
        bench.stop = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    within = [s for s in steps if s["opponent_ms"]["p99"] <= args.p99_bound]
    best = max(within, key=lambda s: s["moves_per_s"]) if within else None
    print(f"saturation: {best['moves_per_s'] if best else 'below the first step'} moves/s "
          f"with p99 <= {args.p99_bound:g} ms ({args.games} games, {len(bench.urls)} "
          f"servers); the next step: {steps[-1]['moves_per_s']} moves/s, p99 "
          f"{steps[-1]['opponent_ms']['p99']} ms")
    return {"steps": steps, "saturation_moves_per_s": best["moves_per_s"] if best else None,
            "p99_bound_ms": args.p99_bound}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--plies", type=int, default=40, help="moves per game before resigning")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds each side thinks before a move (0: answer at once)")
    ap.add_argument("--pacing", choices=("uniform", "exponential"), default="uniform",
                    help="think times: uniform over 0.5x-1.5x the mean, or exponential "
                         "(capped at 5x)")
    ap.add_argument("--no-heartbeat", action="store_true",
                    help="players do not ping (the game page pings every heartbeat_ms, 5 s:"
                         " presence and lost-event checks cost the servers too)")
    ap.add_argument("--ruleset", default="international")
    ap.add_argument("--url", action="append", help="base URL of a running server (repeatable)")
    ap.add_argument("--daphnes", "--servers", type=int, default=1, dest="daphnes",
                    help="Daphne processes to start")
    ap.add_argument("--redis-shards", type=int, default=0,
                    help="start this many Redis servers for the bus "
                         "(CHANNEL_REDIS_URLS)")
    ap.add_argument("--db", choices=("postgres", "sqlite"), default="postgres",
                    help="database to start when DATABASE_URL is not set")
    ap.add_argument("--saturate", action="store_true",
                    help="raise the rate step by step until p99 passes --p99-bound")
    ap.add_argument("--p99-bound", type=float, default=100.0, help="ms (--saturate)")
    ap.add_argument("--step-seconds", type=float, default=15.0, help="--saturate")
    ap.add_argument("--step-factor", type=float, default=1.5,
                    help="--saturate: each step divides the think time by this")
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    limit = raise_open_files()
    if limit < 2 * args.games + 200:
        print(f"warning: the open-file limit is {limit} for {2 * args.games} sockets")
    cpus = os.cpu_count() or 1
    print(f"note: this load generator is one process with its own event loop (apart from the "
          f"servers), but on {cpus} CPUs its CPU competes with the servers'", flush=True)

    with ExitStack() as stack:
        urls = args.url or start_servers(stack, args.daphnes, args.db, args.redis_shards)
        if args.url:
            print("--url: the servers' CPU is not measured (moves/s per CPU-second needs the "
                  "servers started here)")
        result = asyncio.run(run(urls, [] if args.url else list(SERVER_PIDS), args))
    result.update(command=" ".join(["bench/load.py", *sys.argv[1:]]), cpus=cpus,
                  servers=len(urls), redis_shards=args.redis_shards)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
