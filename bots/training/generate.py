"""Labelled positions for fitting the evaluation, from self-play.

Every game starts from a short random opening (seeded), then both sides play the same
engine. Each position reached is written with the game's result (from White's view: 1, 0.5,
0) and the search score of the side to move (centi-men). Lines
of the output file (appended, one position per line):

    white_men white_kings black_men black_kings turn result score

bitboards as hexadecimal integers, ``turn`` 0/1, ``score`` an integer or ``-`` when unknown.

Players:

- ``engine``: Kondavo's own engine (the compiled core when available, else pure Python) at
  a fixed node budget per move, with a little root noise so games differ (``--handset``:
  with the hand-set evaluation instead of the committed fitted one);
- ``dame``: dame-rs (International only, ``pip install dame-rs``) at a fixed node budget;
  its score of every position it moves from is recorded.

The job is bounded by ``--minutes`` (wall clock) and should run in the idle scheduling
class, so it only takes CPU nobody else wants:

    chrt --idle 0 nice -n 19 python -m bots.training.generate --ruleset english --minutes 8
    chrt --idle 0 nice -n 19 python -m bots.training.generate --ruleset international --player dame

Chunks (``--chunks N``): N files ``<ruleset>-<player>-<seed>.txt`` for the seeds ``--seed``
to ``--seed + N - 1``, each ``--minutes`` long, each closed by a record
``<same name>.json`` (the command, node budget, games, results, positions, CPU seconds). The
same command run again skips the chunks that have their record and starts an unfinished
one afresh (its games are seeded, so a chunk is the same whoever finishes it), so a long
generation runs in bounded pieces and survives being stopped:

    chrt --idle 0 nice -n 19 python -m bots.training.generate --ruleset english \
        --nodes 10000 --chunks 4 --minutes 25 --seed 101
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from variants import Color, GameRecord, Move, Position, Variant, get_variant

DATA_DIR = Path(".training-data")

# (move, score of the mover or None)
Chooser = Callable[[GameRecord, random.Random], tuple[Move, int | None]]


def engine_chooser(variant: Variant, nodes: int, noise: int, handset: bool = False) -> Chooser:
    from bots.engine import search, uses_native
    from bots.engine.search import MATE_BOUND

    engine = None
    if handset and uses_native(variant):
        from bots.engine.features import (
            default_model,
            native_params,
            space_for,
            weights_from_model,
        )
        from bots.engine.native import NativeEngine

        engine = NativeEngine(variant, params=native_params(
            variant, weights_from_model(space_for(variant), default_model(variant))))

    def choose(record: GameRecord, rng: random.Random) -> tuple[Move, int | None]:
        if engine is not None:
            result = engine.search(record, node_limit=nodes, time_limit=10.0,
                                   seed=rng.getrandbits(32), noise=noise)
        else:
            result = search(variant, record, node_limit=nodes, time_limit=10.0,
                            seed=rng.getrandbits(32), noise=noise)
        if result.move is None:
            raise ValueError("no legal move")
        score = result.score if abs(result.score) < MATE_BOUND else None
        return result.move, score
    return choose


def dame_chooser(variant: Variant, nodes: int) -> Chooser:
    import dame

    engine = dame.Engine(hash_mb=32)

    def choose(record: GameRecord, rng: random.Random) -> tuple[Move, int | None]:
        board = dame.Board(variant.format_fen(record.position))
        found = engine.search(board, nodes=nodes)
        move = found.best_move
        if move is None:
            raise ValueError("no legal move")
        origin, dest = move.from_square - 1, move.to_square - 1
        captured = {sq - 1 for sq in move.captured}
        for legal in record.legal_moves():
            if (legal.path[0] == origin and legal.path[-1] == dest
                    and set(legal.captured) == captured):
                return legal, (None if found.mate is not None else int(found.score))
        raise RuntimeError(f"dame-rs move {move} is not legal")
    return choose


def _material(position: Position) -> int:
    return (3 * (position.white_kings.bit_count() - position.black_kings.bit_count())
            + position.white_men.bit_count() - position.black_men.bit_count())


def play_one(variant: Variant, choose: Chooser, rng: random.Random, *, opening_plies: int,
             max_plies: int) -> tuple[list[tuple[Position, int | None]], float]:
    """One game: its positions after the opening (with scores) and White's result."""
    record = GameRecord.new(variant)
    for _ in range(opening_plies):
        moves = record.legal_moves()
        if not moves or record.outcome() is not None:
            break
        record.push(rng.choice(moves))
    seen: list[tuple[Position, int | None]] = []
    while record.ply < max_plies:
        outcome = record.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return seen, 0.5
            return seen, 1.0 if outcome.winner is Color.WHITE else 0.0
        move, score = choose(record, rng)
        seen.append((record.position, score))
        record.push(move)
    # Unfinished: a clear material lead counts as a win, anything else as a draw.
    lead = _material(record.position)
    return seen, 1.0 if lead >= 2 else 0.0 if lead <= -2 else 0.5


