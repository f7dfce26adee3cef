"""The chat over the game socket (WebsocketCommunicator, the real database and bus): the
right audience only, history with the state, rate limit, word filter, mute, report, staff
removal pushed, guests read-only."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async as db
from chat_helpers import account, frame_of, game_socket, guest, no_frame_of

from kondavo.chat import services
from kondavo.chat.models import ChatLine, ChatReport, ChatRestriction, ModerationLog
from kondavo.games.services import game_create, game_resign

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]


@pytest.fixture
async def table() -> dict[str, Any]:
    """Two players (accounts) at a game, two spectators with accounts, one guest."""
    def make() -> dict[str, Any]:
        white, black = account(), account()
        s1, s2, g = account(), account(), guest()
        game = game_create(creator=white, opponent=black, ruleset="international",
                           color="white", time_control="5+3")
        return {"white": white, "black": black, "s1": s1, "s2": s2, "guest": g, "game": game}

    return await db(make)()


async def sockets(t: dict[str, Any], *names: str) -> dict[str, Any]:
    out = {}
    for i, name in enumerate(names):
        comm = await game_socket(t["game"].id, t[name], client=f"203.0.113.{10 + i}")
        state = await frame_of(comm, "state")
        out[name] = comm
        out[name + "_state"] = state["d"]
    return out


async def close_all(socks: dict[str, Any]) -> None:
    for key, comm in socks.items():
        if not key.endswith("_state"):
            await comm.disconnect()


async def test_players_and_spectators_hear_only_their_own_room(table: dict[str, Any]) -> None:
    s = await sockets(table, "white", "black", "s1", "s2")
    gid = table["game"].id
    assert s["white_state"]["chat"]["write"] == [f"game.{gid}.players"]
    assert list(s["white_state"]["chat"]["rooms"]) == [f"game.{gid}.players"]
    assert list(s["s1_state"]["chat"]["rooms"]) == [f"game.{gid}.spectators"]

    await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": "good luck"}})
    got = await frame_of(s["black"], "chat")
    assert got["d"]["line"]["text"] == "good luck"
    assert got["d"]["line"]["author"] == table["white"].name
    assert got["d"]["line"]["room"] == f"game.{gid}.players"
    assert (await frame_of(s["white"], "chat"))["d"]["line"]["text"] == "good luck"

    await s["s1"].send_json_to({"t": "chat", "d": {"room": "spectators",
                                                  "text": "white is lost"}})
    assert (await frame_of(s["s2"], "chat"))["d"]["line"]["text"] == "white is lost"
    assert (await frame_of(s["s1"], "chat"))["d"]["line"]["text"] == "white is lost"
    # A spectator line never reaches a player's socket during the game, nor a player's
    # line a spectator's.
    await no_frame_of(s["white"], "chat")
    await no_frame_of(s["black"], "chat")
    await no_frame_of(s["s2"], "chat", wait=0.1)

    # A spectator may not write in the players' room, a player not in the spectators'.
    await s["s1"].send_json_to({"t": "chat", "d": {"room": "players", "text": "hi"}})
    assert (await frame_of(s["s1"], "error"))["d"]["code"] == "not_allowed"
    await s["white"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "hi"}})
    assert (await frame_of(s["white"], "error"))["d"]["code"] == "not_allowed"
    await close_all(s)

    # Reconnecting: the last lines come with the state, each audience its own.
    again = await sockets(table, "black", "s2")
    assert [x["text"] for x in again["black_state"]["chat"]["rooms"][
        f"game.{gid}.players"]] == ["good luck"]
    assert f"game.{gid}.spectators" not in again["black_state"]["chat"]["rooms"]
    assert [x["text"] for x in again["s2_state"]["chat"]["rooms"][
        f"game.{gid}.spectators"]] == ["white is lost"]
    await close_all(again)

    # Once the game is over the players read the spectators' room too.
    await db(game_resign)(game_id=gid, player=table["white"])
    after = await sockets(table, "black")
    rooms = after["black_state"]["chat"]["rooms"]
    assert [x["text"] for x in rooms[f"game.{gid}.spectators"]] == ["white is lost"]
    await close_all(after)


async def test_rate_limit_per_player(table: dict[str, Any], settings: Any) -> None:
    settings.KONDAVO_CHAT_RATE_PLAYER = "3/m"
    s = await sockets(table, "white", "black")
    for i in range(3):
        await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": f"l{i}"}})
        assert (await frame_of(s["black"], "chat"))["d"]["line"]["text"] == f"l{i}"
    await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": "l3"}})
    err = await frame_of(s["white"], "error")
    assert err["d"]["code"] == "rate_limited"
    await no_frame_of(s["black"], "chat")
    assert await db(ChatLine.objects.filter(author=table["white"]).count)() == 3
    await close_all(s)


async def test_rate_limit_per_address(table: dict[str, Any], settings: Any) -> None:
    """Two players behind one address share its limit."""
    settings.KONDAVO_CHAT_RATE_IP = "2/m"
    gid = table["game"].id
    a = await game_socket(gid, table["s1"], client="198.51.100.200")
    b = await game_socket(gid, table["s2"], client="198.51.100.200")
    await frame_of(a, "state")
    await frame_of(b, "state")
    await a.send_json_to({"t": "chat", "d": {"room": "spectators", "text": "one"}})
    await frame_of(b, "chat")
    await b.send_json_to({"t": "chat", "d": {"room": "spectators", "text": "two"}})
    await frame_of(a, "chat")
    await b.send_json_to({"t": "chat", "d": {"room": "spectators", "text": "three"}})
    assert (await frame_of(b, "error"))["d"]["code"] == "rate_limited"
    await a.disconnect()
    await b.disconnect()


async def test_word_filter_refuses_and_logs(table: dict[str, Any]) -> None:
    s = await sockets(table, "white", "black")
    for text in ("Quel CONNARD", "siktir git", "ty kurwa!", "ÇA, c'est de la MERDE"):
        await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": text}})
        err = await frame_of(s["white"], "error")
        assert err["d"]["code"] == "chat_filtered", text
    # Whole words only: a word containing a listed one passes (Scunthorpe, "assessment").
    await s["white"].send_json_to({"t": "chat", "d": {"room": "players",
                                                     "text": "Scunthorpe assessment ok"}})
    assert (await frame_of(s["black"], "chat"))["d"]["line"]["text"] == \
        "Scunthorpe assessment ok"
    logged = await db(lambda: ModerationLog.objects.filter(
        action="filtered", actor_player=table["white"]).count())()
    assert logged == 4
    assert await db(ChatLine.objects.filter(author=table["white"]).count)() == 1
    await close_all(s)


async def test_length_limit_and_text_kept_as_written(table: dict[str, Any],
                                                     settings: Any) -> None:
    settings.KONDAVO_CHAT_MAX_LENGTH = 20
    s = await sockets(table, "white", "black")
    await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": "x" * 21}})
    assert (await frame_of(s["white"], "error"))["d"]["code"] == "too_long"
    await s["white"].send_json_to({"t": "chat", "d": {"room": "players",
                                                     "text": "<b>hi</b> &amp;"}})
    # Stored and sent as written: the page escapes it (never HTML).
    assert (await frame_of(s["black"], "chat"))["d"]["line"]["text"] == "<b>hi</b> &amp;"
    await close_all(s)


async def test_mute_hides_a_senders_lines_from_the_muter(table: dict[str, Any]) -> None:
    s = await sockets(table, "s1", "s2")
    s3 = await game_socket(table["game"].id, table["guest"], client="203.0.113.77")
    await frame_of(s3, "state")
    await s["s1"].send_json_to({"t": "chat_mute", "d": {"name": table["s2"].name}})
    muted = await frame_of(s["s1"], "chat_muted")
    assert muted["d"]["muted"] == [table["s2"].name]
    await s["s2"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "spam"}})
    assert (await frame_of(s3, "chat"))["d"]["line"]["text"] == "spam"  # others still read
    await no_frame_of(s["s1"], "chat")
    # ... nor in the history the muter gets on reconnect.
    again = await sockets(table, "s1")
    assert again["s1_state"]["chat"]["rooms"][f"game.{table['game'].id}.spectators"] == []
    assert again["s1_state"]["chat"]["muted"] == [table["s2"].name]
    await again["s1"].send_json_to({"t": "chat_mute", "d": {"name": table["s2"].name,
                                                          "mute": False}})
    assert (await frame_of(again["s1"], "chat_muted"))["d"]["muted"] == []
    assert await db(lambda: list(ModerationLog.objects.filter(
        actor_player=table["s1"]).values_list("action", flat=True)))() == ["unmute", "mute"]
    await close_all(s)
    await close_all(again)
    await s3.disconnect()


async def test_report_keeps_the_line(table: dict[str, Any]) -> None:
    s = await sockets(table, "white", "black")
    await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": "you cheat"}})
    line = (await frame_of(s["black"], "chat"))["d"]["line"]
    await s["black"].send_json_to({"t": "chat_report", "d": {"id": line["id"],
                                                            "reason": "insult"}})
    assert (await frame_of(s["black"], "chat_reported"))["d"]["id"] == line["id"]
    report = await db(lambda: ChatReport.objects.get(line_id=line["id"]))()
    assert (report.text, report.reporter_id, report.author_id, report.reason) == (
        "you cheat", table["black"].pk, table["white"].pk, "insult")
    await close_all(s)


async def test_staff_removal_is_pushed(table: dict[str, Any]) -> None:
    s = await sockets(table, "s1", "s2", "white")
    await s["s1"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "bad"}})
    line = (await frame_of(s["s2"], "chat"))["d"]["line"]

    def remove() -> int:
        staff = account(staff=True).user
        return services.chat_remove_lines(line_ids=[line["id"]], staff=staff)

    assert await db(remove)() == 1
    for name in ("s1", "s2"):
        removed = await frame_of(s[name], "chat_remove")
        assert removed["d"] == {"room": f"game.{table['game'].id}.spectators",
                                "ids": [line["id"]]}
    again = await sockets(table, "s2")
    assert again["s2_state"]["chat"]["rooms"][f"game.{table['game'].id}.spectators"] == []
    assert await db(ModerationLog.objects.filter(action="remove").count)() == 1
    await close_all(s)
    await close_all(again)


async def test_staff_can_remove_from_the_socket(table: dict[str, Any]) -> None:
    staff = await db(lambda: account(staff=True))()
    table["staff"] = staff
    s = await sockets(table, "s1", "staff")
    await s["s1"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "rude"}})
    line = (await frame_of(s["staff"], "chat"))["d"]["line"]
    await s["s1"].send_json_to({"t": "chat_remove", "d": {"id": line["id"]}})
    assert (await frame_of(s["s1"], "error"))["d"]["code"] == "not_allowed"
    await s["staff"].send_json_to({"t": "chat_remove", "d": {"id": line["id"]}})
    assert (await frame_of(s["s1"], "chat_remove"))["d"]["ids"] == [line["id"]]
    await close_all(s)


async def test_guests_read_only_unless_allowed(table: dict[str, Any], settings: Any) -> None:
    s = await sockets(table, "guest", "s1")
    assert s["guest_state"]["chat"]["write"] == []
    await s["guest"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "hello"}})
    assert (await frame_of(s["guest"], "error"))["d"]["code"] == "chat_read_only"
    await s["s1"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "welcome"}})
    assert (await frame_of(s["guest"], "chat"))["d"]["line"]["text"] == "welcome"
    anon = await game_socket(table["game"].id, None, client="203.0.113.99")
    state = await frame_of(anon, "state")
    assert state["d"]["chat"]["write"] == []
    await anon.send_json_to({"t": "chat", "d": {"room": "spectators", "text": "hi"}})
    assert (await frame_of(anon, "error"))["d"]["code"] == "not_a_player"
    await anon.disconnect()
    await close_all(s)

    settings.KONDAVO_CHAT_GUESTS_WRITE = True
    s = await sockets(table, "guest", "s1")
    await s["guest"].send_json_to({"t": "chat", "d": {"room": "spectators", "text": "hello"}})
    assert (await frame_of(s["s1"], "chat"))["d"]["line"]["text"] == "hello"
    await close_all(s)


async def test_staff_mute_and_ban(table: dict[str, Any]) -> None:
    await db(lambda: services.chat_restrict(player=table["white"], kind="mute", minutes=10,
                                            reason="insults"))()
    await db(lambda: services.chat_restrict(player=table["black"], kind="ban", minutes=None))()
    s = await sockets(table, "white", "black")
    assert s["white_state"]["chat"]["write"] == []
    await s["white"].send_json_to({"t": "chat", "d": {"room": "players", "text": "x"}})
    err = await frame_of(s["white"], "error")
    assert err["d"]["code"] == "chat_muted" and "10" in err["d"]["message"]
    await s["black"].send_json_to({"t": "chat", "d": {"room": "players", "text": "x"}})
    assert (await frame_of(s["black"], "error"))["d"]["code"] == "chat_banned"
    assert await db(ModerationLog.objects.filter(action="restrict").count)() == 2
    assert await db(ChatRestriction.objects.count)() == 2
    await close_all(s)
