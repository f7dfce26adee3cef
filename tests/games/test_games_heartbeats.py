"""Heartbeats answered in batches (``kondavo.games.heartbeats``): the pings a process takes
within the batch window cost one worker-thread call, one read of the games' versions and one
presence round trip together; a ping never holds up the socket's other frames; a pong still
reports an event the socket missed."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from socket_helpers import counting_db_call, open_socket

from kondavo.games import consumers, events
from kondavo.games.services import game_create, game_heartbeats, game_play_move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]

TIMEOUT = 5


async def _open(path: str, player: Any | None) -> Any:
    comm = await open_socket(path, player)
    frame = await comm.receive_json_from(timeout=TIMEOUT)
    assert frame["t"] == "state"
    return comm


async def _next(comm: Any, *types: str) -> dict[str, Any]:
    """The next frame of one of ``types`` (presence frames skipped)."""
    while True:
        frame: dict[str, Any] = await comm.receive_json_from(timeout=TIMEOUT)
        if frame["t"] in types:
            return frame
        assert frame["t"] == "presence", frame


@pytest.fixture
async def game(guest_factory: Any) -> tuple[Any, Any, Any]:
    def make() -> tuple[Any, Any, Any]:
        white, black = guest_factory(), guest_factory()
        return white, black, game_create(creator=white, opponent=black, ruleset="english",
                                         color="white", time_control="untimed")

    return await database_sync_to_async(make)()


async def test_pings_within_the_window_are_answered_by_one_thread_call(
        game: Any, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.KONDAVO_HEARTBEAT_BATCH_SECONDS = 0.3
    white, black, g = game
    path = f"/ws/game/{g.id}/"
    sockets = [await _open(path, white), await _open(path, black), await _open(path, None),
               await _open(path, None)]
    calls: list[str] = []
    monkeypatch.setattr(consumers, "db_call", counting_db_call(calls))
    for comm in sockets:
        await comm.send_json_to({"t": "ping"})
    pongs = [await _next(comm, "pong") for comm in sockets]
    assert [p["v"] for p in pongs] == [g.version] * 4
    assert calls == ["game_heartbeats"]
    for comm in sockets:
        await comm.disconnect()


async def test_a_move_right_after_a_ping_does_not_wait_for_the_batch(
        game: Any, settings: Any) -> None:
    settings.KONDAVO_HEARTBEAT_BATCH_SECONDS = 2.0
    white, black, g = game
    path = f"/ws/game/{g.id}/"
    cw, cb = await _open(path, white), await _open(path, black)
    await cb.send_json_to({"t": "ping"})  # Black moves first in English draughts
    await cb.send_json_to({"t": "move", "d": {"ply": 0, "move": "11-15"}})
    first = await _next(cb, "move", "pong")
    assert first["t"] == "move" and first["v"] == g.version + 1  # before the batch ran
    assert (await _next(cw, "move"))["d"]["notation"] == "11-15"
    pong = await _next(cb, "pong")  # the batch read the game after the move
    assert pong["v"] == g.version + 1
    await cw.disconnect()
    await cb.disconnect()


async def test_a_pong_reports_an_event_the_socket_never_got(
        game: Any, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.KONDAVO_HEARTBEAT_BATCH_SECONDS = 0.05
    white, black, g = game
    cw = await _open(f"/ws/game/{g.id}/", white)
    monkeypatch.setattr(events, "publish_game", lambda game_id, frames: None)  # lost
    await database_sync_to_async(game_play_move)(game_id=g.id, player=black, ply=0,
                                                 move_text="11-15")
    await cw.send_json_to({"t": "ping"})
    pong = await _next(cw, "pong", "move")
    assert pong["t"] == "pong" and pong["v"] == g.version + 1  # the client resyncs on it
    await cw.disconnect()


def test_game_heartbeats_reads_every_game_once_and_refreshes_presence(
        guest_factory: Any, django_assert_max_num_queries: Any) -> None:
    white, black = guest_factory(), guest_factory()
    one = game_create(creator=white, opponent=black, ruleset="english", color="white",
                      time_control="untimed")
    two = game_create(creator=black, opponent=white, ruleset="turkish", color="white",
                      time_control="untimed")
    game_play_move(game_id=two.id, player=black, ply=0, move_text="a3-a4")
    beats = [(one.id, "white:s1", one), (two.id, "black:s2", two),
             (two.id, "spectator:s3", two), ("nosuchgame0", "spectator:s4", None)]
    with django_assert_max_num_queries(1):
        answers = game_heartbeats(beats)
    assert answers[3] is None
    (v1, p1, g1), (v2, p2, g2), (v3, p3, _) = answers[0], answers[1], answers[2]
    assert (v1, v2, v3) == (one.version, two.version + 1, two.version + 1)
    assert g1 is one and g2 is two
    assert p1["white"] is True and p1["black"] is False
    assert p2["white"] is False and p2["black"] is True
    assert p3["spectators"] == 1
