"""Socket discipline and fan-out through real consumers (kondavo/games/discipline.py, hub.py):
a flooding socket is closed and its owner cools down, caps and the connect gate refuse
sockets with a clear answer, presence is coalesced, and a crowd costs the channel layer one
message per process. Runs on the in-memory layer (embedded pass) and on Redis (services)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from kondavo.accounts.services import GUEST_SESSION_KEY
from kondavo.games import consumers, hub, services
from kondavo.games.discipline import CLOSE_FLOOD, CLOSE_REFUSED, ConnectGateMiddleware
from kondavo.games.routing import websocket_urlpatterns
from kondavo.games.services import game_create

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]

TIMEOUT = 5


def communicator(path: str, player: Any | None, address: str = "10.1.2.3"
                 ) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(ConnectGateMiddleware(URLRouter(websocket_urlpatterns)), path)
    comm.scope["user"] = AnonymousUser()
    comm.scope["session"] = {GUEST_SESSION_KEY: player.guest_key} if player else {}
    comm.scope["client"] = (address, 40000)
    return comm


async def connect(path: str, player: Any | None, address: str = "10.1.2.3"
                  ) -> WebsocketCommunicator:
    comm = communicator(path, player, address)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def next_frame(comm: WebsocketCommunicator, t: str) -> dict[str, Any]:
    while True:
        frame = await comm.receive_json_from(timeout=TIMEOUT)
        if frame["t"] == t:
            return frame


async def closed_with(comm: WebsocketCommunicator) -> tuple[list[dict[str, Any]], int]:
    """The frames a socket got until the server closed it, and the close code."""
    frames: list[dict[str, Any]] = []
    while True:
        out = await comm.receive_output(timeout=TIMEOUT)
        if out["type"] == "websocket.close":
            return frames, out.get("code", 1000)
        if out["type"] == "websocket.send" and out.get("text"):
            import json

            frames.append(json.loads(out["text"]))


@pytest.fixture
async def seated(guest_factory: Any) -> tuple[Any, Any, Any]:
    def make() -> tuple[Any, Any, Any]:
        white, black = guest_factory(), guest_factory()
        game = game_create(creator=white, opponent=black, ruleset="international",
                           color="white", time_control="5+3")
        return white, black, game

    return await database_sync_to_async(make)()


@pytest.fixture(autouse=True)
def _fresh_registry(fresh_socket_registry: None) -> None:
    """Each test counts its own sockets and cool-downs (tests/conftest.py)."""


async def test_a_flooding_socket_is_closed_and_its_owner_cools_down(
        seated: Any, guest_factory: Any, settings: Any) -> None:
    settings.KONDAVO_WS_RATE = 5
    settings.KONDAVO_WS_BURST = 10
    settings.KONDAVO_WS_FLOOD_FRAMES = 20
    white, black, game = seated
    path = f"/ws/game/{game.id}/"
    cw, cb = await connect(path, white), await connect(path, black, "10.9.9.9")
    await next_frame(cw, "state")
    await next_frame(cb, "state")
    flooder = await connect(path, None)  # a visitor without a session
    await next_frame(flooder, "state")
    for _ in range(200):  # far over the budget, as fast as the test can send
        await flooder.send_to(text_data='{"t":"ping"}')
    frames, code = await closed_with(flooder)
    codes = [f["d"]["code"] for f in frames if f["t"] == "error"]
    assert code == CLOSE_FLOOD
    # One error for the burst over the budget, one saying why the socket is closed.
    assert codes == ["rate_limited", "flooding"]
    assert sum(f["t"] == "pong" for f in frames) < 30  # the burst and what refilled

    # The owner (this address, without a session) cools down: a new socket is refused...
    again = communicator(path, None)
    connected, _ = await again.connect(timeout=TIMEOUT)
    assert connected  # accepted only to say why, then closed
    frames, code = await closed_with(again)
    assert code == CLOSE_REFUSED and frames[0]["d"]["code"] == "cooling_down"
    # ...but a player with a session at the same address is not punished for it.
    other = await guest_factory_async(guest_factory)
    ok = await connect(path, other)
    assert (await next_frame(ok, "state"))["d"]["you"] is None
    # And the game goes on for its players.
    await cw.send_json_to({"t": "move", "d": {"ply": 0, "move": "32-28"}})
    assert (await next_frame(cb, "move"))["d"]["notation"] == "32-28"
    for comm in (cw, cb, ok):
        await comm.disconnect()


async def guest_factory_async(guest_factory: Any) -> Any:
    return await database_sync_to_async(guest_factory)()


async def test_socket_caps_per_player_and_per_address(seated: Any, settings: Any) -> None:
    settings.KONDAVO_WS_MAX_PER_PLAYER = 2
    settings.KONDAVO_WS_MAX_ANON_PER_IP = 1
    white, _black, game = seated
    path = f"/ws/game/{game.id}/"
    first, second = await connect(path, white), await connect(path, white)
    third = communicator(path, white)
    assert (await third.connect(timeout=TIMEOUT))[0]
    frames, code = await closed_with(third)
    assert code == CLOSE_REFUSED and frames[0]["d"]["code"] == "too_many_sockets"
    await first.disconnect()  # a closed socket frees its place at once
    fourth = await connect(path, white)
    assert (await next_frame(fourth, "state"))["d"]["you"] == "white"

    anon = await connect(path, None, "10.7.7.7")
    await next_frame(anon, "state")
    extra = communicator(path, None, "10.7.7.7")
    assert (await extra.connect(timeout=TIMEOUT))[0]
    frames, code = await closed_with(extra)
    assert code == CLOSE_REFUSED and "address" in frames[0]["d"]["message"]
    elsewhere = await connect(path, None, "10.7.7.8")  # another address has its own cap
    await next_frame(elsewhere, "state")
    for comm in (second, fourth, anon, elsewhere):
        await comm.disconnect()


async def test_a_reconnect_storm_is_refused_at_the_handshake(seated: Any, settings: Any) -> None:
    settings.KONDAVO_WS_CONNECT_RATE = 0.01
    settings.KONDAVO_WS_CONNECT_BURST = 3
    settings.KONDAVO_WS_REFUSE_DELAY = 0.3
    _white, _black, game = seated
    path = f"/ws/game/{game.id}/"
    results = []
    opened = []
    loop = asyncio.get_running_loop()
    for _ in range(6):
        comm = communicator(path, None, "10.5.5.5")
        started = loop.time()
        connected, code = await comm.connect(timeout=TIMEOUT)
        results.append((connected, loop.time() - started >= 0.3))
        if connected:
            opened.append(comm)
        else:
            assert code == 1000  # closed before accept: the server's HTTP 403
    # Three within the burst at once; the next ones refused, each answer held 0.3 s (an
    # attacker retrying at once retries at that pace).
    assert results == [(True, False)] * 3 + [(False, True)] * 3
    other = await connect(path, None, "10.5.5.6")  # the gate is per address
    settings.KONDAVO_WS_REFUSE_DELAY = 60  # longer than the connect's timeout ...
    settings.KONDAVO_WS_REFUSE_HELD = 0  # ... but none may wait: refused at once
    assert (await communicator(path, None, "10.5.5.5").connect(timeout=TIMEOUT))[0] is False
    for comm in [*opened, other]:
        await comm.disconnect()


@pytest.mark.timing
async def test_presence_is_coalesced_for_a_crowd(seated: Any, settings: Any) -> None:
    settings.KONDAVO_PRESENCE_PUBLISH_SECONDS = 1.0
    white, _black, game = seated
    path = f"/ws/game/{game.id}/"
    cw = await connect(path, white)
    await next_frame(cw, "state")
    await asyncio.sleep(1.1)  # the white socket's own presence change has gone out
    crowd = [await connect(path, None, f"10.3.0.{i}") for i in range(30)]
    frames: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 2.5
    while loop.time() < deadline:
        # (a receive that times out would cancel the consumer: look before receiving)
        if not await cw.receive_nothing(timeout=0.05, interval=0.01):
            frames.append(await cw.receive_json_from(timeout=TIMEOUT))
    presence = [f for f in frames if f["t"] == "presence"]
    # 30 joins in about a second: at most one frame a second, and the last one is exact.
    assert 1 <= len(presence) <= 4
    assert presence[-1]["d"]["spectators"] == 30
    for comm in [cw, *crowd]:
        await comm.disconnect()


async def test_a_crowd_costs_the_layer_one_message_per_move(seated: Any) -> None:
    white, black, game = seated
    path = f"/ws/game/{game.id}/"
    cw, cb = await connect(path, white), await connect(path, black)
    crowd = [await connect(path, None, f"10.4.{i // 200}.{i % 200}") for i in range(120)]
    for comm in [cw, cb, *crowd]:
        await next_frame(comm, "state")
    the_hub = hub.hub()
    assert the_hub.members(f"game.{game.id}") == 122
    # The players are served first: they are the first rank of the group.
    players, spectators = the_hub.groups[f"game.{game.id}"]
    assert len(players) == 2 and len(spectators) == 120

    received: list[dict[str, Any]] = []
    original = the_hub.deliver

    async def counting(message: dict[str, Any]) -> None:
        received.append(message)
        await original(message)

    the_hub.deliver = counting  # type: ignore[method-assign]
    await cw.send_json_to({"t": "move", "d": {"ply": 0, "move": "32-28"}})
    for comm in [cw, cb, *crowd]:
        assert (await next_frame(comm, "move"))["d"]["notation"] == "32-28"
    events = [m for m in received if m["type"] == "game.event"]
    assert len(events) == 1  # one message from the layer for 122 sockets
    for comm in [cw, cb, *crowd]:
        await comm.disconnect()
    assert the_hub.members(f"game.{game.id}") == 0


async def test_ipv6_addresses_count_by_their_64(seated: Any, settings: Any) -> None:
    settings.KONDAVO_WS_MAX_ANON_PER_IP = 1
    _white, _black, game = seated
    path = f"/ws/game/{game.id}/"
    first = await connect(path, None, "2001:db8:1:2::1")
    await next_frame(first, "state")
    same_64 = communicator(path, None, "2001:db8:1:2:ffff::7")  # another address, same /64
    assert (await same_64.connect(timeout=TIMEOUT))[0]
    _frames, code = await closed_with(same_64)
    assert code == CLOSE_REFUSED
    other_64 = await connect(path, None, "2001:db8:1:3::1")
    await next_frame(other_64, "state")
    for comm in (first, other_64):
        await comm.disconnect()


async def test_a_crowd_is_admitted_a_few_at_a_time(seated: Any, settings: Any) -> None:
    """``KONDAVO_WS_OPENINGS`` sockets of a process are admitted at once; the next one
    waits for a slot (without any work done for it) and is admitted when one frees."""
    settings.KONDAVO_WS_OPENINGS = 1
    _white, _black, game = seated
    path = f"/ws/game/{game.id}/"
    slot = consumers.opening_slot()
    await slot.acquire()  # the one slot is taken (as by a socket being admitted)
    waiting = communicator(path, None, "10.6.0.1")
    opening = asyncio.ensure_future(waiting.connect(timeout=TIMEOUT))
    await asyncio.sleep(0.5)
    assert not opening.done()
    assert hub.hub().members(f"game.{game.id}") == 0  # not even subscribed yet
    slot.release()
    assert (await opening)[0]
    await next_frame(waiting, "state")
    await waiting.disconnect()


async def test_a_move_runs_on_the_players_threads(seated: Any, monkeypatch: Any) -> None:
    """A seated player's move is played on the ``play`` threads, not on the pool that
    opens and closes the sockets of a crowd."""
    white, black, game = seated
    threads: list[str] = []
    original = services.game_play_move

    def recording(**kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return original(**kwargs)

    monkeypatch.setattr(services, "game_play_move", recording)
    path = f"/ws/game/{game.id}/"
    cw, cb = await connect(path, white), await connect(path, black, "10.9.9.9")
    await next_frame(cw, "state")
    await next_frame(cb, "state")
    await cw.send_json_to({"t": "move", "d": {"ply": 0, "move": "32-28"}})
    assert (await next_frame(cb, "move"))["d"]["notation"] == "32-28"
    assert len(threads) == 1 and threads[0].startswith("play")
    for comm in (cw, cb):
        await comm.disconnect()


def test_autobahn_debug_arguments_are_formatted_only_when_written() -> None:
    """autobahn builds its debug lines' arguments at every frame sent and every close;
    after ``lazy_autobahn_debug`` they are placeholders that format, when a line is
    written, exactly as autobahn's own helpers would have."""
    import pprint

    from autobahn import util
    from autobahn.twisted import websocket as twisted_websocket
    from autobahn.websocket import protocol

    from kondavo.games.discipline import lazy_autobahn_debug

    assert lazy_autobahn_debug()
    assert lazy_autobahn_debug()  # a second call changes nothing
    line = "{func} sent"  # formatted as a log line is, by str.format
    examples = {"hltype": protocol.WebSocketProtocol.sendData, "hlval": "tcp4:10.1.2.3:40000"}
    for module in (protocol, twisted_websocket):
        for name, arg in examples.items():
            placeholder = getattr(module, name)(arg)
            assert not isinstance(placeholder, str)
            assert line.format(func=placeholder) == f"{getattr(util, name)(arg)} sent"
            assert getattr(module, name).__wrapped__ is getattr(util, name)
    config = {"maxFramePayloadSize": 65536, "autoPingInterval": 0}
    assert str(protocol.pformat(config)) == pprint.pformat(config)
    assert protocol.pformat(config, indent=4) == pprint.pformat(config, indent=4)


