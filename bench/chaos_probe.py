"""The latency probe of the chaos lab: live friend games between scripted guests.

Each probe game has two seated guests, each from its own loopback address (so per-address
limits see 40 ordinary visitors) and each on its own websocket, on different servers when
there are several. A side to move thinks 0.5-1.0 s and plays a random legal move; like the
game page it pings every 5 s, resyncs when a ``move`` skips a version or a ``pong`` shows a
newer one, and after any close reconnects (to the next server) and resyncs. A finished game
is replaced by a new one between the same two guests.

Every move sent is a ``ProbeMove`` tagged with the phase running when it was sent; the
mover's confirmation (its own ``move`` frame, or a ``state`` holding it) and its arrival at
the opponent (a ``move`` frame or a ``state``) are timed from the send. ``summary(phase)``
gives sent / arrived / refused (answered with an error frame) / lost (sent, not refused and
never seen by the opponent), latency percentiles, and the closes and error frames the probe
sockets got during the phase.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import websockets
from load import Http

HEARTBEAT = 5.0  # the game page's ping period (heartbeat_ms)
PENDING_GIVE_UP = 15.0  # a move neither confirmed nor refused this long: play on
OVER_DRAIN = 30.0  # after the other side saw the game end, this side reads on this long


def probe_address(i: int) -> str:
    return f"127.10.{i // 250}.{i % 250 + 1}"


@dataclass
class ProbeMove:
    game: str
    ply: int
    text: str
    phase: str
    sent: float
    confirmed: float | None = None
    arrived: float | None = None
    refused: str | None = None
    given_up: bool = False  # the probe stopped waiting for its answer
    late: str | None = None  # the answer that came after that (an error code, or "move")
    late_after: float | None = None  # seconds from sending to that late answer


@dataclass
class Events:
    """Closes and error frames seen by the probe sockets, per phase."""

    closes: dict[str, Counter[int]] = field(default_factory=dict)
    errors: dict[str, Counter[str]] = field(default_factory=dict)
    arrivals: list[tuple[float, str]] = field(default_factory=list)  # (time, game)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))] * 1000


class Probe:
    def __init__(self, urls: list[str], games: int = 20, think: tuple[float, float] = (0.5, 1.0),
                 seed: int = 1) -> None:
        self.urls, self.count, self.think = urls, games, think
        self.rng = random.Random(seed)
        self.phase = "setup"
        self.moves: dict[tuple[str, int], list[ProbeMove]] = {}
        self.all_moves: list[ProbeMove] = []
        self.events = Events()
        self.stop = asyncio.Event()
        self.game_ids: list[str] = []
        self._tasks: list[asyncio.Future[Any]] = []

    # ------------------------------------------------------------------ running

    async def start(self) -> None:
        """Create the games (over HTTP, as the site does) and start playing."""
        loop = asyncio.get_running_loop()
        slots = []
        for i in range(self.count):
            base = self.urls[i % len(self.urls)]
            white = Http(base, source=probe_address(2 * i))
            black = Http(base, source=probe_address(2 * i + 1))
            slots.append((i, white, black))
        firsts = await asyncio.gather(*(loop.run_in_executor(None, self._new_game, w, b)
                                        for _, w, b in slots))
        self.game_ids = list(firsts)
        self._tasks = [asyncio.ensure_future(self._slot(i, w, b, g))
                       for (i, w, b), g in zip(slots, firsts, strict=True)]

    async def warm_up(self, timeout: float = 30.0) -> None:
        """Until a move has arrived in every probe game (sockets open, first moves made)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len({g for _, g in self.events.arrivals}) >= len(self.game_ids):
                return
            await asyncio.sleep(0.2)

    async def close(self) -> None:
        self.stop.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    def _new_game(white: Http, black: Http) -> str:
        game = white.post_json("/games/new/friend", {"ruleset": "international",
                                                     "color": "white",
                                                     "time_control": "untimed"})
        black.post_json(f"/games/{game['id']}/join", {})
        return str(game["id"])

    async def _slot(self, i: int, white: Http, black: Http, game_id: str) -> None:
        loop = asyncio.get_running_loop()
        while not self.stop.is_set():
            over = asyncio.Event()
            await asyncio.gather(
                self._side(game_id, "white", white, i, over),
                self._side(game_id, "black", black, i + 1, over))
            if self.stop.is_set():
                return
            for _ in range(20):  # a new game between the same two guests
                try:
                    game_id = await loop.run_in_executor(None, self._new_game, white, black)
                    break
                except Exception:
                    await asyncio.sleep(1)
            else:
                return

    def _close(self, code: int) -> None:
        self.events.closes.setdefault(self.phase, Counter())[code] += 1

    async def _side(self, game_id: str, side: str, web: Http, index: int,
                    over: asyncio.Event) -> None:
        state = {"v": -1, "moves": [], "pending": None}
        while not self.stop.is_set() and not over.is_set():
            base = self.urls[index % len(self.urls)]
            url = base.replace("http://", "ws://") + f"/ws/game/{game_id}/"
            try:
                async with websockets.connect(
                        url, origin=base, open_timeout=10, max_queue=None,
                        additional_headers={"Cookie": web.cookie()},
                        local_addr=(web.source, 0)) as ws:
                    await self._session(ws, game_id, side, state, over)
                    return
            except websockets.ConnectionClosed as exc:
                self._close(exc.rcvd.code if exc.rcvd is not None else 1006)
            except websockets.InvalidStatus as exc:
                self._close(exc.response.status_code)
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                self._close(0)
            index += 1
            await asyncio.sleep(0.3)

    @staticmethod
    def _late(st: dict[str, Any], code: str) -> None:
        """An error frame with no move pending: the answer to the move given up on, if any
        (a move answered only after ``PENDING_GIVE_UP`` still counts as lost)."""
        m = st.get("given_up")
        if m is not None and m.late is None:
            m.late, m.late_after = code, time.perf_counter() - m.sent
            st["given_up"] = None

    def _seen(self, game_id: str, side: str, moves: list[str], start: int = 0) -> None:
        now = time.perf_counter()
        for ply in range(start, len(moves)):
            m = next((m for m in self.moves.get((game_id, ply), ()) if m.text == moves[ply]),
                     None)
            if m is None:
                continue
            mover = "white" if ply % 2 == 0 else "black"
            if side == mover and m.confirmed is None:
                m.confirmed = now
                if m.given_up and m.late is None:
                    m.late, m.late_after = "move", now - m.sent
            elif side != mover and m.arrived is None:
                m.arrived = now
                self.events.arrivals.append((now, game_id))

    async def _session(self, ws: Any, game_id: str, side: str, st: dict[str, Any],
                       over: asyncio.Event) -> None:
        rng = random.Random(self.rng.random())
        last_ping = time.monotonic()
        move_at: float | None = None
        legal: list[dict[str, Any]] = []
        ply, turn = 0, ""
        over_since: float | None = None
        while not self.stop.is_set():
            now = time.monotonic()
            if over.is_set():  # the other side saw the end: read what is still on the way
                over_since = over_since or now
                if now - over_since > OVER_DRAIN:
                    return
            if now - last_ping >= HEARTBEAT:
                await ws.send('{"t":"ping"}')
                last_ping = now
            pending = st["pending"]
            if pending is not None and time.perf_counter() - pending.sent > PENDING_GIVE_UP:
                pending.given_up = True
                st["given_up"] = pending
                st["pending"] = None  # never answered: play on (it counts as lost if so)
                await ws.send('{"t":"resync"}')
            if (move_at is not None and now >= move_at and st["pending"] is None and legal
                    and not over.is_set()):
                move_at = None
                text = rng.choice(legal)["notation"]
                m = ProbeMove(game_id, ply, text, self.phase, time.perf_counter())
                self.moves.setdefault((game_id, ply), []).append(m)
                self.all_moves.append(m)
                st["pending"] = m
                await ws.send(json.dumps({"t": "move", "d": {"ply": ply, "move": text}}))
            wait = 0.05 if move_at is not None else 0.25
            try:
                frame = json.loads(await asyncio.wait_for(ws.recv(), wait))
            except TimeoutError:
                continue
            t, d, v = frame.get("t"), frame.get("d") or {}, frame.get("v")
            if t == "state":
                st["v"], st["moves"] = v, list(d.get("moves") or [])
                self._seen(game_id, side, st["moves"])
                if st["pending"] is not None and st["pending"].ply < len(st["moves"]):
                    st["pending"] = None  # in the game now (or another move is)
                if d.get("status") in ("finished", "aborted"):
                    over.set()
                    return
                legal, ply, turn = d.get("legal") or [], int(d.get("ply") or 0), d.get("turn")
            elif t == "move":
                if isinstance(v, int) and v <= st["v"]:
                    continue
                if v != st["v"] + 1 or d.get("ply") != len(st["moves"]) + 1:
                    await ws.send('{"t":"resync"}')
                    continue
                st["v"] = v
                st["moves"].append(d["notation"])
                self._seen(game_id, side, st["moves"], len(st["moves"]) - 1)
                if st["pending"] is not None and st["pending"].ply < d["ply"]:
                    st["pending"] = None
                legal, ply, turn = d.get("legal") or [], int(d["ply"]), d.get("turn")
            elif t == "end":
                over.set()
                return
            elif t == "pong":
                if isinstance(v, int) and v > st["v"]:
                    await ws.send('{"t":"resync"}')
                continue
            elif t == "error":
                code = str(d.get("code"))
                self.events.errors.setdefault(self.phase, Counter())[code] += 1
                if st["pending"] is not None:
                    st["pending"].refused = code
                    st["pending"] = None
                else:
                    self._late(st, code)
                await ws.send('{"t":"resync"}')
                continue
            else:
                if isinstance(v, int) and v > st["v"] and t not in ("presence",):
                    st["v"] = v  # draw offers, players: nothing to play
                continue
            if turn == side and legal:
                if st["pending"] is None and move_at is None:
                    move_at = time.monotonic() + rng.uniform(*self.think)
            else:
                move_at = None

    # ------------------------------------------------------------------ figures

    def recent_p50(self, seconds: float) -> float:
        """p50 (ms) of the moves that arrived in the last ``seconds``; NaN if none."""
        since = time.perf_counter() - seconds
        return pct([m.arrived - m.sent for m in self.all_moves
                    if m.arrived is not None and m.arrived >= since], 0.5)

    def lost(self, phases: list[str]) -> tuple[int, int]:
        """Moves sent in these phases, not refused, never seen by the opponent: (all of them,
        those the mover saw confirmed: stored but never delivered to the opponent)."""
        lost = [m for m in self.all_moves
                if m.phase in phases and m.refused is None and m.arrived is None]
        return len(lost), sum(m.confirmed is not None for m in lost)

    def late(self, phases: list[str]) -> list[tuple[str, float]]:
        """The lost moves of these phases that were answered after the probe gave up on
        them: (the answer, seconds from sending)."""
        return [(m.late, round(m.late_after or 0.0, 1)) for m in self.all_moves
                if m.phase in phases and m.refused is None and m.arrived is None
                and m.late is not None]

    def summary(self, phase: str) -> dict[str, Any]:
        moves = [m for m in self.all_moves if m.phase == phase]
        arrived = [m.arrived - m.sent for m in moves if m.arrived is not None]
        confirmed = [m.confirmed - m.sent for m in moves if m.confirmed is not None]
        refused = [m for m in moves if m.refused is not None and m.arrived is None]
        lost = [m for m in moves if m.refused is None and m.arrived is None]
        return {"sent": len(moves), "arrived": len(arrived), "refused": len(refused),
                "lost": len(lost),
                "p50": pct(arrived, 0.5), "p99": pct(arrived, 0.99),
                "max": pct(arrived, 1.0),
                "confirm_p50": pct(confirmed, 0.5), "confirm_p99": pct(confirmed, 0.99),
                "closes": dict(self.events.closes.get(phase, Counter())),
                "errors": dict(self.events.errors.get(phase, Counter()))}

    def timeline(self, phase: str) -> list[tuple[int, int, float, float]]:
        """The phase second by second from its first move sent: (second, moves sent,
        p50 ms, max ms of their arrival), to see where in an attack the slow moves lie."""
        moves = [m for m in self.all_moves if m.phase == phase]
        if not moves:
            return []
        start = min(m.sent for m in moves)
        by_second: dict[int, list[float]] = {}
        for m in moves:
            if m.arrived is not None:
                by_second.setdefault(int(m.sent - start), []).append(m.arrived - m.sent)
        return [(sec, len(lat), pct(lat, 0.5), pct(lat, 1.0))
                for sec, lat in sorted(by_second.items())]

    def recovery(self, since: float) -> tuple[float | None, float | None]:
        """Seconds from ``since`` (perf_counter) until the first probe game, and until every
        probe game, saw a move sent after ``since`` arrive (None: never). Only games already
        under way at ``since`` count: a probe game that starts later (its predecessor
        ended) has nothing to recover, and its first move comes after a game's start."""
        under_way = {m.game for m in self.all_moves if m.sent < since}
        sent_after = {(m.game, m.ply) for m in self.all_moves
                      if m.sent >= since and m.game in under_way}
        firsts: dict[str, float] = {}
        for m in self.all_moves:
            if (m.game, m.ply) in sent_after and m.arrived is not None:
                firsts[m.game] = min(firsts.get(m.game, m.arrived), m.arrived)
        if not firsts:
            return None, None
        first = min(firsts.values()) - since
        playing = {game for game, _ in sent_after}  # games still playing after ``since``
        every = max(firsts.values()) - since if set(firsts) >= playing else None
        return first, every
