"""The chat end to end over a real Daphne and real websocket clients: the players' room and
the spectators' room reach their own audience only, and a removal is pushed."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async as db
from chat_helpers import account
from django.test import Client

from kondavo.chat import services
from kondavo.games.services import game_create

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


def cookie_of(player: Any) -> str:
    client = Client()
    client.force_login(player.user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def open_ws(base: str, game_id: str, cookie: str) -> Any:
    url = base.replace("http://", "ws://") + f"/ws/game/{game_id}/"
    return await websockets.connect(url, origin=base, additional_headers={"Cookie": cookie},
                                    open_timeout=TIMEOUT)


async def next_of(ws: Any, t: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if frame["t"] == t:
            return frame


async def never_says(ws: Any, text: str, wait: float = 1.0) -> None:
    """No chat line ``text`` reaches ``ws`` within ``wait`` seconds."""
    try:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), wait))
            if frame["t"] == "chat":
                assert frame["d"]["line"]["text"] != text, frame
    except TimeoutError:
        return


async def test_rooms_reach_their_audience_over_daphne(daphne_server: str) -> None:
    def make() -> tuple[str, dict[str, str], Any]:
        white, black, watcher = (account(f"dw{secrets.token_hex(3)}") for _ in range(3))
        game = game_create(creator=white, opponent=black, ruleset="international",
                           color="white")
        return game.id, {"white": cookie_of(white), "black": cookie_of(black),
                         "watcher": cookie_of(watcher)}, account(staff=True).user

    game_id, cookies, staff = await db(make)()
    ws = {name: await open_ws(daphne_server, game_id, c) for name, c in cookies.items()}
    try:
        for sock in ws.values():
            await next_of(sock, "state")
        await ws["watcher"].send(json.dumps({"t": "chat", "d": {"room": "spectators",
                                                                "text": "go black"}}))
        line = (await next_of(ws["watcher"], "chat"))["d"]["line"]
        assert line["text"] == "go black"
        await ws["white"].send(json.dumps({"t": "chat", "d": {"room": "players",
                                                              "text": "hello"}}))
        assert (await next_of(ws["black"], "chat"))["d"]["line"]["text"] == "hello"
        # The spectators' line reached neither player; the players' line not the watcher.
        await never_says(ws["white"], "go black")
        await never_says(ws["black"], "go black", wait=0.2)
        await never_says(ws["watcher"], "hello", wait=0.2)

        removed = await db(services.chat_remove_lines)(line_ids=[line["id"]], staff=staff)
        assert removed == 1
        assert (await next_of(ws["watcher"], "chat_remove"))["d"]["ids"] == [line["id"]]
    finally:
        for sock in ws.values():
            await sock.close()
