"""Opening book per ruleset: the engine's own deep analysis of the positions reached from the
start, plus, where the rules are played in tournaments, the openings known from their theory.

A book is a small JSON file shipped in the repository, ``bots/engine/data/book-<key>.json``:
for every position it knows (written as its FEN, so a position reached by another move order
is the same entry: the book is keyed by the position, not by the moves), the moves worth
playing there with their analysed score and a weight. Level 8 plays from it while the game
is in it (:func:`choose`, called by :func:`bots.engine.search_level` for the levels whose
``book`` flag is set): a weighted random choice among near-equal moves, so the bot does not
repeat the same game, and a move is only ever played when it is legal in the position (an
entry whose move is not legal, e.g. after a rules change, is ignored). A position outside
the book is searched as usual.

How a book is built (:func:`build`): breadth first from the start position, up to ``plies``
plies. Every position is analysed by the engine: each legal move's position is searched
briefly, then the best few again for ``seconds`` each (the score of a move is minus its
position's score). The moves within ``MARGIN`` centi-men of the best are the position's book
moves (the best ``MAX_CHOICES`` of them), weighted by how close they are to it; the positions they
lead to are analysed next. The first ``wide_plies`` plies expand every legal move (the bot
may meet any reply to its first move). A tournament opening listed in :data:`THEORY` is
analysed like the others and kept (beyond ``MAX_CHOICES``) when the analysis does not find
it more than ``THEORY_MARGIN`` worse than the best. The build stops
between two positions when its time ``budget`` is spent (the plies before are complete).

    python -m bots.engine.book build --ruleset english --seconds 1 --budget 900

``KONDAVO_ENGINE_BOOK=off`` in a process's environment makes :func:`choose` find nothing:
level 8 then searches from the first move (benchmarks and tests that time its search).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from variants import GameRecord, get_variant, variant_keys
from variants.base import Variant
from variants.types import Move, Position

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent / "data"
FORMAT = 1
MARGIN = 12  # centi-men: moves this close to the best are book moves
THEORY_MARGIN = 30  # a tournament opening is kept unless the analysis finds it this much worse
MAX_CHOICES = 4
WEIGHT_SCALE = 6.0  # centi-men: a move this much worse than the best has 1/e of its weight

#: Openings from tournament theory, as move sequences from the start (the ruleset's own
#: notation). English: the seven first moves of Black are all sound and all appear in the
#: three-move ballots of match play, and each of White's seven replies to the most common,
#: 11-15, begins a ballot opening; the usual replies to the other first moves are listed
#: too. International: the first moves masters play most (32-28, 33-28, 31-27, 34-29,
#: 33-29, 32-27) and Black's usual answers to the main one, 32-28 (18-23, 19-23, 17-21,
#: 17-22, 16-21, 20-24). Brazilian, Spanish and Turkish books come from the analysis alone.
THEORY: dict[str, tuple[tuple[str, ...], ...]] = {
    "english": (
        ("9-13",), ("9-14",), ("10-14",), ("10-15",), ("11-15",), ("11-16",), ("12-16",),
        ("11-15", "23-19"), ("11-15", "22-18"), ("11-15", "22-17"), ("11-15", "24-20"),
        ("11-15", "24-19"), ("11-15", "23-18"), ("11-15", "21-17"),
        ("11-15", "23-19", "8-11"), ("11-15", "23-19", "9-14"), ("11-15", "22-18", "15x22"),
        ("9-14", "22-18"), ("9-14", "23-19"), ("10-15", "23-19"), ("10-14", "22-17"),
        ("11-16", "24-20"), ("11-16", "22-18"), ("12-16", "24-20"), ("9-13", "22-18"),
    ),
    "international": (
        ("32-28",), ("33-28",), ("31-27",), ("34-29",), ("33-29",), ("32-27",),
        ("32-28", "18-23"), ("32-28", "19-23"), ("32-28", "17-21"), ("32-28", "17-22"),
        ("32-28", "16-21"), ("32-28", "20-24"), ("33-28", "18-23"), ("33-28", "17-22"),
        ("31-27", "19-23"), ("34-29", "19-23"),
    ),
}


@dataclass(frozen=True, slots=True)
class BookMove:
    notation: str
    score: int  # centi-men for the side to move, from the analysis
    weight: int


BOOK_ENV = "KONDAVO_ENGINE_BOOK"


def book_path(key: str) -> Path:
    return DATA_DIR / f"book-{key}.json"


def position_key(variant: Variant, position: Position) -> str:
    """The book's key of a position: its FEN (pieces and side to move; whatever the moves
    that led to it)."""
    return variant.format_fen(position)


@lru_cache(maxsize=16)
def _load(key: str) -> dict[str, tuple[BookMove, ...]]:
    path = book_path(key)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if raw.get("format") != FORMAT or raw.get("ruleset") != key:
        log.warning("opening book %s ignored: not a format-%d book of %s", path, FORMAT, key)
        return {}
    return {fen: tuple(BookMove(str(n), int(s), int(w)) for n, s, w in moves)
            for fen, moves in raw.get("positions", {}).items()}


def entries(variant: Variant, position: Position) -> list[tuple[Move, BookMove]]:
    """The book moves of ``position`` that are legal there (empty: out of book)."""
    book = _load(variant.key)
    found = book.get(position_key(variant, position)) if book else None
    if not found:
        return []
    legal = variant.legal_moves(position)
    by_text = {variant.format_move(position, m, legal): m for m in legal}
    return [(by_text[b.notation], b) for b in found if b.notation in by_text and b.weight > 0]


def choose(variant: Variant, position: Position, rng: random.Random) -> tuple[Move, int] | None:
    """A book move of ``position`` drawn at random by weight, with its score; None when the
    position is not in the book."""
    if os.environ.get(BOOK_ENV, "").lower() == "off":
        return None
    found = entries(variant, position)
    if not found:
        return None
    move, entry = rng.choices(found, weights=[b.weight for _m, b in found])[0]
    return move, entry.score


# --- building -----------------------------------------------------------------------------
def _score_after(variant: Variant, record: GameRecord, move: Move, seconds: float) -> int:
    """The score of ``move`` for the side playing it: minus a search of the position after."""
    from bots.engine import search

    child = record.copy()
    child.push(move)
    outcome = child.outcome()
    if outcome is not None:
        mover = record.position.turn
        return 0 if outcome.winner is None else (10_000 if outcome.winner is mover else -10_000)
    found = search(variant, child, time_limit=seconds)
    return -found.score


def analyse(variant: Variant, record: GameRecord, seconds: float,
            theory: Sequence[str] = ()) -> list[tuple[Move, int]]:
    """Every legal move of the record's position scored: all briefly, then the best few
    (and the ``theory`` moves) for ``seconds`` each. Best first."""
    position = record.position
    legal = variant.legal_moves(position)
    if len(legal) == 1:
        return [(legal[0], 0)]
    quick = max(0.05, seconds / 4)
    scored = sorted(((m, _score_after(variant, record, m, quick)) for m in legal),
                    key=lambda ms: -ms[1])
    texts = {variant.format_move(position, m, legal): m for m in legal}
    deep = {m.key for m, _s in scored[:3]} | {texts[t].key for t in theory if t in texts}
    final = [(m, _score_after(variant, record, m, seconds) if m.key in deep else s)
             for m, s in scored]
    return sorted(final, key=lambda ms: -ms[1])


def book_moves(variant: Variant, position: Position, scored: Sequence[tuple[Move, int]],
               theory: Sequence[str] = ()) -> list[BookMove]:
    """The near-best moves of an analysed position, weighted (best first)."""
    legal = [m for m, _s in scored]
    best = scored[0][1]
    chosen: list[BookMove] = []
    for move, score in scored:
        text = variant.format_move(position, move, legal)
        gap = best - score
        known = text in theory and gap <= THEORY_MARGIN
        if known or (gap <= MARGIN and len(chosen) < MAX_CHOICES):
            weight = max(1, round(100 * math.exp(-gap / WEIGHT_SCALE)))
            chosen.append(BookMove(text, score, weight))
    return chosen


def build(key: str, *, seconds: float, plies: int, budget: float, wide_plies: int = 1,
          ) -> dict[str, list[BookMove]]:
    """The book of ruleset ``key`` (see the module's docstring)."""
    variant = get_variant(key)
    theory_lines = THEORY.get(key, ())
    started = time.monotonic()
    book: dict[str, list[BookMove]] = {}
    layer: list[tuple[str, ...]] = [()]
    for ply in range(plies):
        following: list[tuple[str, ...]] = []
        for line in layer:
            if time.monotonic() - started > budget:
                return book
            record = GameRecord.from_notation(variant, line)
            fen = position_key(variant, record.position)
            if fen in book or record.outcome() is not None:
                continue
            theory = [t[ply] for t in theory_lines if len(t) > ply and t[:ply] == line]
            scored = analyse(variant, record, seconds, theory)
            moves = book_moves(variant, record.position, scored, theory)
            book[fen] = moves
            legal = [m for m, _s in scored]
            expand = ([variant.format_move(record.position, m, legal) for m in legal]
                      if ply < wide_plies else [b.notation for b in moves])
            expand += [t for t in theory if t not in expand and any(
                b.notation == t for b in moves)]
            following.extend(line + (text,) for text in expand)
            log.info("%s ply %d %s: %s (%.0f s)", key, ply, " ".join(line) or "start",
                     ", ".join(f"{b.notation} {b.score:+d} w{b.weight}" for b in moves),
                     time.monotonic() - started)
        layer = following
    return book


def write(key: str, book: dict[str, list[BookMove]], *, seconds: float, plies: int,
          budget: float, wide_plies: int, path: Path | None = None) -> Path:
    path = path or book_path(key)
    data = {
        "format": FORMAT,
        "ruleset": key,
        "command": (f"python -m bots.engine.book build --ruleset {key} --seconds {seconds:g} "
                    f"--plies {plies} --budget {budget:g} --wide-plies {wide_plies}"),
        "built": dt.date.today().isoformat(),
        "positions": {fen: [[b.notation, b.score, b.weight] for b in moves]
                      for fen, moves in book.items() if moves},
    }
    path.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    _load.cache_clear()
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the engine's opening books.")
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--ruleset", action="append", default=[],
                        help="ruleset key (repeatable; default: every registered)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="seconds of search for each of a position's best moves")
    parser.add_argument("--plies", type=int, default=8, help="deepest ply of the book")
    parser.add_argument("--wide-plies", type=int, default=1,
                        help="plies where every legal move is expanded")
    parser.add_argument("--budget", type=float, default=900.0,
                        help="seconds of building per ruleset (stops between positions)")
    parser.add_argument("--out", default=None, help="output file (default: the shipped one)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    known = set(variant_keys())
    keys = args.ruleset or sorted(known)
    unknown = [k for k in keys if k not in known]
    if unknown:
        parser.error(f"unknown ruleset(s): {', '.join(unknown)}")
    if args.seconds <= 0 or args.plies < 1 or args.budget <= 0:
        parser.error("--seconds, --plies and --budget must be positive")
    for key in keys:
        book = build(key, seconds=args.seconds, plies=args.plies, budget=args.budget,
                     wide_plies=args.wide_plies)
        path = write(key, book, seconds=args.seconds, plies=args.plies, budget=args.budget,
                     wide_plies=args.wide_plies, path=Path(args.out) if args.out else None)
        print(f"{key}: {len(book)} positions, {path.stat().st_size} bytes, {path.name}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
