"""Issue 9 item 4: fair use. Caps on concurrent games against the computer and on open
seeks per player, seeks that expire, rate limits on creating games and seeks (per player
and per address), cheap bot levels on their own queue; every refusal is a clear 4xx (or an
``error`` frame) with a stable code and a message the page shows."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone
from hardening_helpers import csrf_headers, http, make_guest, next_frame, session_cookie

from kondavo.accounts.models import Player
from kondavo.games import clock, selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game, Seek
from kondavo.games.services import (
    game_create_vs_computer,
    game_resign,
    seek_accept,
    seek_create,
)
from kondavo.games.services.lobby import seek_expire

pytestmark = pytest.mark.django_db(transaction=True)
# The Daphne of this module: a low per-player creation rate, a high per-address one (every
# test here comes from 127.0.0.1).
DAPHNE_ENV = {"KONDAVO_CREATE_RATE_PLAYER": "6/m", "KONDAVO_CREATE_RATE_IP": "1000/m"}


def computer_game(player: Any, level: int = 8) -> Game:
    # The human plays White, so the bot does not search at once.
    return game_create_vs_computer(player=player, ruleset="international", level=level,
                                   color="white")


# --------------------------------------------------------------------------- services

def test_at_most_three_computer_games_at_once(settings: Any) -> None:
    assert settings.KONDAVO_MAX_COMPUTER_GAMES == 3
    me, other = make_guest(), make_guest()
    games = [computer_game(me, level) for level in (8, 8, 1)]
    with pytest.raises(GameError) as refused:
        computer_game(me, 1)
    assert refused.value.code == "limit_reached" and "3" in refused.value.message
    computer_game(other)  # the cap is per player
    game_resign(game_id=games[0].id, player=me)  # a finished game frees a place
    computer_game(me)
    assert Game.objects.filter(white=me, status="active").count() == 3


def test_at_most_three_open_seeks(settings: Any) -> None:
    assert settings.KONDAVO_MAX_SEEKS == 3
    me = make_guest()
    seeks = [seek_create(player=me, ruleset="international", time_control=tc)
             for tc in ("1+0", "3+2", "5+3")]
    # the same seek again is the same seek, not a fourth
    assert seek_create(player=me, ruleset="international", time_control="3+2") == seeks[1]
    with pytest.raises(GameError) as refused:
        seek_create(player=me, ruleset="english", time_control="5+3")
    assert refused.value.code == "limit_reached"
    assert Seek.objects.filter(player=me, status="open").count() == 3


def test_seeks_expire(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    me, taker = make_guest(), make_guest()
    seek = seek_create(player=me, ruleset="international", time_control="5+3")
    assert [s["id"] for s in wire.lobby_seeks(selectors.seeks_open())] == [seek.pk]
    later = timezone.now() + timedelta(seconds=settings.KONDAVO_SEEK_TTL_SECONDS + 1)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert wire.lobby_seeks(selectors.seeks_open()) == []  # no longer listed...
    with pytest.raises(GameError) as refused:  # ...nor accepted
        seek_accept(seek_id=seek.pk, player=taker)
    assert refused.value.code == "not_found"
    assert seek_expire() == 1  # the beat's sweep cancels it
    assert Seek.objects.get(pk=seek.pk).status == "cancelled"
    # an expired seek does not count toward the cap
    for tc in ("1+0", "3+2", "5+3"):
        seek_create(player=me, ruleset="international", time_control=tc)


def test_a_new_seek_shows_even_with_hundreds_open() -> None:
    players = [make_guest() for _ in range(70)]
    for player in players:
        for tc in ("1+0", "3+2", "5+3"):
            seek_create(player=player, ruleset="international", time_control=tc)
    newcomer = make_guest()
    new = seek_create(player=newcomer, ruleset="english", time_control="10+5")
    listed = wire.lobby_seeks(selectors.seeks_open())
    assert len(listed) == 200 and new.pk in {s["id"] for s in listed}
    assert listed[-1]["id"] == new.pk  # still oldest first


def test_creation_rate_limit_per_address(settings: Any) -> None:
    settings.KONDAVO_CREATE_RATE_IP = "3/m"
    settings.KONDAVO_CREATE_RATE_PLAYER = "100/m"
    statuses = []
    for _ in range(4):  # four visitors, one address
        c = Client(REMOTE_ADDR="203.0.113.20")
        r = c.post("/games/new/friend", {"ruleset": "english"}, HTTP_ACCEPT="application/json")
        statuses.append(r.status_code)
    assert statuses == [201, 201, 201, 429]
    assert r.json()["error"]["code"] == "rate_limited"
    c = Client(REMOTE_ADDR="198.51.100.20")
    assert c.post("/games/new/friend", {"ruleset": "english"},
                  HTTP_ACCEPT="application/json").status_code == 201


def test_refusals_show_on_the_home_page() -> None:
    me = make_guest()
    for _ in range(3):
        computer_game(me)
    c = Client()
    session = c.session
    from kondavo.accounts.services import GUEST_SESSION_KEY

    session[GUEST_SESSION_KEY] = me.guest_key
    session.save()
    r = c.post("/games/new/computer", {"ruleset": "international", "level": "1"},
               HTTP_REFERER="http://testserver/")
    assert r.status_code == 303
    page = c.get("/").content.decode()
    assert "You already have 3 games against the computer going" in page
    # in the visitor's language
    c.post("/games/new/computer", {"ruleset": "international", "level": "1"},
           HTTP_REFERER="http://testserver/", HTTP_ACCEPT_LANGUAGE="fr")
    page = c.get("/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Vous avez déjà 3 parties en cours contre l&#x27;ordinateur" in page


# --------------------------------------------------------------------------- bot queues

def test_cheap_levels_go_to_their_own_queue(monkeypatch: pytest.MonkeyPatch,
                                            settings: Any) -> None:
    from bots import seam, tasks

    assert settings.KONDAVO_BOT_FAST_MAX_LEVEL == 4
    assert [seam.bot_queue(level) for level in range(1, 9)] == ["bots-fast"] * 4 + ["bots"] * 4
    sent: list[tuple[Any, str]] = []
    monkeypatch.setattr(tasks.bot_move_play, "apply_async",
                        lambda args, queue: sent.append((args, queue)))
    settings.KONDAVO_BOT_INPROCESS = False
    me = make_guest()
    cheap, deep = computer_game(me, 1), computer_game(me, 8)
    seam.request_bot_move(cheap.id, 0)
    seam.request_bot_move(deep.id, 0)
    assert sent == [((cheap.id, 0), "bots-fast"), ((deep.id, 0), "bots")]


# --------------------------------------------------------------------------- over Daphne

def test_http_refusals_are_clear_4xx(hardened_daphne: Any) -> None:
    base = hardened_daphne.base_url
    me = make_guest()
    headers = csrf_headers(session_cookie(me), **{
        "Content-Type": "application/json", "Accept": "application/json"})
    body = json.dumps({"ruleset": "international", "level": 8, "color": "white"}).encode()
    answers = [http("POST", base + "/games/new/computer", body=body, headers=headers)
               for _ in range(4)]
    assert [status for status, _ in answers] == [201, 201, 201, 409]
    error = json.loads(answers[3][1])["error"]
    assert error["code"] == "limit_reached" and "computer" in error["message"]
    # per-player creation rate (6 a minute here): 4 attempts so far, 2 more pass
    friend = json.dumps({"ruleset": "english"}).encode()
    statuses = [http("POST", base + "/games/new/friend", body=friend, headers=headers)[0]
                for _ in range(3)]
    assert statuses == [201, 201, 429]


@pytest.mark.timing
async def test_lobby_socket_refusals_are_error_frames(hardened_daphne: Any) -> None:
    me = await database_sync_to_async(make_guest)()
    cookie = await database_sync_to_async(session_cookie)(me)
    ws = await websockets.connect(hardened_daphne.ws_url + "/ws/lobby/",
                                  origin=hardened_daphne.base_url,
                                  additional_headers={"Cookie": cookie}, open_timeout=10)
    await next_frame(ws, "seeks")
    for tc in ("1+0", "3+2", "5+3"):
        await ws.send(json.dumps({"t": "seek", "d": {"variant": "international",
                                                     "time_control": tc}}))
        frame = await next_frame(ws, "seeks")
    assert sum(s["mine"] for s in frame["d"]["seeks"]) == 3
    await ws.send(json.dumps({"t": "seek", "d": {"variant": "english", "time_control": "5+3"}}))
    error = (await next_frame(ws, "error"))["d"]
    assert error["code"] == "limit_reached" and "open seeks" in error["message"]
    for _ in range(3):  # attempts 5 and 6 pass the 6-a-minute rate and meet the cap; 7 not
        await ws.send(json.dumps({"t": "seek", "d": {"variant": "english",
                                                     "time_control": "5+3"}}))
    codes = [(await next_frame(ws, "error"))["d"]["code"] for _ in range(3)]
    assert codes == ["limit_reached", "limit_reached", "rate_limited"]
    await ws.close()
    # The seeks made over that socket left with it.
    for _ in range(50):
        left = await database_sync_to_async(
            lambda: Seek.objects.filter(player=me, status="open").count())()
        if left == 0:
            break
        await asyncio.sleep(0.1)
    assert left == 0
    assert "Traceback" not in hardened_daphne.log_since_start()


def test_no_bot_player_can_be_used_to_create_games() -> None:
    bot = Player.objects.create(kind=Player.Kind.BOT, bot_level=3, name="Kondavo AI 3")
    with pytest.raises(GameError):
        computer_game(bot)


@pytest.mark.timing
async def test_seeks_leave_with_the_owners_last_lobby_socket(hardened_daphne: Any) -> None:
    me = await database_sync_to_async(make_guest)()
    cookie = await database_sync_to_async(session_cookie)(me)

    async def lobby_socket() -> Any:
        ws = await websockets.connect(hardened_daphne.ws_url + "/ws/lobby/",
                                      origin=hardened_daphne.base_url,
                                      additional_headers={"Cookie": cookie}, open_timeout=10)
        await next_frame(ws, "seeks")
        return ws

    def open_seeks() -> int:
        return Seek.objects.filter(player=me, status="open").count()

    first, second = await lobby_socket(), await lobby_socket()
    await first.send(json.dumps({"t": "seek", "d": {"variant": "international",
                                                    "time_control": "5+3"}}))
    await next_frame(first, "seeks")
    # a seek made over HTTP (the lobby's form without script) belongs to the player too
    await database_sync_to_async(seek_create)(player=me, ruleset="english", time_control="3+2")
    await first.close()
    await asyncio.sleep(0.5)
    assert await database_sync_to_async(open_seeks)() == 2  # another lobby socket is open
    await second.close()
    for _ in range(50):
        if await database_sync_to_async(open_seeks)() == 0:
            break
        await asyncio.sleep(0.1)
    assert await database_sync_to_async(open_seeks)() == 0
