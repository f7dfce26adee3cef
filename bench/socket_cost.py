"""What a crowd costs a Daphne: CPU milliseconds per anonymous spectator socket.

On the lab's production-like stack (``bench/chaos.py``'s ``Stack``: 2 Daphnes, Redis,
PostgreSQL, Celery), one friend game is made, then ``--rounds`` waves of ``--sockets``
spectator sockets open on the first Daphne (``--concurrency`` handshakes at a time, each
from its own loopback address), wait for their ``state`` frame, and close. The first
Daphne's CPU time (user + system, from /proc) over each wave is divided by the sockets that
got their state, for the openings and for the closings (all at once) apart. A wave of 50
first warms the process. Figures are CPU, not wall time, so a busy machine changes them less
than latencies; compare two trees in the same session.

    .venv/bin/python bench/socket_cost.py --sockets 400 --rounds 3
    .venv/bin/python bench/socket_cost.py --sockets 900 --mode embedded
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chaos import Stack  # noqa: E402
from chaos_attacks import connect, crowd_address, new_friend_game, shut, ws_url  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def wave(base: str, game_id: str, sockets: int, concurrency: int,
               pid: int) -> tuple[int, int, float, float]:
    """Open ``sockets`` spectators, each until its ``state``; close them all at once.
    (opened, failed, the Daphne's CPU seconds for the openings, for the closings)."""
    gate = asyncio.Semaphore(concurrency)
    opened: list[Any] = []
    failed = 0

    async def one(i: int) -> None:
        nonlocal failed
        async with gate:
            try:
                ws = await connect(ws_url(base, f"/ws/game/{game_id}/"), base,
                                   crowd_address(i % 2000))
                while json.loads(await ws.recv()).get("t") != "state":
                    pass
            except Exception:
                failed += 1
                return
            opened.append(ws)

    before = cpu_seconds(pid)
    await asyncio.gather(*(one(i) for i in range(sockets)))
    await asyncio.sleep(0.5)  # the openings' presence work
    middle = cpu_seconds(pid)
    await asyncio.gather(*(shut(ws) for ws in opened))
    await asyncio.sleep(0.5)  # the closes' presence work
    return len(opened), failed, middle - before, cpu_seconds(pid) - middle


async def measure(stack: Stack, args: argparse.Namespace) -> None:
    base = stack.urls[0]
    popen = stack.daphnes[0].popen
    assert popen is not None
    game_id, _white, _black = await asyncio.get_running_loop().run_in_executor(
        None, new_friend_game, base, "127.30.0.1", "127.30.0.2")
    await wave(base, game_id, 50, 25, popen.pid)
    per_socket: list[float] = []
    opens: list[float] = []
    closes: list[float] = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        opened, failed, open_cpu, close_cpu = await wave(base, game_id, args.sockets,
                                                         args.concurrency, popen.pid)
        n = max(opened, 1)
        opens.append(open_cpu * 1000 / n)
        closes.append(close_cpu * 1000 / n)
        per_socket.append(opens[-1] + closes[-1])
        print(f"{opened} sockets ({failed} failed): {per_socket[-1]:.2f} CPU ms per socket "
              f"(opening {opens[-1]:.2f}, closing {closes[-1]:.2f}), "
              f"wall {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"median {statistics.median(per_socket):.2f} CPU ms per spectator socket "
          f"(open, state, close; opening {statistics.median(opens):.2f}, closing "
          f"{statistics.median(closes):.2f}) over {args.rounds} waves of {args.sockets}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sockets", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--mode", choices=["stack", "embedded"], default="stack",
                    help="embedded: one Daphne as `make run` (SQLite, in-memory layer)")
    args = ap.parse_args()
    with ExitStack() as exits:
        stack = Stack(exits, mode=args.mode)
        asyncio.run(measure(stack, args))


if __name__ == "__main__":
    main()
