"""Swiss pairing time: scripted Swiss events of N players, each round paired by
``kondavo.tournaments.swiss.pair_round`` (the maximum-weight matching), results drawn at
random (the higher seed wins a little more often, 15% draws).

    .venv/bin/python bench/swiss_pairing.py --players 300 500 --rounds 7

Prints per event the seconds each round's pairing took (process CPU time and wall time),
and checks what the pairings must never do: a repeated game, a second bye, a colour
difference beyond 2, three games in a row with the same colour.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kondavo.tournaments.swiss import SwissPlayer, pair_round  # noqa: E402


def event(n: int, rounds: int, seed: int) -> tuple[list[float], list[float], int]:
    """(CPU seconds per round, wall seconds per round, the largest colour difference)."""
    rng = random.Random(seed)
    score = dict.fromkeys(range(1, n + 1), 0)
    opponents: dict[int, set[int]] = {i: set() for i in score}
    colours = dict.fromkeys(score, "")
    byes: set[int] = set()
    cpu, wall = [], []
    for _round in range(rounds):
        players = [SwissPlayer(id=i, score=score[i], seed=i, opponents=frozenset(opponents[i]),
                               colours=colours[i], had_bye=i in byes) for i in score]
        c0, w0 = time.process_time(), time.perf_counter()
        result = pair_round(players)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        if result.bye is not None:
            assert result.bye not in byes, "a second bye"
            byes.add(result.bye)
            score[result.bye] += 2
            colours[result.bye] += "-"
        for white, black in result.pairs:
            assert black not in opponents[white], "a repeated game"
            opponents[white].add(black)
            opponents[black].add(white)
            colours[white] += "w"
            colours[black] += "b"
            x, edge = rng.random(), 0.45 + (black - white) / (4 * n)
            if x < edge:
                score[white] += 2
            elif x < edge + 0.15:
                score[white] += 1
                score[black] += 1
            else:
                score[black] += 2
    worst = max(abs(c.count("w") - c.count("b")) for c in colours.values())
    assert worst <= 2, "a colour difference beyond 2"
    assert not any("www" in c.replace("-", "") or "bbb" in c.replace("-", "")
                   for c in colours.values()), "three games with the same colour in a row"
    return cpu, wall, worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[300, 500])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for n in args.players:
        cpu, wall, worst = event(n, args.rounds, args.seed)
        print(f"{n} players, {args.rounds} rounds: CPU s per round "
              f"{' '.join(f'{c:.2f}' for c in cpu)} (max {max(cpu):.2f}); wall s "
              f"{' '.join(f'{w:.2f}' for w in wall)}; no repeat, no second bye, colour "
              f"difference at most {worst}", flush=True)


if __name__ == "__main__":
    main()