def _order_of_a_burst(loop: asyncio.AbstractEventLoop, sockets: int,
                      player: int | None = None) -> list[str]:
    """``sockets`` readable at once, socket ``player`` (if any) served first by
    ``PlayersFirst``; the first socket read schedules a follow-up (as a move's next step is
    scheduled). The order in which the loop ran them."""
    import socket

    from kondavo.games.discipline import SOCKET_FD_KEY, prioritize_socket

    pairs = [socket.socketpair() for _ in range(sockets)]
    order: list[str] = []
    done = loop.create_future()

    def record(what: str) -> None:
        order.append(what)
        if len(order) == sockets + 1:
            done.set_result(None)

    def reader(i: int) -> None:
        pairs[i][0].recv(16)
        loop.remove_reader(pairs[i][0])
        if not order:
            loop.call_soon(record, "follow-up")
        record(f"socket {i}")

    async def prioritized() -> bool:
        return prioritize_socket({SOCKET_FD_KEY: pairs[player][0].fileno()})

    try:
        for i, (ours, _) in enumerate(pairs):
            loop.add_reader(ours, reader, i)
        if player is not None:
            assert loop.run_until_complete(prioritized())
        for _, theirs in pairs:
            theirs.send(b"x")
        loop.run_until_complete(asyncio.wait_for(done, 5))
    finally:
        for a, b in pairs:
            a.close()
            b.close()
    return order


