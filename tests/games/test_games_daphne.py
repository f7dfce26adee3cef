"""End to end over real Daphne processes and real websocket clients."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from daphne_process import running_daphne
from django.contrib.sessions.backends.db import SessionStore

from kondavo.accounts.services import GUEST_SESSION_KEY
from kondavo.games.models import Game
from kondavo.games.services import game_create

pytestmark = pytest.mark.django_db(transaction=True)

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


@pytest.fixture
def second_daphne(daphne_server: str, redis_url: str, artifacts_dir: Path) -> Iterator[str]:
    """Another Daphne on the same test database and the same Redis channel layer."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("two Daphne processes share PostgreSQL in this test")
    with running_daphne(connection.settings_dict, artifacts_dir / "daphne-2.log",
                        REDIS_URL=redis_url) as (_proc, base_url):
        yield base_url


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


@pytest.mark.timing
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


async def _keep_playing(base: str, game_id: str, cookie: str, side: str,
                        stop: asyncio.Event, tally: list[int] | None = None) -> int:
    """Play the first legal move whenever it is ``side``'s turn, until the socket closes.

    Every move sent is also counted in ``tally[0]`` when given. A socket whose opening the
    server never answers (refused, or cut short by the server stopping while the socket
    waited to be admitted) plays nothing."""
    played = 0
    try:
        client = await Client.open(base, game_id, cookie)
    except (OSError, websockets.exceptions.InvalidHandshake):
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
                if tally is not None:
                    tally[0] += 1
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


@pytest.mark.timing
@pytest.mark.embedded
async def test_daphne_exits_promptly_on_sigterm_while_moves_are_published(
        guest_factory: Any, artifacts_dir: Path) -> None:
    """SIGTERM while pool threads commit moves and publish them, and while bot searches run
    in pool threads (the embedded bots): a publish into the stopping event loop must not
    keep the process from exiting (events._group_send)."""
    from django.db import connection

    games = [await database_sync_to_async(seated_game)(guest_factory) for _ in range(6)]
    bot_games = [await database_sync_to_async(_bot_game)(guest_factory) for _ in range(2)]
    with running_daphne(connection.settings_dict, artifacts_dir / "daphne-sigterm.log",
                        KONDAVO_BOT_INPROCESS="true",
                        KONDAVO_BOT_MOVE_TIME=str(BOT_THINK)) as (proc, base):
        log_path = artifacts_dir / "daphne-sigterm.log"
        stop = asyncio.Event()
        tally = [0]
        players = [asyncio.create_task(_keep_playing(base, game.id, cookies[side], side, stop,
                                                     tally))
                   for game, cookies in games for side in ("white", "black")]
        players += [asyncio.create_task(_keep_playing(base, game.id, cookie, "white", stop,
                                                      tally))
                    for game, cookie in bot_games]
        # Moves flowing and the bots searching (bounded: a loaded machine is slower).
        started = time.monotonic()
        while tally[0] <= 20 and time.monotonic() - started < 30:
            await asyncio.sleep(0.05)
        await asyncio.sleep(BOT_THINK / 4)
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


@pytest.mark.embedded
@pytest.mark.timing  # the flooder must read the 4008 before the server's abort 2 s later
async def test_a_flood_is_cut_off_in_the_protocol_and_the_game_goes_on(
        daphne_server: str, guest_factory: Any) -> None:
    """Over a real Daphne: a socket sending frames as fast as it can is closed with 4008
    within a fraction of a second (its frames are dropped as they are parsed, never queued),
    its address cools down (a new socket is refused with 4029), and the players' moves still
    arrive."""
    from django.conf import settings

    if settings.REDIS_URL:  # a cool-down of this address left by an earlier run or test
        import redis

        from kondavo.games.discipline import KEY_PREFIX

        client = redis.Redis.from_url(settings.REDIS_URL)
        for key in client.scan_iter(KEY_PREFIX + "cool:*"):
            client.delete(key)
    game, cookies = await database_sync_to_async(seated_game)(guest_factory,
                                                              time_control="3+2")
    white = await Client.open(daphne_server, game.id, cookies["white"])
    black = await Client.open(daphne_server, game.id, cookies["black"])
    flooder = await Client.open(daphne_server, game.id, None)  # no session: its address
    try:
        for c in (white, black):
            await c.next("state")
        sent = 0
        started = time.monotonic()
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while time.monotonic() - started < 10:
                for _ in range(200):
                    await flooder.ws.send('{"t":"ping"}')
                    sent += 1
                await asyncio.sleep(0)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008, closed.value
        assert sent < 50_000  # cut off long before the client gave up
        # The cool-down is written as the consumer takes the verdict, a moment after the
        # close frame left: within a second, new sockets of that address are refused.
        deadline = time.monotonic() + 2
        while True:
            again = await Client.open(daphne_server, game.id, None)
            frame = json.loads(await asyncio.wait_for(again.ws.recv(), TIMEOUT))
            if frame["t"] == "error" or time.monotonic() > deadline:
                break
            await again.ws.close()
            await asyncio.sleep(0.1)
        assert frame["t"] == "error" and frame["d"]["code"] == "cooling_down", frame
        with pytest.raises(websockets.ConnectionClosed) as refused:
            await asyncio.wait_for(again.ws.recv(), TIMEOUT)
        assert refused.value.rcvd is not None and refused.value.rcvd.code == 4029
        await white.send("move", {"ply": 0, "move": MOVES[0]})
        assert (await black.next("move"))["d"]["notation"] == MOVES[0]
    finally:
        for c in (white, black, flooder):
            await c.ws.close()
