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

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]


async def _socket(path: str, session: dict[str, Any]) -> Any:
    from kondavo.routing import websocket_urlpatterns

    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    comm.scope["user"] = AnonymousUser()
    comm.scope["session"] = session
    comm.scope["client"] = ("198.51.100.9", 50000)
    connected, _ = await comm.connect(timeout=5)
    assert connected
    return comm


async def _frame(comm: Any, t: str) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = await comm.receive_json_from(timeout=5)
        if frame["t"] == t:
            return frame


async def test_standings_reach_a_spectator_socket(accounts: Any, run_tasks: Any,
                                                  settings: Any) -> None:
    from kondavo.tournaments import services

    settings.KONDAVO_PRESENCE_PUBLISH_SECONDS = 0.05
    a = await database_sync_to_async(accounts)("sock")
    t = await database_sync_to_async(services.tournament_create)(
        creator=a, name="Socket Arena", kind="arena", ruleset="english",
        time_control="3+2", starts_at=timezone.now() + timezone.timedelta(minutes=5))
    spectator = await _socket(f"/ws/tournament/{t.pk}/", {})
    snapshot = await _frame(spectator, "tournament")
    assert snapshot["d"]["name"] == "Socket Arena" and snapshot["d"]["standings"]["players"] == 0
    assert (await _frame(spectator, "me"))["d"]["entry"] is None
    await database_sync_to_async(services.tournament_join)(tournament_id=t.pk, player=a)
    standings = await _frame(spectator, "standings")
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
