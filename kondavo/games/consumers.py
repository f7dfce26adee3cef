"""Thin websocket consumers for ``/ws/game/<id>/`` and ``/ws/lobby/`` (docs/protocol.md).

A consumer admits the socket (``kondavo.games.discipline``: the owner's cool-down and the
socket caps shared by every Daphne; the per-address opening gate has already run, in front
of the whole websocket stack, ``ConnectGateMiddleware``), authenticates (session
-> Player), spends the socket's frame budget before looking at a frame (a junk frame costs
O(1) and never reaches the database or the bus), checks the frame's limits, dispatches
each ``t`` to one handler that calls a service off the event loop, and turns a
``GameError`` into an ``error`` frame. Group messages come through this process's
``kondavo.games.hub`` (no socket has a channel of its own: Channels' channel layer is not
used). All logic is in services/selectors.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from kondavo.accounts.middleware import player_for_scope_sync
from kondavo.accounts.models import Player
from kondavo.games import clock, discipline, events, hooks, selectors, services, wire
from kondavo.games.discipline import CLOSE_FLOOD, CLOSE_REFUSED, CLOSE_TOO_LARGE
from kondavo.games.errors import GameError
from kondavo.games.events import LOBBY_GROUP, game_group, player_group
from kondavo.games.heartbeats import heartbeats
from kondavo.games.hub import PLAYERS, SPECTATORS, hub
from kondavo.games.models import Game
from kondavo.games.services import lobby
from kondavo.limits import MAX_FRAME_BYTES, ClientInputError, decode_frame
from kondavo.outages import OUTAGE_ERRORS, outage_frame_error
from kondavo.ratelimits import creation_limit

log = logging.getLogger(__name__)
_T = TypeVar("_T")

__all__ = ["CLOSE_FLOOD", "CLOSE_REFUSED", "CLOSE_TOO_LARGE", "GameConsumer", "LobbyConsumer",
           "ProtocolConsumer"]


def _in_memory_sqlite() -> bool:
    db = settings.DATABASES["default"]
    return "sqlite" in db["ENGINE"] and str(db.get("NAME", "")) in (":memory:", "")


def db_call(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """``fn`` in a worker thread of the loop's pool, not on the one shared "sync" thread:
    a Daphne process then runs several game transactions at once. Safe because every write
    locks its game row (PostgreSQL ``select_for_update``; SQLite's IMMEDIATE transactions
    serialise writers), and each pool thread has its own connection (closed or kept per
    ``CONN_MAX_AGE`` around every call). An in-memory SQLite database exists only in the
    thread that made it, so there the calls stay on the shared thread."""
    return database_sync_to_async(fn, thread_sensitive=_in_memory_sqlite())


_play_pool: ThreadPoolExecutor | None = None
_openings: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary())


def opening_slot() -> asyncio.Semaphore:
    """At most ``KONDAVO_WS_OPENINGS`` sockets of this process are being admitted at once
    (player, caps, the first state; default 1): a crowd arriving together is let in one
    at a time, so the frames of the sockets already open are not stuck behind hundreds of
    admissions in the loop and the thread pool. An admission is mostly Python in a worker
    thread, and each such thread running at once takes an equal share of the interpreter
    lock from the event loop: in the crowd attack, 8 at once left the loop waiting tens of
    milliseconds at every step (bench/results/live.md, "Seventh round")."""
    return _of_this_loop(
        _openings, lambda: asyncio.Semaphore(max(1, int(settings.KONDAVO_WS_OPENINGS))))


def _of_this_loop(table: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _T],
                  make: Callable[[], _T]) -> _T:
    """The running loop's entry of ``table`` (made on first use): asyncio objects belong to
    one loop, and tests run several."""
    loop = asyncio.get_running_loop()
    found = table.get(loop)
    if found is None:
        found = table[loop] = make()
    return found


def play_call(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """As ``db_call``, for a seated player's action in a game (a move, a takeback, a draw
    offer, a flag): on threads of its own (``KONDAVO_PLAY_THREADS``), so it never queues
    behind a crowd's socket openings and closings on the loop's pool."""
    global _play_pool
    if _in_memory_sqlite():
        return db_call(fn)
    if _play_pool is None:
        _play_pool = ThreadPoolExecutor(max_workers=max(1, int(settings.KONDAVO_PLAY_THREADS)),
                                        thread_name_prefix="play")
    return database_sync_to_async(fn, thread_sensitive=False, executor=_play_pool)


def off_loop(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """``fn`` (no database) in a worker thread."""
    return sync_to_async(fn, thread_sensitive=False)


# What a closing socket leaves to do off the loop: release its caps, close its presence.
# It may return ``(game id, presence payload)``: the game's sockets are told once per batch.
CloseJob = Callable[[], "tuple[str, dict[str, Any]] | None"]


def run_close_jobs(jobs: list[CloseJob]) -> None:
    """A batch of closing sockets' jobs, in one worker thread. A failing job (Redis or
    PostgreSQL down) is logged and does not stop the others; each game's presence is
    published once, with the view after the batch's last closing in it."""
    presence: dict[str, dict[str, Any]] = {}
    for job in jobs:
        try:
            told = job()
        except Exception:
            log.warning("closing a socket: bookkeeping failed", exc_info=True)
            continue
        if told is not None:
            presence[told[0]] = told[1]
    for game_id, payload in presence.items():
        events.publish_presence(game_id, payload)


