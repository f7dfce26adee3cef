"""Load test: N concurrent games between scripted websocket clients on a real Daphne + Redis.

Run (from the repository root, in the project's virtualenv):

    python bench/load.py                      # starts Redis + Daphne (SQLite) itself, 200 games
    python bench/load.py --games 1000         # push harder
    python bench/load.py --url http://127.0.0.1:8000   # against a server you started
    DATABASE_URL=postgres://... python bench/load.py   # self-started Daphne on PostgreSQL

Self-started mode needs ``redis-server`` on PATH; it migrates a throwaway SQLite database
(or the ``DATABASE_URL`` one), starts Redis on a free port and ``--servers`` Daphne processes
(default 1) sharing it. Each game is created over HTTP exactly as a browser would (a guest
session, ``POST /games/new/friend``, the friend ``POST /games/<id>/join``), then both players
connect to ``/ws/game/<id>/`` and play random legal moves taken from the server's frames,
up to ``--plies`` each game. Prints moves/s and the p50/p99 latency from a move being sent
to the opponent receiving it.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import random
import shutil
import socket
import statistics
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


class Http:
    """One browser-like HTTP session (cookies kept)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> Any:
        with self.opener.open(self.base + path, timeout=30) as r:
            return r.read()

    def post_json(self, path: str, data: dict[str, str]) -> Any:
        body = "&".join(f"{k}={v}" for k, v in data.items()).encode()
        req = urllib.request.Request(self.base + path, data=body, method="POST", headers={
            "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
            "X-CSRFToken": CSRF, "Cookie": f"csrftoken={CSRF}; {self.cookie()}",
            "Referer": self.base + "/"})
        with urllib.request.urlopen(req, timeout=30) as r:
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


async def player(url: str, origin: str, cookie: str, side: str, plies: int,
                 sent_at: dict[int, float], stats: Stats, rng: random.Random) -> None:
    async with websockets.connect(url, origin=origin, additional_headers={"Cookie": cookie},
                                  open_timeout=60, max_queue=None) as ws:
        state: dict[str, Any] = {}
        async for raw in ws:
            frame = json.loads(raw)
            t, d = frame["t"], frame["d"]
            if t == "state":
                state = {"ply": d["ply"], "turn": d["turn"], "legal": d["legal"]}
            elif t == "move":
                if d["turn"] == side:  # the opponent's move reached us
                    stamp = sent_at.pop(d["ply"], None)
                    if stamp is not None:
                        stats.latencies.append(time.perf_counter() - stamp)
                state = {"ply": d["ply"], "turn": d["turn"], "legal": d["legal"]}
            elif t == "end":
                if side == "white":
                    stats.finished += 1
                return
            elif t == "error":
                stats.errors += 1
                await ws.send(json.dumps({"t": "resync"}))
                continue
            else:
                continue
            if state.get("turn") == side and state.get("legal"):
                if state["ply"] >= plies:
                    if side == "white":
                        await ws.send(json.dumps({"t": "resign"}))
                    continue
                move = rng.choice(state["legal"])["notation"]
                sent_at[state["ply"] + 1] = time.perf_counter()
                stats.moves += 1
                await ws.send(json.dumps({"t": "move", "d": {"ply": state["ply"],
                                                            "move": move}}))


async def run(urls: list[str], games: int, plies: int, ruleset: str, seed: int) -> None:
    loop = asyncio.get_running_loop()
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(32)

    async def make(i: int) -> tuple[str, str, str, str]:
        base = urls[i % len(urls)]
        async with sem:
            game_id, wc, bc = await loop.run_in_executor(None, create_game, base, ruleset)
        return base, game_id, wc, bc

    created = await asyncio.gather(*(make(i) for i in range(games)))
    print(f"created {games} games in {time.perf_counter() - t0:.1f}s")
    stats = Stats()
    rng = random.Random(seed)
    tasks = []
    for i, (base, game_id, wc, bc) in enumerate(created):
        sent_at: dict[int, float] = {}
        # the opponent connects to another server when there are several
        other = urls[(i + 1) % len(urls)]
        for side, cookie, server in (("black", bc, other), ("white", wc, base)):
            ws_url = server.replace("http://", "ws://") + f"/ws/game/{game_id}/"
            tasks.append(player(ws_url, server, cookie, side, plies, sent_at, stats,
                                random.Random(rng.random())))
    t1 = time.perf_counter()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.perf_counter() - t1
    failures = [r for r in results if isinstance(r, BaseException)]
    lat = sorted(stats.latencies)
    p50 = statistics.median(lat) * 1000 if lat else float("nan")
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else float("nan")
    print(f"games: {games}  servers: {len(urls)}  moves: {stats.moves}  wall: {wall:.1f}s")
    print(f"moves/s: {stats.moves / wall:.0f}")
    print(f"move -> opponent latency: p50 {p50:.1f} ms  p99 {p99:.1f} ms  "
          f"(n={len(lat)})")
    print(f"finished games: {stats.finished}  error frames: {stats.errors}  "
          f"client failures: {len(failures)}")
    for f in failures[:3]:
        print("  failure:", repr(f))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--plies", type=int, default=40, help="moves per game before resigning")
    ap.add_argument("--ruleset", default="international")
    ap.add_argument("--url", action="append", help="base URL of a running server (repeatable)")
    ap.add_argument("--servers", type=int, default=1, help="Daphne processes to start")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    with ExitStack() as stack:
        urls = args.url or start_servers(stack, args.servers)
        asyncio.run(run(urls, args.games, args.plies, args.ruleset, args.seed))


def start_servers(stack: ExitStack, count: int) -> list[str]:
    if not shutil.which("redis-server"):
        sys.exit("redis-server not found: install it or pass --url")
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-bench-")))
    redis_port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp)], stdout=subprocess.DEVNULL)
    stack.callback(lambda: (redis.terminate(), redis.wait()))
    wait_port(redis_port, redis)
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.local", "DEBUG": "false",
           "LOG_LEVEL": "WARNING"}
    env.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
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
            p.terminate()
            p.wait()

        stack.callback(stop)
        wait_port(port, proc)
        urls.append(f"http://127.0.0.1:{port}")
    print(f"started Redis :{redis_port} and Daphne {', '.join(urls)} "
          f"({env['DATABASE_URL'].split(':')[0]})")
    return urls


if __name__ == "__main__":
    main()
