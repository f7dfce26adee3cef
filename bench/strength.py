"""Strength lab for the bot engine: matches, score %, Elo estimates with error bars.

Every match is played in colour-alternating pairs: both games of a pair start from the same
random opening (2-4 random plies, from the seed), each side playing White once. Pairings:

- each level against the level below, per ruleset;
- the top level against a random mover and against a 2-ply greedy material player, and
  level 1 against that greedy player (a stand-in for a beginner who sees one reply ahead:
  level 1 should lose material to it regularly);
- for International, the top level against dame-rs (a Rust engine on PyPI, benchmark
  only) at equal time per move, when ``import dame`` works.

It also measures level-8 search speed (nodes/s) per ruleset. Results are printed and saved
as a Markdown table under ``bench/results/strength-<date>.md``.

    python -m bench.strength --quick
    python -m bench.strength --rulesets english,turkish --games 8 --time 0.1
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.engine import EngineConfig, choose_move, search_level
from bots.engine.levels import LEVELS, MAX_LEVEL
from variants import Color, GameRecord, Move, Position, Variant, get_variant

RESULTS_DIR = Path(__file__).resolve().parent / "results"
ALL_RULESETS = ("international", "english", "brazilian", "spanish", "turkish")

Player = Callable[[Variant, GameRecord, random.Random], Move]


# --- players ----------------------------------------------------------------------------------
def engine_player(level: int, config: EngineConfig) -> Player:
    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        return choose_move(variant, record, level=level, seed=rng.getrandbits(32),
                           config=config)
    return play


def random_player(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
    return rng.choice(record.legal_moves())


def _material(position: Position, color: Color) -> int:
    return (position.men(color).bit_count() * 100 + position.kings(color).bit_count() * 250
            - position.men(color.opponent).bit_count() * 100
            - position.kings(color.opponent).bit_count() * 250)


def greedy_player(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
    """2-ply greedy: the move whose worst reply leaves the most material (ties at random)."""
    position = record.position
    me = position.turn
    best: list[Move] = []
    best_score = -10**9
    for move in record.legal_moves():
        after = variant.apply(position, move)
        replies = variant.legal_moves(after)
        if not replies:
            score = 10**6
        else:
            score = min(_material(variant.apply(after, r), me) for r in replies)
        if score > best_score:
            best, best_score = [move], score
        elif score == best_score:
            best.append(move)
    return rng.choice(best)


def dame_player(time_per_move: float) -> Player | None:
    """dame-rs at ``time_per_move`` seconds (International only), or None if unavailable."""
    try:
        import dame
    except ImportError:
        return None
    engine = dame.Engine(hash_mb=32)

    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        board = dame.Board(variant.format_fen(record.position))
        result = engine.search(board, time=time_per_move)
        found: Any = result.best_move
        origin, dest = found.from_square - 1, found.to_square - 1
        captured = {sq - 1 for sq in found.captured}
        for move in record.legal_moves():
            if (move.path[0] == origin and move.path[-1] == dest
                    and set(move.captured) == captured):
                return move
        raise RuntimeError(f"dame-rs move {found} is not legal in {record.position}")
    return play


# --- matches ------------------------------------------------------------------------------------
@dataclass
class MatchResult:
    ruleset: str
    player: str
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    scores: list[float] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    def elo(self) -> tuple[float, float, float]:
        """Elo difference with a 95% interval (Wilson score interval on the score)."""
        n = len(self.scores)
        if n == 0:
            return 0.0, -math.inf, math.inf
        p, z = self.score, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return _elo(p), _elo(centre - half), _elo(centre + half)


def _elo(p: float) -> float:
    p = min(max(p, 0.01), 0.99)
    return -400 * math.log10(1 / p - 1)


def random_opening(variant: Variant, rng: random.Random) -> list[Move]:
    while True:
        record = GameRecord.new(variant)
        for _ in range(rng.randint(2, 4)):
            moves = record.legal_moves()
            if not moves:
                break
            record.push(rng.choice(moves))
        if record.outcome() is None:
            return [pm.move for pm in record.moves]


def play_game(variant: Variant, opening: Sequence[Move], white: Player, black: Player,
              rng: random.Random, max_plies: int) -> float:
    """1 (White won), 0.5 or 0 (Black won). Unfinished games after ``max_plies`` are draws."""
    record = GameRecord.new(variant)
    for move in opening:
        record.push(move)
    while record.ply < max_plies:
        outcome = record.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0.5
            return 1.0 if outcome.winner is Color.WHITE else 0.0
        player = white if record.position.turn is Color.WHITE else black
        record.push(player(variant, record, rng))
    return 0.5


def match(ruleset: str, name_a: str, a: Player, name_b: str, b: Player, pairs: int,
          seed: int, max_plies: int) -> MatchResult:
    variant = get_variant(ruleset)
    rng = random.Random(f"{seed}:{ruleset}:{name_a}:{name_b}")
    result = MatchResult(ruleset, name_a, name_b)
    started = time.perf_counter()
    for _ in range(pairs):
        opening = random_opening(variant, rng)
        for a_is_white in (True, False):
            white, black = (a, b) if a_is_white else (b, a)
            white_score = play_game(variant, opening, white, black, rng, max_plies)
            # The opening may leave either side to move; colours are what they are.
            s = white_score if a_is_white else 1 - white_score
            result.scores.append(s)
            if s == 1:
                result.wins += 1
            elif s == 0:
                result.losses += 1
            else:
                result.draws += 1
    result.seconds = time.perf_counter() - started
    return result


def nodes_per_second(ruleset: str, config: EngineConfig, positions: int = 3) -> float:
    variant = get_variant(ruleset)
    rng = random.Random(ruleset)
    nodes = 0
    elapsed = 0.0
    for _ in range(positions):
        record = GameRecord.new(variant)
        for _ in range(rng.randint(6, 16)):
            moves = record.legal_moves()
            if not moves:
                break
            record.push(rng.choice(moves))
        if record.outcome() is not None:
            continue
        r = search_level(variant, record, level=MAX_LEVEL, seed=0, config=config)
        nodes += r.nodes
        elapsed += r.elapsed
    return nodes / elapsed if elapsed else 0.0


# --- CLI ----------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", default=",".join(ALL_RULESETS),
                        help="comma-separated ruleset keys (default: the five built-ins)")
    parser.add_argument("--games", type=int, default=8,
                        help="games per pairing (rounded up to an even number)")
    parser.add_argument("--time", type=float, default=0.2,
                        help="seconds per move for level 8 (lower levels use their share)")
    parser.add_argument("--levels", default=f"2-{MAX_LEVEL}",
                        help="levels to test against the one below, e.g. 2-8 or 5,8")
    parser.add_argument("--top-nodes", type=int, default=None,
                        help="bound level 8 by this many nodes per move instead of --time "
                             "(reproducible on a loaded machine: e.g. what 1 s buys on an "
                             "idle one); dame-rs games keep --time for both sides")
    parser.add_argument("--no-levels", action="store_true", help="skip level-vs-level")
    parser.add_argument("--no-baselines", action="store_true",
                        help="skip top level vs random/greedy and L1 vs greedy")
    parser.add_argument("--no-dame", action="store_true", help="skip dame-rs")
    parser.add_argument("--max-plies", type=int, default=250)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="2 games per pairing, 0.3 s per move for level 8")
    parser.add_argument("--out", default=None, help="Markdown output file")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.time = 2, 0.3
    pairs = max(1, (args.games + 1) // 2)
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    config = EngineConfig(move_time=args.time)
    # Level 8's budget: --time, or a fixed node count (time only as a generous safety net).
    top_config = (config if args.top_nodes is None else
                  EngineConfig(move_time=60.0, max_time=60.0, node_limit=args.top_nodes))
    top_budget = (f"{args.time} s/move" if args.top_nodes is None
                  else f"{args.top_nodes:,} nodes/move (not time)")
    levels = _parse_levels(args.levels)
    top = MAX_LEVEL

    lines = [f"# Engine strength lab, {dt.date.today().isoformat()}", "",
             f"Command: `python -m bench.strength {' '.join(argv or sys.argv[1:])}`", "",
             f"{2 * pairs} games per pairing (colour-alternating pairs from random 2-4 ply "
             f"openings). Levels 1-7 are node/depth-bounded; level 8 gets {top_budget}; "
             f"dame-rs and level 8 against it get {args.time} s/move; the speed table is "
             f"level 8 at {args.time} s. Unfinished after {args.max_plies} plies: draw. "
             "Elo from "
             "the score, 95% Wilson interval (Elo clamped at +-798 for 99/1%).",
             "", f"Level table: {_level_table()}",
             "", "## Search speed (level 8, nodes/s)", "", "| ruleset | nodes/s |", "|---|---:|"]
    print("\n".join(lines), flush=True)
    speed_lines = []
    for ruleset in rulesets:
        nps = nodes_per_second(ruleset, config)
        speed_lines.append(f"| {ruleset} | {nps:,.0f} |")
        print(speed_lines[-1], flush=True)
    lines += speed_lines
    header = ["", "## Matches", "",
              "| ruleset | player | opponent | W | D | L | score | Elo [95%] | time |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    lines += header
    print("\n".join(header), flush=True)

    def report(r: MatchResult) -> None:
        elo, lo, hi = r.elo()
        row = (f"| {r.ruleset} | {r.player} | {r.opponent} | {r.wins} | {r.draws} | "
               f"{r.losses} | {100 * r.score:.0f}% | {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] | "
               f"{r.seconds:.0f} s |")
        lines.append(row)
        print(row, flush=True)

    for ruleset in rulesets:
        if not args.no_levels:
            for level in levels:
                player_config = top_config if level == top else config
                report(match(ruleset, f"L{level}", engine_player(level, player_config),
                             f"L{level - 1}", engine_player(level - 1, config), pairs,
                             args.seed, args.max_plies))
        if not args.no_baselines:
            report(match(ruleset, f"L{top}", engine_player(top, top_config), "random",
                         random_player, pairs, args.seed, args.max_plies))
            report(match(ruleset, f"L{top}", engine_player(top, top_config), "greedy-2ply",
                         greedy_player, pairs, args.seed, args.max_plies))
            report(match(ruleset, "L1", engine_player(1, config), "greedy-2ply",
                         greedy_player, pairs, args.seed, args.max_plies))
        if ruleset == "international" and not args.no_dame:
            dame = dame_player(args.time)
            if dame is None:
                note = "dame-rs: not installed (pip install dame-rs); skipped"
                lines.append(f"\n{note}\n")
                print(note)
            else:
                report(match(ruleset, f"L{top}", engine_player(top, config),
                             f"dame-rs {args.time}s", dame, pairs, args.seed,
                             args.max_plies))
    out = Path(args.out) if args.out else RESULTS_DIR / f"strength-{dt.date.today()}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"\nsaved {out}")
    return 0


def _level_table() -> str:
    """The level table in one line, so a results file says what it measured."""
    parts = []
    for lv in LEVELS.values():
        budget = ("time" if lv.time_share else
                  (f"d{lv.max_depth}/" if lv.max_depth < 64 else "") + f"{lv.node_limit:,}n")
        extra = f" noise {lv.noise}" if lv.noise else ""
        extra += f" rand {lv.random_move:.0%}" if lv.random_move else ""
        parts.append(f"L{lv.number} {budget}{extra}")
    return "; ".join(parts) + "."


def _parse_levels(text: str) -> list[int]:
    levels: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            lo, hi = (int(x) for x in part.split("-"))
            levels.update(range(lo, hi + 1))
        elif part.strip():
            levels.add(int(part))
    return sorted(lv for lv in levels if 2 <= lv <= MAX_LEVEL)


if __name__ == "__main__":
    raise SystemExit(main())
