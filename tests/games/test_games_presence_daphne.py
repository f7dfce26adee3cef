"""Presence over real Daphne processes and real websocket clients: a player whose Daphne is
killed (no close, no ``disconnect``) is shown as gone to the opponent on another Daphne
after the ttl, and the opponent's claim then wins. Short ttl and claim times (settings from
the environment) keep the waits to a few seconds."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from daphne_process import running_daphne
from test_games_daphne import Client, seated_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services,
              pytest.mark.timing]

TTL = 1.5
CLAIM = 1.0
SHORT = {"KONDAVO_PRESENCE_TTL_SECONDS": str(TTL),
         "KONDAVO_CLAIM_VICTORY_SECONDS": str(CLAIM),
         "KONDAVO_SERVE_STATIC": "true"}


async def frames_until(client: Client, pred: Any, timeout: float) -> dict[str, Any]:
    """Ping every 0.3 s until a frame satisfies ``pred``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await client.send("ping")
        try:
            while True:
                frame = json.loads(await asyncio.wait_for(client.ws.recv(), 0.3))
                if frame["t"] == "state":
                    client.version = frame["v"]
                if pred(frame):
                    return frame
        except TimeoutError:
            continue
    raise AssertionError("no such frame in time")


async def test_killed_daphne_shows_the_player_gone_and_the_claim_works(
        redis_url: str, guest_factory: Any, artifacts_dir: Path) -> None:
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("two Daphne processes share PostgreSQL in this test")
    game, cookies = await database_sync_to_async(seated_game)(guest_factory)
    log = artifacts_dir / "daphne-presence.log"
    with running_daphne(connection.settings_dict, log, REDIS_URL=redis_url, **SHORT) as (
            _a, base_a), running_daphne(connection.settings_dict, log, REDIS_URL=redis_url,
                                        **SHORT) as (proc_b, base_b):
        white = await Client.open(base_a, game.id, cookies["white"])
        black = await Client.open(base_b, game.id, cookies["black"])
        try:
            await black.next("state")
            online = await frames_until(
                white, lambda f: f["t"] in ("presence", "state")
                and (f["d"].get("presence") or f["d"])["black"] is True, 5)
            assert online
            proc_b.send_signal(signal.SIGKILL)
            proc_b.wait(timeout=10)
            killed = time.time()
            gone = await frames_until(
                white, lambda f: f["t"] == "presence" and f["d"]["black"] is False, 10)
            seen_after = time.time() - killed
            assert seen_after < TTL + 2.0, seen_after
            claim_at = gone["d"]["claim_at"]["black"]
            assert claim_at == gone["d"]["left_at"]["black"] + int(CLAIM * 1000)
            await asyncio.sleep(max(claim_at / 1000 - time.time(), 0) + 0.2)
            await white.send("claim_victory")
            end = await white.next("end")
            assert end["d"]["result"]["reason"] == "abandoned"
            assert end["d"]["result"]["winner"] == "white"
        finally:
            await white.ws.close()
