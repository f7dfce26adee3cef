"""Endings played out by level 8, with its endgame tables and without them.

Random quiet positions of ``--pieces`` pieces (no capture for the side to move) are played
to the end of the game under the ruleset's own rules (its draw counter and repetitions
included), at ``--time`` a move, twice: once with level 8 with the tables on the side
measured, once with level 8 without them; the other side is level 8 with the tables.

- wins: positions the tables score as a win for the side to move in at least
  ``--min-plies`` plies; the side measured is the winner, against the longest resistance.
  How many does it convert, in how many plies?
- draws (``--draws``): positions the tables score as a draw although one side has more
  material (a king counts as three men); the side measured is the weaker one, against a
  stronger side that knows every winning chance. How many does it hold?

What the tables are worth where they apply, which a match between whole games measures
only in the few games that reach them. Needs the tables in the cache directory
(``python -m bots.engine.tables``).

    python -m bench.endings --rulesets turkish --pieces 4 --positions 100 --time 0.1
    python -m bench.endings --rulesets turkish --pieces 4 --positions 100 --time 0.1 --draws
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from bots.engine import tables
from bots.engine.native import NativeEngine
from variants import Color, Position, Variant, get_variant
from variants.conformance import random_position
from variants.game import GameRecord


@dataclass
class Side:
    """Level 8 on the side measured, ``with_tables`` or not: the games it won (or held)."""

    with_tables: bool
    converted: int = 0
    plies: list[int] = field(default_factory=list)


def material(position: Position, color: Color) -> int:
    return position.men(color).bit_count() + 3 * position.kings(color).bit_count()


def sample_positions(engine: NativeEngine, pieces: int, count: int, min_plies: int,
                     draws: bool, rng: random.Random) -> list[tuple[Position, Color]]:
    """``count`` random quiet positions of ``pieces`` pieces, each side at least one and no
    man on its own promotion row, with the side measured: wins of the side to move in
    ``min_plies`` plies or more (that side), or draws with unequal material (the weaker)."""
    variant = engine.variant
    found: list[tuple[Position, Color]] = []
    while len(found) < count:
        position = random_position(variant, rng, pieces)
        legal = variant.legal_moves(position)
        if not legal or legal[0].captured:
            continue
        byte = engine.probe(position)
        if draws:
            white, black = material(position, Color.WHITE), material(position, Color.BLACK)
            if byte == 0 and white != black:
                found.append((position, Color.WHITE if white < black else Color.BLACK))
        elif byte > 0 and (byte - 1) % 2 == 1 and byte - 1 >= min_plies:
            found.append((position, position.turn))
    return found


def play_out(variant: Variant, position: Position, side: Color, measured: NativeEngine,
             with_tables: bool, other: NativeEngine, seconds: float, max_plies: int,
             seed: int) -> tuple[Color | None, int]:
    """The game from ``position``, ``side`` played by ``measured`` (with its tables or not),
    the other by ``other`` with its tables: the winner (None: a draw, or unfinished after
    ``max_plies``) and the plies played."""
    record = GameRecord.new(variant, position)
    for ply in range(max_plies):
        outcome = record.outcome()
        if outcome is not None:
            return outcome.winner, ply
        legal = record.legal_moves()
        if len(legal) == 1:
            record.push(legal[0])
            continue
        ours = record.position.turn is side
        engine = measured if ours else other
        result = engine.search(record, time_limit=seconds, seed=seed + ply,
                               tables=with_tables if ours else True)
        if result.move is None:
            raise ValueError("no move from a position with legal moves")
        record.push(result.move)
    return None, max_plies


def run(key: str, pieces: int, count: int, min_plies: int, seconds: float, max_plies: int,
        seed: int, draws: bool = False) -> str:
    variant = get_variant(key)
    measured, other = NativeEngine(variant), NativeEngine(variant)
    for engine in (measured, other):
        tables.attach(engine, "wait")
        if engine.table_pieces < pieces:
            raise SystemExit(f"{key}: no {pieces}-piece tables (python -m bots.engine.tables)")
    positions = sample_positions(measured, pieces, count, min_plies, draws, random.Random(seed))
    sides = (Side(with_tables=True), Side(with_tables=False))
    for i, (position, colour) in enumerate(positions):
        for side in sides:
            measured.clear()
            other.clear()
            winner, plies = play_out(variant, position, colour, measured, side.with_tables,
                                     other, seconds, max_plies, seed + 1000 * i)
            if (winner is not colour.opponent) if draws else (winner is colour):
                side.converted += 1
                side.plies.append(plies)
    rows = []
    for side in sides:
        mean = f"{statistics.mean(side.plies):.1f}" if side.plies else "-"
        rows.append(f"| {key} | {pieces} | {'draws held' if draws else 'wins converted'} | "
                    f"{'with' if side.with_tables else 'without'} | "
                    f"{side.converted} of {len(positions)} | {mean} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", default="turkish")
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--min-plies", type=int, default=15,
                        help="only wins this many plies deep or more (short ones any search sees)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--draws", action="store_true",
                        help="drawn positions with unequal material, the weaker side measured")
    args = parser.parse_args(argv)
    print("Command: python -m bench.endings " + " ".join(sys.argv[1:] if argv is None else argv))
    print("| ruleset | pieces | positions | level 8 | result | mean plies |")
    print("|---|---:|---|---|---:|---:|")
    for key in args.rulesets.split(","):
        print(run(key, args.pieces, args.positions, args.min_plies, args.time,
                  args.max_plies, args.seed, args.draws), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
