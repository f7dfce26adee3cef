"""Search speed of the compiled core: time to a fixed depth, node for node.

For each ruleset, a fixed set of positions (the start, then positions reached by level 4
playing both sides from seeded random openings: node-bounded, so the same positions on
every run and machine) is searched to a fixed depth from an empty transposition table,
without endgame tables or opening book. Printed per ruleset: nodes, seconds, nodes/s.
``--nodes N`` searches each position for N nodes instead, keeping the table from one
position to the next as a game's searches do (a 1 s search is 2-4 M nodes): what the
table's memory costs shows there, not in short searches from an empty table.

``--against-build OLD.so`` searches the same positions with another build of the core (a
copy of ``bots/native/_kdcore64*.so``, the build the built-in rulesets use, or of the 128-bit
``_kdcore*.so``), alternating the two builds set by set so
both see the same machine load, and prints the ratio of their times. A change meant to
make the search faster without changing it (a cache, a cheaper test) must give the same
node count and the same best move in every position: the bench checks and says so.

``--weights NEW.json --against-weights OLD.json`` does the same with two evaluation files
(their ``full`` model; a file's absence means the committed weights) on one build: what a
richer evaluation costs in speed. The trees differ, so compare the nodes/s ratio.

    python -m bench.search_speed
    python -m bench.search_speed --rulesets english,international --positions 8 --rounds 3
    python -m bench.search_speed --against-build /path/to/old/_kdcore.so
    python -m bench.search_speed --nodes 2000000 --rounds 5 --against-build OLD.so
    python -m bench.search_speed --against-build OLD.so --new-build NEW.so
    python -m bench.search_speed --rulesets RS --weights NEW.json --against-weights OLD.json

Figures go in ``bench/results/strength.md`` ("Search speed") with their command.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

from bench.strength import core_build, file_params, random_opening
from bots.engine import search_level
from bots.engine.native import NativeEngine
from variants import GameRecord, Position, get_variant
from variants.base import Variant

ALL_RULESETS = ("english", "international", "brazilian", "spanish", "turkish")
# Depth per ruleset: about a second a position on a quiet 2-core machine.
DEPTHS = {"english": 15, "international": 11, "brazilian": 15, "spanish": 14, "turkish": 9}


@dataclass
class Run:
    nodes: int = 0
    seconds: float = 0.0
    moves: tuple[str, ...] = ()
    node_counts: tuple[int, ...] = ()


def positions_for(variant: Variant, count: int, seed: int) -> list[Position]:
    """The start and ``count - 1`` positions from level-4 play after random openings."""
    rng = random.Random(seed)
    found = [variant.initial_position()]
    while len(found) < count:
        record = GameRecord.new(variant)
        for move in random_opening(variant, rng):
            record.push(move)
        for _ in range(rng.randrange(8, 30)):
            if record.outcome() is not None:
                break
            reply = search_level(variant, record, level=4, seed=rng.getrandbits(32),
                                 book=False).move
            if reply is None:
                break
            record.push(reply)
        if record.outcome() is None and len(record.legal_moves()) > 1:
            found.append(record.position)
    return found


def search_all(engine: NativeEngine, positions: Sequence[Position], depth: int,
               node_limit: int | None = None) -> Run:
    """Each position to ``depth`` from an empty table; with ``node_limit``, each for that
    many nodes (``depth`` then only a ceiling), the table kept from one position to the next
    (as in a game)."""
    nodes, seconds, moves, counts = 0, 0.0, [], []
    kept = node_limit is not None
    if kept:
        engine.clear()
    for position in positions:
        if not kept:
            engine.clear()
        started = time.perf_counter()
        found = engine.search(position, max_depth=depth, node_limit=node_limit, seed=0,
                              reuse_table=kept, tables=False)
        seconds += time.perf_counter() - started
        nodes += found.nodes
        counts.append(found.nodes)
        moves.append(found.move.key if found.move is not None else "-")
    return Run(nodes, seconds, tuple(str(m) for m in moves), tuple(counts))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", default=",".join(ALL_RULESETS))
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3,
                        help="searches of every set per build (the best time is kept)")
    parser.add_argument("--depth", type=int, default=None, help="one depth for all rulesets")
    parser.add_argument("--nodes", type=int, default=None,
                        help="search each position for this many nodes instead of to a depth, "
                             "keeping the table between positions (a game's searches: what "
                             "the table's memory costs counts)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against-build", default=None, metavar="OLD.so")
    parser.add_argument("--new-build", default=None, metavar="NEW.so",
                        help="search with this build instead of the importable one")
    parser.add_argument("--weights", default=None, metavar="NEW.json",
                        help="search with this evaluation file (one ruleset)")
    parser.add_argument("--against-weights", default=None, metavar="OLD.json",
                        help="compare with this evaluation file (one ruleset)")
    args = parser.parse_args(argv)
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    if (args.weights or args.against_weights) and len(rulesets) != 1:
        parser.error("--weights and --against-weights are one ruleset's files: "
                     "give one --rulesets")
    old: ModuleType | None = core_build(args.against_build) if args.against_build else None
    candidate: ModuleType | None = core_build(args.new_build) if args.new_build else None
    print(f"Command: python -m bench.search_speed {' '.join(argv or sys.argv[1:])}")
    header = "| ruleset | depth | positions | nodes | best s | nodes/s |"
    compare = old is not None or args.against_weights is not None
    if compare:
        header += (" old nodes | old best s | old / new time | new / old nodes/s |"
                   " same tree |")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for ruleset in rulesets:
        variant = get_variant(ruleset)
        depth = 64 if args.nodes else args.depth or DEPTHS.get(ruleset, 10)
        positions = positions_for(variant, args.positions, args.seed)
        try:
            new_params, old_params = (file_params(variant, path) if path else None
                                      for path in (args.weights, args.against_weights))
        except (OSError, ValueError, KeyError) as exc:
            parser.error(f"weights file: {exc}")
        new_engine = NativeEngine(variant, module=candidate, params=new_params)
        old_engine = (NativeEngine(variant, module=old, params=old_params)
                      if compare else None)
        new_runs: list[Run] = []
        old_runs: list[Run] = []
        for _ in range(args.rounds):  # alternated: both builds see the same load
            new_runs.append(search_all(new_engine, positions, depth, args.nodes))
            if old_engine is not None:
                old_runs.append(search_all(old_engine, positions, depth, args.nodes))
        new = min(new_runs, key=lambda r: r.seconds)
        limit = f"{args.nodes:,} nodes" if args.nodes else depth
        row = (f"| {ruleset} | {limit} | {len(positions)} | {new.nodes:,} | "
               f"{new.seconds:.2f} | {new.nodes / new.seconds:,.0f} |")
        if old_runs:
            prev = min(old_runs, key=lambda r: r.seconds)
            same = prev.node_counts == new.node_counts and prev.moves == new.moves
            ratio = statistics.median(o.seconds / n.seconds
                                      for o, n in zip(old_runs, new_runs, strict=True))
            speed = statistics.median((n.nodes / n.seconds) / (o.nodes / o.seconds)
                                      for o, n in zip(old_runs, new_runs, strict=True))
            row += (f" {prev.nodes:,} | {prev.seconds:.2f} | {ratio:.3f} | {speed:.3f} | "
                    f"{'yes' if same else 'no'} |")
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
