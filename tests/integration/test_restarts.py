"""Redis and PostgreSQL restarts cost a reconnect (kondavo/games/bus.py,
kondavo/redis_clients.py, kondavo/outages.py).

Each test starts its own throwaway Redis (and, for the PostgreSQL test, its own throwaway
PostgreSQL cluster, migrated once per module) on free ports, and a real Daphne with the
production settings on them; players and spectators are real websocket clients. Redis is
killed (SIGKILL: its data is lost, as in a crash or a container restart) and started again
on the same port; PostgreSQL is stopped ("fast" shutdown: every backend is disconnected)
and started again.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
import websockets
from integration_stack import REPO_DIR, Visitor, free_port, wait_for_port, wait_until

pytestmark = [pytest.mark.services]

WS_TIMEOUT = 20.0


# --------------------------------------------------------------------------- own services

class RedisServer:
    """A throwaway redis-server (no persistence) that can be killed and started again."""

    def __init__(self, workdir: Path) -> None:
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server not installed")
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)], stdout=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)


class PostgresServer:
    """A throwaway PostgreSQL cluster that can be stopped and started again."""

    def __init__(self, workdir: Path) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not bins:
            pytest.skip("PostgreSQL binaries not installed")
        self.bin = Path(bins[-1])
        self.data = workdir / "pg"
        self.data.mkdir()
        self.as_owner: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root
            shutil.chown(self.data, "postgres", "postgres")
            self.as_owner = ["runuser", "-u", "postgres", "--"]
        subprocess.run([*self.as_owner, str(self.bin / "initdb"), "-D", str(self.data), "-U",
                        "postgres", "--auth=trust"], check=True, stdout=subprocess.DEVNULL)
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/kondavo"

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        subprocess.run([*self.as_owner, str(self.bin / "pg_ctl"), "-D", str(self.data), "-w",
                        "-l", str(self.data / "server.log"), "-o", options, "start"],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self) -> None:
        subprocess.run([*self.as_owner, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m",
                        "fast", "-w", "stop"], check=False, stdout=subprocess.DEVNULL)


def production_env(database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "kondavo.settings.production",
           "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1",
           "SECURE_COOKIES": "false", "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "KONDAVO_BOT_INPROCESS": "false", "PYTHONUNBUFFERED": "1",
           # every client of the test comes from 127.0.0.1
           "KONDAVO_GUEST_RATE": "", "KONDAVO_CREATE_RATE_IP": "", **extra}
    for name in ("CACHE_REDIS_URL", "CELERY_BROKER_URL", "CHANNEL_REDIS_URLS",
                 "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)
    return env


class Daphne:
    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                 "kondavo.asgi:application"], cwd=REPO_DIR, env=env, stdout=log,
                stderr=subprocess.STDOUT)
        wait_for_port(self.port, self.proc)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, pattern: str, timeout: float) -> None:
        wait_until(lambda: re.search(pattern, self.log()), timeout,
                   f"{pattern!r} in the Daphne log")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    """A migrated throwaway PostgreSQL for this module."""
    # (not under pytest's tmp_path: its parent is private to root, and PostgreSQL runs as
    # its own user when the tests run as root)
    workdir = tempfile.TemporaryDirectory(prefix="kondavo-pg-restart-")
    Path(workdir.name).chmod(0o755)
    server = PostgresServer(Path(workdir.name))
    server.start()
    try:
        subprocess.run([str(server.bin / "createdb"), "-h", "127.0.0.1", "-p",
                        str(server.port), "-U", "postgres", "kondavo"], check=True)
        env = production_env(server.url, "")
        env.pop("REDIS_URL")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=REPO_DIR, env=env, check=True)
        yield server
    finally:
        server.stop()
        workdir.cleanup()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def daphne_factory(artifacts_dir: Path) -> Iterator[Any]:
    started: list[Daphne] = []

    def start(env: dict[str, str], name: str) -> Daphne:
        daphne = Daphne(env, artifacts_dir / f"restarts-{name}.log")
        started.append(daphne)
        return daphne

    yield start
    for daphne in started:
        daphne.stop()


# --------------------------------------------------------------------------- clients

class Client:
    """One websocket of a game page (a player or a spectator)."""

    def __init__(self, ws: Any, state: dict[str, Any]) -> None:
        self.ws = ws
        self.state = state

    @classmethod
    async def open(cls, base: str, game_id: str, visitor: Visitor | None) -> Client:
        headers = {"Cookie": visitor.cookie_header()} if visitor is not None else {}
        ws = await websockets.connect(base.replace("http://", "ws://") + f"/ws/game/{game_id}/",
                                      origin=base, open_timeout=WS_TIMEOUT,
                                      additional_headers=headers)
        client = cls(ws, {})
        client.state = (await client.next_frame("state"))["d"]
        return client

    async def next_frame(self, *types: str, timeout: float = WS_TIMEOUT) -> dict[str, Any]:
        """The next frame of one of ``types`` (other frames are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = max(deadline - time.monotonic(), 0.01)
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), left))
            if frame["t"] in types:
                return frame

    async def send(self, t: str, **d: Any) -> None:
        await self.ws.send(json.dumps({"t": t, "d": d}))

    async def move(self, ply: int, notation: str) -> None:
        await self.send("move", ply=ply, move=notation)


