"""``/ws/notify/``: one player's notifications, on every page of the site (docs/protocol.md,
"Notification socket").

Thin, and the same socket as the others underneath (``kondavo.games.consumers.ProtocolConsumer``):
the connect gate, the owner's cool-down, the socket caps shared by every Daphne, the frame
budget spent before a frame is parsed, the frame limits, one handler per ``t`` calling a
service off the event loop, and the group messages through this process's hub (the
player's ``notify.<pk>`` group, subscribed once per process). Its few database calls (the
snapshot on connect, an answer to a challenge, "read") go through Channels'
``database_sync_to_async``, as the lobby's do: they are rare, and it closes the
connections it opened.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from kondavo.accounts.models import Player
from kondavo.games import services as games
from kondavo.games import wire
from kondavo.games.consumers import Handler, ProtocolConsumer
from kondavo.games.errors import GameError
from kondavo.games.events import notify_group
from kondavo.games.hub import PLAYERS
from kondavo.notifications import services

db = database_sync_to_async

CLOSE_NO_PLAYER = 4403  # a visitor without an identity has nothing to be notified of


class NotifyConsumer(ProtocolConsumer):
    """The notification socket of one page."""

    def handlers(self) -> dict[str, Handler]:
        return {
            "read": self.do_read,
            "accept": self.do_accept,
            "decline": self.do_decline,
            "cancel": self.do_cancel,
            "ping": self.do_ping,
        }

    async def connect(self) -> None:
        if not await self.admit():
            return
        await self.accept()
        if self.player is None:
            await self.send_error("not_a_player", "no identity: nothing to notify")
            await self.release()
            await self.close(code=CLOSE_NO_PLAYER)
            return
        # Subscribe before the snapshot is read, so nothing falls between the two.
        await self.subscribe(notify_group(self.player.pk), PLAYERS)
        await self.send_snapshot()
        await self.done_handling()

    async def disconnect(self, code: int) -> None:
        await self.release()

    async def send_snapshot(self) -> None:
        frame = await db(services.notifications_snapshot)(player=self.player)
        await self.send_json(frame)

    async def resync_client(self) -> None:
        await self.send_snapshot()

    def _me(self) -> Player:
        if self.player is None:
            raise GameError("not_a_player", "no identity")
        return self.player

    async def do_read(self, data: dict[str, Any]) -> None:
        """``{"ids": [..]}`` or ``{"all": true}``."""
        ids = data.get("ids")
        if not data.get("all") and not isinstance(ids, list):
            raise GameError("bad_request", 'read is {"ids": [id, ...]} or {"all": true}')
        await db(services.notifications_mark_read)(
            player=self._me(), ids=None if data.get("all") else ids)

    async def do_accept(self, data: dict[str, Any]) -> None:
        """Accept a challenge: this socket gets the game to open (the challenger's pages
        hear of it as a ``challenge_answer``)."""
        game = await db(games.challenge_accept)(challenge_id=data.get("id"), player=self._me())
        await self.send_json(wire.game_frame(game.id))

    async def do_decline(self, data: dict[str, Any]) -> None:
        """Decline a challenge; ``{"block": true}``: and refuse this sender from now on."""
        await db(games.challenge_decline)(challenge_id=data.get("id"), player=self._me(),
                                          block=bool(data.get("block")))

    async def do_cancel(self, data: dict[str, Any]) -> None:
        """The challenger withdraws a challenge."""
        await db(games.challenge_cancel)(challenge_id=data.get("id"), player=self._me())

    # --- channel layer messages (through the hub)
    async def notify_frame(self, message: dict[str, Any]) -> None:
        await self.send_json(message["frame"])
