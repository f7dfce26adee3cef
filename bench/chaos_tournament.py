"""The tournament scenario of the lab (``bench/chaos.py --tournament``): does a large arena
slow its own games?

On the lab's production-like stack (bench/chaos.py: two Daphnes, Redis, PostgreSQL, the
compose file's Celery workers and beat), in one run:

- an organiser signs up and creates an arena over HTTP (``POST /tournaments/new/``, casual,
  ``--tc``); ``--players`` guests, each from its own loopback address, join it
  (``POST /tournaments/<id>/join/``) and open the tournament socket, each on one of the two
  Daphnes;
- ``--spectators`` visitors without identity watch: half on the tournament socket (they
  count the ``standings`` frames: how often, how large, how late after the server made
  them), half on the leader's game (``featured``), following it when it changes, as the
  page's "leader's game" does;
- the same number of plain games as the arena can hold (``--players`` / 2 friend games
  between guests, same time control, the two players on different Daphnes) are played
  from the start and replaced as they end: the peer the arena's games are compared with.

Phases: ``quiet`` (``--quiet`` seconds: the plain games only, every socket already open),
then the arena starts (the lab moves its start to now: the beat's tick starts and pairs it),
``warm`` (10 s, not measured), then ``arena`` (``--seconds``). Every player thinks
``--think`` seconds on average (uniform over 0.5x-1.5x) and plays a random legal move up to
``--plies`` plies, then resigns; an arena player, when its game ends, waits for its next
``game`` frame (or a ``me`` frame naming a new game) and plays that one.

Printed: for the arena's games and the plain games of the arena phase, and the plain games
of the quiet phase: moves sent, lost, p50/p95/p99 move -> opponent's frame, error frames;
the ratios (arena games / plain games in the same phase: the tournament's own cost to its
games; plain in the arena phase / plain quiet: what the arena costs everyone); the arena's
games started and finished, the wait from a game's end to the next game's ``game`` frame
(p50/p99); standings frames per spectator socket per second, their size and their delay
(client receipt - the frame's ``now``); the CPU seconds of the Daphnes, the Celery workers
(and beat), PostgreSQL and Redis in each phase.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import websockets
from load import (
    Http,
    MoveRecord,
    Pace,
    Stats,
    figures,
    heartbeat,
    pct,
    play,
    tree_cpu_by_role,
)

WARM = 10.0
NOW_RE = re.compile(r'"now":(\d+)')


def address(block: int, i: int) -> str:
    """Loopback addresses of the scenario: 127.<block>.x.y (players 50, spectators 51...)."""
    return f"127.{block}.{i // 250}.{i % 250 + 1}"


@dataclass
class Tour:
    """What the arena's clients saw."""

    stats: Stats = field(default_factory=Stats)  # the arena's games
    records: dict[str, dict[int, MoveRecord]] = field(default_factory=dict)  # per game
    games_started: set[str] = field(default_factory=set)
    games_finished: set[str] = field(default_factory=set)
    waits: list[float] = field(default_factory=list)  # a game's end -> the next game frame
    aborted: int = 0
    standings: list[tuple[float, int, float]] = field(default_factory=list)  # (t, bytes, lag)
    standings_sockets: int = 0
    featured: str | None = None
    featured_changes: int = 0
    featured_frames: int = 0
    failures: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # tournament sockets refused or lost
    opens: list[float] = field(default_factory=list)  # handshake -> snapshot, seconds


