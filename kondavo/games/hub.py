"""Fan-out inside one Daphne process: one channel-layer subscription per group per process.

Without it, every socket joins the channel layer's group itself, and a move to a game with a
thousand spectators is a thousand messages through Redis (serialised, stored, read back and
decoded one by one). With it, each process's ``Hub`` joins a group once, on behalf of all its
sockets of that group, receives each message once and hands it to its local sockets: the
layer's cost of a move grows with the number of Daphnes, not with the audience.

A subscriber is any object with ``async def hub_message(message)``; messages carry
``group`` (added by ``kondavo.games.events``). Within a group, subscribers of rank 0 (the
players of a game) are served before rank 1 (spectators), so a move reaches the two players
first. A subscriber that fails is logged and skipped; the others still get the message.

After a Redis restart (``kondavo.channel_layer`` re-joins the process's groups and sends
``layer.rejoined``) the hub tells its subscribers (``hub_reconnected``) so they resync their
clients with what they may have missed. With a layer whose receive raises instead, the hub
waits with a growing pause, joins all its groups again itself and does the same.

There is one hub per event loop (each test has its own loop; Daphne has one).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any, Protocol

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

PLAYERS = 0
SPECTATORS = 1
# What kondavo.channel_layer sends to a channel whose groups it re-joined after Redis lost
# them (``rejoin_message_type`` in the layer's settings).
REJOINED = "layer.rejoined"


class Subscriber(Protocol):
    async def hub_message(self, message: dict[str, Any]) -> None: ...

    async def hub_reconnected(self) -> None: ...


class Hub:
    """One process's (one event loop's) subscriptions to channel-layer groups."""

    def __init__(self) -> None:
        self.layer: Any = get_channel_layer()
        self.channel: str | None = None
        self.groups: dict[str, tuple[dict[Subscriber, None], dict[Subscriber, None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.delivered = 0

    async def join(self, group: str, subscriber: Subscriber, rank: int = SPECTATORS) -> None:
        async with self._lock:
            if self.channel is None:
                # The layer's default prefix: channels_redis reads all of a process's
                # channels of one prefix through one list (another prefix would wait
                # behind the consumers' blocking reads).
                self.channel = await self.layer.new_channel()
            ranks = self.groups.get(group)
            if ranks is None:
                ranks = self.groups[group] = ({}, {})
                await self.layer.group_add(group, self.channel)
            ranks[1 - rank].pop(subscriber, None)
            ranks[rank][subscriber] = None
            if self._task is None or self._task.done():
                self._task = asyncio.get_running_loop().create_task(self._run())

    async def leave(self, group: str, subscriber: Subscriber) -> None:
        async with self._lock:
            ranks = self.groups.get(group)
            if ranks is None:
                return
            for members in ranks:
                members.pop(subscriber, None)
            if ranks[0] or ranks[1]:
                return
            del self.groups[group]
            if self.channel is not None:
                try:
                    await self.layer.group_discard(group, self.channel)
                except Exception:  # the layer is down: Redis forgets the group anyway
                    log.warning("hub: could not leave %s", group, exc_info=True)
            if not self.groups and self._task is not None:
                self._task.cancel()
                self._task = None

    def members(self, group: str) -> int:
        ranks = self.groups.get(group)
        return 0 if ranks is None else len(ranks[0]) + len(ranks[1])

    async def _run(self) -> None:
        pause = 0.1
        while True:
            try:
                assert self.channel is not None
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("hub: channel layer receive failed; retrying in %.1f s", pause,
                            exc_info=True)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 5.0)
                await self._rejoin()
                continue
            pause = 0.1
            if message.get("type") == REJOINED:  # the layer lost its data and re-joined
                await self._resync_all()
                continue
            await self.deliver(message)

    async def _rejoin(self) -> None:
        """Join every group again (the layer may have lost them) and tell the subscribers."""
        try:
            for group in list(self.groups):
                assert self.channel is not None
                await self.layer.group_add(group, self.channel)
        except Exception:
            log.warning("hub: could not join the groups again yet", exc_info=True)
            return
        await self._resync_all()

    async def _resync_all(self) -> None:
        for ranks in list(self.groups.values()):
            for members in ranks:
                for subscriber in list(members):
                    try:
                        await subscriber.hub_reconnected()
                    except Exception:
                        log.exception("hub: a subscriber failed to resync")

    async def deliver(self, message: dict[str, Any]) -> None:
        ranks = self.groups.get(str(message.get("group", "")))
        if ranks is None:
            return
        for members in ranks:
            for subscriber in list(members):
                try:
                    await subscriber.hub_message(message)
                except Exception:
                    log.exception("hub: a subscriber failed on %s", message.get("type"))
                self.delivered += 1


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None or found.layer is not get_channel_layer():
        found = _hubs[loop] = Hub()
    return found