def generate(variant: Variant, choose: Chooser, out: Path, rng: random.Random, *,
             minutes: float, max_plies: int) -> dict[str, int]:
    """Games until ``minutes`` have passed, every position appended to ``out``; returns
    the counts (games, positions, results from White's view, CPU seconds)."""
    deadline = time.monotonic() + 60 * minutes
    cpu = time.process_time()
    games = positions = 0
    results = {1.0: 0, 0.5: 0, 0.0: 0}
    while time.monotonic() < deadline:
        seen, result = play_one(variant, choose, rng, opening_plies=rng.randint(2, 8),
                                max_plies=max_plies)
        results[result] += 1
        with out.open("a", encoding="ascii") as fh:
            for pos, score in seen:
                fh.write(f"{pos.white_men:x} {pos.white_kings:x} {pos.black_men:x} "
                         f"{pos.black_kings:x} {int(pos.turn)} {result} "
                         f"{'-' if score is None else score}\n")
        games += 1
        positions += len(seen)
    return {"games": games, "positions": positions, "white_wins": results[1.0],
            "draws": results[0.5], "black_wins": results[0.0],
            "cpu_seconds": round(time.process_time() - cpu)}


def record_path(chunk: Path) -> Path:
    """The record that marks ``chunk`` finished."""
    return chunk.with_suffix(".json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", required=True)
    parser.add_argument("--player", choices=("engine", "dame"), default="engine")
    parser.add_argument("--nodes", type=int, default=None,
                        help="nodes per move (default: 5000 engine, 20000 dame)")
    parser.add_argument("--noise", type=int, default=6, help="engine root noise, centi-men")
    parser.add_argument("--handset", action="store_true",
                        help="engine: play with the hand-set evaluation, not the fitted one")
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--chunks", type=int, default=None,
                        help="resumable chunks of --minutes each, seeds --seed onwards")
    args = parser.parse_args(argv)
    variant = get_variant(args.ruleset)
    nodes = args.nodes or (20_000 if args.player == "dame" else 5000)
    if args.player == "dame":
        choose = dame_chooser(variant, nodes)
    else:
        choose = engine_chooser(variant, nodes, args.noise, args.handset)
    command = "python -m bots.training.generate " + " ".join(
        argv if argv is not None else sys.argv[1:])
    if args.chunks is None:
        out = Path(args.out) if args.out else DATA_DIR / f"{variant.key}-{args.player}.txt"
        targets = [(args.seed, out)]
    else:
        if args.chunks < 1 or args.out:
            parser.error("--chunks takes a count of at least 1 and no --out")
        targets = [(seed, DATA_DIR / f"{variant.key}-{args.player}-{seed}.txt")
                   for seed in range(args.seed, args.seed + args.chunks)]
    for seed, out in targets:
        out.parent.mkdir(parents=True, exist_ok=True)
        if args.chunks is not None:
            if record_path(out).exists():
                print(f"{out}: done, skipped", flush=True)
                continue
            out.unlink(missing_ok=True)  # an unfinished chunk starts afresh
        rng = random.Random(f"{seed}:{variant.key}:{args.player}")
        counts = generate(variant, choose, out, rng, minutes=args.minutes,
                          max_plies=args.max_plies)
        if args.chunks is not None:
            record = {"command": command, "seed": seed, "player": args.player,
                      "nodes": nodes, "minutes": args.minutes, **counts}
            record_path(out).write_text(json.dumps(record) + "\n", encoding="ascii")
        print(f"{variant.key}: {counts['games']} games ({counts['white_wins']} white wins, "
              f"{counts['draws']} draws, {counts['black_wins']} black wins), "
              f"{counts['positions']} positions, {counts['cpu_seconds']} s of CPU -> {out}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
