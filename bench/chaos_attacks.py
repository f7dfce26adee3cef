"""The attacker of the chaos lab (bench/chaos.py --attacks): one attack, in its own process.

bench/chaos.py starts ``python bench/chaos_attacks.py '<json>'`` while its latency probe
plays; this process runs the attack against the given servers for ``seconds`` (bounded in
sockets and requests, loopback only), then prints one JSON line: the attack's volume and what
it saw (closes by code, refused handshakes, what it obtained). Attacks:

- ``flood``: one guest, 5 sockets on its own game, frames as fast as the socket takes them
  (pings, resyncs, stale moves, junk), reconnecting after a close;
- ``crowd``: ``idle`` sockets without a session (lobby and probe games, one visitor address
  each) and ``spectators`` on one busy game whose two players move every 0.3 s;
- ``reconnect``: ``loops`` tasks opening and closing sockets as fast as they can;
- ``forged``: guests, sign-ups, games and sockets with a forged, rotating
  ``X-Forwarded-For``, counting what it got past the per-address limits;
- ``analysis``: ``workers`` concurrent loops of analysis requests (1 s searches), each
  request from a fresh session with a forged address.

The abuser comes from one address (``ABUSER``); a crowd's members each from their own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import Http, raise_open_files  # noqa: E402

ABUSER = "127.66.0.1"
FLOOD_FRAMES = ['{"t":"ping"}', '{"t":"resync"}', '{"t":"move","d":{"ply":9999,"move":"1-2"}}',
                '{"t":"draw_decline"}', "junk{", '{"t":"nope"}']
START_FEN = "W:W31-50:B1-20"


def ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


def crowd_address(i: int) -> str:
    return f"127.20.{i // 250}.{i % 250 + 1}"


def forged_address(rng: random.Random) -> str:
    return ".".join(str(rng.randrange(lo, hi)) for lo, hi in ((1, 223), (0, 256), (0, 256),
                                                               (1, 255)))


def close_code(exc: websockets.ConnectionClosed) -> int:
    return exc.rcvd.code if exc.rcvd is not None else 1006


class Report:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.closes: Counter[int] = Counter()
        self.refused: Counter[int] = Counter()  # handshakes answered with an HTTP status

    def as_dict(self, **extra: Any) -> dict[str, Any]:
        return {"counts": dict(self.counts), "closes": {str(k): v for k, v in self.closes.items()},
                "refused": {str(k): v for k, v in self.refused.items()}, **extra}


async def connect(url: str, origin: str, source: str, cookie: str | None = None,
                  headers: dict[str, str] | None = None) -> Any:
    extra = dict(headers or {})
    if cookie:
        extra["Cookie"] = cookie
    return await websockets.connect(url, origin=origin, additional_headers=extra or None,
                                    open_timeout=10, max_queue=None, compression=None,
                                    local_addr=(source, 0))


async def shut(ws: Any) -> None:
    """Close without waiting long for a busy server's answer."""
    try:
        await asyncio.wait_for(ws.close(), 1)
    except (TimeoutError, OSError, websockets.ConnectionClosed):
        ws.transport.abort()


