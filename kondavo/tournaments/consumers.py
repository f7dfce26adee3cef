"""``/ws/tournament/<id>/``: a tournament page's socket (docs/protocol.md, "Tournament
socket").

Thin, on the same layer as the game and notification sockets
(``kondavo.games.consumers.ProtocolConsumer``): the connect gate, the owner's cool-down,
the socket caps, the frame budget, the frame limits, one handler per ``t``, and the group
messages of ``tournament.<id>`` through this process's hub (one bus subscription per
tournament per process; the players of the tournament are served first). The standings
arrive coalesced and already encoded (one text for every socket); a player's own ``me``
and "your game starts" (``game``) frames carry the player's id and only that player's
sockets send them. Joining, withdrawing and pausing are the page's forms (HTTP); the
socket's one action is berserk.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from kondavo.games import wire
from kondavo.games.consumers import Handler, ProtocolConsumer
from kondavo.games.errors import GameError
from kondavo.games.events import tournament_group
from kondavo.games.hub import PLAYERS, SPECTATORS
from kondavo.tournaments import services

db = database_sync_to_async


class TournamentConsumer(ProtocolConsumer):
    tournament_id: int = 0

    def handlers(self) -> dict[str, Handler]:
        return {"berserk": self.do_berserk, "resync": self.do_resync, "ping": self.do_ping,
                **{t: self._chat(t) for t in ("chat", "chat_mute", "chat_report",
                                              "chat_remove")}}

    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        if not await self.admit():
            return
        await self.accept()
        await self.subscribe(tournament_group(self.tournament_id),
                             PLAYERS if self.player is not None else SPECTATORS)
        try:
            await self.send_snapshot()
        except GameError as exc:
            await self.release()
            await self.send_error(exc.code, exc.message)
            await self.close(code=4404)
            return
        await self.done_handling()

    async def disconnect(self, code: int) -> None:
        await self.release()

    async def send_snapshot(self) -> None:
        frames = await db(services.tournament_snapshot)(tournament_id=self.tournament_id,
                                                        player=self.player)
        for frame in frames:
            await self.send_json(frame)

    async def resync_client(self) -> None:
        await self.send_snapshot()

    async def do_resync(self, data: dict[str, Any]) -> None:
        await self.send_snapshot()

    async def do_berserk(self, data: dict[str, Any]) -> None:
        if self.player is None:
            raise GameError("not_a_player", "you are not playing in this tournament")
        await db(services.tournament_berserk)(tournament_id=self.tournament_id,
                                              player=self.player)

    def _chat(self, t: str) -> Handler:
        """A ``chat*`` frame: the tournament's chat room (``services.tournament_chat_frame``)."""
        async def handler(data: dict[str, Any]) -> None:
            reply = await db(services.tournament_chat_frame)(
                tournament_id=self.tournament_id, player=self.player,
                address=self.owner.address, t=t, data=data)
            if reply is not None:
                await self.send_json(reply)

        return handler

    # --- bus messages (through the hub)
    async def chat_frame(self, message: dict[str, Any]) -> None:
        """A line of the tournament's chat, or a removal (not to who muted its author)."""
        frame = wire.chat_for_socket(message, self.player.pk if self.player else None)
        if frame is not None:
            await self.send_json(frame)

    async def tournament_standings(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["text"])

    async def tournament_player(self, message: dict[str, Any]) -> None:
        if self.player is not None and message.get("player_id") == self.player.pk:
            await self.send(text_data=message["text"])