class Closings:
    """The bookkeeping of the sockets closing on one event loop, in batches: one
    worker-thread call for a burst of closings instead of one per socket. A crowd closing
    together (a popular game ends, a tournament round ends, an attacker drops 900 sockets)
    otherwise queues a thread call, its futures and its presence publish per socket on the
    loop, in front of the seated players' moves. A closing socket awaits its batch (its
    caps are released when ``disconnect`` returns, as before)."""

    MAX_BATCH = 500

    def __init__(self) -> None:
        self.pending: list[tuple[CloseJob, asyncio.Future[None]]] = []
        self.drainer: asyncio.Task[None] | None = None  # kept: a task is weakly held

    async def run(self, job: CloseJob) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self.pending.append((job, done))
        if self.drainer is None:
            self.drainer = loop.create_task(self._drain())
        await asyncio.shield(done)

    async def _drain(self) -> None:
        batch: list[tuple[CloseJob, asyncio.Future[None]]] = []
        try:
            await asyncio.sleep(0)  # the closings read in the same loop pass join this batch
            while self.pending:
                batch = self.pending[:self.MAX_BATCH]
                del self.pending[:self.MAX_BATCH]
                try:
                    await db_call(run_close_jobs)([job for job, _ in batch])
                except Exception:  # run_close_jobs catches its jobs' errors: a thread died
                    log.exception("closing sockets: the batch failed")
                self._settle(batch)
        finally:  # cancelled (the server stops): nobody waits for ever
            self._settle(batch)
            self._settle(self.pending)
            self.pending = []
            self.drainer = None

    @staticmethod
    def _settle(batch: list[tuple[CloseJob, asyncio.Future[None]]]) -> None:
        for _, done in batch:
            if not done.done():
                done.set_result(None)


_closings: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Closings] = (
    weakref.WeakKeyDictionary())


async def on_close(job: CloseJob) -> None:
    """Run ``job`` with the other closings of this loop's current burst (``Closings``)."""
    await _of_this_loop(_closings, Closings).run(job)


Handler = Callable[[dict[str, Any]], Awaitable[None]]
# How long a pong whose version is ahead of this socket's waits for the event on its way.
PONG_GRACE_SECONDS = 0.5


def _closed_errors() -> tuple[type[BaseException], ...]:
    """What Daphne raises when the application sends on a socket that has closed."""
    try:
        from autobahn.exception import Disconnected
    except ImportError:  # another ASGI server
        return ()
    return (Disconnected,)


_CLOSED_ERRORS = _closed_errors()


def _presence_key(presence: dict[str, Any]) -> dict[str, Any]:
    """What a presence change is (the payload without the server's time)."""
    return {k: v for k, v in presence.items() if k != "now"}