def new_friend_game(base: str) -> tuple[str, Visitor, Visitor]:
    white, black = Visitor(base), Visitor(base)
    white.get("/")
    black.get("/")
    game = white.post_json("/games/new/friend", {"ruleset": "international", "color": "white",
                                                 "time_control": "untimed"})
    black.post_json(f"/games/{game['id']}/join", {})
    return str(game["id"]), white, black


async def play_and_see(mover: Client, watchers: list[Client], ply: int,
                       timeout: float) -> tuple[str, float]:
    """``mover`` plays its first legal move at ``ply``; returns the move and the time until
    every watcher got it pushed as a ``move`` frame (the mover gets it too)."""
    notation = mover.state["legal"][0]["notation"]
    started = time.monotonic()
    await mover.move(ply, notation)
    for watcher in watchers:
        watcher.state = await seen(watcher, ply + 1, started + timeout)
    seconds = time.monotonic() - started
    mover.state = await seen(mover, ply + 1, started + timeout)
    return notation, seconds


async def seen(client: Client, ply: int, deadline: float) -> dict[str, Any]:
    """The client's view once it has ``ply`` moves: a ``move`` frame, or a ``state`` (a
    socket resynced after the bus subscribed again gets the move in its state)."""
    while True:
        frame = await client.next_frame("move", "state",
                                        timeout=max(deadline - time.monotonic(), 0.01))
        if frame["d"]["ply"] >= ply:
            assert frame["d"]["ply"] == ply, frame
            return dict(frame["d"])


