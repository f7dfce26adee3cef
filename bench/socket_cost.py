"""What a crowd costs a Daphne: CPU milliseconds per anonymous spectator socket.

On the lab's production-like stack (``bench/chaos.py``'s ``Stack``: 2 Daphnes, Redis,
PostgreSQL, Celery), one friend game is made, then ``--rounds`` waves of ``--sockets``
spectator sockets open on the first Daphne (``--concurrency`` handshakes at a time, each
from its own loopback address), wait for their ``state`` frame, and close. The first
Daphne's CPU time (user + system, from /proc) over each wave is divided by the sockets that
got their state. A wave of 50 first warms the process. Figures are CPU, not wall time, so
a busy machine changes them less than latencies; compare two trees in the same session.

    .venv/bin/python bench/socket_cost.py --sockets 400 --rounds 3
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


async def wave(base: str, game_id: str, sockets: int, concurrency: int) -> tuple[int, int]:
    """Open ``sockets`` spectators, each until its ``state``; close them all. (opened,
    failed)."""
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

    await asyncio.gather(*(one(i) for i in range(sockets)))
    await asyncio.gather(*(shut(ws) for ws in opened))
    return len(opened), failed


async def measure(stack: Stack, args: argparse.Namespace) -> None:
    base = stack.urls[0]
    popen = stack.daphnes[0].popen
    assert popen is not None
    game_id, _white, _black = await asyncio.get_running_loop().run_in_executor(
        None, new_friend_game, base, "127.30.0.1", "127.30.0.2")
    await wave(base, game_id, 50, 25)
    per_socket: list[float] = []
    for _ in range(args.rounds):
        before, t0 = cpu_seconds(popen.pid), time.perf_counter()
        opened, failed = await wave(base, game_id, args.sockets, args.concurrency)
        await asyncio.sleep(0.5)  # the closes' presence work
        used = cpu_seconds(popen.pid) - before
        per_socket.append(used * 1000 / max(opened, 1))
        print(f"{opened} sockets ({failed} failed): {per_socket[-1]:.2f} CPU ms per socket, "
              f"wall {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"median {statistics.median(per_socket):.2f} CPU ms per spectator socket "
          f"(open, state, close) over {args.rounds} waves of {args.sockets}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sockets", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=50)
    args = ap.parse_args()
    with ExitStack() as exits:
        stack = Stack(exits, mode="stack")
        asyncio.run(measure(stack, args))


if __name__ == "__main__":
    main()