class _ProtocolConsumer(AsyncJsonWebsocketConsumer):
    """Admission, frame checks, dispatch and hub subscriptions shared by both sockets."""

    player: Player | None = None
    version: int = 0
    _handler_table: dict[str, Handler] | None = None
    registry_keys: list[str]
    hub_groups: list[str]
    closing = False
    admitted = False  # passed the gate and the caps (a refused socket cleans up nothing)
    # While the consumer handles something (connecting, a frame), group messages from the
    # hub wait in ``hub_pending`` and are sent after it, in order, as Channels would have:
    # a client never gets an event before the state it follows, nor a state older than an
    # event it already got.
    busy = True
    hub_pending: list[dict[str, Any]]
    hub_overflow = False
    MAX_PENDING = 1000
    # No channel layer: the hub delivers group messages (an alias that names no layer).
    channel_layer_alias = "kondavo-no-channel-layer"

    def handlers(self) -> dict[str, Handler]:
        raise NotImplementedError

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        events.bind_loop()  # service calls of this socket publish through this loop
        # This socket's id (caps registry, presence): unique across processes.
        self.channel_name = f"ws.{secrets.token_hex(10)}"
        await super().__call__(scope, receive, send)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As Channels' ``dispatch`` without its ``aclose_old_connections()`` before every
        message: that is a hop to the one shared "sync" thread per frame received and per
        group event. This event loop never touches the database itself; each
        ``database_sync_to_async`` call closes stale connections in its own thread."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        async with opening_slot():
            await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        """As Channels' without its ``aclose_old_connections()`` after ``disconnect``: a hop
        to the one shared "sync" thread per closing socket, all of a crowd's closings in
        one queue (the database calls close stale connections in their own threads, see
        ``dispatch``); and without its ``group_discard`` calls (no channel layer)."""
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def admit(self) -> bool:
        """Player, cool-down and caps (the opening gate came before: the socket is here
        because ``discipline.ConnectGateMiddleware`` let it in). False: the socket was
        refused (and closed)."""
        self.prepare()
        try:
            await db_call(self.admit_sync)()
        except discipline.Refused as exc:
            await self.refuse(exc)
            return False
        return True

    def prepare(self) -> None:
        """This socket's bookkeeping, on the event loop, before its admission."""
        self.registry_keys = []
        self.hub_groups = []
        self.hub_pending = []
        self.budget = discipline.FrameBudget()
        self.owner = discipline.owner_of(self.scope, None)

    def admit_sync(self) -> None:
        """The player behind the session and the caps, in the worker thread of the socket's
        first database call (one thread hop for the whole admission; the session's user is
        looked up here, see ``kondavo.accounts.middleware.LazyUserMiddleware``). Raises
        ``discipline.Refused``."""
        self.player = player_for_scope_sync(self.scope)
        self.owner = discipline.owner_of(self.scope, self.player.pk if self.player else None)
        self.registry_keys = discipline.socket_admit(self.owner, self.channel_name)
        self.registry_refreshed = time.monotonic()
        self.admitted = True

    async def refuse(self, exc: discipline.Refused) -> None:
        await self.accept()
        await self.send_error(exc.code, exc.message)
        await self.close(code=CLOSE_REFUSED)

    async def release(self) -> None:
        await self.leave_hub()
        keys, self.registry_keys = getattr(self, "registry_keys", []), []
        if keys:
            await on_close(partial(discipline.socket_release, keys, self.channel_name))

    async def leave_hub(self) -> None:
        for group in self.hub_groups:
            await hub().leave(group, self)
        self.hub_groups = []

    async def subscribe(self, group: str, rank: int = SPECTATORS) -> None:
        await hub().join(group, self, rank)
        if group not in self.hub_groups:
            self.hub_groups.append(group)

    async def heartbeat_registry(self) -> None:
        """Keep this socket's registry entries alive (every third of their ttl)."""
        if self.registry_keys and (time.monotonic() - self.registry_refreshed
                                   > discipline.refresh_every()):
            self.registry_refreshed = time.monotonic()
            await off_loop(discipline.socket_refresh)(self.registry_keys, self.channel_name)

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None,
                   close: bool = False) -> None:
        """As Channels' ``send``, but a frame for a socket the client has already closed is
        dropped (an answer racing the client's close is not an error of this consumer)."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except _CLOSED_ERRORS:
            pass

    async def send_json(self, content: Any, close: bool = False) -> None:
        try:
            await super().send_json(content, close=close)
        except _CLOSED_ERRORS:
            pass

    async def send_frame(self, t: str, d: dict[str, Any], v: int | None = None) -> None:
        await self.send_json(wire.frame(t, d, v=self.version if v is None else v))

    async def send_error(self, code: str, message: str) -> None:
        await self.send_frame("error", wire.error(code, message))

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """A frame; under Daphne its budget was spent in the protocol already
        (``discipline.guard_daphne``: the verdict travels with the message)."""
        if self.closing:
            return
        verdict = message.get(discipline.VERDICT_KEY)
        if verdict is None:  # not checked on the way in: spend the budget here, first
            verdict = self.budget.admit()
        if verdict != discipline.ACCEPT:
            if verdict == discipline.REFUSE:
                await self.send_error("rate_limited", "too many frames: slow down")
            elif verdict == discipline.FLOOD:
                self.closing = True
                # The cool-down first: a socket opened the moment this one closes is refused.
                await off_loop(discipline.cool_down)(self.owner)
                await self.send_error("flooding", "too many frames: this connection is closed")
                await self.close(code=CLOSE_FLOOD)
            return
        await self.receive(text_data=message.get("text"), bytes_data=message.get("bytes"))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None,
                      **kwargs: Any) -> None:
        raw: str | bytes = text_data if text_data is not None else (bytes_data or b"")
        size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
        if size > MAX_FRAME_BYTES:  # an error frame, then a clean close
            self.closing = True
            await self.send_error("too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
            await self.close(code=CLOSE_TOO_LARGE)
            return
        try:  # depth, numbers, strings and sizes checked before any work (kondavo.limits)
            frame = decode_frame(raw)
        except ClientInputError as exc:
            await self.send_error(exc.code, exc.message)
            return
        data = frame["d"]
        table = self._handler_table
        if table is None:  # built once per socket, not per frame
            table = self._handler_table = self.handlers()
        handler = table.get(frame["t"])
        if handler is None:
            await self.send_error("unknown_type", f"unknown frame type {frame['t'][:32]!r}")
            return
        self.busy = True
        try:
            await handler(data)
        except GameError as exc:
            await self.send_error(exc.code, exc.message)
        except OUTAGE_ERRORS:  # PostgreSQL or Redis is down: nothing changed, the socket stays
            await self.send_error(*outage_frame_error())
        finally:
            await self.done_handling()

    async def do_ping(self, data: dict[str, Any]) -> None:
        await self.heartbeat_registry()
        await self.send_frame("pong", {})

    async def hub_message(self, message: dict[str, Any]) -> None:
        """A group message from this process's hub: as if it came through the layer."""
        if self.busy:
            if len(self.hub_pending) >= self.MAX_PENDING:  # resync when done instead
                self.hub_pending.clear()
                self.hub_overflow = True
            self.hub_pending.append(message)
            return
        await self.dispatch(message)

    async def done_handling(self) -> None:
        """Send the group messages that arrived meanwhile, then take new ones directly."""
        while self.hub_pending:
            await self.dispatch(self.hub_pending.pop(0))
        if self.hub_overflow:
            self.hub_overflow = False
            await self.resync_client()
        self.busy = False

    async def hub_reconnected(self) -> None:
        """The bus came back (messages may have been lost): resync the client
        (now, or when the consumer is done with what it is handling)."""
        if self.busy:
            self.hub_overflow = True
            return
        self.busy = True
        try:
            await self.resync_client()
        except GameError:
            pass
        finally:
            await self.done_handling()

    async def resync_client(self) -> None:
        """Send the client the whole current state."""