def http_get(url: str, accept: str = "text/html") -> tuple[int, dict[str, str], str]:
    try:
        with urlopen(Request(url, headers={"Accept": accept}), timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


# --------------------------------------------------------------------------- tests

@pytest.mark.timing
def test_redis_restart_keeps_sockets_and_moves_flow_again(
        postgres: PostgresServer, redis_server: RedisServer, daphne_factory: Any) -> None:
    daphne = daphne_factory(production_env(postgres.url, redis_server.url), "redis")
    game_id, white_visitor, black_visitor = new_friend_game(daphne.base)

    async def scenario() -> float:
        white = await Client.open(daphne.base, game_id, white_visitor)
        black = await Client.open(daphne.base, game_id, black_visitor)
        spectator = await Client.open(daphne.base, game_id, None)
        clients = [white, black, spectator]
        await play_and_see(white, [black, spectator], 0, timeout=10)  # it works before
        # black's socket, which gets the next move, learnt its legal moves from white's move

        redis_server.kill()
        await asyncio.sleep(1.0)  # Redis stays down for a second: its data is gone
        redis_server.start()
        # The bus noticed (its reader lost the connection) and subscribed again.
        await asyncio.to_thread(daphne.wait_for_log, r"subscribed again", 15)

        for client in clients:  # every socket is still open and answers
            await client.send("ping")
            await client.next_frame("pong", timeout=10)
        # After the restart a move is pushed to the opponent and the spectator at once.
        _, seconds = await play_and_see(black, [white, spectator], 1, timeout=5)
        for client in clients:
            assert client.ws.close_code is None
            await client.ws.close()
        return seconds

    seconds = asyncio.run(scenario())
    assert seconds < 5
    log = daphne.log()  # no consumer died, nothing was logged with a traceback
    assert "Exception inside application" not in log and "Traceback" not in log, log[-4000:]


def test_postgres_restart_gives_503_and_error_frames_then_works(
        postgres: PostgresServer, redis_server: RedisServer, daphne_factory: Any) -> None:
    env = production_env(postgres.url, redis_server.url, DB_POOL="true", DB_POOL_TIMEOUT="2")
    daphne = daphne_factory(env, "postgres")
    game_id, white_visitor, black_visitor = new_friend_game(daphne.base)
    page = f"{daphne.base}/game/{game_id}/"

    async def scenario() -> None:
        white = await Client.open(daphne.base, game_id, white_visitor)
        black = await Client.open(daphne.base, game_id, black_visitor)
        await play_and_see(white, [black], 0, timeout=10)

        await asyncio.to_thread(postgres.stop)
        try:
            # HTTP: a clean 503 (page or JSON) with Retry-After, no 500.
            status, headers, body = await asyncio.to_thread(http_get, page)
            assert status == 503 and headers.get("Retry-After"), (status, body[:500])
            assert "Back in a moment" in body
            status, headers, body = await asyncio.to_thread(
                http_get, f"{daphne.base}/games/{game_id}/state.json", "application/json")
            assert status == 503, (status, body[:500])
            assert json.loads(body)["error"]["code"] == "unavailable"
            # A websocket action gets an error frame; the socket stays open.
            notation = black.state["legal"][0]["notation"]
            await black.move(1, notation)
            error = await black.next_frame("error", timeout=15)
            assert error["d"]["code"] == "unavailable", error
            assert black.ws.close_code is None
        finally:
            await asyncio.to_thread(postgres.start)

        # After the restart the next move is played and reaches the opponent.
        restarted = time.monotonic()
        await black.move(1, notation)
        frame = await white.next_frame("move", "error", timeout=30)
        assert frame["t"] == "move" and frame["d"]["ply"] == 2, frame
        print(f"first move after the PostgreSQL restart: {time.monotonic() - restarted:.2f} s")
        for client in (white, black):
            assert client.ws.close_code is None
            await client.ws.close()

    asyncio.run(scenario())
    status, _, _ = http_get(page)
    assert status == 200
    log = daphne.log()  # no 500, no consumer died, nothing was logged with a traceback
    assert "Internal Server Error" not in log, log[-4000:]
    assert "Exception inside application" not in log and "Traceback" not in log, log[-4000:]


# --------------------------------------------------------------------------- the bus itself

def bus_on(*servers: RedisServer, **config: Any) -> Any:
    from kondavo.games.bus import RedisBus

    return RedisBus([s.url for s in servers], "restart-test", **config)


@pytest.mark.timing
async def test_bus_bounds_publishes_and_resubscribes_after_a_restart(
        redis_server: RedisServer) -> None:
    from kondavo.games.bus import RECONNECTED, BusUnavailable

    bus = bus_on(redis_server, operation_timeout=1.0, max_retry_delay=0.5)
    sub = bus.subscribe()
    await sub.add("game.abc")
    await bus.publish("game.abc", {"type": "hello", "n": 1})
    assert (await asyncio.wait_for(sub.get(), 5))["n"] == 1
    receiving = asyncio.ensure_future(sub.get())  # waits through the outage

    await asyncio.to_thread(redis_server.kill)
    started = time.monotonic()
    with pytest.raises(BusUnavailable):
        await bus.publish("game.abc", {"type": "hello", "n": 2})
    assert time.monotonic() - started < 2 * 1.0 + 0.5  # bounded, not hanging
    await sub.add("game.xyz")  # no error: subscribed when Redis is back
    await asyncio.sleep(0.5)
    assert not receiving.done()  # nothing came, nothing raised

    await asyncio.to_thread(redis_server.start)
    # The reader connects again, subscribes to both groups and says so (the hub resyncs).
    notice = await asyncio.wait_for(receiving, 10)
    assert notice["type"] == RECONNECTED
    await bus.publish("game.abc", {"type": "hello", "n": 4})
    await bus.publish("game.xyz", {"type": "hello", "n": 5})
    got = [await asyncio.wait_for(sub.get(), 5) for _ in range(2)]
    assert sorted(m["n"] for m in got) == [4, 5]
    # A discarded group's messages no longer come.
    await sub.discard("game.xyz")
    await bus.publish("game.xyz", {"type": "hello", "n": 6})
    await bus.publish("game.abc", {"type": "hello", "n": 7})
    assert (await asyncio.wait_for(sub.get(), 5))["n"] == 7
    await sub.close()


@pytest.mark.timing
async def test_sharded_bus_reconnects_only_the_restarted_shard(tmp_path: Path) -> None:
    from kondavo.games.bus import RECONNECTED, shard_of

    servers = [RedisServer(tmp_path / str(i)) for i in range(2)]
    for server in servers:
        server.workdir.mkdir()
        server.start()
    try:
        bus = bus_on(*servers, max_retry_delay=0.5)
        sub = bus.subscribe()
        groups = [f"game.g{i}" for i in range(40)]
        for group in groups:
            await sub.add(group)
        on_shard = {i: [g for g in groups if shard_of(g, 2) == i] for i in (0, 1)}
        assert on_shard[0] and on_shard[1]  # spread over both

        import redis

        for i, server in enumerate(servers):  # each shard holds its own groups' channels
            names = {c.decode() for c in redis.Redis.from_url(server.url).pubsub_channels()}
            assert names == {f"restart-test:{g}" for g in on_shard[i]}

        await asyncio.to_thread(servers[1].kill)
        await asyncio.sleep(0.3)
        await asyncio.to_thread(servers[1].start)
        notice = await asyncio.wait_for(sub.get(), 10)
        assert notice == {"type": RECONNECTED, "shard": 1}
        for n, group in enumerate(groups):
            await bus.publish(group, {"type": "hello", "n": n})
        got = {(await asyncio.wait_for(sub.get(), 5))["n"] for _ in groups}
        assert got == set(range(len(groups)))
        await sub.close()
    finally:
        for server in servers:
            server.kill()


# --------------------------------------------------------------------------- other clients

def test_presence_and_cache_clients_recover_at_their_first_call(
        redis_server: RedisServer) -> None:
    """Pooled connections made stale by a restart never surface as errors: each client's
    first call after Redis is back succeeds (and a call during the outage fails fast)."""
    from concurrent.futures import ThreadPoolExecutor

    from django.core.cache.backends.redis import RedisCache

    from kondavo.games.presence import RedisPresence
    from kondavo.settings.base import caches_for

    presence = RedisPresence(redis_server.url)
    cache = RedisCache(redis_server.url, {"OPTIONS": caches_for(redis_server.url)["default"]
                                          ["OPTIONS"]})

    def use(n: int) -> None:  # several threads: several pooled connections each
        presence.refresh("g1", f"spectator:{n}", time.time() + 60, time.time())
        cache.set(f"k{n}", n)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(use, range(32)))
    redis_server.kill()
    started = time.monotonic()
    with pytest.raises(Exception, match="(?i)connect"):
        presence.view("g1", time.time())
    assert time.monotonic() - started < 3
    redis_server.start()
    with ThreadPoolExecutor(8) as pool:  # every stale connection is used once more
        list(pool.map(use, range(32)))
    assert presence.view("g1", time.time()).spectators == 32
    assert cache.get("k7") == 7
