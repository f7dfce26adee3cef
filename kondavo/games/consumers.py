"""Thin websocket consumers for ``/ws/game/<id>/`` and ``/ws/lobby/`` (docs/protocol.md).

A consumer authenticates (session -> Player), checks the frame size before parsing,
rate-limits, dispatches each ``t`` to one handler that calls a service off the event loop,
and turns a ``GameError`` into an ``error`` frame. All logic is in services/selectors.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from kondavo.accounts.middleware import get_player_for_scope
from kondavo.accounts.models import Player
from kondavo.games import events, selectors, services
from kondavo.games.errors import GameError
from kondavo.games.events import LOBBY_GROUP, encode_frame, game_group, player_group
from kondavo.games.services import lobby
from kondavo.limits import MAX_FRAME_BYTES, ClientInputError, decode_frame
from kondavo.ratelimits import creation_limit

# Daphne (autobahn) sends only 1000 and 3000-4999: 4009 mirrors 1009 "message too big".
CLOSE_TOO_LARGE = 4009


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


class TokenBucket:
    """``rate`` tokens per second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


Handler = Callable[[dict[str, Any]], Awaitable[None]]


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
    """Frame checks and dispatch shared by both sockets."""

    player: Player | None = None
    version: int = 0
    _handler_table: dict[str, Handler] | None = None

    def handlers(self) -> dict[str, Handler]:
        raise NotImplementedError

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        events.bind_loop()  # service calls of this socket publish through this loop
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

    def make_bucket(self) -> TokenBucket:
        rate = float(getattr(settings, "KONDAVO_WS_RATE", 20))
        burst = float(getattr(settings, "KONDAVO_WS_BURST", 40))
        return TokenBucket(rate, burst)

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
        await self.send_json({"v": self.version if v is None else v, "t": t, "d": d})

    async def send_error(self, code: str, message: str) -> None:
        await self.send_frame("error", {"code": code, "message": message})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None,
                      **kwargs: Any) -> None:
        raw: str | bytes = text_data if text_data is not None else (bytes_data or b"")
        size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
        if size > MAX_FRAME_BYTES:  # an error frame, then a clean close
            await self.send_error("too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes")
            await self.close(code=CLOSE_TOO_LARGE)
            return
        if not self.bucket.take():
            await self.send_error("rate_limited", "too many frames: slow down")
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
        try:
            await handler(data)
        except GameError as exc:
            await self.send_error(exc.code, exc.message)

    async def do_ping(self, data: dict[str, Any]) -> None:
        await self.send_frame("pong", {})