# The base of every socket of the site (the notification socket too): admission, frame
# budget, frame checks, dispatch and hub subscriptions.
ProtocolConsumer = _ProtocolConsumer


class _SpectatorStates:
    """The last state built for an anonymous spectator of each game in this process, with
    the hub's stamp of the game's group taken before the game was read. Every anonymous
    spectator gets the same state but for presence and the clocks, so while the stamp has
    not changed (nothing delivered to the group since), a socket opening is sent that state
    with its own presence and clocks: a crowd arriving at a game costs one read of the game
    per move played meanwhile, not one per socket. A game whose clock has run out is read
    again (its flag is checked). Safe for the reason reading the database after subscribing
    is: the socket is subscribed before the stamp is compared, so whatever happens after the
    cached read reaches it as an event (events it already has are skipped by version)."""

    MAX = 5000

    def __init__(self) -> None:
        self._states: dict[str, tuple[tuple[int, int, int], Game, dict[str, Any]]] = {}

    def get(self, game_id: str, stamp: tuple[int, int, int]
            ) -> tuple[Game, dict[str, Any]] | None:
        found = self._states.get(game_id)
        if found is None or found[0] != stamp:
            return None
        game = found[1]
        if game.flag_at is not None and game.flag_at <= clock.now():
            return None
        return game, found[2]

    def put(self, game_id: str, stamp: tuple[int, int, int], game: Game,
            state: dict[str, Any]) -> None:
        if len(self._states) >= self.MAX:
            self._states.clear()
        self._states[game_id] = (stamp, copy.copy(game), dict(state))


