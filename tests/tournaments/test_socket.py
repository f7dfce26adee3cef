"""The tournament socket: a spectator gets the snapshot, then a standings frame when a
player joins (over the hub and the bus), and a player gets "game" when paired."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from socket_helpers import frame_of, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]


async def test_standings_reach_a_spectator_socket(accounts: Any, run_tasks: Any,
                                                  settings: Any) -> None:
    from kondavo.tournaments import services

    settings.KONDAVO_PRESENCE_PUBLISH_SECONDS = 0.05
    a = await database_sync_to_async(accounts)("sock")
    t = await database_sync_to_async(services.tournament_create)(
        creator=a, name="Socket Arena", kind="arena", ruleset="english",
        time_control="3+2", starts_at=timezone.now() + timezone.timedelta(minutes=5))
    spectator = await open_socket(f"/ws/tournament/{t.pk}/", client="198.51.100.9")
    snapshot = await frame_of(spectator, "tournament")
    assert snapshot["d"]["name"] == "Socket Arena" and snapshot["d"]["standings"]["players"] == 0
    assert (await frame_of(spectator, "me"))["d"]["entry"] is None
    await database_sync_to_async(services.tournament_join)(tournament_id=t.pk, player=a)
    standings = await frame_of(spectator, "standings")
    assert standings["d"]["players"] == 1 and standings["d"]["rows"][0]["name"] == "sock"
    await spectator.disconnect()


async def test_unknown_tournament_is_closed(accounts: Any) -> None:
    from kondavo.routing import websocket_urlpatterns

    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/tournament/999999/")
    comm.scope["user"] = AnonymousUser()
    comm.scope["session"] = {}
    comm.scope["client"] = ("198.51.100.10", 50000)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    frame = await comm.receive_json_from(timeout=5)
    assert frame["t"] == "error" and frame["d"]["code"] == "not_found"


async def test_the_tournament_chat_over_its_socket(accounts: Any, run_tasks: Any,
                                                   settings: Any) -> None:
    """A player of the tournament writes in its room; a spectator's socket gets the line;
    someone not in the tournament may not write; the snapshot carries the room's lines."""
    from kondavo.tournaments import services

    settings.KONDAVO_PRESENCE_PUBLISH_SECONDS = 0.05
    a = await database_sync_to_async(accounts)("chatter")
    outsider = await database_sync_to_async(accounts)("outsider")
    t = await database_sync_to_async(services.tournament_create)(
        creator=a, name="Chat Arena", kind="arena", ruleset="english",
        time_control="3+2", starts_at=timezone.now() + timezone.timedelta(minutes=5))
    await database_sync_to_async(services.tournament_join)(tournament_id=t.pk, player=a)
    path = f"/ws/tournament/{t.pk}/"
    spectator = await open_socket(path, client="198.51.100.9")
    snapshot = await frame_of(spectator, "tournament")
    room = f"tournament.{t.pk}"
    assert snapshot["d"]["chat"]["rooms"] == {room: []}
    assert snapshot["d"]["chat"]["write"] == []
    writer = await open_socket(path, a, client="198.51.100.21")
    mine = await frame_of(writer, "tournament")
    assert mine["d"]["chat"]["write"] == [room] and mine["d"]["chat"]["me"] == "chatter"
    await writer.send_json_to({"t": "chat", "d": {"room": str(t.pk), "text": "good luck all"}})
    line = (await frame_of(spectator, "chat"))["d"]["line"]
    assert line["text"] == "good luck all" and line["room"] == room
    assert line["author"] == "chatter"
    other = await open_socket(path, outsider, client="198.51.100.22")
    await frame_of(other, "tournament")
    await other.send_json_to({"t": "chat", "d": {"room": str(t.pk), "text": "hello"}})
    error = await frame_of(other, "error")
    assert error["d"]["code"] == "not_allowed"
    again = await open_socket(path, client="198.51.100.9")
    assert [x["text"] for x in (await frame_of(again, "tournament"))["d"]["chat"]["rooms"][room]] \
        == ["good luck all"]
    for comm in (spectator, writer, other, again):
        await comm.disconnect()
