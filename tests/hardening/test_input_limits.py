"""Issue 9 item 2: every client input gets an answer, never a crash.

Over a real Daphne and real websocket clients: deeply nested frames, out-of-range numbers,
oversized frames, nested HTTP JSON bodies and NUL bytes in paths all get a clear error (an
``error`` frame, a 4xx), never a 1011 close, a 500 or a traceback in the server's log.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async
from hardening_helpers import csrf_headers, http, make_guest, next_frame, session_cookie

from kondavo.games.models import Game
from kondavo.games.services import game_create
from kondavo.limits import (
    MAX_FRAME_BYTES,
    ClientInputError,
    decode_frame,
    decode_json_body,
    int_field,
    request_problem,
)

pytestmark = pytest.mark.django_db(transaction=True)

NESTED_4K = "[" * 2048 + "]" * 2048  # 4 KiB of nested arrays: RecursionError in json.loads


# --------------------------------------------------------------------------- the decoder

@pytest.mark.parametrize(("raw", "code"), [
    (NESTED_4K, "bad_request"),
    ('{"t": "seek", "d": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}', "bad_request"),
    ('{"t": "accept", "d": {"id": 1e999}}', "bad_request"),
    ('{"t": "accept", "d": {"id": -1e999}}', "bad_request"),
    ('{"t": "accept", "d": {"id": 123456789012345678901234567890}}', "bad_request"),
    ('{"t": "accept", "d": {"id": NaN}}', "bad_json"),
    ('{"t": "accept", "d": {"id": Infinity}}', "bad_json"),
    ('{"t": "move", "d": {"move": "' + "x" * 600 + '"}}', "too_large"),
    ('{"t": "move", "d": {"path": [' + ",".join(['"1"'] * 65) + "]}}", "too_large"),
    ('{"t": "move", "d": {"move": "32-28\\u0000"}}', "bad_request"),
    ("{not json", "bad_json"),
    ("[1, 2]", "bad_request"),
    ('{"t": "ping", "d": [1]}', "bad_request"),
    ("x" * (MAX_FRAME_BYTES + 1), "too_large"),
    (b"\xff\xfe", "bad_json"),
])
def test_decode_frame_refuses(raw: str | bytes, code: str) -> None:
    with pytest.raises(ClientInputError) as info:
        decode_frame(raw)
    assert info.value.code == code


def test_decode_frame_accepts_what_the_site_sends() -> None:
    frame = decode_frame('{"t": "move", "d": {"ply": 12, "path": ["32", "28"]}}')
    assert frame == {"t": "move", "d": {"ply": 12, "path": ["32", "28"]}}
    assert decode_frame('{"t": "ping"}') == {"t": "ping", "d": {}}
    # brackets inside strings are not nesting
    assert decode_frame(json.dumps({"t": "x", "d": {"s": "[[[[[[[[[[{{{{{{"}}))["d"]["s"]


def test_decode_json_body_and_int_field() -> None:
    assert decode_json_body(b"") == {}
    with pytest.raises(ClientInputError):
        decode_json_body(NESTED_4K.encode())
    with pytest.raises(ClientInputError):
        decode_json_body(b"[]")
    assert int_field({"level": "3"}, "level", low=1, high=8) == 3
    assert int_field({"level": 3.0}, "level", low=1, high=8) == 3
    for bad in ("9", 0, 2.5, True, None, "1e999", [3], "9" * 40):
        with pytest.raises(ClientInputError):
            int_field({"level": bad}, "level", low=1, high=8)


def test_request_problem() -> None:
    assert request_problem("/games/abc/pdn", "") is None
    assert request_problem("/games/\x00/pdn", "") is not None
    assert request_problem("/", "ruleset=%00") is not None
    assert request_problem("/" + "a" * 5000, "") is not None


# --------------------------------------------------------------------------- over Daphne

async def _ws(base: Any, path: str, cookie: str | None = None) -> Any:
    headers = {"Cookie": cookie} if cookie else None
    return await websockets.connect(base.ws_url + path, origin=base.base_url,
                                    additional_headers=headers, open_timeout=10,
                                    max_size=None)


async def test_hostile_frames_get_error_frames_over_real_websockets(hardened_daphne: Any) -> None:
    def setup() -> tuple[str, str]:
        white, black = make_guest(), make_guest()
        game = game_create(creator=white, opponent=black, ruleset="international",
                           color="white")
        return game.id, session_cookie(white)

    game_id, cookie = await database_sync_to_async(setup)()
    lobby = await _ws(hardened_daphne, "/ws/lobby/", cookie)
    await next_frame(lobby, "seeks")
    game = await _ws(hardened_daphne, f"/ws/game/{game_id}/", cookie)
    await next_frame(game, "state")

    hostile = [
        (lobby, NESTED_4K),
        (lobby, '{"t": "accept", "d": {"id": 1e999}}'),
        (lobby, '{"t": "cancel", "d": {"id": 1e300}}'),
        (lobby, '{"t": "accept", "d": {"id": "1e999"}}'),
        (lobby, '{"t": "accept", "d": {"id": [[[1]]]}}'),
        (lobby, '{"t": "seek", "d": {"variant": "\\u0000", "time_control": "5+3"}}'),
        (lobby, '{"t": "seek", "d": {"variant": ["international"], "time_control": 5}}'),
        (game, NESTED_4K),
        (game, '{"t": "move", "d": {"ply": 1e999, "move": "32-28"}}'),
        (game, '{"t": "move", "d": {"ply": 9007199254740991, "move": "32-28"}}'),
        (game, '{"t": "move", "d": {"ply": 0, "path": [[["32"]], "28"]}}'),
        (game, '{"t": "move", "d": {"ply": "zero", "move": {"a": 1}}}'),
        (game, '{"t": "move", "d": {"ply": 0, "move": "32-28\\u0000"}}'),
    ]
    for ws, raw in hostile:
        await ws.send(raw)
        frame = await next_frame(ws, "error")
        assert frame["d"]["code"] in {"bad_request", "bad_json", "too_large", "not_found",
                                      "stale_ply", "illegal_move"}, (raw[:60], frame)
    # Both sockets are still open and served.
    for ws in (lobby, game):
        await ws.send('{"t": "ping"}')
        await next_frame(ws, "pong")
        await ws.close()
    log = hardened_daphne.log_since_start()
    assert "Traceback" not in log and "1011" not in log, log[-3000:]


async def test_an_oversized_frame_gets_an_error_then_a_clean_close(hardened_daphne: Any) -> None:
    ws = await _ws(hardened_daphne, "/ws/lobby/")
    await next_frame(ws, "seeks")
    await ws.send(json.dumps({"t": "ping", "d": {"pad": "x" * 64_000}}))
    frame = await next_frame(ws, "error")
    assert frame["d"]["code"] == "too_large"
    with pytest.raises(websockets.ConnectionClosed) as info:
        await next_frame(ws)
    assert info.value.rcvd is not None and info.value.rcvd.code == 4009
    assert "Traceback" not in hardened_daphne.log_since_start()


def test_hostile_http_requests_get_4xx(hardened_daphne: Any) -> None:
    base = hardened_daphne.base_url
    cookie = session_cookie(make_guest())
    json_headers = csrf_headers(cookie, **{"Content-Type": "application/json",
                                           "Accept": "application/json"})
    everywhere = (NESTED_4K.encode(), b'{"ruleset": "\\u0000"}', b"[]", b"\xff",
                  b'{"ruleset": "' + b"x" * 40_000 + b'"}', b'{"ruleset": 1e999}')
    everywhere += (b"{" + b" " * 300_000 + b"}",)  # over DATA_UPLOAD_MAX_MEMORY_SIZE
    cases = [(url, body) for url in ("/games/new/computer", "/games/new/friend", "/games/seek")
             for body in everywhere]
    cases += [("/games/new/computer", body) for body in (
        b'{"ruleset": "english", "level": 1e999}', b'{"ruleset": "english", "level": [[1]]}',
        b'{"ruleset": "english", "level": 123456789012345678901234567890}')]
    cases += [(url, body) for url in ("/analysis/replay", "/analysis/eval")
              for body in (NESTED_4K.encode(), b'{"ruleset": "english", "depth": 1e999}',
                           b'{"ruleset": "\\u0000"}', b"[]")]
    for url, body in cases:
        if True:
            status, answer = http("POST", base + url, body=body, headers=json_headers)
            assert 400 <= status < 500, (url, body[:40], status, answer[:200])
            assert json.loads(answer)["error"]["code"], answer
    form_headers = csrf_headers(cookie, **{"Content-Type": "application/x-www-form-urlencoded",
                                           "Accept": "application/json"})
    for body in (b"level=1e999&ruleset=english", b"level=99999999999999999999999&ruleset=x",
                 b"ruleset=%00&level=1", b"&".join(b"f%d=1" % i for i in range(500))):
        status, _ = http("POST", base + "/games/new/computer", body=body, headers=form_headers)
        assert 400 <= status < 500, (body[:40], status)
    for path in ("/games/%00/pdn", "/games/%00/state.json", "/profile/%00/", "/game/%00/",
                 "/games/%00/join", "/leaderboards/%00/", "/rules/%00/", "/?ruleset=%00",
                 "/games/" + "z" * 300 + "/pdn", "/profile/" + "%C3%A9" * 200 + "/"):
        method = "POST" if path.endswith("join") else "GET"
        status, _ = http(method, base + path, headers=csrf_headers(cookie))
        assert status in (400, 404), (path, status)
    assert not Game.objects.exists()
    log = hardened_daphne.log_since_start()
    assert "Traceback" not in log and "Internal Server Error" not in log, log[-3000:]
