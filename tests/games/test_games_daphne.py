"""End to end over real Daphne processes and real websocket clients."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.contrib.sessions.backends.db import SessionStore

from kondavo.accounts.services import GUEST_SESSION_KEY
from kondavo.games.models import Game
from kondavo.games.services import game_create

pytestmark = pytest.mark.django_db(transaction=True)

REPO_DIR = Path(__file__).resolve().parents[2]
TIMEOUT = 10
# A short international game: White's man promotes and Black takes everything.
FEN = "W:W21,10:B26,42"
MOVES = ["10-4", "26x17", "4-22", "17x28"]


def session_cookie(player: Any) -> str:
    store = SessionStore()
    store[GUEST_SESSION_KEY] = player.guest_key
    store.create()
    return f"sessionid={store.session_key}"


def seated_game(guest_factory: Any, **kwargs: Any) -> tuple[Game, dict[str, str]]:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       start_fen=FEN, **kwargs)
    return game, {"white": session_cookie(white), "black": session_cookie(black)}


class Client:
    """A websocket client that remembers the last version it saw."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.version = -1

    @classmethod
    async def open(cls, base: str, game_id: str, cookie: str | None) -> Client:
        url = base.replace("http://", "ws://") + f"/ws/game/{game_id}/"
        headers = {"Cookie": cookie} if cookie else None
        ws = await websockets.connect(url, origin=base, additional_headers=headers,
                                      open_timeout=TIMEOUT)
        return cls(ws)

    async def send(self, t: str, d: dict[str, Any] | None = None) -> None:
        await self.ws.send(json.dumps({"t": t, "d": d or {}}))

    async def next(self, t: str) -> dict[str, Any]:
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
            if frame["t"] not in ("error", "pong", "presence"):
                assert frame["v"] == self.version + 1 or frame["t"] == "state", frame
                self.version = frame["v"]
            if frame["t"] == t:
                return frame
            assert frame["t"] != "error", frame


async def play_full_game(white: Client, black: Client, spectator: Client | None) -> None:
    clients = [c for c in (white, black, spectator) if c is not None]
    for c in clients:
        state = (await c.next("state"))["d"]
        assert state["ply"] == 0 and state["status"] == "active"
    for ply, text in enumerate(MOVES):
        me, other = (white, black) if ply % 2 == 0 else (black, white)
        await me.send("move", {"ply": ply, "move": text})
        for c in clients:
            frame = await c.next("move")
            assert frame["d"]["ply"] == ply + 1 and frame["d"]["notation"] == text
    for c in clients:
        end = (await c.next("end"))["d"]
        assert end["result"] == {"winner": "black", "reason": "no_pieces", "score": "0-2"}


@pytest.mark.embedded
async def test_full_game_over_daphne(daphne_server: str, guest_factory: Any) -> None:
    game, cookies = await database_sync_to_async(seated_game)(guest_factory,
                                                              time_control="3+2")
    white = await Client.open(daphne_server, game.id, cookies["white"])
    black = await Client.open(daphne_server, game.id, cookies["black"])
    spectator = await Client.open(daphne_server, game.id, None)
    try:
        await play_full_game(white, black, spectator)
    finally:
        for c in (white, black, spectator):
            await c.ws.close()
    final = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert final.status == "finished" and final.moves == MOVES


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def second_daphne(daphne_server: str, redis_url: str, artifacts_dir: Path) -> Iterator[str]:
    """Another Daphne on the same test database and the same Redis channel layer."""
    from django.db import connection

    settings_dict = connection.settings_dict
    db_url = (f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:"
              f"{settings_dict['PORT']}/{settings_dict['NAME']}")
    if connection.vendor != "postgresql":
        pytest.skip("two Daphne processes share PostgreSQL in this test")
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url,
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.test", "PYTHONUNBUFFERED": "1"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with open(artifacts_dir / "daphne-2.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "kondavo.asgi:application"], cwd=REPO_DIR, env=env, stdout=log,
            stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                assert proc.poll() is None, "second daphne exited"
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.mark.services
async def test_two_daphnes_share_the_redis_layer(daphne_server: str, second_daphne: str,
                                                 guest_factory: Any) -> None:
    """A move sent to one Daphne reaches the opponent connected to the other."""
    game, cookies = await database_sync_to_async(seated_game)(guest_factory)
    white = await Client.open(daphne_server, game.id, cookies["white"])
    black = await Client.open(second_daphne, game.id, cookies["black"])
    try:
        await play_full_game(white, black, None)
    finally:
        await white.ws.close()
        await black.ws.close()