def test_the_players_sockets_are_served_first_and_a_burst_in_slices(settings: Any) -> None:
    """With ``PlayersFirst`` a seated player's socket is read before a burst of 40 others,
    which are served 8 a turn with what the first read scheduled between the slices;
    without it, the whole burst comes first. Every socket is served either way."""
    from kondavo.games.discipline import players_first

    everything = sorted(["follow-up"] + [f"socket {i}" for i in range(40)])
    plain = asyncio.new_event_loop()
    try:
        order = _order_of_a_burst(plain, 40)
    finally:
        plain.close()
    assert sorted(order) == everything
    assert order.index("follow-up") == 40

    settings.KONDAVO_LOOP_SOCKETS_PER_TURN = 8
    fair = asyncio.new_event_loop()
    try:
        assert players_first(fair)
        assert players_first(fair)  # a second call keeps one wrapper
        order = _order_of_a_burst(fair, 40, player=39)
        assert order[0] == "socket 39"  # the player, though its data came last
        assert order.index("follow-up") <= 1 + 8 + 1
        assert sorted(order) == everything
        order = _order_of_a_burst(fair, 40)  # the numbers reused: nobody is first now
        assert sorted(order) == everything
        assert order.index("follow-up") <= 8 + 1
    finally:
        fair.close()

    settings.KONDAVO_LOOP_SOCKETS_PER_TURN = 0
    untouched = asyncio.new_event_loop()
    try:
        assert not players_first(untouched)
    finally:
        untouched.close()
