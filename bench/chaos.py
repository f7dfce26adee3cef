"""Fault, fuzz and attack lab: the production-like stack on loopback, faults injected while
scripted players play, then a websocket fuzz; or attacks measured by a latency probe.

    .venv/bin/python bench/chaos.py                 # every scenario, 10,000 fuzz frames
    .venv/bin/python bench/chaos.py --short         # baseline + Daphne kill, 1,000 frames
    .venv/bin/python bench/chaos.py --scenario redis_restart --fuzz-frames 0
    .venv/bin/python bench/chaos.py --attacks all --mode embedded --seconds 12
    .venv/bin/python bench/chaos.py --attacks flood,crowd --mode stack --json out.json
    .venv/bin/python bench/chaos.py --attacks all --short   # a few seconds per attack
    .venv/bin/python bench/chaos.py --tournament --players 300 --spectators 300 --think 3

Attacks (``--attacks``; ``--mode embedded``: one Daphne as ``make run``, SQLite and the
in-memory layer; ``--mode stack``: the stack below). A probe of 20 live friend games
(bench/chaos_probe.py: two guests each, each from its own loopback address, a move every
0.5-1 s, pinging and resyncing like the game page) plays throughout. For each attack: a quiet
phase (half of ``--seconds``, at least 3 s), the attack (``--seconds``, default 15) run by
bench/chaos_attacks.py in its own process (bounded in sockets, requests and time, loopback
only; the abuser from one address), then a 7 s settle. ``flood`` (one guest, 5 sockets,
frames as fast as they go), ``crowd`` (400 idle lobby/game sockets without a session, 500
spectators of one game moving every 0.3 s), ``reconnect`` (100 loops opening and closing
sockets), ``forged`` (guests, sign-ups, games and sockets, each with a new forged
``X-Forwarded-For``: what it got against the per-address limits, which the attack lab keeps
on), ``analysis`` (16 clients posting 1 s analysis requests, each from a fresh session and
forged address), ``redis-restart`` and ``postgres-restart`` (stack mode: the server stopped
and started mid-probe; the seconds until moves flow again). After each attack the lab waits
until the probe's p50 is back near the first quiet phase's (at most 30 s). ``--short``:
small volumes (a crowd of 40 + 50, 20 reconnect loops) and 4 s attacks. Printed per attack:
the volume, probe moves sent/arrived, the probe's p50/p99 (move sent -> the opponent's socket
has it) quiet and under attack, their p99 ratio, moves lost (sent from the quiet phase to the
settle's end, not refused with an error frame, never seen by the opponent), the probe's
closes by code and error frames, the attacker's closes by code and refused handshakes, the
Daphnes' memory, and the probe second by second through the attack (moves, p50/max: where
the slow moves lie). ``--json`` writes it all. The exit code is 1 if a probe move was lost.

The stack (all on 127.0.0.1, free ports, throwaway data): PostgreSQL and Redis started as
tests/run_with_services.sh does, ``manage.py migrate``, two Daphnes with the production
settings (and the Daphne flags of docker-compose.yml) sharing the Redis bus, the
compose file's Celery workers (one process per worker service, its queues and concurrency)
and beat. The lab shortens a few
timings so a scenario takes seconds, not minutes (``LAB_ENV``: the bots' thinking time, the
bot stall time and sweep period); presence keeps its production ttl.

Tournament (``--tournament``, stack mode; bench/chaos_tournament.py): an arena of
``--players`` scripted players joining and playing over HTTP and the sockets, ``--spectators``
on its page and on the leader's game, and as many plain games beside it; the move latency of
the arena's games against the plain games' of the same phase, before and while the arena
runs, the standings frames' rate, size and delay, and the wait for the next pairing.

Scenarios (each with fresh games: friend games whose two players sit on different Daphnes,
and games against the computer, all played by scripted clients that think briefly, ping like
the game page, and reconnect to the other Daphne and resync after any close):

- ``baseline``: no fault;
- ``daphne_kill``: kill -9 of one Daphne mid-play, restarted 2 s later;
- ``redis_restart``: Redis stopped and started again (its data is lost: pub/sub subscriptions,
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
import re
import secrets
import shlex
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
from chaos_probe import Probe  # noqa: E402
from chaos_tournament import print_report, save, tournament_lab  # noqa: E402
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


def compose_commands() -> dict[str, str]:
    """Service -> its command line, read from docker-compose.yml (the lab runs what it runs)."""
    text = (REPO / "docker-compose.yml").read_text()
    commands: dict[str, str] = {}
    service = ""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^  ([a-z][\w-]*):\s*$", line)
        if m:
            service = m[1]
        elif line.strip().startswith("command:") and service:
            rest = line.split("command:", 1)[1].strip()
            if rest.startswith("["):
                commands[service] = " ".join(json.loads(rest))
            else:  # a block list: the last item is the shell command
                items = []
                for nxt in lines[i + 1:]:
                    if not nxt.strip().startswith("- "):
                        break
                    items.append(nxt.strip()[2:])
                commands[service] = items[-1] if items else ""
    return commands


def compose_daphne_flags(commands: dict[str, str]) -> list[str]:
    """The flags the compose file gives Daphne (e.g. ``--proxy-headers``), minus -b/-p."""
    for command in commands.values():
        m = re.search(r"daphne (.*?) ?kondavo\.asgi:application", command)
        if m:
            words = shlex.split(m[1])
            flags, skip = [], False
            for w in words:
                if skip:
                    skip = False
                elif w in ("-b", "-p", "--bind", "--port"):
                    skip = True
                else:
                    flags.append(w)
            return flags
    return []


def compose_workers(commands: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(service, celery worker arguments) of each Celery worker in the compose file."""
    workers = []
    for service, command in commands.items():
        words = shlex.split(command)
        if words[:4] == ["celery", "-A", "kondavo", "worker"]:
            args = [w for w in words[4:] if not w.startswith("--loglevel")]
            workers.append((service, [*args, "--loglevel=WARNING", "-n", f"{service}@%h"]))
    return workers


