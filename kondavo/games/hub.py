"""Fan-out inside one Daphne process: one bus subscription per group per process.

Without it, every socket would subscribe to its groups itself, and a move to a game with a
thousand spectators would be a thousand messages through Redis. With it, each process's
``Hub`` subscribes to a group once (``kondavo.games.bus``), on behalf of all its sockets of
that group, receives each message once and hands it to its local sockets: the bus's cost of
a move grows with the number of Daphnes, not with the audience.

A subscriber is any object with ``async def hub_message(message)``; messages carry
``group`` (added by ``kondavo.games.events``). Within a group, subscribers of rank 0 (the
players of a game) are served before rank 1 (spectators), so a move reaches the two players
first. A subscriber that fails is logged and skipped; the others still get the message.

When the bus's connection was lost and is back (a Redis restart), the messages sent
meanwhile are lost to this process: the hub tells its subscribers (``hub_reconnected``) so
they resync their clients.

There is one hub per event loop (each test has its own loop; Daphne has one).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any, Protocol

from kondavo.games.bus import RECONNECTED, Bus, Subscription, bus

log = logging.getLogger(__name__)

PLAYERS = 0
SPECTATORS = 1


class Subscriber(Protocol):
    async def hub_message(self, message: dict[str, Any]) -> None: ...

    async def hub_reconnected(self) -> None: ...


class Hub:
    """One process's (one event loop's) subscriptions to bus groups."""

    def __init__(self) -> None:
        self.bus: Bus = bus()
        self.sub: Subscription | None = None
        self.groups: dict[str, tuple[dict[Subscriber, None], dict[Subscriber, None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._resyncing: set[asyncio.Task[None]] = set()
        self.delivered = 0
        # Per group: an id of its current subscription and how many messages (other than
        # presence) have been delivered since; the bus's reconnections (see ``stamp``).
        self._tokens: dict[str, int] = {}
        self._serials: dict[str, int] = {}
        self._next_token = 0
        self.generation = 0

    async def join(self, group: str, subscriber: Subscriber, rank: int = SPECTATORS) -> None:
        """Returns once the group's messages reach this subscriber."""
        if self.sub is None:
            self.sub = self.bus.subscribe()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(self.sub))
        ranks = self.groups.get(group)
        if ranks is None:
            ranks = self.groups[group] = ({}, {})
            self._next_token += 1
            self._tokens[group] = self._next_token
            self._serials[group] = 0
        ranks[1 - rank].pop(subscriber, None)
        ranks[rank][subscriber] = None
        await self.sub.add(group)  # at once when the group is subscribed already

    async def leave(self, group: str, subscriber: Subscriber) -> None:
        ranks = self.groups.get(group)
        if ranks is None:
            return
        for members in ranks:
            members.pop(subscriber, None)
        if ranks[0] or ranks[1]:
            return
        del self.groups[group]
        self._tokens.pop(group, None)
        self._serials.pop(group, None)
        if self.sub is not None:
            await self.sub.discard(group)

    def stamp(self, group: str) -> tuple[int, int, int] | None:
        """Changes whenever something may have happened to ``group`` that this process's
        sockets were told about (a message other than presence, a new subscription, a bus
        reconnection); None when the group is not subscribed here. Two equal stamps, taken
        while subscribed, mean nothing was delivered in between: what was read of the game
        after the first still holds (the cache of spectators' states in consumers.py)."""
        token = self._tokens.get(group)
        if token is None:
            return None
        return self.generation, token, self._serials.get(group, 0)

    def members(self, group: str) -> int:
        ranks = self.groups.get(group)
        return 0 if ranks is None else len(ranks[0]) + len(ranks[1])

    async def _run(self, sub: Subscription) -> None:
        while True:
            message = await sub.get()
            if message.get("type") == RECONNECTED:  # messages may have been lost meanwhile
                self.generation += 1
                await self._resync_all()
                continue
            await self.deliver(message)

    async def _resync_all(self) -> None:
        """Every subscriber resyncs its client, side by side: the hub goes on delivering
        meanwhile (a consumer holds what arrives during its own resync and sends it after)."""
        loop = asyncio.get_running_loop()
        for ranks in list(self.groups.values()):
            for members in ranks:
                for subscriber in list(members):
                    task = loop.create_task(self._resync(subscriber))
                    self._resyncing.add(task)
                    task.add_done_callback(self._resyncing.discard)

    @staticmethod
    async def _resync(subscriber: Subscriber) -> None:
        try:
            await subscriber.hub_reconnected()
        except Exception:
            log.exception("hub: a subscriber failed to resync")

    async def deliver(self, message: dict[str, Any]) -> None:
        group = str(message.get("group", ""))
        ranks = self.groups.get(group)
        if ranks is None:
            return
        if message.get("type") != "game.presence":
            self._serials[group] = self._serials.get(group, 0) + 1
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
    if found is None or found.bus is not bus():
        found = _hubs[loop] = Hub()
    return found
