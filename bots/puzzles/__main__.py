"""``python -m bots.puzzles generate|verify|merge|stats``: see :mod:`bots.puzzles`."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bots.puzzles.generate import generate
from bots.puzzles.generate_io import read_puzzles, write_puzzles
from bots.puzzles.prover import Prover, Settings, rate
from bots.puzzles.verify import verify_file
from variants import get_variant

DATA = Path(__file__).parent / "data"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.puzzles",
                                     description="Find, prove and check draughts puzzles.")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="self-play puzzles of one ruleset")
    gen.add_argument("--ruleset", required=True)
    gen.add_argument("--count", type=int, default=500, help="stop at this many in the file")
    gen.add_argument("--seconds", type=float, default=600.0, help="stop after this long")
    gen.add_argument("--seed", type=int, default=1, help="first self-play game (a new file)")
    gen.add_argument("--out", type=Path, help="default: bots/puzzles/data/<ruleset>.jsonl")
    gen.add_argument("--scan-nodes", type=int, default=Settings().scan_nodes)
    gen.add_argument("--min-depth", type=int, default=Settings().min_depth)
    ver = sub.add_parser("verify", help="prove every puzzle of a file again, deeper")
    ver.add_argument("file", type=Path)
    ver.add_argument("--plies", type=int, default=2, help="how much deeper than generation")
    ver.add_argument("--drop", action="store_true", help="rewrite the file without rejects")
    merge = sub.add_parser("merge", help="the verified puzzles of several runs' files in "
                                         "one, rated again")
    merge.add_argument("out", type=Path)
    merge.add_argument("files", type=Path, nargs="*")
    stats = sub.add_parser("stats", help="counts, themes and ratings of data files")
    stats.add_argument("files", type=Path, nargs="*")
    args = parser.parse_args(argv)

    if args.command == "generate":
        out = args.out or DATA / f"{args.ruleset}.jsonl"
        settings = Settings(scan_nodes=args.scan_nodes, min_depth=args.min_depth)
        started = time.monotonic()
        puzzles = generate(args.ruleset, out, count=args.count, seconds=args.seconds,
                           seed=args.seed, settings=settings,
                           log=lambda line: print(line, flush=True))
        write_puzzles(out, puzzles)  # sorted by id, one a line
        print(f"{args.ruleset}: {len(puzzles)} puzzles in {out} "
              f"({time.monotonic() - started:.0f} s)")
        return 0
    if args.command == "verify":
        rejects, total = verify_file(args.file, plies=args.plies, drop=args.drop,
                                     log=lambda line: print(line, flush=True))
        print(f"{args.file}: {total - len(rejects)} of {total} proven again, "
              f"{len(rejects)} rejected")
        return 1 if rejects and not args.drop else 0
    if args.command == "merge":
        merged: dict[str, dict[str, object]] = {}
        fens: set[str] = set()
        for path in [args.out, *args.files]:
            for puzzle in read_puzzles(path):
                if "verified" not in puzzle["proof"]:  # type: ignore[operator]
                    continue  # only puzzles proven twice are shipped
                if puzzle["id"] not in merged and puzzle["fen"] not in fens:
                    merged[str(puzzle["id"])] = puzzle
                    fens.add(str(puzzle["fen"]))
        raters: dict[str, Prover] = {}
        for puzzle in merged.values():  # ratings again, each on an empty table
            key = str(puzzle["ruleset"])
            if key not in raters:
                raters[key] = Prover(get_variant(key), Settings(), tt_mb=4)
            puzzle["rating"] = rate(raters[key], puzzle)
        write_puzzles(args.out, list(merged.values()))
        print(f"{args.out}: {len(merged)} puzzles")
        return 0
    files = args.files or sorted(DATA.glob("*.jsonl"))
    for path in files:
        puzzles = read_puzzles(path)
        themes = Counter(t for p in puzzles for t in p["themes"])  # type: ignore[attr-defined]
        ratings = sorted(int(p["rating"]) for p in puzzles)  # type: ignore[call-overload]
        median = ratings[len(ratings) // 2] if ratings else 0
        print(f"{path.name}: {len(puzzles)} puzzles, themes "
              + ", ".join(f"{t} {n}" for t, n in sorted(themes.items()))
              + f", rating median {median}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
