"""Bot moves and the periodic sweeps through a real Redis broker, real Celery worker and beat.

The human plays over a websocket on Daphne (``KONDAVO_BOT_INPROCESS=false``); the bot's move
is a Celery message that a ``celery -A kondavo worker`` subprocess plays, and the move comes
back to the human's socket through the Redis channel layer. Clocks run out through beat's
flag sweep or the client's ``flag`` frame. See conftest.py for the stack.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.utils import timezone
from integration_stack import Stack, Visitor, wait_until

from kondavo.games.models import Game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WS_TIMEOUT = 30


def game_row(game_id: str) -> Game:
    return Game.objects.get(pk=game_id)


def new_computer_game(stack: Stack, **fields: Any) -> tuple[Visitor, str]:
    """A new visitor (first page view: CSRF cookie) starts a game vs the bot (which makes
    their guest identity and session)."""
    visitor = Visitor(stack.base)
    visitor.get("/")
    game = visitor.post_json("/games/new/computer",
                             {"ruleset": "international", "time_control": "untimed", **fields})
    visitor.cookie("sessionid")  # the guest identity made by that first action
    return visitor, game["id"]


async def open_socket(stack: Stack, game_id: str, visitor: Visitor) -> Any:
    url = stack.base.replace("http://", "ws://") + f"/ws/game/{game_id}/"
    return await websockets.connect(url, origin=stack.base, open_timeout=WS_TIMEOUT,
                                    additional_headers={"Cookie": visitor.cookie_header()})


async def next_frame(ws: Any, t: str, timeout: float = WS_TIMEOUT) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        frame = json.loads(await asyncio.wait_for(ws.recv(), max(left, 0.01)))
        assert frame["t"] != "error", frame
        if frame["t"] == t:
            return frame


async def frames_for(ws: Any, seconds: float) -> list[dict[str, Any]]:
    """Every frame that arrives within ``seconds``."""
    frames: list[dict[str, Any]] = []
    deadline = asyncio.get_running_loop().time() + seconds
    while (left := deadline - asyncio.get_running_loop().time()) > 0:
        try:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
        except TimeoutError:
            break
    return frames


def queued_tasks(stack: Stack, task: str = "bots.tasks.bot_move_play") -> dict[str, int]:
    """Messages waiting in the broker: per queue, and ``task`` messages delivered but not
    acked (kombu's Redis transport keeps those in the ``unacked`` hash)."""
    broker = stack.broker()
    unacked = [json.loads(raw)[0]["headers"]["task"]
               for raw in broker.hvals("unacked")]
    return {"bots": broker.llen("bots"), "celery": broker.llen("celery"),
            "unacked": unacked.count(task)}


def test_bot_answers_a_websocket_move_on_the_same_socket(stack: Stack) -> None:
    stack.worker("int-worker", KONDAVO_BOT_MOVE_TIME="0.2")
    visitor, game_id = new_computer_game(stack, level=1, color="white", time_control="3+2")

    async def play() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        ws = await open_socket(stack, game_id, visitor)
        try:
            state = (await next_frame(ws, "state"))["d"]
            assert state["you"] == "white" and state["turn"] == "white", state
            assert state["status"] == "active" and state["ply"] == 0
            assert state["players"]["black"]["kind"] == "bot"
            await ws.send(json.dumps({"t": "move", "d": {"ply": 0,
                                                         "move": state["legal"][0]["notation"]}}))
            mine = (await next_frame(ws, "move"))["d"]
            bots = (await next_frame(ws, "move"))["d"]
            return state, mine, bots
        finally:
            await ws.close()

    state, mine, bots = asyncio.run(play())
    assert mine["ply"] == 1 and mine["notation"] == state["legal"][0]["notation"]
    assert bots["ply"] == 2 and bots["turn"] == "white"
    assert bots["notation"] in {m["notation"] for m in mine["legal"]}
    game = game_row(game_id)
    assert game.ply == 2 and game.moves == [mine["notation"], bots["notation"]]
    assert game.flag_at is not None and game.bot_turn_since is None
    # A timed game leaves nothing in the broker: no flag check waits with a countdown (a
    # worker would hold it unacked for as long as the clock, see the visibility timeout).
    assert queued_tasks(stack) == {"bots": 0, "celery": 0, "unacked": 0}


@pytest.mark.timing
def test_worker_killed_mid_search_still_yields_exactly_one_bot_move(stack: Stack,
                                                                    tmp_path: Path) -> None:
    """A worker SIGKILLed mid-search loses the bot's move: its message stays unacked in
    Redis until the visibility timeout (120 s). Beat's bot move sweep asks for the move
    again once it is overdue (KONDAVO_BOT_STALL_SECONDS, 30 s), the next worker plays it,
    and when the original message is finally delivered again it plays nothing."""
    stall = 30.0  # the production default of KONDAVO_BOT_STALL_SECONDS
    slow = stack.worker("int-worker-slow", KONDAVO_BOT_MOVE_TIME="5")  # level 8: ~5 s search
    # The bot is White and starts: its search begins as soon as the game exists.
    visitor, game_id = new_computer_game(stack, level=8, color="black")
    turn_began = time.monotonic()
    slow.wait_for_log(r"Task bots\.tasks\.bot_move_play\[[-0-9a-f]+\] received", timeout=20)
    time.sleep(1.0)
    assert game_row(game_id).ply == 0, "the search was not under way"
    assert queued_tasks(stack) == {"bots": 0, "celery": 0, "unacked": 1}  # acks_late
    slow.kill()
    assert game_row(game_id).ply == 0
    assert queued_tasks(stack)["unacked"] == 1  # nobody rejected or acked it

    fast = stack.worker("int-worker-fast", KONDAVO_BOT_MOVE_TIME="0.2")
    beat = stack.beat(tmp_path)

    async def watch() -> tuple[dict[str, Any], list[dict[str, Any]], float]:
        ws = await open_socket(stack, game_id, visitor)
        try:
            state = (await next_frame(ws, "state"))["d"]
            # The sweep runs every 5 s: the move is asked for again within stall + 5 s.
            left = stall + 5 + 10 - (time.monotonic() - turn_began)
            first = await next_frame(ws, "move", timeout=left)
            recovered_after = time.monotonic() - turn_began
            return state, [first, *await frames_for(ws, 6)], recovered_after

        finally:
            await ws.close()

    state, frames, recovered_after = asyncio.run(watch())
    assert state["ply"] == 0 and state["you"] == "black"
    assert stall <= recovered_after < stall + 15, recovered_after
    moves = [f["d"] for f in frames if f["t"] == "move"]
    assert len(moves) == 1, frames
    assert moves[0]["ply"] == 1 and moves[0]["turn"] == "black"
    # The original message is still unacked (its visibility timeout is far off). A worker
    # whose visibility timeout is 1 s puts it back on start, as the timeout would: it is
    # delivered again and plays nothing, the game moved on.
    assert queued_tasks(stack)["unacked"] == 1
    beat.kill(signal.SIGTERM)
    fast.kill(signal.SIGTERM)  # a warm shutdown: only the late worker consumes now
    late = stack.worker("int-worker-late", CELERY_VISIBILITY_TIMEOUT="1")
    late.wait_for_log(r"Task bots\.tasks\.bot_move_play\[[-0-9a-f]+\] succeeded in "
                      r"[0-9.]+s: False", timeout=30)
    wait_until(lambda: queued_tasks(stack)["unacked"] == 0, 10, "the redelivery to be acked")
    game = game_row(game_id)
    assert game.status == Game.Status.ACTIVE and game.bot_turn_since is None
    assert game.ply == 1 and game.moves == [moves[0]["notation"]]
    assert queued_tasks(stack)["bots"] == 0


def opened_game(white: Any, black: Any) -> Game:
    """A 1+0 game after each side's first move (no clock runs before them): White's runs."""
    from kondavo.games.services import game_create, game_play_move

    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", time_control="1+0")
    game_play_move(game_id=game.id, player=white, ply=0, move_text="31-27")
    game_play_move(game_id=game.id, player=black, ply=1, move_text="20-24")
    return game


@pytest.mark.timing
def test_beat_flag_sweep_ends_a_game_nobody_watches(stack: Stack, guest_factory: Any,
                                                    tmp_path: Path) -> None:
    """No flag check is scheduled per move: beat's periodic sweep (every 2 s) flags a game
    whose clock ran out with no client connected, within about one period."""
    white, black = guest_factory(), guest_factory()
    game = opened_game(white, black)
    stack.worker("int-worker-sweep")
    beat = stack.beat(tmp_path)
    beat.wait_for_log(r"Sending due task games-flag-sweep", timeout=30)
    # White's clock runs out 1 s from now.
    now = timezone.now()
    Game.objects.filter(pk=game.pk).update(turn_started_at=now - timedelta(seconds=59),
                                           flag_at=now + timedelta(seconds=1))
    expires = time.monotonic() + 1
    wait_until(lambda: game_row(game.pk).status == Game.Status.FINISHED, 20,
               "the sweep to flag the game")
    assert time.monotonic() - expires < 2 + 2  # one sweep period, plus a worker's latency
    game = game_row(game.pk)
    assert game.reason == Game.Reason.TIMEOUT and game.winner == "black"
    assert game.white_ms == 0 and game.flag_at is None


@pytest.mark.timing
def test_client_flag_frame_ends_the_game_at_once(stack: Stack, guest_factory: Any) -> None:
    """No worker and no beat at all: the client's ``flag`` frame (sent by the game page when
    its clock shows zero) makes Daphne check the clock, and the end frame comes at once."""
    white, black = guest_factory(), guest_factory()
    visitor = Visitor(stack.base)
    visitor.get("/")
    game = opened_game(white, black)
    now = timezone.now()
    Game.objects.filter(pk=game.pk).update(turn_started_at=now - timedelta(seconds=58),
                                           flag_at=now + timedelta(seconds=2))

    async def watch() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], float]:
        ws = await open_socket(stack, game.pk, visitor)  # a spectator
        try:
            state = (await next_frame(ws, "state"))["d"]
            await ws.send(json.dumps({"t": "flag"}))  # too early: the server's clock runs
            early = (await next_frame(ws, "state"))["d"]
            await asyncio.sleep(state["clocks"]["white"] / 1000 + 0.05)
            sent = time.monotonic()
            await ws.send(json.dumps({"t": "flag"}))
            end = (await next_frame(ws, "end"))["d"]
            return state, early, end, time.monotonic() - sent
        finally:
            await ws.close()

    state, early, end, latency = asyncio.run(watch())
    assert state["status"] == "active" and state["clocks"]["running"] == "white"
    assert early["status"] == "active" and 0 < early["clocks"]["white"] <= 2000
    assert end["result"]["reason"] == "timeout" and end["result"]["winner"] == "black"
    assert latency < 2
    assert game_row(game.pk).status == Game.Status.FINISHED


@pytest.fixture
def guest_factory() -> Any:
    import secrets

    from kondavo.accounts.models import Player

    def make() -> Player:
        return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                     name=f"Guest-I{secrets.token_hex(4)}")

    return make
