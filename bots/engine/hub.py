"""Kondavo's engine as a Hub engine: the line protocol of Scan and of the Hub GUI, spoken on
standard input and output, so tournament managers and GUIs written for Scan (the Hub GUI,
pydraughts' ``HubEngine`` and its ``RoundRobin``, lidraughts bots) can play level 8 in
any of Kondavo's rulesets, without Django::

    python -m bots.engine.hub [--ruleset international] [--level 8]

docs/engine.md ("Playing the engine from another program") describes the dialogue. In
short: the GUI sends ``hub`` (the engine answers ``id``, ``param`` lines and ``wait``),
``set-param name=variant value=KEY`` or ``name=level``, ``init`` (answer ``ready``: the
engine and its endgame tables are loaded), then for each search ``pos pos=... moves="..."``,
``level ...`` and ``go think`` (answer ``info`` lines and ``done move=... ponder=...``).

Positions: the side to move (``W``/``B``) then one letter per playable square in the
ruleset's numeric order (square 1 first): ``w``/``b`` a man, ``W``/``B`` a king, ``e`` empty.
Moves: ``32-28``; a capture is ``from x to x captured...`` (``28x19x23``; the captured
squares in any order on input, ascending on output). Squares are numbers ``1..N`` in every
ruleset, also those whose notation is algebraic (the ruleset's own square order, the
numbers its move input accepts). A line that cannot be taken is answered
``error message="..."`` and changes nothing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import math
import queue
import shlex
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TextIO

from bots.engine import MAX_LEVEL, MIN_LEVEL, Clock, search, search_level, uses_native
from bots.engine.search import MATE, SearchResult
from bots.engine.timing import budget
from variants import get_variant, variant_keys
from variants.base import Variant
from variants.errors import IllegalMove, UnknownVariant
from variants.game import GameRecord
from variants.types import Color, Move, Position

NAME = "Kondavo"
AUTHOR = "the Kondavo team"
MAX_LINE = 64 * 1024  # a longer line is refused (the longest real one is a game's moves)
ANALYZE_STEPS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)  # go analyze: searches until stop


class HubError(ValueError):
    """A command the engine cannot take: reported as ``error``, nothing changes."""


def parse_args(text: str) -> dict[str, str]:
    """``name=value`` pairs (values may be double-quoted) and bare flags (value ``""``)."""
    try:
        tokens = shlex.split(text, posix=True)
    except ValueError as exc:
        raise HubError(f"cannot read the arguments: {exc}") from None
    args: dict[str, str] = {}
    for token in tokens:
        name, _, value = token.partition("=")
        if not name:
            raise HubError(f"argument without a name: {token!r}")
        args[name] = value
    return args


def position_from_hub(variant: Variant, text: str) -> Position:
    """A Hub position string (``W`` + one letter per square) as a :class:`Position`."""
    n = variant.squares
    if len(text) != n + 1 or text[0] not in "WB":
        raise HubError(f"a position for {variant.key} is W or B then {n} letters "
                       "of w, b, W, B, e")
    boards = {"w": 0, "W": 0, "b": 0, "B": 0}
    for square, letter in enumerate(text[1:]):
        if letter == "e":
            continue
        if letter not in boards:
            raise HubError(f"square {square + 1}: {letter!r} is not one of w, b, W, B, e")
        boards[letter] |= 1 << square
    turn = Color.WHITE if text[0] == "W" else Color.BLACK
    return Position(boards["w"], boards["W"], boards["b"], boards["B"], turn)


def position_to_hub(variant: Variant, position: Position) -> str:
    letters = ["W" if position.turn is Color.WHITE else "B"]
    for square in range(variant.squares):
        bit = 1 << square
        letters.append("w" if position.white_men & bit else "W" if position.white_kings & bit
                       else "b" if position.black_men & bit else "B" if position.black_kings & bit
                       else "e")
    return "".join(letters)


def move_to_hub(move: Move) -> str:
    """``32-28`` or ``from x to x captured...`` (captured squares ascending), numbered 1..N."""
    ends = f"{move.origin + 1}{'x' if move.captured else '-'}{move.destination + 1}"
    if not move.captured:
        return ends
    return ends + "".join(f"x{square + 1}" for square in sorted(move.captured))


def move_from_hub(legal: list[Move], text: str) -> Move:
    """The legal move ``text`` names (origin, destination and the set of captured squares)."""
    parts = text.replace("-", "x").split("x")
    if len(parts) < 2 or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise HubError(f"{text!r} is not a move (32-28, 28x19x23)")
    # Moves are equal when origin, destination and captured set are (``Move.key``).
    wanted = Move.make((int(parts[0]) - 1, int(parts[1]) - 1), tuple(int(p) - 1 for p in parts[2:]))
    for move in legal:
        if move == wanted:
            return move
    raise HubError(f"{text!r} is not a legal move here")


@dataclass
class Limits:
    """The next search's budget, from ``level`` (reset by each ``level`` line)."""

    depth: int | None = None
    nodes: int | None = None
    move_time: float | None = None
    time: float | None = None
    inc: float = 0.0
    moves: int | None = None
    infinite: bool = False

    @classmethod
    def parse(cls, args: dict[str, str]) -> Limits:
        try:
            limits = cls(
                depth=int(args["depth"]) if "depth" in args else None,
                nodes=int(args["nodes"]) if "nodes" in args else None,
                move_time=float(args["move-time"]) if "move-time" in args else None,
                time=float(args["time"]) if "time" in args else None,
                inc=float(args.get("inc") or 0.0),
                moves=int(args["moves"]) if "moves" in args else None,
                infinite="infinite" in args)
        except ValueError as exc:
            raise HubError(f"level: {exc}") from None
        if limits.moves is not None and limits.moves < 0:
            raise HubError("level: moves (to go) cannot be negative")
        return limits