@pytest.mark.services
async def test_idle_socket_survives_past_redis_read_timeout(
        daphne_server: str, redis_url: str, guest_factory: Any) -> None:
    """channels-redis blocks 5 s per read: with redis-py 8's default socket_timeout the
    idle socket would be closed with 1011 (see docs/ENVIRONMENT facts)."""
    game, cookies = await database_sync_to_async(seated_game)(guest_factory)
    white = await Client.open(daphne_server, game.id, cookies["white"])
    black = await Client.open(daphne_server, game.id, cookies["black"])
    try:
        await white.next("state")
        await black.next("state")
        await asyncio.sleep(6.5)  # both idle past 5 s
        await white.send("move", {"ply": 0, "move": MOVES[0]})
        assert (await black.next("move"))["d"]["notation"] == MOVES[0]
        await black.send("ping")
        pong = json.loads(await asyncio.wait_for(black.ws.recv(), TIMEOUT))
        while pong["t"] != "pong":
            pong = json.loads(await asyncio.wait_for(black.ws.recv(), TIMEOUT))
    finally:
        await white.ws.close()
        await black.ws.close()


def _database_url_for(settings_dict: dict[str, Any]) -> str:
    """tests/conftest.py's ``database_url_for`` (test directories are not packages)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kondavo_root_conftest",
                                                  REPO_DIR / "tests" / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    url: str = module.database_url_for(settings_dict)
    return url


async def _keep_playing(base: str, game_id: str, cookie: str, side: str,
                        stop: asyncio.Event) -> int:
    """Play the first legal move whenever it is ``side``'s turn, until the socket closes."""
    played = 0
    try:
        client = await Client.open(base, game_id, cookie)
    except OSError:
        return 0
    try:
        while not stop.is_set():
            frame = json.loads(await asyncio.wait_for(client.ws.recv(), TIMEOUT))
            if frame["t"] not in ("state", "move"):
                continue
            d = frame["d"]
            if d.get("turn") == side and d.get("legal") and d.get("status", "active") == "active":
                await client.send("move", {"ply": d["ply"], "move": d["legal"][0]["notation"]})
                played += 1
    except (websockets.ConnectionClosed, OSError, TimeoutError):
        pass
    finally:
        await client.ws.close()
    return played


def _bot_game(guest_factory: Any) -> tuple[Game, str]:
    """The human is White against the top level, thinking ``BOT_THINK`` s per move."""
    from kondavo.games.services import game_create_vs_computer

    human = guest_factory()
    game = game_create_vs_computer(player=human, ruleset="international", level=8,
                                   color="white")
    return game, session_cookie(human)


BOT_THINK = 2.0


@pytest.mark.embedded
async def test_daphne_exits_promptly_on_sigterm_while_moves_are_published(
        guest_factory: Any, artifacts_dir: Path) -> None:
    """SIGTERM while pool threads commit moves and publish them, and while bot searches run
    in pool threads (the embedded bots): a publish into the stopping event loop must not
    keep the process from exiting (events._group_send)."""
    from django.db import connection

    games = [await database_sync_to_async(seated_game)(guest_factory) for _ in range(6)]
    bot_games = [await database_sync_to_async(_bot_game)(guest_factory) for _ in range(2)]
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": _database_url_for(connection.settings_dict),
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.test", "PYTHONUNBUFFERED": "1",
           "KONDAVO_BOT_INPROCESS": "true", "KONDAVO_BOT_MOVE_TIME": str(BOT_THINK)}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    log_path = artifacts_dir / "daphne-sigterm.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "kondavo.asgi:application"], cwd=REPO_DIR, env=env, stdout=log,
            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, log_path.read_text(errors="replace")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "daphne did not start"
            await asyncio.sleep(0.05)
        stop = asyncio.Event()
        players = [asyncio.create_task(_keep_playing(base, game.id, cookies[side], side, stop))
                   for game, cookies in games for side in ("white", "black")]
        players += [asyncio.create_task(_keep_playing(base, game.id, cookie, "white", stop))
                    for game, cookie in bot_games]
        await asyncio.sleep(BOT_THINK / 2)  # moves flowing, the bots searching
        proc.terminate()
        sent_at = time.monotonic()
        while proc.poll() is None and time.monotonic() - sent_at < 15:
            await asyncio.sleep(0.05)
        exited_after = time.monotonic() - sent_at
        stop.set()
        played = sum(await asyncio.gather(*players))
        assert played > 20, "the games were not under way"
        # The bot searches still finish (they run in threads the interpreter joins), then
        # their publish must give up at once instead of waiting for the stopped loop.
        assert proc.poll() is not None and exited_after < BOT_THINK + 3, (
            f"daphne still running {exited_after:.1f} s after SIGTERM\n"
            + log_path.read_text(errors="replace")[-3000:])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
