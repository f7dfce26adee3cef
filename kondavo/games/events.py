"""Publishing to the channel layer. Services call these from ``transaction.on_commit`` only.

Groups: ``game.<id>`` (everyone watching a game), ``lobby`` (everyone in the lobby) and
``player.<pk>`` (one player's lobby sockets, for "your seek was accepted").
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def game_group(game_id: str) -> str:
    return f"game.{game_id}"


def player_group(player_id: int) -> str:
    return f"player.{player_id}"


def _group_send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the move is committed; a lost broadcast is healed by resync
        log.exception("could not publish to %s", group)


def encode_frame(frame: dict[str, Any]) -> str:
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


def publish_game(game_id: str, frames: list[dict[str, Any]]) -> None:
    """Send versioned frames (``{"v", "t", "d"}``) to every socket watching the game.

    Each frame travels JSON-encoded once (``{"v", "t", "text"}``): every socket of the group
    sends the same text instead of encoding the frame again.
    """
    if frames:
        encoded = [{"v": f["v"], "t": f["t"], "text": encode_frame(f)} for f in frames]
        _group_send(game_group(game_id), {"type": "game.event", "frames": encoded})


def publish_presence(game_id: str, presence: dict[str, Any]) -> None:
    _group_send(game_group(game_id), {"type": "game.presence", "presence": presence})


def publish_lobby(version: int, seeks: list[dict[str, Any]]) -> None:
    """``seeks`` carry ``player_id``; each lobby consumer turns it into ``mine``."""
    _group_send(LOBBY_GROUP, {"type": "lobby.seeks", "version": version, "seeks": seeks})


def publish_player(player_id: int, frame: dict[str, Any]) -> None:
    _group_send(player_group(player_id), {"type": "lobby.frame", "frame": frame})
