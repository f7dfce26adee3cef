"""Heartbeats of game sockets, answered in batches.

Every game socket pings every few seconds (the game page: 5 s): its presence is kept alive
and its ``pong`` carries the game's version as the database has it (a client behind it has
missed an event and resyncs). Answered one by one, each ping cost a worker-thread hop, a
database read and a presence round trip: with 2,000 sockets, 400 of each a second, more of
a Daphne's CPU than the moves themselves. Here the pings that arrive within ``interval``
seconds (``KONDAVO_HEARTBEAT_BATCH_SECONDS``, 0.25) on one event loop are answered
together: one worker-thread call, one read of all their games' versions
(``selectors.games_version_status``) and one presence pipeline
(``services.game_heartbeats``). A pong is then up to ``interval`` later; nothing else
changes (each ping still refreshes its socket's presence and is checked against the
database). One batcher per event loop, as the hub.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from django.conf import settings

from kondavo.games import services
from kondavo.games.models import Game
from kondavo.games.services.presence import Beat

Answer = tuple[int, dict[str, Any], Game] | None
MAX_BATCH = 2000  # beats per worker-thread call (more wait for the next one)


def interval() -> float:
    return float(getattr(settings, "KONDAVO_HEARTBEAT_BATCH_SECONDS", 0.25))


class Heartbeats:
    """The pending heartbeats of one event loop and the task that answers them."""

    def __init__(self, call: Any) -> None:
        self._call = call  # runs a sync function off the loop (the consumers' ``db_call``)
        self._pending: list[tuple[Beat, asyncio.Future[Answer]]] = []
        self._task: asyncio.Task[None] | None = None

    async def beat(self, game_id: str, member: str, seen: Game | None) -> Answer:
        """This socket's heartbeat: the game's version, the presence after the refresh and
        the game, or None when the game does not exist. Raises what the batch raised
        (the database unreachable, say) so the caller answers as it did alone."""
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending.append(((game_id, member, seen), future))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return await future

    async def _run(self) -> None:
        while self._pending:
            await asyncio.sleep(interval())
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                answers = await self._call(services.game_heartbeats)(
                    [beat for beat, _ in batch])
            except Exception as exc:  # every waiting socket answers as it would have alone
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), answer in zip(batch, answers, strict=True):
                if not future.done():
                    future.set_result(answer)


_batchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Heartbeats] = (
    weakref.WeakKeyDictionary())


def heartbeats(call: Any) -> Heartbeats:
    """The batcher of the running event loop."""
    loop = asyncio.get_running_loop()
    found = _batchers.get(loop)
    if found is None:
        found = _batchers[loop] = Heartbeats(call)
    return found