async def in_thread(fn: Any, *args: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def new_friend_game(base: str, white_addr: str, black_addr: str | None
                    ) -> tuple[str, str, str | None]:
    white = Http(base, source=white_addr)
    game = white.post_json("/games/new/friend", {"ruleset": "international", "color": "white",
                                                 "time_control": "untimed"})
    black_cookie = None
    if black_addr:
        black = Http(base, source=black_addr)
        black.post_json(f"/games/{game['id']}/join", {})
        black_cookie = black.cookie()
    return game["id"], white.cookie(), black_cookie


# --------------------------------------------------------------------------- flood

async def flood(cfg: dict[str, Any], rep: Report, deadline: float) -> dict[str, Any]:
    base = cfg["urls"][0]  # every flooding socket on the first Daphne
    game_id, cookie, _ = await in_thread(new_friend_game, base, ABUSER, None)
    url = ws_url(base, f"/ws/game/{game_id}/")
    first_close: list[float] = []
    most = [0]  # the most frames one socket sent (a flood is one socket over its budget)
    t0 = time.monotonic()

    async def drain(ws: Any) -> None:
        async for _ in ws:
            rep.counts["frames_received"] += 1

    async def one(i: int) -> None:
        while time.monotonic() < deadline:
            try:
                ws = await connect(url, base, ABUSER, cookie)
            except websockets.InvalidStatus as exc:
                rep.refused[exc.response.status_code] += 1
                await asyncio.sleep(0.2)
                continue
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                rep.counts["connect_failures"] += 1
                await asyncio.sleep(0.2)
                continue
            rep.counts["sockets"] += 1
            reader = asyncio.ensure_future(drain(ws))
            sent = [0]
            try:
                await asyncio.wait_for(send_all(ws, sent), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                await shut(ws)
            except websockets.ConnectionClosed as exc:
                rep.closes[close_code(exc)] += 1
                if not first_close:
                    first_close.append(time.monotonic() - t0)
            finally:
                reader.cancel()
                most[0] = max(most[0], sent[0])

    async def send_all(ws: Any, sent: list[int]) -> None:
        frames = itertools.cycle(FLOOD_FRAMES)
        while True:
            for _ in range(100):
                await ws.send(next(frames))
                rep.counts["frames"] += 1
                sent[0] += 1
            await asyncio.sleep(0)

    await asyncio.gather(*(one(i) for i in range(cfg.get("sockets", 5))))
    return {"volume": f"{rep.counts['frames']} frames on {rep.counts['sockets']} sockets",
            "first_close_s": round(first_close[0], 2) if first_close else None,
            "most_frames_one_socket": most[0]}


# --------------------------------------------------------------------------- crowd

async def crowd(cfg: dict[str, Any], rep: Report, deadline: float) -> dict[str, Any]:
    urls, probe_games = cfg["urls"], cfg["probe_games"]
    idle, spectators = cfg.get("idle", 400), cfg.get("spectators", 500)
    busy_id, wc, bc = await in_thread(new_friend_game, urls[0], "127.21.0.1", "127.21.0.2")
    busy_moves = 0
    gate = asyncio.Semaphore(50)  # concurrent handshakes

    async def hold(i: int, path: str) -> None:
        base = urls[i % len(urls)]
        async with gate:
            try:
                ws = await connect(ws_url(base, path), base, crowd_address(i))
            except websockets.InvalidStatus as exc:
                rep.refused[exc.response.status_code] += 1
                return
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                rep.counts["connect_failures"] += 1
                return
        rep.counts["sockets"] += 1
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    await asyncio.wait_for(ws.recv(), left)
                    rep.counts["frames_received"] += 1
                except TimeoutError:
                    break
            await shut(ws)
        except websockets.ConnectionClosed as exc:
            rep.closes[close_code(exc)] += 1

    async def player(side: str, cookie: str, base: str) -> None:
        nonlocal busy_moves
        ws = await connect(ws_url(base, f"/ws/game/{busy_id}/"), base,
                           "127.21.0.1" if side == "white" else "127.21.0.2", cookie)
        rng = random.Random(side)
        try:
            while time.monotonic() < deadline:
                try:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 2))
                except TimeoutError:
                    await ws.send('{"t":"resync"}')
                    continue
                d = frame.get("d") or {}
                if frame["t"] == "end" or d.get("status") in ("finished", "aborted"):
                    return
                if frame["t"] in ("state", "move") and d.get("turn") == side and d.get("legal"):
                    await asyncio.sleep(0.3)
                    move = rng.choice(d["legal"])["notation"]
                    await ws.send(json.dumps({"t": "move", "d": {"ply": d["ply"],
                                                                "move": move}}))
                    busy_moves += 1
                elif frame["t"] == "error":
                    await ws.send('{"t":"resync"}')
        finally:
            await shut(ws)

    paths = [("/ws/lobby/" if i % 2 == 0 else f"/ws/game/{probe_games[i % len(probe_games)]}/")
             for i in range(idle)]
    players = [asyncio.ensure_future(player("white", wc, urls[0])),  # moving before the crowd
               asyncio.ensure_future(player("black", bc or "", urls[-1]))]
    while busy_moves == 0 and time.monotonic() < deadline and not all(
            p.done() for p in players):
        await asyncio.sleep(0.05)
    jobs = [hold(i, p) for i, p in enumerate(paths)]
    jobs += [hold(idle + i, f"/ws/game/{busy_id}/") for i in range(spectators)]
    results = await asyncio.gather(*jobs, *players, return_exceptions=True)
    rep.counts["task_failures"] += sum(isinstance(r, BaseException) for r in results)
    return {"volume": f"{idle} idle + {spectators} spectators ({rep.counts['sockets']} open)",
            "busy_game_moves": busy_moves}


# --------------------------------------------------------------------------- reconnect

async def reconnect(cfg: dict[str, Any], rep: Report, deadline: float) -> dict[str, Any]:
    urls, probe_games = cfg["urls"], cfg["probe_games"]

    async def loop(i: int) -> None:
        base = urls[i % len(urls)]
        path = "/ws/lobby/" if i % 2 else f"/ws/game/{probe_games[i % len(probe_games)]}/"
        while time.monotonic() < deadline:
            try:
                ws = await connect(ws_url(base, path), base, ABUSER)
                rep.counts["sockets"] += 1
                await shut(ws)
            except websockets.InvalidStatus as exc:
                rep.refused[exc.response.status_code] += 1
                await asyncio.sleep(0.05)
            except websockets.ConnectionClosed as exc:
                rep.closes[close_code(exc)] += 1
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                rep.counts["connect_failures"] += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(loop(i) for i in range(cfg.get("loops", 100))))
    return {"volume": f"{rep.counts['sockets']} sockets by {cfg.get('loops', 100)} loops"}


