"""An outside program that runs a Kondavo tournament with many players, written from
docs/protocol.md alone ("Programs: session, CSRF, identity", "Tournaments over HTTP",
"Tournament socket", "Game socket"): it needs only the standard library and ``websockets``.

    python examples/tournament_client.py --url http://127.0.0.1:8000 --kind swiss \\
        --players 12 --rounds 3
    python examples/tournament_client.py --url http://127.0.0.1:8000 --kind arena \\
        --players 20 --minutes 5 --play-seconds 60

An organiser signs up (an account: only accounts create tournaments) and creates the
tournament, starting ``--lead`` seconds later; ``--players`` - 1 more players join (guests
for a casual event; accounts with ``--rated``), each with its own cookies. Every player
keeps its tournament socket open; each ``game`` frame (or a ``me`` frame naming a game it
has not played) opens that game's socket and plays it: a random legal move after
``--think`` seconds whenever it is the player's turn, resigning at ``--plies`` plies so
games end. A Swiss runs to its end; an arena is played ``--play-seconds`` (it ends on the
server at its own time). The last line printed is a JSON summary: the tournament's id,
status, round, the games each player played, the top of the standings and the podium.
Exit code 0 when the tournament did what was asked (a Swiss finished with every round
played; an arena started and its players played games), else 1.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import random
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

import websockets


class Session:
    """One visitor: its cookies, CSRF token and requests (docs: "Programs")."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  _NoRedirect())
        self.csrf = secrets.token_hex(16)  # 32 letters and digits, set as the cookie

    def cookie_header(self) -> str:
        cookies = {c.name: c.value for c in self.jar}
        cookies["csrftoken"] = self.csrf
        return "; ".join(f"{k}={v}" for k, v in cookies.items())

    def request(self, method: str, path: str, fields: dict[str, str] | None = None,
                json_answer: bool = True) -> tuple[int, bytes]:
        data = urllib.parse.urlencode(fields or {}).encode() if method == "POST" else None
        headers = {"Cookie": self.cookie_header(), "X-CSRFToken": self.csrf,
                   "Referer": self.base + "/"}
        if json_answer:
            headers["Accept"] = "application/json"
        if data is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers=headers)
        try:
            with self.opener.open(req, timeout=60) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:  # 3xx (not followed) and 4xx land here
            self.jar.extract_cookies(exc, req)
            return exc.code, exc.read()

    def post_json(self, path: str, fields: dict[str, str] | None = None) -> Any:
        status, body = self.request("POST", path, fields)
        if status >= 400:
            raise RuntimeError(f"POST {path}: {status} {body[:300]!r}")
        return json.loads(body)

    def guest(self) -> str:
        return str(self.post_json("/accounts/guest/")["name"])

    def sign_up(self, name: str) -> None:
        password = f"pw-{secrets.token_hex(8)}"
        status, body = self.request("POST", "/accounts/signup/", {
            "username": name, "password1": password, "password2": password},
            json_answer=False)
        if status != 302:
            raise RuntimeError(f"sign-up of {name}: {status} {body[:300]!r}")

    def ws_url(self, path: str) -> str:
        return self.base.replace("http://", "ws://").replace("https://", "wss://") + path

    async def socket(self, path: str) -> Any:
        return await websockets.connect(self.ws_url(path), origin=self.base,
                                        additional_headers={"Cookie": self.cookie_header()},
                                        open_timeout=60, max_size=None)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Player:
    def __init__(self, session: Session, name: str, args: argparse.Namespace,
                 rng: random.Random) -> None:
        self.session, self.name, self.args, self.rng = session, name, args, rng
        self.played: list[str] = []
        self.standings: dict[str, Any] = {}
        self.errors: list[str] = []

    async def run(self, tid: int, done: asyncio.Event) -> None:
        """The tournament socket: games to play, standings to follow."""
        seen: set[str] = set()
        playing: asyncio.Task[None] | None = None
        pending: list[str] = []
        async with await self.session.socket(f"/ws/tournament/{tid}/") as ws:
            while not done.is_set():
                if (playing is None or playing.done()) and pending:
                    playing = asyncio.ensure_future(self.play(pending.pop(0)))
                try:
                    raw = await asyncio.wait_for(ws.recv(), 0.5)
                except TimeoutError:
                    continue
                frame = json.loads(raw)
                t, d = frame["t"], frame.get("d") or {}
                game = None
                if t == "game":
                    game = d["id"]
                elif t == "me" and d.get("entry") and d["entry"].get("game"):
                    game = d["entry"]["game"]["id"]
                elif t in ("standings", "tournament"):
                    self.standings = d.get("standings", d)
                elif t == "error":
                    self.errors.append(f"{d.get('code')}: {d.get('message')}")
                if game is not None and game not in seen:
                    seen.add(game)
                    pending.append(game)
            if playing is not None and not playing.done():
                playing.cancel()

    async def play(self, game_id: str) -> None:
        """One game on its socket (docs: "Game socket"), until its ``end``."""
        self.played.append(game_id)
        async with await self.session.socket(f"/ws/game/{game_id}/") as ws:
            you = None
            last_ping = time.monotonic()
            while True:
                if time.monotonic() - last_ping > 5:  # heartbeat_ms: stay present
                    await ws.send('{"t":"ping"}')
                    last_ping = time.monotonic()
                try:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                except TimeoutError:
                    continue
                t, d = frame["t"], frame.get("d") or {}
                if t == "state":
                    you = d.get("you")
                    if d["status"] in ("finished", "aborted"):
                        return
                elif t == "end":
                    return
                elif t == "error":
                    self.errors.append(f"{d.get('code')}: {d.get('message')}")
                    await ws.send('{"t":"resync"}')
                    continue
                if t not in ("state", "move") or d.get("turn") != you or not d.get("legal"):
                    continue
                if d["ply"] >= self.args.plies:
                    await ws.send('{"t":"resign"}')
                    continue
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.args.think)
                move = self.rng.choice(d["legal"])["notation"]
                await ws.send(json.dumps({"t": "move", "d": {"ply": d["ply"], "move": move}}))


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    loop = asyncio.get_running_loop()
    tag = secrets.token_hex(3)
    organiser = Session(args.url)
    await loop.run_in_executor(None, organiser.sign_up, f"org-{tag}")
    starts = datetime.now(UTC) + timedelta(seconds=args.lead)
    created = await loop.run_in_executor(None, lambda: organiser.post_json("/tournaments/new/", {
        "kind": args.kind, "ruleset": args.ruleset, "time_control": args.tc,
        "name": f"Outside {args.kind} {tag}", "minutes": str(args.minutes),
        "rounds": str(args.rounds), "starts_at": starts.isoformat(),
        "rated": "1" if args.rated else "0", "berserk": "0"}))
    tid = int(created["id"])
    print(f"tournament {tid} ({args.kind}) starts {starts:%H:%M:%S} UTC", flush=True)
    players = [Player(organiser, f"org-{tag}", args, random.Random(rng.random()))]

    def enter(i: int) -> Player:
        session = Session(args.url)
        if args.rated:
            name = f"p{i}-{tag}"
            session.sign_up(name)
        else:
            name = session.guest()
        session.post_json(f"/tournaments/{tid}/join/")
        return Player(session, name, args, random.Random(rng.random()))

    players += await asyncio.gather(*(loop.run_in_executor(None, enter, i)
                                      for i in range(1, args.players)))
    print(f"{len(players)} players entered", flush=True)
    done = asyncio.Event()
    tasks = [asyncio.ensure_future(p.run(tid, done)) for p in players]
    deadline = time.monotonic() + args.lead + (
        args.play_seconds if args.kind == "arena" else args.timeout)
    status = ""
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        status = players[0].standings.get("status", "")
        if status in ("finished", "cancelled") or any(t.done() for t in tasks):
            break
    done.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    failed = [repr(t.exception()) for t in tasks if t.exception() is not None]
    standings = await loop.run_in_executor(
        None, lambda: json.loads(organiser.request("GET",
                                                   f"/tournaments/{tid}/standings.json")[1]))
    return {"tournament": tid, "kind": args.kind, "status": standings["status"],
            "round": standings["round"], "rounds": standings["rounds"],
            "players": standings["players"],
            "games_played": {p.name: len(p.played) for p in players},
            "top": [{k: r[k] for k in ("rank", "name", "score", "games")}
                    for r in standings["rows"][:10]],
            "podium": standings["podium"], "failures": failed,
            "errors": sorted({e for p in players for e in p.errors})[:10]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True, help="the site, e.g. http://127.0.0.1:8000")
    ap.add_argument("--kind", choices=("arena", "swiss", "roundrobin"), default="swiss")
    ap.add_argument("--players", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3, help="Swiss rounds")
    ap.add_argument("--minutes", type=int, default=5, help="arena duration")
    ap.add_argument("--play-seconds", type=float, default=60.0,
                    help="arena: how long the players play before this program stops")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="Swiss, round-robin: give up after this many seconds")
    ap.add_argument("--lead", type=float, default=5.0, help="seconds until the start")
    ap.add_argument("--ruleset", default="english")
    ap.add_argument("--tc", default="5+3", help="time control")
    ap.add_argument("--plies", type=int, default=16, help="a player resigns at this ply")
    ap.add_argument("--think", type=float, default=0.05, help="seconds per move (mean)")
    ap.add_argument("--rated", action="store_true", help="accounts and a rated event")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    summary = asyncio.run(main_async(args))
    played = summary["games_played"].values()
    if args.kind == "arena":
        ok = summary["status"] in ("started", "finished") and sum(played) > 0
    else:
        ok = summary["status"] == "finished" and summary["round"] == summary["rounds"]
    ok = ok and not summary["failures"]
    print(json.dumps(summary), flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