_spectator_states = _SpectatorStates()


class GameConsumer(_ProtocolConsumer):
    """``/ws/game/<id>/``: players and spectators of one game."""

    game_id: str = ""
    group: str = ""
    game_seen: Game | None = None  # the game as last read whole (seats, for presence)
    ping_tasks: set[asyncio.Task[None]] | None = None  # heartbeats being answered

    def handlers(self) -> dict[str, Handler]:
        return {
            "move": self.do_move,
            "resign": self._action(services.game_resign),
            "draw_offer": self._action(services.game_offer_draw),
            "draw_accept": self._action(services.game_accept_draw),
            "draw_decline": self._action(services.game_decline_draw),
            "abort": self._action(services.game_abort),
            "rematch": self._action(services.game_rematch),
            "claim_victory": self._action(services.game_claim_victory),
            "claim_draw": self._action(services.game_claim_draw),
            "takeback": self.do_takeback,
            "takeback_offer": self._ply_action(services.game_takeback_offer),
            "takeback_accept": self._ply_action(services.game_takeback_accept),
            "takeback_decline": self._ply_action(services.game_takeback_decline, False),
            "join": self.do_join,
            "resync": self.do_resync,
            "flag": self.do_flag,
            "ping": self.do_ping,
            **{t: self._chat(t) for t in ("chat", "chat_mute", "chat_report", "chat_remove")},
        }

    async def connect(self) -> None:
        """Subscribe, then ONE worker-thread call: player, caps, the
        game (or an anonymous spectator's cached state) and presence. A crowd opening
        sockets costs each socket one thread hop, not four."""
        self.game_id = str(self.scope["url_route"]["kwargs"]["game_id"])[:12]
        self.group = game_group(self.game_id)
        self.member = ""
        self.presence_sent: dict[str, Any] | None = None
        self.prepare()
        # Subscribe before the state is read, so no event falls between the two (as a
        # spectator: moved up to the players' rank once the seat is known).
        await self.subscribe(self.group)
        stamp = hub().stamp(self.group)
        try:
            result = await db_call(self.opened)(stamp)
        except discipline.Refused as exc:
            await self.leave_hub()
            await self.refuse(exc)
            return
        await self.accept()
        if result is None:
            await self.release()
            await self.send_error("not_found", "no such game")
            await self.close(code=4404)
            return
        version, state, seated = result
        if seated:
            await self.subscribe(self.group, PLAYERS)
            discipline.prioritize_socket(self.scope)
        self.version = version
        self.presence_sent = _presence_key(state["presence"])
        await self.send_frame("state", state)
        await self.done_handling()

    def opened(self, stamp: tuple[int, int, int] | None
               ) -> tuple[int, dict[str, Any], bool] | None:
        """Admission, then one read of the game (flagged first if its clock has run out),
        presence and the state; an anonymous spectator gets the state another one was just
        sent while the hub's stamp of the game is unchanged (``_SpectatorStates``): only
        presence and the clocks are its own."""
        self.admit_sync()
        cached = (_spectator_states.get(self.game_id, stamp)
                  if self.player is None and stamp is not None else None)
        if cached is not None:
            game, base = copy.copy(cached[0]), cached[1]
            self.member = services.presence_member(game=game, player=None,
                                                   socket_id=self.channel_name)
            presence = services.game_presence_open(game=game, member=self.member)
            self.game_seen = game
            state = {**base, "presence": presence,
                     "clocks": wire.clocks_payload(game, clock.now())}
            return game.version, state, False
        found = selectors.game_get(game_id=self.game_id)
        if found is None:
            return None
        game = found
        if (game.status == Game.Status.ACTIVE and game.flag_at is not None
                and game.flag_at <= clock.now()
                and services.game_flag_if_expired(game_id=self.game_id)):
            found = selectors.game_get(game_id=self.game_id)
            if found is None:
                return None
            game = found
        self.member = services.presence_member(game=game, player=self.player,
                                               socket_id=self.channel_name)
        presence = services.game_presence_open(game=game, member=self.member)
        state = wire.game_state(game, self.player, presence=presence)
        self.game_seen = game
        if self.player is None and stamp is not None:
            _spectator_states.put(self.game_id, stamp, game, state)
        return game.version, state, game.side_of(self.player) is not None

    async def disconnect(self, code: int) -> None:
        """Leave the hub, then one worker-thread call: the caps' registry and presence."""
        for task in list(self.ping_tasks or ()):
            task.cancel()
        await self.leave_hub()
        keys, self.registry_keys = getattr(self, "registry_keys", []), []
        member, seen = getattr(self, "member", ""), self.game_seen
        if not keys and not member:
            return

        socket_id, game_id = self.channel_name, self.game_id

        def closed() -> tuple[str, dict[str, Any]] | None:
            discipline.socket_release(keys, socket_id)
            if not member:
                return None
            # The seats cannot have changed since the game was read unless it was
            # still waiting for a player; presence needs nothing else of it.
            game = seen
            if game is None or game.status == Game.Status.WAITING:
                game = selectors.game_get(game_id=game_id)
            if game is None:
                return None
            payload = services.game_presence_close(game=game, member=member, publish=False)
            return (game_id, payload) if payload is not None else None

        await on_close(closed)

    def _state(self) -> tuple[int, dict[str, Any]] | None:
        game = selectors.game_get(game_id=self.game_id)
        if game is None:
            return None
        return game.version, wire.game_state(game, self.player)

    def _checked_state(self) -> tuple[bool, tuple[int, dict[str, Any]] | None]:
        """Flag an expired clock first (its ``end`` frame goes to the whole group), then
        read the state: whether this call flagged the game, and the state."""
        flagged = services.game_flag_if_expired(game_id=self.game_id)
        return flagged, self._state()

    async def _send_state(self, result: tuple[int, dict[str, Any]] | None) -> None:
        if result is None:
            raise GameError("not_found", "no such game")
        self.version = result[0]
        await self.send_frame("state", result[1])

    async def do_ping(self, data: dict[str, Any]) -> None:
        """The heartbeat: this socket counts as present for another ttl. ``pong`` carries
        the game's version as the database has it, not this socket's: an event lost on the
        way (a bus connection lost for a moment) shows up as a gap at the next
        ping, and the client resyncs. A presence change nobody announced (a socket that
        died without closing has expired) is sent to this socket before the ``pong``.

        The ping is answered with the other pings of this process in the same fraction of
        a second (``kondavo.games.heartbeats``), by a task of its own: the socket goes on
        taking frames and events meanwhile (a move sent just after a ping does not wait for
        the batch); every ping gets its pong (the frame budget bounds how many wait)."""
        await self.heartbeat_registry()
        if self.ping_tasks is None:
            self.ping_tasks = set()
        task = asyncio.get_running_loop().create_task(self._answer_ping())
        self.ping_tasks.add(task)
        task.add_done_callback(self.ping_tasks.discard)

    async def _answer_ping(self) -> None:
        try:
            result = await heartbeats(db_call).beat(self.game_id, self.member, self.game_seen)
            if result is None:
                await self.send_frame("pong", {})
                return
            version, presence, self.game_seen = result
            if version > self.version:
                # The event may still be on its way to this socket (the database was read
                # after its commit): give it a moment, so the client resyncs only for an
                # event that was really lost.
                await asyncio.sleep(PONG_GRACE_SECONDS)
            if _presence_key(presence) != self.presence_sent:
                await self.game_presence({"presence": presence})
            await self.send_frame("pong", {}, v=version)
        except GameError as exc:
            await self.send_error(exc.code, exc.message)
        except OUTAGE_ERRORS:  # PostgreSQL or Redis is down: answered as any frame is
            await self.send_error(*outage_frame_error())

    async def do_resync(self, data: dict[str, Any]) -> None:
        _, result = await db_call(self._checked_state)()
        await self._send_state(result)

    async def resync_client(self) -> None:
        await self.do_resync({})

    async def do_flag(self, data: dict[str, Any]) -> None:
        """The client's display of the running clock reached zero: check it now. If the
        time is up, the ``end`` frame reaches every socket of the game (this one included)
        as an event; if not (the client's clock ran fast), this socket gets a fresh
        ``state`` with the server's clocks."""
        flagged, result = await play_call(self._checked_state)()
        if not flagged:
            await self._send_state(result)

    async def do_move(self, data: dict[str, Any]) -> None:
        if "ply" not in data or ("move" in data) == ("path" in data):
            raise GameError("bad_request", 'a move is {"ply": N, "move": "..."} or '
                                           '{"ply": N, "path": [...]}')
        if self.player is None:
            raise GameError("not_a_player", "you are not playing in this game")
        await play_call(services.game_play_move)(
            game_id=self.game_id, player=self.player, ply=data["ply"],
            move_text=data.get("move"), path=data.get("path"))

    async def do_takeback(self, data: dict[str, Any]) -> None:
        if "ply" not in data:
            raise GameError("bad_request", 'a takeback is {"ply": N}: the moves played')
        if self.player is None:
            raise GameError("not_a_player", "you are not playing in this game")
        await play_call(services.game_takeback)(
            game_id=self.game_id, player=self.player, ply=data["ply"])

    async def do_join(self, data: dict[str, Any]) -> None:
        """The invited person's explicit "join": take the open seat, then get the state as
        a seated player (opening the game never takes a seat)."""
        if self.player is None:
            raise GameError("not_a_player", "press Join on the game page to get a seat")
        player = self.player

        def joined() -> tuple[int, dict[str, Any]] | None:
            game = services.game_join(game_id=self.game_id, player=player)
            member = services.presence_member(game=game, player=player,
                                              socket_id=self.channel_name)
            if member != self.member:  # this socket now counts at its seat, not as a spectator
                if self.member:
                    services.game_presence_close(game=game, member=self.member)
                self.member = member
                services.game_presence_open(game=game, member=member)
            return self._state()

        result = await db_call(joined)()
        await self.subscribe(self.group, PLAYERS)
        await self._send_state(result)

    def _chat(self, t: str) -> Handler:
        """A ``chat*`` frame: the chat app's service (``hooks.chat_frame``) answers."""
        async def handler(data: dict[str, Any]) -> None:
            reply = await db_call(hooks.chat_frame)(game_id=self.game_id, player=self.player,
                                                    address=self.owner.address, t=t, data=data)
            if reply is not None:
                await self.send_frame(reply["t"], reply["d"])

        return handler

    def _action(self, service: Callable[..., Any]) -> Handler:
        async def handler(data: dict[str, Any]) -> None:
            if self.player is None:
                raise GameError("not_a_player", "you are not playing in this game")
            await play_call(service)(game_id=self.game_id, player=self.player)

        return handler

    def _ply_action(self, service: Callable[..., Any], needs_ply: bool = True) -> Handler:
        """A player's action naming the ply the board shows (``{"ply": N}``)."""
        async def handler(data: dict[str, Any]) -> None:
            if needs_ply and "ply" not in data:
                raise GameError("bad_request", 'this frame is {"ply": N}: the moves played')
            if self.player is None:
                raise GameError("not_a_player", "you are not playing in this game")
            await play_call(service)(game_id=self.game_id, player=self.player,
                                     ply=data.get("ply"))

        return handler

    # --- bus messages (through the hub)
    async def game_event(self, message: dict[str, Any]) -> None:
        for frame in message["frames"]:
            if frame["v"] <= self.version:
                continue  # already in the state this socket was sent
            self.version = frame["v"]
            text = frame.get("text")
            if text is None:  # a frame published as a plain dict
                text = wire.encode_frame({k: v for k, v in frame.items() if k != "text"})
            await self.send(text_data=text)

    async def chat_frame(self, message: dict[str, Any]) -> None:
        """A chat line or removal: sent if this socket's audience may read it."""
        frame = wire.chat_for_socket(message, self.player.pk if self.player else None,
                                     self.version)
        if frame is not None:
            await self.send_json(frame)

    async def game_presence(self, message: dict[str, Any]) -> None:
        """A presence change (sent only if it changes what this socket last showed). The
        hub hands every socket of the game the same message: its key and its encoded frame
        (one per socket version, mostly one) are made once and kept in it."""
        key = message.get("_key")
        if key is None:
            key = message["_key"] = _presence_key(message["presence"])
        if key == self.presence_sent:
            return
        self.presence_sent = key
        texts = message.setdefault("_texts", {})
        text = texts.get(self.version)
        if text is None:
            text = texts[self.version] = wire.encode_frame(
                wire.frame("presence", message["presence"], v=self.version))
        await self.send(text_data=text)


