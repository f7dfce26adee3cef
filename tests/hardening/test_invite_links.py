"""Issue 9 item 6: a friend link needs an explicit "join" from the invited person. Opening
the link (a chat app's preview, a crawler, the invited person reading the page) never takes
the seat; a CSRF-protected POST (the page's Join button) or a websocket ``join`` frame does."""

from __future__ import annotations

import json
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from hardening_helpers import csrf_headers, http, make_guest, next_frame, session_cookie

from kondavo.accounts.models import Player
from kondavo.games.models import Game
from kondavo.games.services import game_create_friend

pytestmark = pytest.mark.django_db(transaction=True)


def friend_game() -> tuple[Game, Any]:
    creator = make_guest()
    return game_create_friend(player=creator, ruleset="english", color="black"), creator


def test_opening_the_link_takes_no_seat(hardened_daphne: Any) -> None:
    game, creator = friend_game()
    invited = make_guest()
    url = hardened_daphne.base_url + f"/game/{game.id}/"
    # A link preview (no cookies), then the invited person with an identity, reading it.
    for headers in ({"User-Agent": "LinkPreviewBot/1.0"}, {"Cookie": session_cookie(invited)}):
        status, body = http("GET", url, headers=headers)
        assert status == 200 and b'id="btn-join"' in body
        status, _ = http("GET", hardened_daphne.base_url + f"/games/{game.id}/state.json",
                         headers=headers)
        assert status == 200
    game.refresh_from_db()
    assert game.status == "waiting" and game.white_id is None
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == 2  # no guest made

    # A GET of the join URL is refused; a POST without the CSRF token too.
    join = hardened_daphne.base_url + f"/games/{game.id}/join"
    assert http("GET", join, headers={"Cookie": session_cookie(invited)})[0] == 405
    assert http("POST", join, headers={"Cookie": session_cookie(invited)})[0] == 403
    game.refresh_from_db()
    assert game.status == "waiting"

    # The Join button: a POST with the token takes the seat.
    status, body = http("POST", join, headers=csrf_headers(session_cookie(invited),
                                                            Accept="application/json"))
    assert status == 200 and json.loads(body)["id"] == game.id
    game.refresh_from_db()
    assert game.status == "active" and game.white_id == invited.pk
    status, body = http("GET", url, headers={"Cookie": session_cookie(invited)})
    assert b'id="btn-join"' not in body


async def test_a_join_frame_takes_the_seat_over_the_websocket(hardened_daphne: Any) -> None:
    game, creator = await database_sync_to_async(friend_game)()
    invited, late = await database_sync_to_async(lambda: (make_guest(), make_guest()))()
    cookies = await database_sync_to_async(
        lambda: [session_cookie(p) for p in (creator, invited, late)])()

    async def open_ws(cookie: str | None) -> Any:
        ws = await websockets.connect(
            hardened_daphne.ws_url + f"/ws/game/{game.id}/", origin=hardened_daphne.base_url,
            additional_headers={"Cookie": cookie} if cookie else None, open_timeout=10)
        return ws, (await next_frame(ws, "state"))["d"]

    owner_ws, owner_state = await open_ws(cookies[0])
    invited_ws, invited_state = await open_ws(cookies[1])
    anonymous_ws, _ = await open_ws(None)
    assert owner_state["you"] == "black" and invited_state["you"] is None
    assert invited_state["status"] == "waiting"
    row = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert row.status == "waiting"  # connecting took nothing either

    await anonymous_ws.send(json.dumps({"t": "join"}))
    assert (await next_frame(anonymous_ws, "error"))["d"]["code"] == "not_a_player"

    await invited_ws.send(json.dumps({"t": "join"}))
    state = (await next_frame(invited_ws, "state"))["d"]
    assert state["you"] == "white" and state["status"] == "active"
    # the socket now counts at its seat: White is online, the anonymous one still watches
    assert state["presence"]["white"] is True and state["presence"]["spectators"] == 1
    row = await database_sync_to_async(Game.objects.get)(pk=game.id)
    assert row.status == "active" and row.white_id == invited.pk

    late_ws, late_state = await open_ws(cookies[2])
    assert late_state["you"] is None and late_state["status"] == "active"
    await late_ws.send(json.dumps({"t": "join"}))
    assert (await next_frame(late_ws, "error"))["d"]["code"] == "not_allowed"
    for ws in (owner_ws, invited_ws, anonymous_ws, late_ws):
        await ws.close()
    assert "Traceback" not in hardened_daphne.log_since_start()
