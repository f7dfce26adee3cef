"""Strength lab for the bot engine: matches, score %, Elo estimates with error bars.

Every match is played in colour-alternating pairs: both games of a pair start from the same
random opening (2-4 random plies, from the seed), each side playing White once. Pairings:

- each level against the level below, per ruleset;
- the top level against a random mover and against a 2-ply greedy material player, and
  level 1 against that greedy player (a stand-in for a beginner who sees one reply ahead:
  level 1 should lose material to it regularly);
- for International, the top level against dame-rs (a Rust engine on PyPI, benchmark
  only) at equal time per move, when ``import dame`` works.

``--peers`` plays level 8 against the other engines: dame-rs and the py-draughts engine
(International; ``make bench-peers``) and "today's level 8" (the pure-Python search with the
hand-set evaluation of :mod:`bots.training.handset`, as of commit e377148) in every ruleset,
all at ``--time`` per move. ``--against-build CORE.so`` plays level 8 of this build of the
compiled core against level 8 of another build (a copy of ``bots/native/_kdcore*.so``, e.g.
main's before a search change; since 2026-12-07 the built-in rulesets play on the 64-bit
build, ``_kdcore64*.so``, so that is the file to copy for them), both at ``--time`` per move
with the same endgame tables (``--new-build`` replaces this build by another copy), or on
clocks (``--clock BASE+INC``, each side's moves charged to its own clock, a loss on time a
loss).
``--peers --hub NAME=COMMAND`` also plays an engine on the Hub protocol (Scan; or an older
checkout's ``python -m bots.engine.hub``, with ``--hub-cwd``) at ``--time`` per move.
``--write-ratings`` chains the level-vs-level scores into nominal ratings (level 1 = 800)
written to ``bots/engine/data/ratings.json``.

It also measures level-8 search speed (nodes/s) per ruleset. Tables are printed;
``--out FILE`` saves one as Markdown and ``--json FILE`` appends every match as a JSON line
(the data behind ``bench/results/strength.md``, the one curated results file, kept in
``bench/results/data/strength/``).

    python -m bench.strength --quick
    python -m bench.strength --rulesets english,turkish --games 8 --time 0.1
    python -m bench.strength --peers --games 20 --time 1
    python -m bench.strength --against-build /path/to/old/_kdcore.so --games 40 --time 0.1
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.machinery
import importlib.util
import json
import math
import os
import random
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from bots.engine import EngineConfig, Searcher, choose_move, search_level, tables, uses_native
from bots.engine.guard import guard
from bots.engine.levels import LEVELS, MAX_LEVEL
from bots.engine.ratings import RATINGS_FILE
from bots.engine.search import SearchResult
from bots.engine.timing import Budget, Clock, budget, clock_share
from bots.training.handset import handset_evaluator
from variants import Color, GameRecord, Move, Position, Variant, get_variant
from variants.pdn import write_pdn

RESULTS_DIR = Path(__file__).resolve().parent / "results"
#: The one curated results file of the lab (tables with their commands and dates).
RESULTS_FILE = RESULTS_DIR / "strength.md"
ALL_RULESETS = ("international", "english", "brazilian", "spanish", "turkish")

Player = Callable[[Variant, GameRecord, random.Random], Move]


@dataclass
class Meter:
    """Nodes searched and seconds spent by one player over a match (its nodes/s)."""

    nodes: int = 0
    seconds: float = 0.0
    depths: int = 0  # sum of the searches' completed depths (0 when not reported)
    searches: int = 0

    def add(self, nodes: int, seconds: float, depth: int = 0) -> None:
        self.nodes += nodes
        self.seconds += seconds
        self.depths += depth
        self.searches += 1

    def reset(self) -> None:
        self.nodes, self.seconds, self.depths, self.searches = 0, 0.0, 0, 0

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def depth(self) -> float:
        """Mean completed depth per search."""
        return self.depths / self.searches if self.searches else 0.0

    @property
    def per_search(self) -> float:
        """Mean seconds per search."""
        return self.seconds / self.searches if self.searches else 0.0


@dataclass
class GameClocks:
    """Both sides' clocks in the game being played (``--clock BASE+INC``): seconds left each,
    charged with the wall-clock time of every move, the increment added after it; a side
    whose time runs out loses the game (``flagged``)."""

    base: float
    increment: float
    left: dict[Color, float] = field(default_factory=dict)
    flagged: Color | None = None

    @classmethod
    def parse(cls, text: str) -> GameClocks:
        base, _, increment = text.partition("+")
        clocks = cls(float(base), float(increment or 0))
        if clocks.base <= 0 or clocks.increment < 0:
            raise ValueError(f"not a time control: {text!r} (BASE+INC, seconds)")
        return clocks

    def reset(self) -> None:
        self.left = {Color.WHITE: self.base, Color.BLACK: self.base}
        self.flagged = None

    def clock(self, color: Color) -> Clock:
        return Clock(self.left[color], self.increment)

    def charge(self, color: Color, seconds: float) -> None:
        self.left[color] -= seconds
        if self.left[color] < 0:
            self.flagged = color
        else:
            self.left[color] += self.increment


# --- players ----------------------------------------------------------------------------------
def engine_player(level: int, config: EngineConfig, meter: Meter | None = None) -> Player:
    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        if meter is None:
            return choose_move(variant, record, level=level, seed=rng.getrandbits(32),
                               config=config)
        found = search_level(variant, record, level=level, seed=rng.getrandbits(32),
                             config=config)
        if found.move is None:
            raise ValueError("no legal move")
        meter.add(found.nodes, found.elapsed)
        return found.move
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


def dame_player(time_per_move: float, meter: Meter | None = None) -> Player | None:
    """dame-rs at ``time_per_move`` seconds (International only), or None if unavailable."""
    try:
        import dame
    except ImportError:
        return None
    engine = dame.Engine(hash_mb=32)

    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        board = dame.Board(variant.format_fen(record.position))
        started = time.perf_counter()
        result = engine.search(board, time=time_per_move)
        if meter is not None and not getattr(result, "from_book", False):
            meter.add(int(result.nodes), time.perf_counter() - started)
        found: Any = result.best_move
        origin, dest = found.from_square - 1, found.to_square - 1
        captured = {sq - 1 for sq in found.captured}
        for move in record.legal_moves():
            if (move.path[0] == origin and move.path[-1] == dest
                    and set(move.captured) == captured):
                return move
        raise RuntimeError(f"dame-rs move {found} is not legal in {record.position}")
    return play


class HubOpponent:
    """An engine on the Hub protocol (Scan, or another checkout's ``python -m
    bots.engine.hub``) as a player at ``time_per_move`` seconds: a process of its own, the
    game sent as its start and moves before each search (``docs/engine.md``)."""

    def __init__(self, command: str, time_per_move: float, meter: Meter | None = None,
                 cwd: str | None = None, names: dict[str, str] | None = None) -> None:
        self.command, self.time, self.meter, self.cwd = command, time_per_move, meter, cwd
        self.names = names or {}  # ruleset key -> the engine's variant name (--hub-variant)
        self.proc: subprocess.Popen[str] | None = None
        self.variant_values: list[str] = []
        self.ruleset = ""
        self.last_ply = -1

    def send(self, line: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, word: str) -> list[str]:
        assert self.proc is not None and self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the Hub engine ({self.command}) ended")
            line = line.strip()
            lines.append(line)
            if line.split(" ", 1)[0] == word:
                return lines
            if line.startswith("error"):
                raise RuntimeError(f"the Hub engine said: {line}")

    def start(self, variant: Variant) -> None:
        if self.proc is None:
            self.proc = subprocess.Popen(shlex.split(self.command), cwd=self.cwd, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         bufsize=1)
            self.send("hub")
            for line in self.until("wait"):
                if line.startswith("param") and "name=variant" in line:
                    self.variant_values = line.split('values="', 1)[-1].rstrip('"').split()
        if self.ruleset != variant.key:
            names = [self.names.get(variant.key, ""), variant.key, *variant.own_aliases]
            chosen = next((n for n in names if n and n in self.variant_values), None)
            if chosen is None and self.variant_values:
                raise RuntimeError(f"the Hub engine does not play {variant.key} "
                                   f"({' '.join(self.variant_values)})")
            if chosen:
                self.send(f"set-param name=variant value={chosen}")
            self.send("init")
            self.until("ready")
            self.ruleset = variant.key

    def __call__(self, variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        from bots.engine.hub import move_from_hub, move_to_hub, parse_args, position_to_hub

        self.start(variant)
        if record.ply <= self.last_ply:
            self.send("new-game")
        self.last_ply = record.ply
        moves = " ".join(move_to_hub(m.move) for m in record.moves)
        self.send(f"pos pos={position_to_hub(variant, record.start)}"
                  + (f' moves="{moves}"' if moves else ""))
        self.send(f"level move-time={self.time}")
        self.send("go think")
        started = time.perf_counter()
        lines = self.until("done")
        if self.meter is not None:
            infos = [parse_args(ln.partition(" ")[2]) for ln in lines if ln.startswith("info ")]
            if infos and infos[-1].get("nodes", "0").isdigit():
                depth = infos[-1].get("depth", "0")
                self.meter.add(int(infos[-1]["nodes"]), time.perf_counter() - started,
                               int(depth) if depth.isdigit() else 0)
        text = lines[-1].split()[1].removeprefix("move=")
        try:
            return move_from_hub(record.legal_moves(), text)
        except ValueError:
            raise RuntimeError(f"the Hub engine's move {text} is not legal here") from None

    def close(self) -> None:
        if self.proc is not None:
            self.send("quit")
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None
            self.ruleset = ""


def baseline_player(time_per_move: float, meter: Meter | None = None) -> Player:
    """"Today's level 8" as of commit e377148: the pure-Python search with the hand-set
    evaluation (:mod:`bots.training.handset`), thinking ``time_per_move`` seconds (kept as
    the lab's fixed yardstick)."""
    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        moves = record.legal_moves()
        if len(moves) == 1:  # as then: a forced move at once
            return moves[0]
        searcher = Searcher(variant, history=record.positions[:-1],
                            quiet_plies=record.quiet_plies,
                            deadline=time.perf_counter() + time_per_move,
                            rng=random.Random(rng.getrandbits(32)),
                            evaluator=handset_evaluator(variant))
        found = searcher.run(record.position)
        if found.move is None:
            raise ValueError("no legal move")
        if meter is not None:
            meter.add(found.nodes, found.elapsed)
        return found.move
    return play


def core_build(path: str) -> ModuleType:
    """Another build of the compiled core (a copy of ``_kdcore*.so``, or of
    ``_kdcore64*.so``: 64-bit boards, rulesets of at most 64 squares), loaded next to the
    one :mod:`bots.engine.native` uses (its own name, so neither replaces the other)."""
    failure: ImportError | None = None
    for stem in ("_kdcore", "_kdcore64"):  # the module name its init function says
        name = f"kondavo_build_{abs(hash(path))}.{stem}"
        loader = importlib.machinery.ExtensionFileLoader(name, path)
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        if spec is None:
            raise ValueError(f"not an extension module: {path}")
        try:
            module = importlib.util.module_from_spec(spec)
        except ImportError as error:
            failure = error
            continue
        loader.exec_module(module)
        return module
    raise ValueError(f"not a build of the core: {path} ({failure})")


def takes_target(module: ModuleType | None) -> bool:
    """Whether a build of the core (None: this one) takes a clock's target (``soft_time``,
    ``bots/native/search.c``, Time); a build from before 2026-12-08 does not."""
    if module is None:
        return True
    return "soft_time" in (getattr(module.Core.search, "__doc__", None) or "")


def build_player(variant: Variant, module: ModuleType | None, time_per_move: float,
                 meter: Meter | None = None, clocks: GameClocks | None = None) -> Player:
    """Level 8 on a given build of the compiled core (None: this one): its own engine and
    transposition table, the endgame tables level 8 gets, ``time_per_move`` seconds, a
    forced move at once and the ruleset's root guard, as :func:`bots.engine.search_level`.
    With ``clocks`` it plays on its clock as the Hub engine does (``bots.engine.timing``:
    the clock's share as the target, or as the limit for a build that takes no target)."""
    from bots.engine.native import NativeEngine

    engine = NativeEngine(variant, module=module)
    tables.attach(engine, "wait")
    targets = takes_target(module)

    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        legal = record.legal_moves()
        if len(legal) == 1:
            return legal[0]
        seed = rng.getrandbits(32)
        allotted = Budget(time_per_move)
        if clocks is not None:
            clock = clocks.clock(record.position.turn)
            allotted = budget(math.inf, clock) if targets else Budget(clock_share(clock))

        def run(target: GameRecord | Position, seconds: float | None,
                nodes: int | None) -> SearchResult:  # as bots.engine.search's own run
            return engine.search(target, time_limit=seconds, node_limit=nodes, seed=seed,
                                 target_time=allotted.target)

        found = guard(variant, record, run(record, allotted.limit, None), run,
                      time_limit=allotted.limit, node_limit=None)
        if found.move is None:
            raise ValueError("no legal move")
        if meter is not None:
            meter.add(found.nodes, found.elapsed, found.depth)
        return found.move
    return play


PY_DRAUGHTS_DIR = Path(__file__).resolve().parent.parent / ".venv" / "bench-peers" / "py-draughts"


def py_draughts_player(time_per_move: float, meter: Meter | None = None) -> Player | None:
    """py-draughts' TurboEngine (pure Python, International only) at ``time_per_move``
    seconds, from ``make bench-peers``; None when it is not installed."""
    if not PY_DRAUGHTS_DIR.is_dir():
        return None
    if str(PY_DRAUGHTS_DIR) not in sys.path:
        sys.path.append(str(PY_DRAUGHTS_DIR))  # last: the venv's own packages win
    try:
        from draughts.boards.standard import Board
        from draughts.engines.turbo import TurboEngine
    except ImportError:
        return None
    engine = TurboEngine(depth_limit=None, time_limit=time_per_move)

    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        board = Board.from_fen(variant.format_fen(record.position))
        started = time.perf_counter()
        found: Any = engine.get_best_move(board)
        if meter is not None:
            meter.add(int(getattr(engine, "nodes", 0)), time.perf_counter() - started)
        origin, dest = found.square_list[0], found.square_list[-1]
        captured = set(found.captured_list)
        for move in record.legal_moves():
            if (move.path[0] == origin and move.path[-1] == dest
                    and set(move.captured) == captured):
                return move
        raise RuntimeError(f"py-draughts move {found} is not legal in {record.position}")
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
    time_losses: list[int] = field(default_factory=lambda: [0, 0])  # player's, opponent's

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


OpeningCheck = Callable[[GameRecord], bool]

#: A balanced opening: a material-only search of this many plies (plus the forced captures
#: at its horizon) finds neither side winning more than ``BALANCE_MARGIN`` centi-men.
BALANCE_DEPTH = 8
BALANCE_MARGIN = 50


def random_opening(variant: Variant, rng: random.Random,
                   check: OpeningCheck | None = None) -> list[Move]:
    """2-4 random plies from the start; with ``check``, drawn again until it accepts them."""
    while True:
        record = GameRecord.new(variant)
        for _ in range(rng.randint(2, 4)):
            moves = record.legal_moves()
            if not moves:
                break
            record.push(rng.choice(moves))
        if record.outcome() is None and (check is None or check(record)):
            return [pm.move for pm in record.moves]


def material_balance_check(variant: Variant) -> OpeningCheck:
    """Accept an opening unless one side wins material by force: a search on the compiled
    core that counts only material (man 100, king 300), neither engine's evaluation, to
    ``BALANCE_DEPTH`` plies. Random plies on a small board often hang a man, and such a
    pair of games measures the opening draw rather than the engines."""
    from bots.engine.features import native_params, space_for, weights_from_model
    from bots.engine.native import NativeEngine

    material = {"scalars": {"man": 100.0, "king": 300.0}}
    params = native_params(variant, weights_from_model(space_for(variant), material))
    engine = NativeEngine(variant, tt_mb=4, params=params)

    def balanced(record: GameRecord) -> bool:
        found = engine.search(record, max_depth=BALANCE_DEPTH, reuse_table=False)
        return abs(found.score) <= BALANCE_MARGIN
    return balanced


def play_game(variant: Variant, opening: Sequence[Move], white: Player, black: Player,
              rng: random.Random, max_plies: int,
              clocks: GameClocks | None = None) -> GameRecord:
    """The game from ``opening`` until it ends or reaches ``max_plies``; with ``clocks``
    (reset here), also until a side's time runs out (its move is then not played)."""
    record = GameRecord.new(variant)
    for move in opening:
        record.push(move)
    if clocks is not None:
        clocks.reset()
    while record.ply < max_plies and record.outcome() is None:
        turn = record.position.turn
        player = white if turn is Color.WHITE else black
        started = time.perf_counter()
        move = player(variant, record, rng)
        if clocks is not None:
            clocks.charge(turn, time.perf_counter() - started)
            if clocks.flagged is not None:
                break
        record.push(move)
    return record


def white_score(record: GameRecord, clocks: GameClocks | None = None) -> float:
    """1 (White won), 0.5 or 0 (Black won); a game left unfinished counts as a draw, one
    lost on time (``clocks``) as lost."""
    if clocks is not None and clocks.flagged is not None:
        return 0.0 if clocks.flagged is Color.WHITE else 1.0
    outcome = record.outcome()
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner is Color.WHITE else 0.0


def match(ruleset: str, name_a: str, a: Player, name_b: str, b: Player, pairs: int,
          seed: int, max_plies: int, games_out: Path | None = None,
          balanced: bool = False, clocks: GameClocks | None = None) -> MatchResult:
    """``games_out``: append every game to this PDN file (names, result, unfinished = ``*``).
    ``balanced``: only openings :func:`material_balance_check` accepts. ``clocks``: the
    games are played on these clocks (the players read them), a loss on time counted in
    ``time_losses`` (A's, B's)."""
    variant = get_variant(ruleset)
    rng = random.Random(f"{seed}:{ruleset}:{name_a}:{name_b}")
    # Openings from their own generator: the same seed gives the same openings whatever
    # the players draw from ``rng``, so two builds can be compared game by game.
    openings = random.Random(f"{seed}:{ruleset}:openings")
    result = MatchResult(ruleset, name_a, name_b)
    check = material_balance_check(variant) if balanced else None
    started = time.perf_counter()
    for _ in range(pairs):
        opening = random_opening(variant, openings, check)
        for a_is_white in (True, False):
            white, black = (a, b) if a_is_white else (b, a)
            record = play_game(variant, opening, white, black, rng, max_plies, clocks)
            if clocks is not None and clocks.flagged is not None:
                flagged_a = (clocks.flagged is Color.WHITE) == a_is_white
                result.time_losses[0 if flagged_a else 1] += 1
            if games_out is not None:
                names = (name_a, name_b) if a_is_white else (name_b, name_a)
                with games_out.open("a", encoding="utf-8") as fh:
                    fh.write(write_pdn(record, {"Event": f"strength lab, {ruleset}",
                                                "White": names[0], "Black": names[1]}))
                    fh.write("\n\n")
            # The opening may leave either side to move; colours are what they are.
            s = white_score(record, clocks)
            s = s if a_is_white else 1 - s
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
        r = search_level(variant, record, level=MAX_LEVEL, seed=0, config=config, book=False)
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
    parser.add_argument("--peers", action="store_true",
                        help="only level 8 against the other engines: dame-rs and py-draughts "
                             "(International) and today's level 8 (every ruleset), everyone "
                             "at --time per move")
    parser.add_argument("--hub", action="append", default=None, metavar="NAME=COMMAND",
                        help="--peers: also play this Hub-protocol engine in every ruleset of "
                             "--rulesets it offers, e.g. 'scan=/opt/scan/scan hub' or "
                             "'old=python -m bots.engine.hub' with --hub-cwd an older checkout")
    parser.add_argument("--hub-variant", action="append", default=None, metavar="KEY=NAME",
                        help="--hub: the engine's name for a ruleset when it is not the key "
                             "or an alias, e.g. international=normal for Scan")
    parser.add_argument("--hub-cwd", default=None, metavar="DIR",
                        help="--hub: the engine's working directory")
    parser.add_argument("--only", default=None,
                        help="--peers: only opponents whose name contains this "
                             "(dame-rs, py-draughts, today's)")
    parser.add_argument("--against-build", default=None, metavar="CORE.so",
                        help="only level 8 of this build of the compiled core against level 8 "
                             "of the build in this file (a copy of bots/native/_kdcore*.so "
                             "or, for boards of at most 64 squares, _kdcore64*.so), "
                             "both at --time per move")
    parser.add_argument("--clock", default=None, metavar="BASE+INC",
                        help="with --against-build: play on clocks of BASE seconds and INC a "
                             "move (a loss on time loses the game) instead of --time a move")
    parser.add_argument("--new-build", default=None, metavar="CORE.so",
                        help="--against-build: play this build instead of the importable one")
    parser.add_argument("--json", default=None, metavar="FILE",
                        help="append every match as a JSON line (ruleset, players, W-D-L, "
                             "time control, command, date)")
    parser.add_argument("--write-ratings", action="store_true",
                        help="chain the level-vs-level scores into nominal ratings (level 1 "
                             f"= {ANCHOR}) and write them to {RATINGS_FILE.name}")
    parser.add_argument("--eval-ab", nargs="*", default=None, metavar="WEIGHTS.json",
                        help="evaluation A/B on the compiled core at --ab-nodes per move: "
                             "the committed fitted weights (or the given files, one per "
                             "ruleset) against the hand-set evaluation, or with two files "
                             "per ruleset given as A.json:B.json, A against B")
    parser.add_argument("--ab-nodes", type=int, default=20_000)
    parser.add_argument("--ab-time", type=float, default=None, metavar="SECONDS",
                        help="--eval-ab at this time per move instead of --ab-nodes (what a "
                             "slower evaluation costs counts)")
    parser.add_argument("--ratings-from", nargs="*", default=None,
                        help="rebuild ratings.json from the level-vs-level rows of saved "
                             "result tables (no games played)")
    parser.add_argument("--out", default=None, help="Markdown output file")
    parser.add_argument("--book-ab", action="store_true",
                        help="level 8 with its opening book and largest endgame tables "
                             "against level 8 without the book and with four-piece tables, "
                             "from the initial position, at --time per move")
    parser.add_argument("--balanced", action="store_true",
                        help="--peers, --against-build: only openings where no side wins "
                             "material by force "
                             f"(a material-only search of {BALANCE_DEPTH} plies)")
    parser.add_argument("--games-out", default=None,
                        help="--peers, --against-build: append every game to this PDN file "
                             "(for post-mortems)")
    args = parser.parse_args(argv)
    if args.clock is not None:
        if not args.against_build:
            parser.error("--clock is for --against-build matches")
        try:
            GameClocks.parse(args.clock)
        except ValueError as error:
            parser.error(str(error))
    # Level 8's endgame tables are solved (or read) before the first game, not in the
    # background while a match is running (bots.engine.tables).
    os.environ.setdefault(tables.MODE_ENV, "wait")
    if args.peers:
        return peers(args, argv)
    if args.against_build:
        return against_build(args, argv)
    if args.book_ab:
        return book_tables_ab(args, argv)
    if args.eval_ab is not None:
        return eval_ab(args, argv)
    if args.ratings_from:
        write_ratings(ladder_from_tables(args.ratings_from))
        return 0
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
        _log_match(args, argv, r, top_budget if r.player == f"L{top}" else "level budgets")

    ladder: dict[str, dict[int, tuple[float, int]]] = {}
    for ruleset in rulesets:
        if not args.no_levels:
            for level in levels:
                player_config = top_config if level == top else config
                r = match(ruleset, f"L{level}", engine_player(level, player_config),
                          f"L{level - 1}", engine_player(level - 1, config), pairs,
                          args.seed, args.max_plies)
                ladder.setdefault(ruleset, {})[level] = (sum(r.scores), r.games)
                report(r)
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
    if args.write_ratings:
        lines += ["", "## Nominal ratings", ""] + write_ratings(ladder)
    _save(args, lines)
    return 0


ANCHOR = 800  # nominal rating of level 1


def chain_ratings(steps: dict[int, tuple[float, int]]) -> dict[int, int]:
    """Ratings from level 1 (= ANCHOR) up, adding the Elo of each level's score against the
    level below (``steps[level]``: points and games); stops at the first unmeasured level.

    Each score counts one extra virtual draw, ``(points + 0.5) / (games + 1)``, so a short
    match won outright gives a large but finite step instead of the clamp."""
    ratings = {1: ANCHOR}
    level = 2
    while level in steps:
        points, games = steps[level]
        ratings[level] = round(ratings[level - 1] + _elo((points + 0.5) / (games + 1)))
        level += 1
    return ratings


def write_ratings(ladder: dict[str, dict[int, tuple[float, int]]]) -> list[str]:
    """Merge the chained ratings of every fully measured ruleset into ratings.json."""
    try:
        table = json.loads(RATINGS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        table = {}
    out = []
    for ruleset, results in ladder.items():
        ratings = chain_ratings(results)
        if len(ratings) < MAX_LEVEL:
            out.append(f"{ruleset}: levels 2-{MAX_LEVEL} not all measured; not written")
            continue
        table[ruleset] = {str(lv): r for lv, r in sorted(ratings.items())}
        counts = sorted({g for _p, g in results.values()})
        out.append(f"{ruleset}: " + ", ".join(f"L{lv} {r}" for lv, r in ratings.items())
                   + f" ({'/'.join(map(str, counts))} games per adjacent pair)")
    RATINGS_FILE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n",
                            encoding="utf-8")
    for line in out:
        print(line)
    return out


def ladder_from_tables(paths: Sequence[str]) -> dict[str, dict[int, tuple[float, int]]]:
    """Level-vs-level results (``| ruleset | L<n> | L<n-1> | W | D | L |`` rows) of saved
    tables. Rows of one file for the same pairing add up; a later file's pairing replaces
    an earlier file's (a re-measurement, e.g. after a level changed)."""
    ladder: dict[str, dict[int, tuple[float, int]]] = {}
    for path in paths:
        found: dict[tuple[str, int], tuple[float, int]] = {}
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 6 or not (cells[1][:1] == "L" and cells[2][:1] == "L"):
                continue
            try:
                level, below = int(cells[1][1:]), int(cells[2][1:])
                wins, draws, losses = int(cells[3]), int(cells[4]), int(cells[5])
            except ValueError:
                continue
            if below != level - 1:
                continue
            points, games = found.get((cells[0], level), (0.0, 0))
            found[(cells[0], level)] = (points + wins + draws / 2,
                                        games + wins + draws + losses)
        for (ruleset, level), result in found.items():
            ladder.setdefault(ruleset, {})[level] = result
    return ladder


def native_player(variant: Variant, params: list[int], nodes: int,
                  seconds: float | None = None) -> Player:
    """The compiled core with these evaluation parameters at ``nodes`` a move, or with
    ``seconds`` a move (a forced move played at once), without endgame tables or book."""
    from bots.engine.native import NativeEngine

    engine = NativeEngine(variant, tt_mb=16, params=params)

    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        if seconds is not None:
            moves = record.legal_moves()
            if len(moves) == 1:
                return moves[0]
            found = engine.search(record, time_limit=seconds, seed=rng.getrandbits(32))
        else:
            found = engine.search(record, node_limit=nodes, seed=rng.getrandbits(32))
        if found.move is None:
            raise ValueError("no legal move")
        return found.move
    return play


def file_params(variant: Variant, path: str | Path) -> list[int]:
    """The compiled evaluation's parameters from a weights file's ``full`` model."""
    from bots.engine.features import native_params, space_for, weights_from_model

    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if doc.get("ruleset") != variant.key:
        raise ValueError(f"{path} holds {doc.get('ruleset')!r} weights, not {variant.key!r}")
    return native_params(variant, weights_from_model(space_for(variant), doc["full"]))


def eval_ab(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """Two evaluations at equal nodes (or equal time) on the compiled core, per ruleset."""
    from bots.engine.features import (
        default_model,
        native_params,
        space_for,
        weights_from_model,
    )

    pairs = max(1, (args.games + 1) // 2)
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    given = {}
    for spec in args.eval_ab:
        a, _, b = spec.partition(":")
        given[json.loads(Path(a).read_text(encoding="utf-8"))["ruleset"]] = (a, b or None)

    def params(variant: Variant, path: str | None) -> tuple[str, list[int]]:
        space = space_for(variant)
        if path is None:
            return "hand-set", native_params(variant, weights_from_model(
                space, default_model(variant)))
        if path == "committed":
            return "fitted", native_params(variant)
        return Path(path).name, file_params(variant, path)

    lines = [f"# Evaluation A/B, {dt.date.today().isoformat()}", "",
             f"Command: `python -m bench.strength {' '.join(argv or sys.argv[1:])}`", "",
             f"{2 * pairs} games per match, "
             + (f"{args.ab_time:g} s" if args.ab_time else f"{args.ab_nodes:,} nodes")
             + " per move for both sides on the compiled core, colour-alternating pairs "
             "from random 2-4 ply openings.",
             "", "| ruleset | A | B | W | D | L | score of A | Elo [95%] | time |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for ruleset in rulesets:
        variant = get_variant(ruleset)
        a_path, b_path = given.get(ruleset, ("committed", None))
        name_a, pa = params(variant, a_path)
        name_b, pb = params(variant, b_path)
        r = match(ruleset, name_a, native_player(variant, pa, args.ab_nodes, args.ab_time),
                  name_b, native_player(variant, pb, args.ab_nodes, args.ab_time), pairs,
                  args.seed, args.max_plies)
        elo, lo, hi = r.elo()
        row = (f"| {ruleset} | {name_a} | {name_b} | {r.wins} | {r.draws} | {r.losses} | "
               f"{100 * r.score:.0f}% | {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] | "
               f"{r.seconds:.0f} s |")
        lines.append(row)
        print(row, flush=True)
        _log_match(args, argv, r, f"{args.ab_time:g} s/move" if args.ab_time
                   else f"{args.ab_nodes} nodes/move", a=name_a, b=name_b)
    _save(args, lines)
    return 0


def _book_player(config: EngineConfig, counter: list[int]) -> Player:
    """Level 8 as the bots play it (book, the process engine's tables); ``counter``: its
    book moves and all its moves."""
    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        found = search_level(variant, record, level=MAX_LEVEL, seed=rng.getrandbits(32),
                             config=config)
        counter[0] += found.from_book
        counter[1] += 1
        if found.move is None:
            raise ValueError("no legal move")
        return found.move
    return play


def _engine_player(engine: Any, seconds: float) -> Player:
    """Level 8's search on ``engine`` (a NativeEngine with tables of its own), no book."""
    def play(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        moves = record.legal_moves()
        if len(moves) == 1:
            return moves[0]
        found = engine.search(record, time_limit=seconds, seed=rng.getrandbits(32))
        if found.move is None:
            raise ValueError("no legal move")
        return found.move
    return play


def book_tables_ab(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """Level 8 with its opening book and its largest endgame tables against level 8 without
    the book and with the four-piece tables, both at ``--time`` per move, every game from
    the initial position (where the book is), colours alternating."""
    from bots.engine.native import NativeEngine, native_engine

    pairs = max(1, (args.games + 1) // 2)
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    config = EngineConfig(move_time=args.time)
    lines = ["| ruleset | A | B | W | D | L | score of A | Elo [95%] | A's book moves | time |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    print(f"Command: `python -m bench.strength {' '.join(argv or sys.argv[1:])}`\n", flush=True)
    print("\n".join(lines), flush=True)
    for ruleset in rulesets:
        variant = get_variant(ruleset)
        full = native_engine(variant)  # this process's engine: the largest tables
        base = NativeEngine(variant)
        if tables.tables_supported(variant):
            base.set_tables(4, tables.load_or_solve(base, 4))
        name_a = f"L8 book + {full.table_pieces}-piece tables"
        name_b = f"L8 no book, {base.table_pieces}-piece tables"
        book_moves = [0, 0]  # book moves, moves of A
        with_book = _book_player(config, book_moves)
        without = _engine_player(base, args.time)
        rng = random.Random(f"{args.seed}:{ruleset}:book-ab")
        result = MatchResult(ruleset, name_a, name_b)
        started = time.perf_counter()
        for _ in range(pairs):
            for a_is_white in (True, False):
                white, black = (with_book, without) if a_is_white else (without, with_book)
                record = play_game(variant, [], white, black, rng, args.max_plies)
                score = white_score(record) if a_is_white else 1 - white_score(record)
                result.scores.append(score)
                result.wins += score == 1
                result.losses += score == 0
                result.draws += score == 0.5
                print(f"  game {len(result.scores)}: {score} ({record.ply} plies, "
                      f"{' '.join(record.notations[:8])} ...)", flush=True)
        result.seconds = time.perf_counter() - started
        elo, lo, hi = result.elo()
        row = (f"| {ruleset} | {name_a} | {name_b} | {result.wins} | {result.draws} | "
               f"{result.losses} | {100 * result.score:.0f}% | {elo:+.0f} [{lo:+.0f}, "
               f"{hi:+.0f}] | {book_moves[0]} of {book_moves[1]} | {result.seconds:.0f} s |")
        lines.append(row)
        print(row, flush=True)
    return 0


def peers(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """Level 8 against the other engines, every engine at ``--time`` seconds per move."""
    pairs = max(1, (args.games + 1) // 2)
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    t = args.time
    config = EngineConfig(move_time=t, max_move_time=t)
    top = f"L{MAX_LEVEL}"
    lines = [f"# Level 8 against other engines, {dt.date.today().isoformat()}", "",
             f"Command: `python -m bench.strength {' '.join(argv or sys.argv[1:])}`", "",
             f"{2 * pairs} games per match, colour-alternating pairs from random 2-4 ply "
             f"openings{_balanced_note(args)}, every engine at {t} s per move, one game at "
             "a time. Level 8 runs "
             f"on {'the compiled core' if _native(rulesets) else 'the pure-Python engine'}"
             f"{_tables_note(rulesets)}. "
             "\"Today's L8\" is the pure-Python search with the hand-set evaluation (the "
             f"engine as of commit e377148) at the same time. Unfinished after "
             f"{args.max_plies} plies: draw.", "",
             "Nodes/s: each side's nodes over its thinking time in the match (dame-rs: "
             "moves out of its opening book excluded).", "",
             "| ruleset | player | opponent | W | D | L | score | Elo [95%] | "
             "L8 nodes/s | their nodes/s | time |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    ours, theirs = Meter(), Meter()
    l8 = engine_player(MAX_LEVEL, config, ours)
    matches: list[tuple[str, str, Player | None]] = []
    if "international" in rulesets:
        matches.append(("international", f"dame-rs {t}s", dame_player(t, theirs)))
        matches.append(("international", f"py-draughts {t}s", py_draughts_player(t, theirs)))
    for ruleset in rulesets:
        matches.append((ruleset, f"today's L8 {t}s", baseline_player(t, theirs)))
    hubs: list[HubOpponent] = []
    names = dict(pair.split("=", 1) for pair in args.hub_variant or ())
    for spec in args.hub or ():
        label, _, command = spec.partition("=")
        for ruleset in rulesets:
            hubs.append(HubOpponent(command, t, theirs, cwd=args.hub_cwd, names=names))
            matches.append((ruleset, f"{label} {t}s", hubs[-1]))
    for ruleset, name, opponent in matches:
        if args.only and args.only not in name:
            continue
        if opponent is None:
            row = f"| {ruleset} | {top} | {name} | not installed (make bench-peers) |"
        else:
            ours.reset()
            theirs.reset()
            r = match(ruleset, top, l8, name, opponent, pairs, args.seed, args.max_plies,
                      Path(args.games_out) if args.games_out else None,
                      balanced=args.balanced)
            elo, lo, hi = r.elo()
            row = (f"| {ruleset} | {top} | {name} | {r.wins} | {r.draws} | {r.losses} | "
                   f"{100 * r.score:.0f}% | {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] | "
                   f"{ours.nps:,.0f} | {theirs.nps:,.0f} | {r.seconds:.0f} s |")
            _log_match(args, argv, r, f"{t} s/move", nps=[round(ours.nps), round(theirs.nps)])
        lines.append(row)
        print(row, flush=True)
    for hub in hubs:
        hub.close()
    _save(args, lines)
    return 0


def _save(args: argparse.Namespace, lines: Sequence[str]) -> None:
    """Write the printed table to ``--out`` (nothing is written without it: the curated
    results are ``bench/results/strength.md``, edited by hand from such tables)."""
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"\nsaved {out}")


def _log_match(args: argparse.Namespace, argv: Sequence[str] | None, r: MatchResult,
               control: str, **extra: Any) -> None:
    """Append one match to ``--json`` as a JSON line."""
    if not args.json:
        return
    words = []
    roles = {args.against_build: "OLD_CORE.so", args.new_build: "NEW_CORE.so",
             args.json: "FILE.jsonl", args.out: "FILE.md", args.games_out: "GAMES.pdn",
             args.hub_cwd: "CHECKOUT"}
    for spec in args.eval_ab or ():
        roles[spec] = "NEW.json:OLD.json" if ":" in spec else "NEW.json"
    for word in argv or sys.argv[1:]:  # builds are files of this machine: named by role
        words.append(roles.get(word, word).replace(sys.executable, "python"))
    row = {"date": dt.date.today().isoformat(),
           "command": "python -m bench.strength " + " ".join(words),
           "ruleset": r.ruleset, "player": r.player, "opponent": r.opponent,
           "wins": r.wins, "draws": r.draws, "losses": r.losses, "games": r.games,
           "score": round(r.score, 4), "control": control, "seed": args.seed,
           "max_plies": args.max_plies, **extra}
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, sort_keys=True) + "\n")


def against_build(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """Level 8 of this build (or ``--new-build``) against level 8 of ``--against-build``,
    at ``--time`` a move or on ``--clock`` clocks."""
    pairs = max(1, (args.games + 1) // 2)
    rulesets = [r.strip() for r in args.rulesets.split(",") if r.strip()]
    t = args.time
    old = core_build(args.against_build)
    new = core_build(args.new_build) if args.new_build else None
    clocks = GameClocks.parse(args.clock) if args.clock else None
    control = f"{args.clock} clock" if clocks else f"{t} s/move"
    timing = (f"on clocks of {clocks.base:g} s and {clocks.increment:g} s a move (the clock's "
              f"share as the target: {'yes' if takes_target(new) else 'no'} new, "
              f"{'yes' if takes_target(old) else 'no'} old)" if clocks else f"at {t} s per move")
    lines = [f"# Build against build, {dt.date.today().isoformat()}", "",
             f"Command: `python -m bench.strength {' '.join(argv or sys.argv[1:])}`", "",
             f"{2 * pairs} games per match, colour-alternating pairs from random 2-4 ply "
             f"openings{_balanced_note(args)}, level 8 of both builds {timing} with "
             f"the same endgame tables, one game at a time. Unfinished after "
             f"{args.max_plies} plies: draw. Depth: mean completed depth per search; s/search: "
             f"mean seconds per search; losses on time new / old.", "",
             "| ruleset | new | old | W | D | L | score | Elo [95%] | nodes/s new / old | "
             "depth new / old | s/search new / old | time losses | time |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for ruleset in rulesets:
        variant = get_variant(ruleset)
        ours, theirs = Meter(), Meter()
        r = match(ruleset, "new", build_player(variant, new, t, ours, clocks), "old",
                  build_player(variant, old, t, theirs, clocks), pairs, args.seed,
                  args.max_plies, Path(args.games_out) if args.games_out else None,
                  balanced=args.balanced, clocks=clocks)
        elo, lo, hi = r.elo()
        row = (f"| {ruleset} | new | old | {r.wins} | {r.draws} | {r.losses} | "
               f"{100 * r.score:.1f}% | {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] | "
               f"{ours.nps:,.0f} / {theirs.nps:,.0f} | {ours.depth:.1f} / {theirs.depth:.1f} | "
               f"{ours.per_search:.3f} / {theirs.per_search:.3f} | "
               f"{r.time_losses[0]} / {r.time_losses[1]} | {r.seconds:.0f} s |")
        lines.append(row)
        print(row, flush=True)
        _log_match(args, argv, r, control, nps=[round(ours.nps), round(theirs.nps)],
                   depth=[round(ours.depth, 2), round(theirs.depth, 2)],
                   per_search=[round(ours.per_search, 4), round(theirs.per_search, 4)],
                   time_losses=list(r.time_losses))
    _save(args, lines)
    return 0


def _balanced_note(args: argparse.Namespace) -> str:
    if not args.balanced:
        return ""
    return (f" (balanced: redrawn while a material-only search of {BALANCE_DEPTH} plies "
            f"finds a side winning more than {BALANCE_MARGIN} centi-men)")


def _tables_note(rulesets: Sequence[str]) -> str:
    """Which endgame tables level 8 has (``bots.engine.tables``)."""
    from bots.engine.native import native_engine

    parts = []
    for ruleset in rulesets:
        variant = get_variant(ruleset)
        pieces = native_engine(variant).table_pieces if uses_native(variant) else 0
        parts.append(f"{ruleset} {pieces} pieces" if pieces else f"{ruleset} none")
    return f" with endgame tables ({', '.join(parts)})"


def _native(rulesets: Sequence[str]) -> bool:
    return all(uses_native(get_variant(r)) for r in rulesets)


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