def ws(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


async def connect(base: str, path: str, source: str, cookie: str | None = None) -> Any:
    headers = {"Cookie": cookie} if cookie else None
    return await websockets.connect(ws(base, path), origin=base, additional_headers=headers,
                                    open_timeout=120, max_queue=None, compression=None,
                                    local_addr=(source, 0), max_size=None)


# --------------------------------------------------------------------------- set-up (HTTP)

def organise(base: str, args: Any) -> int:
    """An organiser signs up and creates the arena (starting in an hour: the lab moves its
    start); the arena's id."""
    org = Http(base, source=address(49, 1))
    name = f"org{random.randrange(10**6)}"
    password = f"pw-{name}-Xy9!q"
    status, body = org.post("/accounts/signup/", {"username": name, "password1": password,
                                                  "password2": password}, accept="text/html")
    if status != 302:
        raise RuntimeError(f"sign-up: {status} {body[:300]!r}")
    made = org.post_json("/tournaments/new/", {
        "kind": "arena", "ruleset": args.ruleset, "time_control": args.tc,
        "minutes": str(int(max(30, (args.quiet + args.seconds) / 60 + 30))),
        "starts_in": "60", "name": "Load Arena"})
    return int(made["id"])


def join(base: str, tournament_id: int, source: str) -> str:
    """A guest joins the arena; its cookie."""
    guest = Http(base, source=source)
    guest.post_json("/accounts/guest/", {})
    answer = guest.post_json(f"/tournaments/{tournament_id}/join/", {})
    if not answer.get("me"):
        raise RuntimeError(f"join: {answer}")
    return guest.cookie()


def friend_game(base: str, tc: str, ruleset: str, white_addr: str, black_addr: str
                ) -> tuple[str, str, str]:
    white, black = Http(base, source=white_addr), Http(base, source=black_addr)
    game = white.post_json("/games/new/friend", {"ruleset": ruleset, "color": "white",
                                                 "time_control": tc})
    black.post_json(f"/games/{game['id']}/join", {})
    return game["id"], white.cookie(), black.cookie()


# --------------------------------------------------------------------------- clients

async def seat(base: str, game_id: str, cookie: str, source: str, plies: int, pace: Pace,
               records: dict[int, MoveRecord], stats: Stats, rng: random.Random) -> str:
    """One player's game, from the socket's first ``state`` to the end (load.play); the
    game's final status as this player saw it."""
    sock = await connect(base, f"/ws/game/{game_id}/", source, cookie)
    async with sock:
        first = json.loads(await sock.recv())
        side = first["d"].get("you") if first.get("t") == "state" else None
        if side not in ("white", "black"):
            return "not seated"
        every = float(first["d"].get("heartbeat_ms", 5000)) / 1000
        beat = asyncio.ensure_future(heartbeat(sock, every, rng.uniform(0, every), stats))
        try:
            await play(sock, first, side, plies, pace, records, stats, rng)
        finally:
            beat.cancel()
    return "over"


async def arena_player(i: int, urls: list[str], tid: int, cookie: str, args: Any, pace: Pace,
                       tour: Tour, rng: random.Random, stop: asyncio.Event,
                       ready: asyncio.Semaphore) -> None:
    """One arena player: its tournament socket on one Daphne, its games on the other."""
    source = address(50, i)
    base, other = urls[i % len(urls)], urls[(i + 1) % len(urls)]
    async with ready:
        sock = await connect(base, f"/ws/tournament/{tid}/", source, cookie)
    games: asyncio.Queue[str] = asyncio.Queue()
    seen: set[str] = set()
    ended_at: list[float] = []

    async def listen() -> None:
        async for raw in sock:
            if '"t":"standings"' in raw[:40]:
                continue
            frame = json.loads(raw)
            t, d = frame.get("t"), frame.get("d") or {}
            game_id = (d.get("id") if t == "game"
                       else ((d.get("entry") or {}).get("game") or {}).get("id")
                       if t == "me" else None)
            if game_id and game_id not in seen:
                seen.add(game_id)
                if ended_at:
                    tour.waits.append(time.perf_counter() - ended_at.pop())
                await games.put(game_id)

    listener = asyncio.ensure_future(listen())
    try:
        while not stop.is_set():
            getter = asyncio.ensure_future(games.get())
            stopper = asyncio.ensure_future(stop.wait())
            await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if not getter.done():
                getter.cancel()
                break
            game_id = getter.result()
            tour.games_started.add(game_id)
            records = tour.records.setdefault(game_id, {})
            try:
                await seat(other, game_id, cookie, source, args.plies, pace, records,
                           tour.stats, random.Random(rng.random()))
            except (OSError, websockets.WebSocketException, TimeoutError) as exc:
                tour.failures.append(f"arena game {game_id}: {exc!r}")
            ended_at[:] = [time.perf_counter()]
            tour.games_finished.add(game_id)
    finally:
        listener.cancel()
        await sock.close()


async def standings_watcher(i: int, base: str, tid: int, tour: Tour, stop: asyncio.Event,
                            ready: asyncio.Semaphore, lead: bool) -> None:
    """A visitor on the tournament page: counts the standings frames; the ``lead`` one also
    reads the leader's game for the game's spectators. Reconnects after a refused or lost
    socket (counted)."""
    counted = False
    while not stop.is_set():
        try:
            async with ready:
                t_open = time.perf_counter()
                sock = await connect(base, f"/ws/tournament/{tid}/", address(51, i))
                await sock.recv()  # the snapshot
                tour.opens.append(time.perf_counter() - t_open)
        except (OSError, websockets.WebSocketException, TimeoutError) as exc:
            tour.refused.append(f"{type(exc).__name__}: {str(exc)[:80]}")
            await asyncio.sleep(1.0)
            continue
        if not counted:
            tour.standings_sockets += 1
            counted = True
        try:
            async with sock:
                await watch(sock, tour, stop, lead)
        except (OSError, websockets.WebSocketException) as exc:
            tour.refused.append(f"lost: {type(exc).__name__}")


async def watch(sock: Any, tour: Tour, stop: asyncio.Event, lead: bool) -> None:
    while not stop.is_set():
        try:
            raw = await asyncio.wait_for(sock.recv(), 1.0)
        except TimeoutError:
            continue
        if '"t":"standings"' not in raw[:40] and '"t":"tournament"' not in raw[:40]:
            continue
        now = time.time() * 1000
        m = NOW_RE.search(raw, max(0, len(raw) - 200))
        if '"t":"standings"' in raw[:40]:
            lag = now - int(m[1]) if m else float("nan")
            tour.standings.append((time.perf_counter(), len(raw.encode()), lag))
        if lead:
            d = json.loads(raw)["d"]
            featured = ((d.get("standings") or d).get("featured") or {}).get("game")
            if featured and featured != tour.featured:
                tour.featured = featured
                tour.featured_changes += 1


async def game_spectator(i: int, urls: list[str], tour: Tour, stop: asyncio.Event) -> None:
    """A visitor watching the leader's game, following it when it changes."""
    source = address(52, i)
    base = urls[i % len(urls)]
    while not stop.is_set():
        game_id = tour.featured
        if game_id is None:
            await asyncio.sleep(0.5)
            continue
        try:
            sock = await connect(base, f"/ws/game/{game_id}/", source)
            async with sock:
                while not stop.is_set() and tour.featured == game_id:
                    try:
                        await asyncio.wait_for(sock.recv(), 1.0)
                        tour.featured_frames += 1
                    except TimeoutError:
                        continue
        except (OSError, websockets.WebSocketException, TimeoutError) as exc:
            tour.failures.append(f"spectator: {exc!r}")
            await asyncio.sleep(1.0)


async def plain_pair(i: int, urls: list[str], args: Any, pace: Pace, stats: Stats,
                     rng: random.Random, stop: asyncio.Event) -> None:
    """The two players of a plain game (on different Daphnes), a new game when one ends."""
    loop = asyncio.get_running_loop()
    wa, ba = address(53, 2 * i), address(53, 2 * i + 1)
    while not stop.is_set():
        game_id, wc, bc = await loop.run_in_executor(
            None, friend_game, urls[i % len(urls)], args.tc, args.ruleset, wa, ba)
        records: dict[int, MoveRecord] = {}
        await asyncio.gather(
            seat(urls[i % len(urls)], game_id, wc, wa, args.plies, pace, records, stats,
                 random.Random(rng.random())),
            seat(urls[(i + 1) % len(urls)], game_id, bc, ba, args.plies, pace, records,
                 stats, random.Random(rng.random())))


# --------------------------------------------------------------------------- the run

class Cpu:
    """CPU seconds per server role of the stack (its process trees, from /proc)."""

    def __init__(self, stack: Any) -> None:
        self.roles: dict[str, list[int]] = {
            "daphne": [d.popen.pid for d in stack.daphnes if d.popen],
            "celery": [w.popen.pid for w in [*stack.workers, stack.beat] if w.popen],
            "redis": [stack.redis.proc.pid] if stack.redis and stack.redis.proc else [],
            "postgres": [int((stack.pg.data / "postmaster.pid").read_text().split()[0])]
            if stack.pg else []}

    def read(self) -> dict[str, float]:
        return {role: sum(sum(tree_cpu_by_role([pid]).values()) for pid in pids)
                for role, pids in self.roles.items()}


def ms(value: float) -> int | None:
    """A figure in ms, None for no sample (NaN)."""
    return None if value != value else round(value)


def window(moves: list[MoveRecord], start: float, end: float) -> list[MoveRecord]:
    return [m for m in moves if start <= m.sent < end]


def start_now(stack: Any, tid: int) -> None:
    """The lab's shortcut: the arena starts now. Then a visitor opens its page, which
    starts a due tournament at once (else the beat's next tick does)."""
    with stack.db() as conn:
        conn.execute("UPDATE tournaments_tournament SET starts_at = now(), ends_at = now() "
                     "+ (duration_minutes * interval '1 minute') WHERE id = %s", [tid])
    try:
        Http(stack.urls[0], source=address(49, 2)).get(f"/tournaments/{tid}/")
    except OSError as exc:  # a saturated machine: the beat's tick starts it anyway
        print(f"the tournament page did not answer ({exc}); the beat will start it")


async def tournament_lab(stack: Any, args: Any) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    # HTTP set-up (joins, the plain games' creation) runs in threads: enough of them that
    # the arena's start is not queued behind 150 game creations.
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(64))
    urls = stack.urls
    rng = random.Random(args.seed)
    pace = Pace(args.think, "uniform", True)
    t0 = time.perf_counter()
    tid = await loop.run_in_executor(None, organise, urls[0], args)
    sem = asyncio.Semaphore(16)

    async def joined(i: int) -> str:
        async with sem:
            return await loop.run_in_executor(None, join, urls[i % len(urls)], tid,
                                              address(50, i))

    cookies = await asyncio.gather(*(joined(i) for i in range(args.players)))
    print(f"arena {tid}: {len(cookies)} players joined in {time.perf_counter() - t0:.1f} s",
          flush=True)
    tour, plain = Tour(), Stats()
    stop, ready = asyncio.Event(), asyncio.Semaphore(32)
    watchers = args.spectators // 2
    tasks = [asyncio.ensure_future(arena_player(i, urls, tid, c, args, pace, tour,
                                                random.Random(rng.random()), stop, ready))
             for i, c in enumerate(cookies)]
    tasks += [asyncio.ensure_future(standings_watcher(i, urls[i % len(urls)], tid, tour, stop,
                                                      ready, lead=i == 0))
              for i in range(max(1, watchers))]
    tasks += [asyncio.ensure_future(game_spectator(i, urls, tour, stop))
              for i in range(args.spectators - watchers)]
    waited = time.perf_counter()
    while tour.standings_sockets < max(1, watchers) and time.perf_counter() - waited < 180:
        await asyncio.sleep(0.2)
    opens = sorted(tour.opens)
    print(f"standings sockets open {tour.standings_sockets} of {max(1, watchers)} in "
          f"{time.perf_counter() - waited:.1f} s; handshake -> snapshot p50 "
          f"{pct(opens, .5):.0f} ms, p99 {pct(opens, .99):.0f} ms; refused "
          f"{len(tour.refused)}", flush=True)
    await asyncio.sleep(2.0)
    print(f"sockets open: {args.players} players, {max(1, watchers)} on the standings; "
          f"plain games start", flush=True)
    plain_games = args.players // 2
    tasks += [asyncio.ensure_future(plain_pair(i, urls, args, pace, plain,
                                               random.Random(rng.random()), stop))
              for i in range(plain_games)]
    cpu = Cpu(stack)
    marks = {"quiet": time.perf_counter()}
    cpus = {"quiet": cpu.read()}
    await asyncio.sleep(args.quiet)
    marks["start"] = time.perf_counter()
    cpus["start"] = cpu.read()
    with concurrent.futures.ThreadPoolExecutor(1) as own:  # not behind the set-up's queue
        await loop.run_in_executor(own, start_now, stack, tid)
    print("arena started", flush=True)
    started_at = time.perf_counter()
    await asyncio.sleep(WARM)
    marks["arena"] = time.perf_counter()
    cpus["arena"] = cpu.read()
    await asyncio.sleep(args.seconds)
    marks["end"] = time.perf_counter()
    first_game = min((rec.sent for recs in tour.records.values() for rec in recs.values()),
                     default=float("nan"))
    cpus["end"] = cpu.read()
    await asyncio.sleep(10.0)  # the answers of the last moves counted
    stop.set()
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    crashed = [r for r in results if isinstance(r, BaseException)
               and not isinstance(r, asyncio.CancelledError)]
    quiet_s = marks["start"] - marks["quiet"]
    arena_s = marks["end"] - marks["arena"]

    def delta(a: str, b: str) -> dict[str, float]:
        return {k: round(cpus[b][k] - cpus[a][k], 1) for k in cpus[a]}

    out: dict[str, Any] = {
        "players": args.players, "spectators": args.spectators, "think_s": args.think,
        "plies": args.plies, "time_control": args.tc, "tournament": tid,
        "quiet_s": round(quiet_s, 1), "arena_s": round(arena_s, 1),
        "first_arena_move_s": round(first_game - started_at, 1)
        if first_game == first_game else None,
        "plain_quiet": figures(window(plain.moves, marks["quiet"], marks["start"]), quiet_s,
                               sum(delta("quiet", "start").values())),
        "plain_arena": figures(window(plain.moves, marks["arena"], marks["end"]), arena_s,
                               sum(delta("arena", "end").values())),
        "arena_games": figures(window(tour.stats.moves, marks["arena"], marks["end"]),
                               arena_s, sum(delta("arena", "end").values())),
        "errors": {"arena": dict(tour.stats.errors), "plain": dict(plain.errors)},
        "arena_started": len(tour.games_started), "arena_finished": len(tour.games_finished),
        "cpu_quiet": delta("quiet", "start"), "cpu_arena": delta("arena", "end"),
        "failures": len(tour.failures) + len(crashed),
        "failure_examples": [*tour.failures[:3], *[repr(c) for c in crashed[:3]]],
        "featured_changes": tour.featured_changes, "featured_frames": tour.featured_frames,
        "standings_sockets_refused": len(tour.refused),
        "refused_examples": sorted(set(tour.refused))[:3],
        "standings_open_ms": {"p50": ms(pct(sorted(tour.opens), .5)),
                              "p99": ms(pct(sorted(tour.opens), .99))},
    }
    waits = sorted(tour.waits)
    out["next_game_wait_ms"] = {"n": len(waits), "p50": ms(pct(waits, .5)),
                                "p99": ms(pct(waits, .99))}
    st = [s for s in tour.standings if marks["arena"] <= s[0] < marks["end"]]
    sizes = sorted(s[1] for s in st)
    lags = sorted(s[2] / 1000 for s in st if s[2] == s[2])
    sockets = max(1, watchers)
    out["standings"] = {
        "frames_per_socket_s": round(len(st) / sockets / arena_s, 2) if arena_s else None,
        "bytes_p50": sizes[len(sizes) // 2] if sizes else None,
        "bytes_max": sizes[-1] if sizes else None,
        "lag_ms_p50": ms(pct(lags, .5)), "lag_ms_p99": ms(pct(lags, .99))}

    def ratio(a: str, b: str, q: str) -> float | None:
        x, y = out[a]["opponent_ms"][q], out[b]["opponent_ms"][q]
        return round(x / y, 2) if y and x == x and y == y else None

    out["ratios"] = {f"{a}/{b} {q}": ratio(a, b, q)
                     for a, b in (("arena_games", "plain_arena"), ("plain_arena", "plain_quiet"))
                     for q in ("p50", "p99")}
    return out


def print_report(r: dict[str, Any]) -> None:
    print(f"\narena {r['tournament']}: {r['players']} players, {r['spectators']} spectators, "
          f"{r['time_control']}, think {r['think_s']:g} s, {r['plies']} plies; quiet "
          f"{r['quiet_s']} s, arena phase {r['arena_s']} s")
    print(f"{'games':<24}{'sent':>7}{'lost':>6}{'moves/s':>9}{'p50':>8}{'p95':>8}{'p99':>8}"
          f"{'max':>8}  (move -> opponent's frame, ms)")
    for key, label in (("plain_quiet", "plain, quiet phase"), ("plain_arena", "plain, arena phase"),
                       ("arena_games", "arena's games")):
        f = r[key]
        q = f["opponent_ms"]
        print(f"{label:<24}{f['sent']:>7}{f['lost']:>6}{f['moves_per_s']:>9}{q['p50']:>8}"
              f"{q['p95']:>8}{q['p99']:>8}{q['max']:>8}")
    print("ratios: " + ", ".join(f"{k} {v}" for k, v in r["ratios"].items()))
    print(f"error frames {r['errors']}; client failures {r['failures']} "
          f"{r['failure_examples'] or ''}")
    print(f"the arena's first move came {r['first_arena_move_s']} s after its start")
    w = r["next_game_wait_ms"]
    print(f"arena games started {r['arena_started']}, finished {r['arena_finished']}; a "
          f"game's end -> the next game frame: p50 {w['p50']} ms, p99 {w['p99']} ms "
          f"({w['n']} waits)")
    s = r["standings"]
    print(f"standings per spectator socket: {s['frames_per_socket_s']} frames/s, "
          f"{s['bytes_p50']} bytes (max {s['bytes_max']}), made -> received p50 "
          f"{s['lag_ms_p50']} ms, p99 {s['lag_ms_p99']} ms; leader's game changed "
          f"{r['featured_changes']} times, its spectators got {r['featured_frames']} frames")
    print(f"tournament page sockets: handshake -> snapshot p50 {r['standings_open_ms']['p50']}"
          f" ms, p99 {r['standings_open_ms']['p99']} ms; refused or lost "
          f"{r['standings_sockets_refused']} {r['refused_examples'] or ''}")
    print(f"server CPU s, quiet phase: {r['cpu_quiet']}; arena phase: {r['cpu_arena']}")


def save(r: dict[str, Any], path: Path | None) -> None:
    if path is not None:
        r["at"] = datetime.now(UTC).isoformat(timespec="seconds")
        path.write_text(json.dumps(r, indent=1))
