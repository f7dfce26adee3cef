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

The job is bounded by ``--minutes`` (wall clock) and should run niced:

    nice -n 10 python -m bots.training.generate --ruleset english --minutes 8
    nice -n 10 python -m bots.training.generate --ruleset international --player dame
"""

from __future__ import annotations

import argparse
import random
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
    args = parser.parse_args(argv)
    variant = get_variant(args.ruleset)
    if args.player == "dame":
        choose = dame_chooser(variant, args.nodes or 20_000)
    else:
        choose = engine_chooser(variant, args.nodes or 5000, args.noise, args.handset)
    out = Path(args.out) if args.out else DATA_DIR / f"{variant.key}-{args.player}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{args.seed}:{variant.key}:{args.player}")
    deadline = time.monotonic() + 60 * args.minutes
    games = positions = 0
    results = {1.0: 0, 0.5: 0, 0.0: 0}
    while time.monotonic() < deadline:
        seen, result = play_one(variant, choose, rng, opening_plies=rng.randint(2, 8),
                                max_plies=args.max_plies)
        results[result] += 1
        with out.open("a", encoding="ascii") as fh:
            for pos, score in seen:
                fh.write(f"{pos.white_men:x} {pos.white_kings:x} {pos.black_men:x} "
                         f"{pos.black_kings:x} {int(pos.turn)} {result} "
                         f"{'-' if score is None else score}\n")
        games += 1
        positions += len(seen)
    print(f"{variant.key}: {games} games ({results[1.0]} white wins, {results[0.5]} draws, "
          f"{results[0.0]} black wins), {positions} positions -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