class Stack:
    """``stack`` mode: PostgreSQL, Redis, two Daphnes (production settings, the compose
    file's Daphne flags), the compose file's Celery workers and beat. ``embedded`` mode: one
    Daphne on the embedded settings (SQLite file, in-process bus, bots and analysis
    in-process), as ``make run``. ``limits``: keep the per-address limits on guests and game
    creation (the attack lab; its probe players each have their own loopback address)."""

    def __init__(self, exits: ExitStack, mode: str = "stack", limits: bool = False,
                 extra_env: dict[str, str] | None = None) -> None:
        tmp = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-chaos-")))
        tmp.chmod(0o755)
        self.tmp, self.mode = tmp, mode
        lab_env = {**LAB_ENV, **(extra_env or {})}
        if limits:
            lab_env.pop("KONDAVO_GUEST_RATE")
            lab_env.pop("KONDAVO_CREATE_RATE_IP")
        self.redis: Redis | None = None
        self.pg: Postgres | None = None
        self.daphnes: list[Proc] = []
        self.workers: list[Proc] = []
        if mode == "embedded":
            self.env = {k: v for k, v in os.environ.items()
                        if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
            self.env.update({"DJANGO_SETTINGS_MODULE": "kondavo.settings.local",
                             "DATABASE_URL": f"sqlite:///{tmp / 'lab.sqlite3'}",
                             "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", **lab_env})
            subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                           cwd=REPO, env=self.env, check=True)
            port = free_port()
            self.daphnes.append(Proc("daphne-0", [
                sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                "kondavo.asgi:application"], tmp / "daphne-0.log", port))
            for proc in self.daphnes:
                proc.start(self.env)
                exits.callback(proc.kill, signal.SIGTERM)
            self.urls = [f"http://127.0.0.1:{d.port}" for d in self.daphnes]
            return
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
                    "PYTHONUNBUFFERED": "1", **lab_env}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=REPO, env=self.env, check=True)
        commands = compose_commands()
        self.daphne_flags = compose_daphne_flags(commands)
        celery = [sys.executable, "-m", "celery", "-A", "kondavo"]
        for i in range(2):
            port = free_port()
            self.daphnes.append(Proc(f"daphne-{i}", [
                sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                *self.daphne_flags, "kondavo.asgi:application"], tmp / f"daphne-{i}.log", port))
        for service, args in compose_workers(commands) or [
                ("worker", ["-Q", "bots", "--concurrency=2", "-n", "bots@%h"]),
                ("worker-default", ["-Q", "celery", "--concurrency=1", "-n", "default@%h"])]:
            self.workers.append(Proc(service, [*celery, "worker", *args], tmp / f"{service}.log"))
        self.bots = next(w for w in self.workers if re.search(r"-Q bots\b", " ".join(w.args)))
        self.beat = Proc("beat", [*celery, "beat", "--loglevel=WARNING",
                                  f"--schedule={tmp / 'celerybeat-schedule'}"],
                         tmp / "beat.log")
        for proc in [*self.daphnes, *self.workers, self.beat]:
            proc.start(self.env)
            exits.callback(proc.kill, signal.SIGTERM)
        self.urls = [f"http://127.0.0.1:{d.port}" for d in self.daphnes]

    def describe(self) -> str:
        if self.mode == "embedded":
            return (f"embedded: Daphne {self.urls[0]} (SQLite, in-memory layer); "
                    f"logs in {self.tmp}")
        assert self.redis is not None and self.pg is not None
        return (f"stack: Daphne {', '.join(self.urls)} {' '.join(self.daphne_flags)}; "
                f"Redis {self.redis.url}; PostgreSQL port {self.pg.port}; workers "
                f"{', '.join(w.name for w in self.workers)}; logs in {self.tmp}")

    def rss_mb(self) -> float:
        """The Daphnes' resident memory, MB in all."""
        total = 0
        for d in self.daphnes:
            if d.popen is None or d.popen.poll() is not None:
                continue
            try:
                for line in Path(f"/proc/{d.popen.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

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


# --------------------------------------------------------------------------- attacks

ATTACKS = ["flood", "crowd", "reconnect", "forged", "analysis", "redis-restart",
           "postgres-restart"]
# the attacker's bounds (bench/chaos_attacks.py), in a full and a --short run
VOLUMES: dict[str, dict[str, dict[str, int]]] = {
    "full": {"flood": {"sockets": 5}, "crowd": {"idle": 400, "spectators": 500},
             "reconnect": {"loops": 100}, "forged": {"guests": 100, "games": 100, "signups": 30,
                                                   "sockets": 100},
             "analysis": {"workers": 16}},
    "short": {"flood": {"sockets": 5}, "crowd": {"idle": 40, "spectators": 50},
              "reconnect": {"loops": 20}, "forged": {"guests": 20, "games": 20, "signups": 6,
                                                   "sockets": 30, "min_seconds": 8},
              "analysis": {"workers": 4}},
}
SETTLE = 7.0  # after an attack: a frame dropped meanwhile heals at the next ping (5 s)
RECOVER_MAX = 30.0  # then at most this long for the probe's p50 to come back


async def run_attacker(cfg: dict[str, Any], timeout: float) -> dict[str, Any]:
    """bench/chaos_attacks.py in its own process; its JSON report."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).resolve().parent / "chaos_attacks.py"),
        json.dumps(cfg), cwd=REPO, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return {"error": "the attacker overran its time and was killed"}
    lines = out.decode().strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": f"attacker exit {proc.returncode}: {err.decode()[-500:]}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


async def restart_server(stack: Stack, name: str) -> tuple[float, float]:
    """Stop and start Redis or PostgreSQL; (perf_counter when stopped, when up again)."""
    loop = asyncio.get_running_loop()
    server: Any = stack.redis if name == "redis-restart" else stack.pg
    down = time.perf_counter()
    await loop.run_in_executor(None, server.stop)
    await asyncio.sleep(1.0)
    await loop.run_in_executor(None, server.start)
    return down, time.perf_counter()


def fmt_ms(value: float) -> str:
    return "-" if value != value else f"{value:,.0f}"  # NaN: no sample


async def attack_lab(stack: Stack, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The probe plays throughout; each attack: a quiet phase, the attack, a settle."""
    probe = Probe(stack.urls, games=args.probe_games, seed=args.seed)
    await probe.start()
    await probe.warm_up()
    volumes = VOLUMES["short" if args.short else "full"]
    quiet = max(3.0, args.seconds / 2)
    print(f"probe: {args.probe_games} games; per attack: {quiet:g} s quiet, "
          f"{args.seconds:g} s attack, {SETTLE:g} s settle", flush=True)
    runs: list[dict[str, Any]] = []
    probe.phase = "baseline"
    await asyncio.sleep(quiet)
    base_p50 = probe.summary("baseline")["p50"]
    base_p50 = base_p50 if base_p50 == base_p50 else 100.0
    print(f"probe baseline p50 {base_p50:.0f} ms", flush=True)
    for name in args.attacks:
        if name.endswith("-restart") and stack.mode == "embedded":
            runs.append({"attack": name, "skipped": "stack mode only"})
            continue
        probe.phase = f"quiet:{name}"
        await asyncio.sleep(quiet)
        probe.phase = name
        rss = [stack.rss_mb()]
        sampling = asyncio.Event()

        async def sample(rss: list[float] = rss, done: asyncio.Event = sampling) -> None:
            while not done.is_set():
                rss.append(stack.rss_mb())
                await asyncio.sleep(0.5)

        sampler = asyncio.ensure_future(sample())
        t0 = time.perf_counter()
        run: dict[str, Any] = {"attack": name}
        if name.endswith("-restart"):
            down, up = await restart_server(stack, name)
            await asyncio.sleep(max(0.0, args.seconds - (up - t0)))
            run.update(volume="1 restart", down_s=round(up - down, 1), up_at=up)
        else:
            cfg = {"attack": name, "urls": stack.urls, "probe_games": probe.game_ids,
                   **volumes.get(name, {})}
            cfg["seconds"] = max(args.seconds, cfg.pop("min_seconds", 0))
            run.update(await run_attacker(cfg, cfg["seconds"] + 60))
            if name == "forged":
                run["limits"] = ", ".join(
                    f"{what} {stack.env.get(var) or default}" for what, var, default in (
                        ("guest", "KONDAVO_GUEST_RATE", "30/h"),
                        ("signup", "KONDAVO_SIGNUP_RATE", "10/h"),
                        ("game", "KONDAVO_CREATE_RATE_IP", "30/m")))
        run["attack_s"] = round(time.perf_counter() - t0, 1)
        sampling.set()
        await sampler
        run["rss_mb"] = (round(rss[0]), round(max(rss)))
        probe.phase = f"settle:{name}"
        t_end = time.perf_counter()
        await asyncio.sleep(SETTLE)
        # then until the probe is back to its first quiet p50 (so the next quiet phase is
        # quiet), at most RECOVER_MAX s
        while time.perf_counter() - t_end < RECOVER_MAX:
            now_p50 = probe.recent_p50(3.0)
            if now_p50 == now_p50 and now_p50 <= max(3 * base_p50, base_p50 + 100):
                break
            await asyncio.sleep(1.0)
        run["recovered_s"] = round(time.perf_counter() - t_end, 1)
        runs.append(run)
        print(f"  {name}: done in {run['attack_s']} s, probe back to its quiet p50 "
              f"{run['recovered_s']} s later", flush=True)
    probe.phase = "end"  # the last moves' answers: until every move is in, at most 20 s
    phases = sorted({m.phase for m in probe.all_moves} - {"end"})
    for _ in range(40):
        if probe.lost(phases)[0] == 0:
            break
        await asyncio.sleep(0.5)
    await probe.close()
    for run in runs:
        if "skipped" in run:
            continue
        run["quiet"] = probe.summary(f"quiet:{run['attack']}")
        run["probe"] = probe.summary(run["attack"])
        run["timeline"] = probe.timeline(run["attack"])
        # lost: over the whole window (a move sent just before a restart counts for it)
        window = [f"quiet:{run['attack']}", run["attack"], f"settle:{run['attack']}"]
        run["lost"], run["lost_confirmed"] = probe.lost(window)
        run["lost_late"] = probe.late(window)
        q, a = run["quiet"]["p99"], run["probe"]["p99"]
        run["p99_ratio"] = round(a / q, 1) if q == q and a == a and q > 0 else None
        if "up_at" in run:
            first, every = probe.recovery(run.pop("up_at"))
            run["recovery_s"] = (None if first is None else round(first, 1),
                                 None if every is None else round(every, 1))
    return runs


def attack_details(run: dict[str, Any]) -> str:
    parts = []
    if run.get("error"):
        parts.append(f"ERROR {run['error']}")
    if run.get("closes"):
        parts.append(f"attacker closed by server {run['closes']}")
    if run.get("refused"):
        parts.append(f"handshakes refused {run['refused']}")
    counts = {k: v for k, v in (run.get("counts") or {}).items() if k.startswith("http_")}
    if counts:
        parts.append(f"HTTP {counts}")
    if run.get("first_close_s") is not None:
        parts.append(f"first flood close after {run['first_close_s']} s")
    if run.get("got"):
        parts.append("got " + ", ".join(f"{k} {v}/{run['tried'].get(k, 0)}"
                                        for k, v in sorted(run["got"].items()))
                     + f" (per-address limits: {run.get('limits', '?')})")
    if "busy_game_moves" in run:
        parts.append(f"busy game moves {run['busy_game_moves']}")
    if "recovery_s" in run:
        first, every = run["recovery_s"]
        parts.append(f"down {run['down_s']} s; moves flow again after {first} s (first game),"
                     f" {every} s (every game)")
    if run.get("lost"):
        parts.append(f"lost: {run['lost_confirmed']} confirmed to the mover but never "
                     f"delivered, {run['lost'] - run['lost_confirmed']} never answered")
        if run.get("lost_late"):
            parts.append("answered after the probe gave up (answer, s): "
                         + ", ".join(f"{a} {s}" for a, s in run["lost_late"]))
    p = run["probe"]
    if p["errors"]:
        parts.append(f"probe error frames {p['errors']}")
    parts.append(f"probe confirm p50/p99 {fmt_ms(p['confirm_p50'])}/"
                 f"{fmt_ms(p['confirm_p99'])} ms")
    parts.append(f"Daphne RSS {run['rss_mb'][0]} -> {run['rss_mb'][1]} MB")
    parts.append(f"probe p50 back to quiet {run['recovered_s']} s after the attack")
    if run.get("timeline"):
        parts.append("probe by second of the attack (moves p50/max ms): " + ", ".join(
            f"{sec}s {n} {p50:.0f}/{top:.0f}" for sec, n, p50, top in run["timeline"]))
    return "; ".join(parts)


def print_attacks(runs: list[dict[str, Any]]) -> None:
    print(f"\n{'attack':<17}{'volume':<40}{'probe sent/arrived':>19}{'quiet p50/p99':>15}"
          f"{'attack p50/p99':>16}{'p99 x':>7}{'lost':>6}  probe closes", flush=True)
    for run in runs:
        if "skipped" in run:
            print(f"{run['attack']:<17}skipped ({run['skipped']})")
            continue
        q, p = run["quiet"], run["probe"]
        ratio = "-" if run["p99_ratio"] is None else f"{run['p99_ratio']:g}"
        print(f"{run['attack']:<17}{str(run.get('volume', '?'))[:39]:<40}"
              f"{p['sent']:>10}/{p['arrived']:<8}"
              f"{fmt_ms(q['p50']):>7}/{fmt_ms(q['p99']):<7}"
              f"{fmt_ms(p['p50']):>8}/{fmt_ms(p['p99']):<7}{ratio:>7}{run['lost']:>6}"
              f"  {p['closes'] or '-'}")
        print(f"{'':<17}{attack_details(run)}", flush=True)
    print("(latency: move sent -> the opponent's socket has it, ms; lost: sent from the quiet "
          "phase to the settle's end, not refused with an error, never seen by the opponent)")


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
    if args.tournament:
        report = await tournament_lab(stack, args)
        print_report(report)
        report["command"] = " ".join(["bench/chaos.py", *sys.argv[1:]])
        save(report, args.json)
        lost = sum(report[k]["lost"] for k in ("plain_quiet", "plain_arena", "arena_games"))
        return 1 if lost or report["failures"] else 0
    if args.attacks:
        runs = await attack_lab(stack, args)
        print_attacks(runs)
        if args.json:
            args.json.write_text(json.dumps({"mode": stack.mode, "seconds": args.seconds,
                                             "short": args.short, "attacks": runs}, indent=1))
        done = [r for r in runs if "skipped" not in r]
        return 1 if any(r["lost"] or r.get("error") for r in done) else 0
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


def attack_list(text: str) -> list[str]:
    names = ATTACKS if text == "all" else [a.strip() for a in text.split(",") if a.strip()]
    unknown = [a for a in names if a not in ATTACKS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown attack {', '.join(unknown)} "
                                         f"(choose from {', '.join(ATTACKS)} or all)")
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", action="append", choices=SCENARIOS,
                    help="run only these (repeatable; default: all)")
    ap.add_argument("--attacks", type=attack_list,
                    help=f"run these attacks with the latency probe instead of the fault "
                         f"scenarios: comma-separated from {','.join(ATTACKS)}, or all")
    ap.add_argument("--mode", choices=("stack", "embedded"), default="stack",
                    help="stack: production settings, 2 Daphnes, Redis, PostgreSQL, Celery "
                         "(as the compose file); embedded: one Daphne as make run")
    ap.add_argument("--seconds", type=float, default=None,
                    help="length of each attack (default 15; 4 with --short)")
    ap.add_argument("--probe-games", type=int, default=20)
    ap.add_argument("--json", type=Path, help="write the attack figures to this file")
    ap.add_argument("--short", action="store_true",
                    help="baseline and daphne_kill, 1,000 fuzz frames; attacks: small "
                         "volumes, 4 s each")
    ap.add_argument("--fuzz-frames", type=int, default=None)
    ap.add_argument("--friend-games", type=int, default=6)
    ap.add_argument("--bot-games", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-logs", type=Path, help="copy the servers' logs to this directory")
    ap.add_argument("--tournament", action="store_true",
                    help="the arena load scenario (bench/chaos_tournament.py) instead of the "
                         "fault scenarios; --seconds: the arena phase (default 120)")
    ap.add_argument("--players", type=int, default=300, help="--tournament: arena players")
    ap.add_argument("--spectators", type=int, default=300,
                    help="--tournament: half on the standings, half on the leader's game")
    ap.add_argument("--think", type=float, default=3.0,
                    help="--tournament: mean seconds per move (uniform over 0.5x-1.5x)")
    ap.add_argument("--plies", type=int, default=30,
                    help="--tournament: plies per game before a player resigns")
    ap.add_argument("--tc", default="5+3", help="--tournament: the games' time control")
    ap.add_argument("--ruleset", default="international", help="--tournament")
    ap.add_argument("--quiet", type=float, default=40.0,
                    help="--tournament: seconds of plain games before the arena starts")
    args = ap.parse_args()
    if args.tournament:
        if args.attacks or args.scenario or args.mode != "stack":
            ap.error("--tournament runs alone, in stack mode")
        args.seconds = args.seconds or 120.0
        raise_open_files()
        with ExitStack() as exits:
            stack = Stack(exits, mode="stack", limits=False,
                          extra_env={"KONDAVO_CREATE_RATE_PLAYER": ""})
            print(stack.describe(), flush=True)
            code = asyncio.run(main_async(args, stack))
            if args.keep_logs:
                import shutil

                args.keep_logs.mkdir(parents=True, exist_ok=True)
                for log in stack.tmp.glob("*.log"):
                    shutil.copy(log, args.keep_logs / log.name)
        sys.exit(code)
    if args.attacks and args.scenario:
        ap.error("run the fault scenarios and the attacks separately (the attacks keep the "
                 "per-address limits on)")
    if args.mode == "embedded" and not args.attacks:
        ap.error("the fault scenarios run in stack mode only")
    args.seconds = args.seconds or (4.0 if args.short else 15.0)
    if args.short:
        args.scenario = args.scenario or ["baseline", "daphne_kill"]
        args.fuzz_frames = 1000 if args.fuzz_frames is None else args.fuzz_frames
    args.scenario = args.scenario or SCENARIOS
    args.fuzz_frames = 10_000 if args.fuzz_frames is None else args.fuzz_frames
    raise_open_files()
    with ExitStack() as exits:
        stack = Stack(exits, mode=args.mode, limits=bool(args.attacks))
        print(stack.describe(), flush=True)
        cpus = os.cpu_count() or 1
        if args.attacks and cpus <= 2:
            print(f"note: {cpus} CPUs: the probe and the attacker compete with the "
                  "servers for CPU", flush=True)
        code = asyncio.run(main_async(args, stack))
        if args.keep_logs:
            import shutil

            args.keep_logs.mkdir(parents=True, exist_ok=True)
            for log in stack.tmp.glob("*.log"):
                shutil.copy(log, args.keep_logs / log.name)
    sys.exit(code)


if __name__ == "__main__":
    main()
