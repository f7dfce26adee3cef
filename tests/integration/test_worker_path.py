"""Bot moves and flag sweeps through a real Redis broker, real Celery worker and beat.

The human plays over a websocket on Daphne (``KONDAVO_BOT_INPROCESS=false``); the bot's move
is a Celery message that a ``celery -A kondavo worker`` subprocess plays, and the move comes
back to the human's socket through the Redis channel layer. See conftest.py for the stack.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.utils import timezone
from integration_stack import VISIBILITY_TIMEOUT, Stack, Visitor, wait_until

from kondavo.games.models import Game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WS_TIMEOUT = 30


def game_row(game_id: str) -> Game:
    return Game.objects.get(pk=game_id)


def new_computer_game(stack: Stack, **fields: Any) -> tuple[Visitor, str]:
    """A new visitor (first page view: session + CSRF cookies) starts a game vs the bot."""
    visitor = Visitor(stack.base)
    visitor.get("/")
    visitor.cookie("sessionid")
    game = visitor.post_json("/games/new/computer",
                             {"ruleset": "international", "time_control": "untimed", **fields})
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


def test_bot_answers_a_websocket_move_on_the_same_socket(stack: Stack) -> None:
    stack.worker("int-worker", KONDAVO_BOT_MOVE_TIME="0.2")
    visitor, game_id = new_computer_game(stack, level=1, color="white")

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


def test_worker_killed_mid_search_still_yields_exactly_one_bot_move(stack: Stack) -> None:
    """acks_late: the message of a search killed by SIGKILL stays unacked in Redis and is
    delivered again (after the visibility timeout) to the next worker, which plays it once."""
    slow = stack.worker("int-worker-slow", KONDAVO_BOT_MOVE_TIME="5")  # level 8: ~5 s search
    # The bot is White and starts: its search begins as soon as the game exists.
    visitor, game_id = new_computer_game(stack, level=8, color="black")
    slow.wait_for_log(r"Task bots\.tasks\.bot_move_play\[[-0-9a-f]+\] received", timeout=20)
    time.sleep(1.0)
    broker = stack.broker()
    assert game_row(game_id).ply == 0, "the search was not under way"
    assert broker.hlen("unacked") == 1  # delivered, not acked (acks_late)
    killed_at = time.monotonic()
    slow.kill()
    assert game_row(game_id).ply == 0
    assert broker.hlen("unacked") == 1  # nobody rejected or acked it: the worker is gone

    async def watch() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        ws = await open_socket(stack, game_id, visitor)
        try:
            state = (await next_frame(ws, "state"))["d"]
            stack.worker("int-worker-fast", KONDAVO_BOT_MOVE_TIME="0.2")
            # Redelivery + search, then at least two more visibility timeouts of quiet.
            frames = await frames_for(ws, VISIBILITY_TIMEOUT + 8 + 2 * VISIBILITY_TIMEOUT)
            return state, frames
        finally:
            await ws.close()

    state, frames = asyncio.run(watch())
    assert state["ply"] == 0 and state["you"] == "black"
    moves = [f["d"] for f in frames if f["t"] == "move"]
    assert len(moves) == 1, frames
    assert moves[0]["ply"] == 1 and moves[0]["turn"] == "black"
    assert time.monotonic() - killed_at >= VISIBILITY_TIMEOUT
    game = game_row(game_id)
    assert game.status == Game.Status.ACTIVE
    assert game.ply == 1 and game.moves == [moves[0]["notation"]]
    assert broker.hlen("unacked") == 0 and broker.llen("bots") == 0


def test_beat_schedules_the_flag_sweep(stack: Stack, guest_factory: Any,
                                       tmp_path: Path) -> None:
    """With no flag check scheduled at all, beat's periodic sweep flags a game whose
    clock ran out."""
    from kondavo.games.services import game_create

    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", time_control="1+0")
    past = timezone.now() - timedelta(minutes=5)
    Game.objects.filter(pk=game.pk).update(turn_started_at=past,
                                           flag_at=past + timedelta(minutes=1))
    stack.worker("int-worker-sweep")
    stack.beat(tmp_path, KONDAVO_FLAG_SWEEP_SECONDS="1")
    wait_until(lambda: game_row(game.pk).status == Game.Status.FINISHED, 30,
               "the sweep to flag the game")
    game = game_row(game.pk)
    assert game.reason == Game.Reason.TIMEOUT and game.winner == "black"


@pytest.fixture
def guest_factory() -> Any:
    import secrets

    from kondavo.accounts.models import Player

    def make() -> Player:
        return Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                     name=f"Guest-I{secrets.token_hex(4)}")

    return make