class LobbyConsumer(_ProtocolConsumer):
    """``/ws/lobby/``: the open seeks, and "your game starts" notifications."""

    def handlers(self) -> dict[str, Handler]:
        return {
            "seek": self.do_seek,
            "cancel": self.do_cancel,
            "accept": self.do_accept,
            "ping": self.do_ping,
        }

    async def connect(self) -> None:
        self.my_seeks: set[int] = set()
        if not await self.admit():
            return
        await self.accept()
        await self.subscribe(LOBBY_GROUP)
        if self.player is not None:
            await self.subscribe(player_group(self.player.pk), PLAYERS)
        await self.send_snapshot()
        await self.done_handling()

    async def send_snapshot(self) -> None:
        def snapshot() -> tuple[int, list[dict[str, Any]]]:
            if self.player is not None:
                lobby.lobby_socket_seen(player=self.player, socket_id=self.channel_name)
            return lobby.lobby_snapshot()

        version, seeks = await database_sync_to_async(snapshot)()
        await self.lobby_seeks({"version": version, "seeks": seeks})

    async def resync_client(self) -> None:
        await self.send_snapshot()

    async def disconnect(self, code: int) -> None:
        await self.release()
        if self.admitted and self.player is not None:  # the last lobby socket takes the seeks
            await database_sync_to_async(lobby.lobby_socket_closed)(
                player=self.player, socket_id=self.channel_name,
                own_seeks=getattr(self, "my_seeks", set()))

    async def do_ping(self, data: dict[str, Any]) -> None:
        await self.heartbeat_registry()
        if self.player is not None:
            await database_sync_to_async(lobby.lobby_socket_seen)(
                player=self.player, socket_id=self.channel_name)
        await self.send_frame("pong", {})

    def _need_player(self) -> Player:
        if self.player is None:
            raise GameError("not_a_player", "open a page first to get a guest identity")
        return self.player

    async def do_seek(self, data: dict[str, Any]) -> None:
        player = self._need_player()
        variant, tc = data.get("variant"), data.get("time_control")
        if not isinstance(variant, str) or not isinstance(tc, str):
            raise GameError("bad_request", 'a seek is {"variant": key, "time_control": "5+3"}')
        address = self.owner.address

        def create() -> Any:
            creation_limit(player_id=player.pk, ip=address)  # 429-style rate limit
            return services.seek_create(player=player, ruleset=variant, time_control=tc,
                                        rated=bool(data.get("rated")),
                                        color=str(data.get("color") or "random"))

        seek = await database_sync_to_async(create)()
        self.my_seeks.add(seek.pk)

    async def do_cancel(self, data: dict[str, Any]) -> None:
        player = self._need_player()
        await database_sync_to_async(services.seek_cancel)(seek_id=data.get("id"),
                                                          player=player)

    async def do_accept(self, data: dict[str, Any]) -> None:
        player = self._need_player()
        await database_sync_to_async(services.seek_accept)(seek_id=data.get("id"),
                                                          player=player)

    # --- bus messages (through the hub)
    async def lobby_seeks(self, message: dict[str, Any]) -> None:
        version = int(message["version"])
        if version < self.version:
            return
        self.version = version
        lobby.remember_snapshot(version, message["seeks"])
        player_id = self.player.pk if self.player is not None else None
        await self.send_frame("seeks", wire.seeks_payload(message["seeks"], player_id))

    async def lobby_frame(self, message: dict[str, Any]) -> None:
        await self.send_json(message["frame"])
