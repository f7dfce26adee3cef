"""Fault and fuzz lab: the production-like stack on loopback, faults injected while scripted
players play, then a websocket fuzz. Every figure it prints should be 0.

    .venv/bin/python bench/chaos.py                 # every scenario, 10,000 fuzz frames
    .venv/bin/python bench/chaos.py --short         # baseline + Daphne kill, 1,000 frames
    .venv/bin/python bench/chaos.py --scenario redis_restart --fuzz-frames 0

The stack (all on 127.0.0.1, free ports, throwaway data): PostgreSQL and Redis started as
tests/run_with_services.sh does, ``manage.py migrate``, two Daphnes with the production
settings sharing the Redis channel layer, a Celery worker on the ``bots`` queue, one on the
default queue, and beat (the commands of docker-compose.yml). The lab shortens a few
timings so a scenario takes seconds, not minutes (``LAB_ENV``: the bots' thinking time, the
bot stall time and sweep period); presence keeps its production ttl.

Scenarios (each with fresh games: friend games whose two players sit on different Daphnes,
and games against the computer, all played by scripted clients that think briefly, ping like
the game page, and reconnect to the other Daphne and resync after any close):

- ``baseline``: no fault;
- ``daphne_kill``: kill -9 of one Daphne mid-play, restarted 2 s later;
- ``redis_restart``: Redis stopped and started again (its data is lost: channel layer groups,
  presence, broker queues);
- ``postgres_down``: PostgreSQL stopped for 10 s;
- ``bots_worker_kill``: kill -9 of the bots worker while bots search, restarted 1 s later;
- ``beat_stopped``: beat killed for 10 s, then started again.

Per scenario it prints moves *sent* by the clients (distinct game/ply/move), *acknowledged*
(the sender saw its move come back, as a ``move`` frame or in a ``state``), *stored* (in the
database at the end), *lost* (acknowledged but not stored), *duplicated* (a ply for which a
client saw two different moves, or a client's view of a finished game that differs from the
database) and *presence leaked* (a player shown online ttl + 3 s after all their sockets
ended). The fuzz sends frames (random, mutated and malformed: wrong types, huge and deep
values, unknown types, binary, oversized) to game sockets as a spectator and as a player,
and to the lobby socket; it prints the server tracebacks logged meanwhile, the 1011 closes
seen, and illegitimate state changes (a game changed by a socket whose player is not in it,
or a game of the fuzzing player changed by anything but a frame it may send).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import Http, free_port, raise_open_files, wait_port  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PRESENCE_TTL = 12.0  # the production default (KONDAVO_PRESENCE_TTL_SECONDS)
LAB_ENV = {
    # Every simulated player comes from 127.0.0.1: no per-address limits on guests and games.
    "KONDAVO_GUEST_RATE": "",
    "KONDAVO_CREATE_RATE_IP": "",
    "KONDAVO_BOT_MOVE_TIME": "0.4",
    "KONDAVO_BOT_STALL_SECONDS": "6",
    "KONDAVO_BOT_SWEEP_SECONDS": "2",
}
SCENARIOS = ["baseline", "daphne_kill", "redis_restart", "postgres_down", "bots_worker_kill",
             "beat_stopped"]


# --------------------------------------------------------------------------- services

class Redis:
    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.dir = tmp
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir), "--maxclients", "20000"],
            stdout=subprocess.DEVNULL)
        wait_port(self.port, self.proc)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Postgres:
    def __init__(self, tmp: Path) -> None:
        import glob

        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not bins:
            sys.exit("PostgreSQL binaries not found (apt-get install postgresql)")
        self.bin = Path(bins[-1])
        self.data = tmp / "pg"
        self.data.mkdir()
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root
            import shutil

            shutil.chown(self.data, "postgres", "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        subprocess.run([*self.prefix, str(self.bin / "initdb"), "-D", str(self.data), "-U",
                        "postgres", "--auth=trust"], check=True, stdout=subprocess.DEVNULL)
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/kondavo"

    def start(self) -> None:
        opts = (f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        subprocess.run([*self.prefix, str(self.bin / "pg_ctl"), "-D", str(self.data), "-w",
                        "-l", str(self.data / "server.log"), "-o", opts, "start"],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self) -> None:
        subprocess.run([*self.prefix, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m",
                        "fast", "-w", "stop"], stdout=subprocess.DEVNULL, check=False)

    def createdb(self) -> None:
        subprocess.run([str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                        "-U", "postgres", "kondavo"], check=True)


@dataclass
class Proc:
    name: str
    args: list[str]
    log: Path
    port: int | None = None
    popen: subprocess.Popen[bytes] | None = None

    def start(self, env: dict[str, str]) -> None:
        with open(self.log, "ab") as log:
            self.popen = subprocess.Popen(self.args, cwd=REPO, env=env, stdout=log,
                                          stderr=subprocess.STDOUT)
        if self.port is not None:
            wait_port(self.port, self.popen, timeout=60)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


class Stack:
    """PostgreSQL, Redis, two Daphnes (production settings), two workers and beat."""

    def __init__(self, exits: ExitStack) -> None:
        tmp = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-chaos-")))
        tmp.chmod(0o755)
        self.tmp = tmp
        self.redis = Redis(tmp)
        self.pg = Postgres(tmp)
        self.redis.start()
        exits.callback(self.redis.stop)
        self.pg.start()
        exits.callback(self.pg.stop)
        self.pg.createdb()
        self.env = {**os.environ, "DJANGO_SETTINGS_MODULE": "kondavo.settings.production",
                    "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1",
                    "SECURE_COOKIES": "false", "DEBUG": "false", "LOG_LEVEL": "WARNING",
                    "DATABASE_URL": self.pg.url, "REDIS_URL": self.redis.url,
                    "KONDAVO_BOT_INPROCESS": "false", "DB_CONN_MAX_AGE": "60",
                    "PYTHONUNBUFFERED": "1", **LAB_ENV}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=REPO, env=self.env, check=True)
        celery = [sys.executable, "-m", "celery", "-A", "kondavo"]
        self.daphnes = []
        for i in range(2):
            port = free_port()
            self.daphnes.append(Proc(f"daphne-{i}", [
                sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                "kondavo.asgi:application"], tmp / f"daphne-{i}.log", port))
        self.bots = Proc("worker-bots", [*celery, "worker", "-Q", "bots",
                                         "--prefetch-multiplier=1", "--concurrency=2",
                                         "--loglevel=WARNING", "-n", "bots@%h"],
                         tmp / "worker-bots.log")
        self.default = Proc("worker-default", [*celery, "worker", "-Q", "celery",
                                               "--prefetch-multiplier=1", "--concurrency=1",
                                               "--loglevel=WARNING", "-n", "default@%h"],
                            tmp / "worker-default.log")
        self.beat = Proc("beat", [*celery, "beat", "--loglevel=WARNING",
                                  f"--schedule={tmp / 'celerybeat-schedule'}"],
                         tmp / "beat.log")
        for proc in [*self.daphnes, self.bots, self.default, self.beat]:
            proc.start(self.env)
            exits.callback(proc.kill, signal.SIGTERM)
        self.urls = [f"http://127.0.0.1:{d.port}" for d in self.daphnes]

    def restart(self, proc: Proc) -> None:
        proc.start(self.env)

    def log_sizes(self) -> list[int]:
        return [len(p.log_text()) for p in self.daphnes]

    def tracebacks(self, since: list[int]) -> list[str]:
        """The exception line of each traceback the Daphnes logged after ``since``."""
        found = []
        for proc, start in zip(self.daphnes, since, strict=True):
            lines = proc.log_text()[start:].splitlines()
            for i, line in enumerate(lines):
                if line.startswith("Traceback (most recent call last)"):
                    j = i + 1
                    while j < len(lines) and (lines[j].startswith(" ") or not lines[j]):
                        j += 1
                    found.append(lines[j] if j < len(lines) else "?")
        return found

    def db(self) -> Any:
        import psycopg

        return psycopg.connect(self.pg.url, autocommit=True, connect_timeout=5)

    def games(self, ids: list[str]) -> dict[str, tuple[list[str], int, str, int]]:
        """id -> (moves, ply, status, version), retrying while the database is down."""
        for _ in range(60):
            try:
                with self.db() as conn:
                    rows = conn.execute(
                        "SELECT id, moves, ply, status, version FROM games_game "
                        "WHERE id = ANY(%s)", [ids]).fetchall()
                return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}
            except Exception:
                time.sleep(0.5)
        raise RuntimeError("the database did not answer")


# --------------------------------------------------------------------------- players

@dataclass
class Tally:
    sent: set[tuple[str, int, str]] = field(default_factory=set)
    acked: set[tuple[str, int, str]] = field(default_factory=set)
    seen: dict[tuple[str, int], set[str]] = field(default_factory=dict)  # (game, ply) -> moves
    views: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # final views
    closes: dict[int, int] = field(default_factory=dict)
    reconnects: int = 0


def ws_url(base: str, game_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/game/{game_id}/"


class Player:
    """One scripted side of a game: plays random legal moves, pings every 2 s, and after any
    close reconnects (to the other Daphne first) and resyncs."""

    def __init__(self, game_id: str, side: str, cookie: str, urls: list[str], first: int,
                 tally: Tally, rng: random.Random, think: float) -> None:
        self.game_id, self.side, self.cookie = game_id, side, cookie
        self.urls, self.index = urls, first
        self.tally, self.rng, self.think = tally, rng, think
        self.moves: list[str] = []
        self.version = -1
        self.status = "active"
        self.pending: tuple[int, str] | None = None
        self._legal: list[dict[str, Any]] = []
        self._turn = ""
        self._ply = 0

    def _record_moves(self, moves: list[str]) -> None:
        for ply, text in enumerate(moves):
            self.tally.seen.setdefault((self.game_id, ply), set()).add(text)
            if (self.game_id, ply, text) in self.tally.sent:
                self.tally.acked.add((self.game_id, ply, text))
        self.moves = list(moves)

    async def run(self, playing: asyncio.Event, deadline: float) -> None:
        while time.monotonic() < deadline and self.status == "active":
            base = self.urls[self.index % len(self.urls)]
            try:
                async with websockets.connect(
                        ws_url(base, self.game_id), origin=base, open_timeout=5,
                        additional_headers={"Cookie": self.cookie}) as ws:
                    await self._session(ws, playing, deadline)
                    if (self.status != "active" or time.monotonic() >= deadline
                            or (not playing.is_set() and self.pending is None)):
                        await ws.close()
                        break
            except websockets.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else 1006
                self.tally.closes[code] = self.tally.closes.get(code, 0) + 1
            except (OSError, TimeoutError, websockets.InvalidStatus,
                    websockets.InvalidHandshake):
                pass
            self.tally.reconnects += 1
            self.index += 1
            await asyncio.sleep(0.3)
        self.tally.views[(self.game_id, self.side)] = list(self.moves)

    async def _session(self, ws: Any, playing: asyncio.Event, deadline: float) -> None:
        last_ping = 0.0
        move_at: float | None = None
        while time.monotonic() < deadline:
            now = time.monotonic()
            if now - last_ping > 2.0:
                await ws.send('{"t":"ping"}')
                last_ping = now
            if (move_at is not None and now >= move_at and self.pending is None
                    and playing.is_set() and self.status == "active"):
                move_at = None
                await self._move(ws)
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.2)
            except TimeoutError:
                if not playing.is_set() and self.pending is None:
                    return  # stopping, nothing in flight
                continue
            frame = json.loads(raw)
            t, d, v = frame["t"], frame.get("d") or {}, frame.get("v")
            if t == "state":
                self.version = v
                self.status = d["status"]
                self._record_moves(d["moves"])
                self._legal, self._turn, self._ply = d["legal"], d["turn"], d["ply"]
                self.pending = None
            elif t == "move":
                if v <= self.version:
                    continue
                if v != self.version + 1 or d["ply"] != len(self.moves) + 1:
                    await ws.send('{"t":"resync"}')
                    continue
                self.version = v
                self._record_moves([*self.moves, d["notation"]])
                self._legal, self._turn, self._ply = d["legal"], d["turn"], d["ply"]
                if self.pending is not None and self.pending[0] < d["ply"]:
                    self.pending = None
            elif t == "end":
                self.status = d["status"]
                return
            elif t == "pong":
                if isinstance(v, int) and v > self.version:
                    await ws.send('{"t":"resync"}')
                continue
            elif t == "error":
                self.pending = None
                await ws.send('{"t":"resync"}')
                continue
            elif isinstance(v, int) and v > self.version:
                self.version = v  # draw offers, players: nothing to play
                continue
            else:
                continue
            if self.status != "active":
                return
            if self._turn == self.side and self._legal and self.pending is None:
                move_at = time.monotonic() + self.rng.uniform(0.5, 1.5) * self.think

    async def _move(self, ws: Any) -> None:
        text = self.rng.choice(self._legal)["notation"]
        self.pending = (self._ply, text)
        self.tally.sent.add((self.game_id, self._ply, text))
        await ws.send(json.dumps({"t": "move", "d": {"ply": self._ply, "move": text}}))


def create_friend_game(base: str) -> tuple[str, str, str]:
    white, black = Http(base), Http(base)
    white.get("/")
    black.get("/")
    game = white.post_json("/games/new/friend", {"ruleset": "international", "color": "white",
                                                 "time_control": "untimed"})
    black.post_json(f"/games/{game['id']}/join", {})
    return game["id"], white.cookie(), black.cookie()


def create_bot_game(base: str, level: int) -> tuple[str, str]:
    human = Http(base)
    human.get("/")
    game = human.post_json("/games/new/computer", {"ruleset": "english", "color": "white",
                                                   "level": str(level),
                                                   "time_control": "untimed"})
    return game["id"], human.cookie()


async def presence_leaks(urls: list[str], games: list[tuple[str, list[str]]]) -> int:
    """Players shown online (human seats only) now that none of their sockets is open."""
    leaked = 0
    for i, (game_id, human_sides) in enumerate(games):
        base = urls[i % len(urls)]
        async with websockets.connect(ws_url(base, game_id), origin=base,
                                      open_timeout=10) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["t"] == "state":
                    presence = frame["d"]["presence"]
                    leaked += sum(1 for side in human_sides if presence[side])
                    break
    return leaked


# --------------------------------------------------------------------------- scenarios

async def inject(stack: Stack, name: str) -> None:
    loop = asyncio.get_running_loop()

    async def run(fn: Any, *args: Any) -> None:
        await loop.run_in_executor(None, fn, *args)

    if name == "daphne_kill":
        await run(stack.daphnes[0].kill)
        await asyncio.sleep(2)
        await run(stack.restart, stack.daphnes[0])
    elif name == "redis_restart":
        await run(stack.redis.stop)
        await asyncio.sleep(1)
        await run(stack.redis.start)
    elif name == "postgres_down":
        await run(stack.pg.stop)
        await asyncio.sleep(10)
        await run(stack.pg.start)
    elif name == "bots_worker_kill":
        await run(stack.bots.kill)
        await asyncio.sleep(1)
        await run(stack.restart, stack.bots)
    elif name == "beat_stopped":
        await run(stack.beat.kill)
        await asyncio.sleep(10)
        await run(stack.restart, stack.beat)


async def scenario(stack: Stack, name: str, friend_games: int, bot_games: int,
                   seed: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    urls = stack.urls
    rng = random.Random(seed)
    friends = await asyncio.gather(*(loop.run_in_executor(None, create_friend_game, urls[i % 2])
                                     for i in range(friend_games)))
    bots = await asyncio.gather(*(loop.run_in_executor(None, create_bot_game, urls[i % 2], 8)
                                  for i in range(bot_games)))
    tally = Tally()
    players: list[Player] = []
    for i, (game_id, wc, bc) in enumerate(friends):
        players.append(Player(game_id, "white", wc, urls, i, tally, random.Random(rng.random()),
                              0.3))
        players.append(Player(game_id, "black", bc, urls, i + 1, tally,
                              random.Random(rng.random()), 0.3))
    for i, (game_id, hc) in enumerate(bots):
        players.append(Player(game_id, "white", hc, urls, i, tally, random.Random(rng.random()),
                              0.3))
    playing = asyncio.Event()
    playing.set()
    deadline = time.monotonic() + 60
    tasks = [asyncio.ensure_future(p.run(playing, deadline)) for p in players]
    await asyncio.sleep(4)
    await inject(stack, name)
    await asyncio.sleep(8)
    playing.clear()  # stop moving; settle what is in flight (acks, resyncs)
    await asyncio.gather(*tasks)
    ids = [g[0] for g in friends] + [g[0] for g in bots]
    rows = await loop.run_in_executor(None, stack.games, ids)
    stored = sum(1 for (g, ply, text) in tally.sent
                 if g in rows and len(rows[g][0]) > ply and rows[g][0][ply] == text)
    lost = sum(1 for (g, ply, text) in tally.acked
               if not (g in rows and len(rows[g][0]) > ply and rows[g][0][ply] == text))
    duplicated = sum(1 for texts in tally.seen.values() if len(texts) > 1)
    duplicated += sum(1 for g, (moves, ply, _status, _v) in rows.items() if len(moves) != ply)
    for (g, _side), view in tally.views.items():
        if g in rows and rows[g][0][:len(view)] != view:
            duplicated += 1
    await asyncio.sleep(PRESENCE_TTL + 3)
    human = [(g, ["white", "black"]) for g in (f[0] for f in friends)]
    human += [(g, ["white"]) for g in (b[0] for b in bots)]
    leaked = await presence_leaks(urls, human)
    return {"scenario": name, "sent": len(tally.sent), "acked": len(tally.acked),
            "stored": stored, "lost": lost, "duplicated": duplicated, "leaked": leaked,
            "closes": dict(sorted(tally.closes.items())), "reconnects": tally.reconnects}


# --------------------------------------------------------------------------- fuzz

FRAME_TYPES = ["move", "resign", "draw_offer", "draw_accept", "draw_decline", "abort",
               "rematch", "claim_victory", "claim_draw", "resync", "flag", "ping", "seek",
               "cancel", "accept", ""]
SAFE_TYPES = ["resync", "flag", "ping", "draw_offer", "draw_decline", "move"]


def fuzz_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(14)
    if choice == 0:
        return rng.choice([0, -1, 1, 2**31, 2**63, -(2**63), 10**30, 10**400 // 10**399])
    if choice == 1:
        return rng.choice([0.5, -0.0, 1e308, float("inf") if rng.random() < 0.1 else 1e-9])
    if choice == 2:
        return rng.choice(["", "32-28", "32x23", "x", "-", "1-1", "a1-b2", "\u0000",
                           "\ud7ff" * 10, "9" * 200, "<script>", "' OR 1=1 --"])
    if choice == 3:
        return None
    if choice == 4:
        return rng.choice([True, False])
    if choice == 5 and depth < 4:
        return [fuzz_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if choice == 6 and depth < 4:
        return {rng.choice(["ply", "move", "path", "id", "variant", "time_control", "rated",
                            "d", "t"]): fuzz_value(rng, depth + 1)
                for _ in range(rng.randrange(4))}
    if choice == 7:
        return [str(rng.randrange(60)) for _ in range(rng.randrange(50))]
    if choice == 8:
        return "x" * rng.randrange(5000)
    return rng.randrange(-5, 60)


def fuzz_frame(rng: random.Random) -> str | bytes:
    kind = rng.randrange(10)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if kind == 1:
        return "".join(rng.choice('{}[]":,0123456789tdxe\\ ') for _ in range(rng.randrange(80)))
    if kind == 2:
        depth = rng.choice([10, 100, 1000, 1900])
        return '{"t":"move","d":' + "[" * depth + "]" * depth + "}"
    if kind == 3:
        return json.dumps(fuzz_value(rng))
    frame: dict[str, Any] = {"t": rng.choice(FRAME_TYPES) if rng.random() < 0.9
                             else fuzz_value(rng)}
    if rng.random() < 0.9:
        frame["d"] = fuzz_value(rng) if rng.random() < 0.3 else {
            "ply": fuzz_value(rng), rng.choice(["move", "path"]): fuzz_value(rng),
            "id": fuzz_value(rng)}
    return json.dumps(frame)


async def play_openings(base: str, game_id: str, white: str, black: str) -> None:
    """Each side's first move (the first legal one)."""
    for ply, cookie in enumerate((white, black)):
        async with websockets.connect(ws_url(base, game_id), origin=base, open_timeout=10,
                                      additional_headers={"Cookie": cookie}) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["t"] == "state":
                    move = frame["d"]["legal"][0]["notation"]
                    await ws.send(json.dumps({"t": "move", "d": {"ply": ply, "move": move}}))
                elif frame["t"] == "move" and frame["d"]["ply"] == ply + 1:
                    break