# --------------------------------------------------------------------------- forged

async def forged(cfg: dict[str, Any], rep: Report, deadline: float) -> dict[str, Any]:
    """Each request and socket carries a new forged address; what did it obtain?"""
    urls = cfg["urls"]
    rng = random.Random(7)
    got: Counter[str] = Counter()
    tried: Counter[str] = Counter()

    def attempt(kind: str, n: int) -> None:
        base = urls[n % len(urls)]
        web = Http(base, source=ABUSER, headers={"X-Forwarded-For": forged_address(rng)})
        tried[kind] += 1
        if kind == "guest":
            status, _ = web.post("/accounts/guest/", {})
            ok = status == 200
        elif kind == "signup":
            password = f"Zq8-{rng.getrandbits(64):x}-pass"
            status, _ = web.post("/accounts/signup/", {
                "username": f"forged{rng.getrandbits(40):x}", "password1": password,
                "password2": password}, accept="text/html")
            ok = status == 302
        else:
            status, _ = web.post("/games/new/friend", {
                "ruleset": "international", "color": "white", "time_control": "untimed"})
            ok = status == 201
        rep.counts[f"http_{status}"] += 1
        got[kind] += ok

    guests, games = cfg.get("guests", 40), cfg.get("games", 40)
    plan = [kind for pair in itertools.zip_longest(["guest"] * guests, ["game"] * games)
            for kind in pair if kind] + ["signup"] * cfg.get("signups", 12)  # signups: slow
    todo = iter(enumerate(plan))
    loop = asyncio.get_running_loop()
    pool = concurrent.futures.ThreadPoolExecutor(8)

    async def requests() -> None:
        for n, kind in todo:
            if time.monotonic() > deadline:
                return
            try:
                await loop.run_in_executor(pool, attempt, kind, n)
            except Exception:
                rep.counts["http_failures"] += 1

    held: list[Any] = []

    async def sockets() -> None:  # held open at once, each with its own forged address
        for i in range(cfg.get("sockets", 30)):
            if time.monotonic() > deadline:
                return
            base = urls[i % len(urls)]
            tried["socket"] += 1
            try:
                held.append(await connect(ws_url(base, "/ws/lobby/"), base, ABUSER,
                                          headers={"X-Forwarded-For": forged_address(rng)}))
                got["socket"] += 1
            except websockets.InvalidStatus as exc:
                rep.refused[exc.response.status_code] += 1
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                rep.counts["connect_failures"] += 1

    await asyncio.gather(sockets(), *(requests() for _ in range(8)))
    pool.shutdown(wait=False, cancel_futures=True)
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    await asyncio.gather(*(shut(ws) for ws in held))
    sent = sum(v for k, v in tried.items() if k != "socket")
    return {"volume": f"{sent} requests, {tried['socket']} sockets",
            "got": dict(got), "tried": dict(tried)}


# --------------------------------------------------------------------------- analysis

async def analysis(cfg: dict[str, Any], rep: Report, deadline: float) -> dict[str, Any]:
    urls = cfg["urls"]
    rng = random.Random(11)

    def request(n: int) -> None:
        web = Http(urls[n % len(urls)], source=ABUSER,
                   headers={"X-Forwarded-For": forged_address(rng)})
        status, _ = web.post("/analysis/eval", {"ruleset": "international", "fen": START_FEN,
                                                "time": "1", "depth": "14"})
        rep.counts[f"http_{status}"] += 1
        rep.counts["requests"] += 1

    workers = cfg.get("workers", 16)
    counter = itertools.count()

    async def worker() -> None:
        while time.monotonic() < deadline:
            try:
                await in_thread(request, next(counter))
            except Exception:
                rep.counts["http_failures"] += 1
                await asyncio.sleep(0.1)

    asyncio.get_running_loop().set_default_executor(
        concurrent.futures.ThreadPoolExecutor(workers))
    await asyncio.gather(*(worker() for _ in range(workers)))
    return {"volume": f"{rep.counts['requests']} requests by {workers} clients"}


ATTACKS = {"flood": flood, "crowd": crowd, "reconnect": reconnect, "forged": forged,
           "analysis": analysis}


async def main_async(cfg: dict[str, Any]) -> dict[str, Any]:
    rep = Report()
    deadline = time.monotonic() + float(cfg["seconds"])
    extra = await ATTACKS[cfg["attack"]](cfg, rep, deadline)
    return rep.as_dict(**extra)


def main() -> None:
    cfg = json.loads(sys.argv[1])
    if any(not u.startswith("http://127.") for u in cfg["urls"]):
        sys.exit("the attacker only targets loopback servers")
    raise_open_files()
    print(json.dumps(asyncio.run(main_async(cfg))), flush=True)


if __name__ == "__main__":
    main()