class GameConsumer(_ProtocolConsumer):
    """``/ws/game/<id>/``: players and spectators of one game."""

    game_id: str = ""
    group: str = ""

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
            "join": self.do_join,
            "resync": self.do_resync,
            "flag": self.do_flag,
            "ping": self.do_ping,
        }

    async def connect(self) -> None:
        self.bucket = self.make_bucket()
        self.game_id = str(self.scope["url_route"]["kwargs"]["game_id"])[:12]
        self.group = game_group(self.game_id)
        self.player = await get_player_for_scope(self.scope)
        self.member = ""
        self.presence_sent: dict[str, Any] | None = None
        await self.accept()
        # Join the group before the state is read, so no event falls between the two.
        await self.channel_layer.group_add(self.group, self.channel_name)

        def opened() -> tuple[int, dict[str, Any]] | None:
            """One trip to the database: flag check, presence, then the state."""
            services.game_flag_if_expired(game_id=self.game_id)
            game = selectors.game_get(game_id=self.game_id)
            if game is None:
                return None
            self.member = services.presence_member(game=game, player=self.player,
                                                   socket_id=self.channel_name)
            presence = services.game_presence_open(game=game, member=self.member)
            return game.version, selectors.game_state(game, self.player, presence=presence)

        result = await db_call(opened)()
        if result is None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.send_error("not_found", "no such game")
            await self.close(code=4404)
            return
        self.version = result[0]
        self.presence_sent = _presence_key(result[1]["presence"])
        await self.send_frame("state", result[1])

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "member", ""):
            def closed() -> None:
                game = selectors.game_get(game_id=self.game_id)
                if game is not None:
                    services.game_presence_close(game=game, member=self.member)

            await db_call(closed)()

    def _state(self) -> tuple[int, dict[str, Any]] | None:
        game = selectors.game_get(game_id=self.game_id)
        if game is None:
            return None
        return game.version, selectors.game_state(game, self.player)

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
        way (an overloaded channel layer drops messages) shows up as a gap at the next
        ping, and the client resyncs. A presence change nobody announced (a socket that
        died without closing has expired) is sent to this socket before the ``pong``."""
        def beat() -> tuple[int, dict[str, Any]] | None:
            game = selectors.game_get(game_id=self.game_id)
            if game is None:
                return None
            return game.version, services.game_presence_heartbeat(game=game,
                                                                  member=self.member)

        result = await db_call(beat)()
        if result is None:
            await self.send_frame("pong", {})
            return
        version, presence = result
        if _presence_key(presence) != self.presence_sent:
            await self.game_presence({"presence": presence})
        await self.send_frame("pong", {}, v=version)

    async def do_resync(self, data: dict[str, Any]) -> None:
        _, result = await db_call(self._checked_state)()
        await self._send_state(result)

    async def do_flag(self, data: dict[str, Any]) -> None:
        """The client's display of the running clock reached zero: check it now. If the
        time is up, the ``end`` frame reaches every socket of the game (this one included)
        as an event; if not (the client's clock ran fast), this socket gets a fresh
        ``state`` with the server's clocks."""
        flagged, result = await db_call(self._checked_state)()
        if not flagged:
            await self._send_state(result)

    async def do_move(self, data: dict[str, Any]) -> None:
        if "ply" not in data or ("move" in data) == ("path" in data):
            raise GameError("bad_request", 'a move is {"ply": N, "move": "..."} or '
                                           '{"ply": N, "path": [...]}')
        if self.player is None:
            raise GameError("not_a_player", "you are not playing in this game")
        await db_call(services.game_play_move)(
            game_id=self.game_id, player=self.player, ply=data["ply"],
            move_text=data.get("move"), path=data.get("path"))

    async def do_takeback(self, data: dict[str, Any]) -> None:
        if "ply" not in data:
            raise GameError("bad_request", 'a takeback is {"ply": N}: the moves played')
        if self.player is None:
            raise GameError("not_a_player", "you are not playing in this game")
        await db_call(services.game_takeback)(
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

        await self._send_state(await db_call(joined)())

    def _action(self, service: Callable[..., Any]) -> Handler:
        async def handler(data: dict[str, Any]) -> None:
            if self.player is None:
                raise GameError("not_a_player", "you are not playing in this game")
            await db_call(service)(game_id=self.game_id, player=self.player)

        return handler

    # --- channel layer messages
    async def game_event(self, message: dict[str, Any]) -> None:
        for frame in message["frames"]:
            if frame["v"] <= self.version:
                continue  # already in the state this socket was sent
            self.version = frame["v"]
            text = frame.get("text")
            if text is None:  # a frame published as a plain dict
                text = encode_frame({k: v for k, v in frame.items() if k != "text"})
            await self.send(text_data=text)

    async def game_presence(self, message: dict[str, Any]) -> None:
        """A presence change (sent only if it changes what this socket last showed)."""
        key = _presence_key(message["presence"])
        if key == self.presence_sent:
            return
        self.presence_sent = key
        await self.send_frame("presence", message["presence"])


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
        self.bucket = self.make_bucket()
        self.my_seeks: set[int] = set()
        self.player = await get_player_for_scope(self.scope)
        self.groups_joined = [LOBBY_GROUP]
        if self.player is not None:
            self.groups_joined.append(player_group(self.player.pk))
        await self.accept()
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)

        def snapshot() -> tuple[int, list[dict[str, Any]]]:
            if self.player is not None:
                lobby.lobby_socket_seen(player=self.player, socket_id=self.channel_name)
            return selectors.lobby_version(), selectors.seeks_open()

        version, seeks = await database_sync_to_async(snapshot)()
        await self.lobby_seeks({"version": version, "seeks": seeks})

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.player is not None:  # the player's last lobby socket takes their seeks
            await database_sync_to_async(lobby.lobby_socket_closed)(
                player=self.player, socket_id=self.channel_name, own_seeks=self.my_seeks)

    async def do_ping(self, data: dict[str, Any]) -> None:
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
        client = self.scope.get("client") or ("unknown", 0)

        def create() -> Any:
            creation_limit(player_id=player.pk, ip=str(client[0]))  # 429-style rate limit
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

    # --- channel layer messages
    async def lobby_seeks(self, message: dict[str, Any]) -> None:
        version = int(message["version"])
        if version < self.version:
            return
        self.version = version
        player_id = self.player.pk if self.player is not None else None
        seeks = selectors.seeks_for_viewer(message["seeks"], player_id)
        await self.send_frame("seeks", {"seeks": seeks})

    async def lobby_frame(self, message: dict[str, Any]) -> None:
        await self.send_json(message["frame"])