async def fuzz(stack: Stack, frames: int, seed: int) -> dict[str, Any]:
    """Fuzz as a spectator of a victim game (which must not change), as a player of the
    fuzzer's own game (which may change only as its player may change it) and on the lobby.
    Each socket sends at most 15 frames a second (under the rate limit)."""
    loop = asyncio.get_running_loop()
    rng = random.Random(seed)
    urls = stack.urls
    victim, vw, vb = await loop.run_in_executor(None, create_friend_game, urls[0])
    await play_openings(urls[0], victim, vw, vb)  # no first-move deadline any more
    victims = [victim]
    before = await loop.run_in_executor(None, stack.games, victims)
    log_sizes = await loop.run_in_executor(None, stack.log_sizes)
    closes_1011 = 0
    closes: Counter[int] = Counter()
    sent = 0
    illegitimate = 0
    per_socket = max(frames // 6, 1)

    async def worker(target: str, cookie: str | None, count: int, wseed: int) -> None:
        nonlocal closes_1011, sent
        r = random.Random(wseed)
        done = 0
        i = 0
        while done < count:
            base = urls[i % len(urls)]
            i += 1
            try:
                async with websockets.connect(
                        target.replace("BASE", base.replace("http://", "ws://")), origin=base,
                        open_timeout=10, max_size=None,
                        additional_headers={"Cookie": cookie} if cookie else None) as ws:
                    while done < count:
                        await ws.send(fuzz_frame(r))
                        done += 1
                        sent += 1
                        try:
                            while True:
                                await asyncio.wait_for(ws.recv(), 0.001)
                        except TimeoutError:
                            pass
                        await asyncio.sleep(1 / 15)
            except websockets.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else 1006
                closes[code] += 1
                if code == 1011:
                    closes_1011 += 1
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                await asyncio.sleep(0.2)

    own, ow, ob = await loop.run_in_executor(None, create_friend_game, urls[1])
    jobs = [
        worker(f"BASE/ws/game/{victim}/", None, per_socket, seed + 1),  # anonymous
        worker(f"BASE/ws/game/{victim}/", ow, per_socket, seed + 2),  # another game's player
        worker(f"BASE/ws/game/{own}/", ow, per_socket, seed + 3),  # a player of this game
        worker(f"BASE/ws/game/{own}/", ob, per_socket, seed + 4),
        worker("BASE/ws/lobby/", ow, per_socket, seed + 5),
        worker(f"BASE/ws/game/{rng.choice(['zzzzzzzz', own + 'x', '../..'])}/", None,
               frames - 5 * per_socket, seed + 6),
    ]
    await asyncio.gather(*jobs)
    after = await loop.run_in_executor(None, stack.games, victims)
    illegitimate += sum(1 for g in victims if after[g] != before[g])
    rows = await loop.run_in_executor(None, stack.games, [own])
    moves, ply, status, _v = rows[own]
    if len(moves) != ply or status not in ("active", "finished", "aborted"):
        illegitimate += 1
    tracebacks = await loop.run_in_executor(None, stack.tracebacks, log_sizes)
    return {"frames": sent, "tracebacks": len(tracebacks), "closes_1011": closes_1011,
            "illegitimate": illegitimate, "exceptions": Counter(tracebacks),
            "closes": dict(closes)}


# --------------------------------------------------------------------------- main

def print_table(rows: list[dict[str, Any]], header: bool = True) -> None:
    cols = ["scenario", "sent", "acked", "stored", "lost", "duplicated", "leaked"]
    head = f"{'scenario':<18}" + "".join(f"{c:>11}" for c in cols[1:])
    if header:
        print(head + "   closes seen / reconnects", flush=True)
    for r in rows:
        print(f"{r['scenario']:<18}" + "".join(f"{r[c]:>11}" for c in cols[1:])
              + f"   {r['closes']} / {r['reconnects']}", flush=True)


async def main_async(args: argparse.Namespace, stack: Stack) -> int:
    rows = []
    for i, name in enumerate(args.scenario):
        rows.append(await scenario(stack, name, args.friend_games, args.bot_games,
                                   args.seed + i))
        print_table(rows[-1:], header=i == 0)
    print()
    print("moves per scenario (lost, duplicated and presence leaked must be 0):")
    print_table(rows)
    bad = sum(r["lost"] + r["duplicated"] + r["leaked"] for r in rows)
    bad += sum(1 for r in rows if r["acked"] == 0)  # a scenario where nothing was played
    if args.fuzz_frames:
        f = await fuzz(stack, args.fuzz_frames, args.seed)
        print(f"\nfuzz: {f['frames']} frames  tracebacks: {f['tracebacks']}  "
              f"1011 closes: {f['closes_1011']}  illegitimate state changes: "
              f"{f['illegitimate']}  (closes seen: {f['closes']})")
        bad += f["tracebacks"] + f["closes_1011"] + f["illegitimate"]
        for line, n in f["exceptions"].most_common():
            print(f"  {n:>5} x {line[:200]}")
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", action="append", choices=SCENARIOS,
                    help="run only these (repeatable; default: all)")
    ap.add_argument("--short", action="store_true",
                    help="baseline and daphne_kill, 1,000 fuzz frames")
    ap.add_argument("--fuzz-frames", type=int, default=None)
    ap.add_argument("--friend-games", type=int, default=6)
    ap.add_argument("--bot-games", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-logs", type=Path, help="copy the servers' logs to this directory")
    args = ap.parse_args()
    if args.short:
        args.scenario = args.scenario or ["baseline", "daphne_kill"]
        args.fuzz_frames = 1000 if args.fuzz_frames is None else args.fuzz_frames
    args.scenario = args.scenario or SCENARIOS
    args.fuzz_frames = 10_000 if args.fuzz_frames is None else args.fuzz_frames
    raise_open_files()
    with ExitStack() as exits:
        stack = Stack(exits)
        print(f"stack: Daphne {', '.join(stack.urls)}; Redis {stack.redis.url}; "
              f"PostgreSQL port {stack.pg.port}; logs in {stack.tmp}")
        code = asyncio.run(main_async(args, stack))
        if args.keep_logs:
            import shutil

            args.keep_logs.mkdir(parents=True, exist_ok=True)
            for log in stack.tmp.glob("*.log"):
                shutil.copy(log, args.keep_logs / log.name)
    sys.exit(code)


if __name__ == "__main__":
    main()
