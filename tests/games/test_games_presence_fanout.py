"""A presence change reaching many sockets of a game in one process: the hub hands each
the same message, and the frame is encoded once per socket version, not once per socket
(kondavo/games/consumers.py ``GameConsumer.game_presence``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kondavo.games import consumers, wire


class Socket(consumers.GameConsumer):
    """A game socket without a connection: what it would send is kept."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.presence_sent = None
        self.sent: list[str] = []

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                   close: bool = False) -> None:
        assert text_data is not None
        self.sent.append(text_data)


async def test_a_presence_frame_is_encoded_once_per_version(
        monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[dict[str, Any]] = []
    real = wire.encode_frame

    def counting(value: dict[str, Any]) -> str:
        encoded.append(value)
        return real(value)

    monkeypatch.setattr(wire, "encode_frame", counting)
    presence = {"online": {"white": True, "black": False}, "spectators": 500, "now": 1.5}
    message = {"type": "game.presence", "presence": presence}
    crowd = [Socket(version=7) for _ in range(500)] + [Socket(version=8)]
    for socket in crowd:
        await socket.game_presence(message)
    assert len(encoded) == 2  # versions 7 and 8, not 501 frames
    frames = [json.loads(socket.sent[0]) for socket in crowd]
    assert all(len(socket.sent) == 1 for socket in crowd)
    assert frames[0] == {"t": "presence", "d": presence, "v": 7}
    assert frames[-1] == {"t": "presence", "d": presence, "v": 8}

    # The same presence again (only the server's time differs): nothing is sent.
    again = {"type": "game.presence", "presence": {**presence, "now": 2.5}}
    for socket in crowd:
        await socket.game_presence(again)
    assert all(len(socket.sent) == 1 for socket in crowd)
    # A change is sent to every socket.
    changed = {"type": "game.presence", "presence": {**presence, "spectators": 499}}
    for socket in crowd:
        await socket.game_presence(changed)
    assert all(json.loads(socket.sent[-1])["d"]["spectators"] == 499 for socket in crowd)
    assert len(encoded) == 4