@dataclass
class Session:
    """What the GUI has set: the ruleset, the level, the game and the next search's budget."""

    variant: Variant
    level: int = MAX_LEVEL
    record: GameRecord | None = None
    limits: Limits = field(default_factory=Limits)


def _version() -> str:
    try:
        return importlib.metadata.version("kondavo")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def score_to_hub(result: SearchResult) -> str:
    """In men for the side to move; a won or lost game as Scan writes it, ±(100 - plies/100)."""
    if result.is_mate_score:
        plies = MATE - abs(result.score)
        value = (10_000 - plies) / 100
        return f"{value if result.score > 0 else -value:.2f}"
    return f"{result.score / 100:.2f}"


class HubEngine:
    """One engine on one pair of streams. ``run`` reads commands until ``quit`` or the end
    of the input; searches run on a thread of their own so ``stop``, ``ping`` and
    ``ponder-hit`` are read while one runs."""

    def __init__(self, variant: Variant, level: int, out: TextIO) -> None:
        self.session = Session(variant, level)
        self.out = out
        self.lock = threading.Lock()
        self.search_thread: threading.Thread | None = None
        self.busy = threading.Event()  # a search is on until its answer is written
        self.events: queue.Queue[str] = queue.Queue()  # "stop" / "ponder-hit" for a search

    # --- output --------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        self.send(f'error message="{message.replace(chr(34), chr(39))}"')

    # --- commands ------------------------------------------------------------------------
    def run(self, lines: TextIO) -> None:
        for raw in lines:
            if not self.handle(raw):
                break
        self.finish()

    def handle(self, raw: str) -> bool:
        """Carry out one line; False for ``quit``."""
        if len(raw) > MAX_LINE:
            self.error(f"line longer than {MAX_LINE} characters ignored")
            return True
        command, _, rest = raw.strip().partition(" ")
        if command == "quit":
            return False
        if not command:
            return True
        handler = self.handlers().get(command)
        if handler is None:
            self.error(f"unknown command {command[:40]!r}")
            return True
        try:
            handler(rest)
        except HubError as exc:
            self.error(str(exc))
        return True

    def finish(self) -> None:
        """Let a running search end (a ponder or analysis is stopped) and answer it."""
        self.events.put("stop")
        if self.search_thread is not None:
            self.search_thread.join()

    def handlers(self) -> dict[str, Callable[[str], None]]:
        return {"hub": self.do_hub, "init": self.do_init, "set-param": self.do_set_param,
                "ping": lambda _: self.send("pong"), "new-game": self.do_new_game,
                "pos": self.do_pos, "level": self.do_level, "go": self.do_go,
                "stop": lambda _: self.events.put("stop"),
                "ponder-hit": lambda _: self.events.put("ponder-hit")}

    def do_hub(self, _: str) -> None:
        keys = " ".join(sorted(variant_keys()))
        self.send(f'id name={NAME} version={_version()} author="{AUTHOR}"')
        self.send(f'param name=variant value={self.session.variant.key} type=enum values="{keys}"')
        self.send(f"param name=level value={self.session.level} type=int "
                  f"min={MIN_LEVEL} max={MAX_LEVEL}")
        self.send("wait")

    def do_set_param(self, rest: str) -> None:
        self.idle("set-param")
        args = parse_args(rest)
        name, value = args.get("name"), args.get("value", "")
        if name == "variant":
            try:
                variant = get_variant(value)
            except UnknownVariant:
                raise HubError(f"no ruleset {value[:40]!r}") from None
            self.session = replace(self.session, variant=variant, record=None)
        elif name == "level":
            if not value.isdigit() or not MIN_LEVEL <= int(value) <= MAX_LEVEL:
                raise HubError(f"level is a number from {MIN_LEVEL} to {MAX_LEVEL}")
            self.session.level = int(value)
        else:
            raise HubError(f"no parameter {str(name)[:40]!r} (variant, level)")

    def do_init(self, _: str) -> None:
        """Load the engine and its endgame tables now, not during the first search."""
        self.idle("init")
        variant = self.session.variant
        if uses_native(variant):
            from bots.engine import tables
            from bots.engine.native import native_engine

            engine = native_engine(variant)
            tables.attach(engine, None if tables.mode() == "off" else "wait")
        self.send("ready")

    def do_new_game(self, _: str) -> None:
        self.idle("new-game")
        if uses_native(self.session.variant):
            from bots.engine.native import native_engine

            native_engine(self.session.variant).clear()
        self.session.record = None

    def do_pos(self, rest: str) -> None:
        self.idle("pos")
        args = parse_args(rest)
        variant = self.session.variant
        start = position_from_hub(variant, args["pos"]) if "pos" in args else \
            variant.initial_position()
        record = GameRecord.new(variant, start)
        for number, text in enumerate(args.get("moves", "").split(), 1):
            legal = record.legal_moves()
            try:
                record.push(move_from_hub(legal, text), legal)
            except (HubError, IllegalMove) as exc:
                raise HubError(f"move {number}: {exc}") from None
        self.session.record = record

    def do_level(self, rest: str) -> None:
        self.session.limits = Limits.parse(parse_args(rest))

    def do_go(self, rest: str) -> None:
        self.idle("go")
        mode = rest.split()[0] if rest.split() else "think"
        if mode not in ("think", "ponder", "analyze"):
            raise HubError(f"go {mode[:20]!r}: think, ponder or analyze")
        record = self.session.record or GameRecord.new(self.session.variant)
        if not record.legal_moves():
            raise HubError("the game is over: no legal move")
        while not self.events.empty():  # a stop sent while idle is not for this search
            self.events.get_nowait()
        self.busy.set()
        self.search_thread = threading.Thread(
            target=self.searching, args=(mode, record.copy(), self.session.level,
                                         self.session.limits), daemon=True)
        self.search_thread.start()

    def idle(self, command: str) -> None:
        if self.busy.is_set():
            raise HubError(f"{command} during a search (send stop and wait for done)")

    # --- searching -----------------------------------------------------------------------
    def searching(self, mode: str, record: GameRecord, level: int, limits: Limits) -> None:
        try:
            if mode == "ponder" and self.events.get() == "stop":
                result = self.quick(record)  # the guess was wrong: any move will do
            elif mode == "analyze" or limits.infinite:
                result = self.analyze(record, level)
            else:  # think, or a ponder whose guess was right (ponder-hit)
                result = self.think(record, level, limits)
        except Exception as exc:  # noqa: BLE001 - the GUI must get an answer, not silence
            self.busy.clear()
            self.error(f"search failed: {type(exc).__name__}: {exc}")
            return
        self.done(result)

    def think(self, record: GameRecord, level: int, limits: Limits) -> SearchResult:
        variant = self.session.variant
        if limits.depth is not None or limits.nodes is not None:
            result = search(variant, record, max_depth=limits.depth or 64,
                            node_limit=limits.nodes, seed=record.ply)
        elif limits.move_time is not None:
            result = search_level(variant, record, level=level, seed=record.ply,
                                  time_limit=max(0.01, limits.move_time))
        elif limits.time is not None:
            # As in Scan: this move's increment is not on ``time`` yet. The clock's share
            # (over the moves to go of a `moves=` control) as the target
            # (bots.engine.timing), without the site's cap on level 8's time.
            allotted = budget(math.inf, Clock(max(0.0, limits.time + limits.inc), limits.inc,
                                              limits.moves or None))
            result = search_level(variant, record, level=level, seed=record.ply,
                                  time_limit=allotted.limit, target_time=allotted.target)
        else:
            result = search_level(variant, record, level=level, seed=record.ply)
        self.info(result)
        return result

    def analyze(self, record: GameRecord, level: int) -> SearchResult:
        result = self.quick(record)
        for seconds in ANALYZE_STEPS:
            result = search(self.session.variant, record, time_limit=seconds, seed=record.ply)
            self.info(result)
            if self.stopped() or (result.is_mate_score and not result.stopped):
                break
        else:
            self.events.get()  # the longest step done: hold the answer until stop
        return result

    def stopped(self) -> bool:
        try:
            return self.events.get_nowait() == "stop"
        except queue.Empty:
            return False

    def quick(self, record: GameRecord) -> SearchResult:
        return search(self.session.variant, record, max_depth=2, seed=record.ply)

    def info(self, result: SearchResult) -> None:
        if result.depth == 0 and not result.from_book:
            return
        pv = " ".join(move_to_hub(m) for m in result.pv)
        elapsed = max(result.elapsed, 1e-6)
        self.send(f"info depth={result.depth} score={score_to_hub(result)} "
                  f"nodes={result.nodes} time={elapsed:.3f} nps={result.nodes / elapsed:.1f}"
                  + (f' pv="{pv}"' if pv else ""))

    def done(self, result: SearchResult) -> None:
        """The answer; the engine takes commands again from the moment it is written."""
        self.busy.clear()
        if result.move is None:
            self.error("no move found")
            return
        line = f"done move={move_to_hub(result.move)}"
        if len(result.pv) > 1 and result.pv[0] == result.move:
            line += f" ponder={move_to_hub(result.pv[1])}"
        self.send(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.engine.hub",
                                     description="Kondavo's engine on the Hub protocol.")
    parser.add_argument("--ruleset", default="international",
                        help="the ruleset until the GUI sets `variant` (default international)")
    parser.add_argument("--level", type=int, default=MAX_LEVEL,
                        help=f"{MIN_LEVEL}-{MAX_LEVEL}, until the GUI sets `level` "
                             f"(default {MAX_LEVEL})")
    args = parser.parse_args(argv)
    try:
        variant = get_variant(args.ruleset)
    except UnknownVariant:
        parser.error(f"no ruleset {args.ruleset!r}")
    if not MIN_LEVEL <= args.level <= MAX_LEVEL:
        parser.error(f"--level is from {MIN_LEVEL} to {MAX_LEVEL}")
    HubEngine(variant, args.level, sys.stdout).run(sys.stdin)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
