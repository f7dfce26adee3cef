"""The analysis service: evaluation and best line for a position, on the bots' engine
(the compiled core when available, else the pure-Python search).

This is the one entry point the site uses for analysis (the analysis board, mistakes in a
finished game). It knows nothing of Django. Scores are reported from White's point of view
so a page can draw one evaluation bar for the whole game.

:func:`analyse_request` is one analysis board request as plain data in and out (ruleset key,
start FEN, the moves played from it, depth, time): the Celery task
``bots.tasks.analysis_eval`` (queue ``analysis``, a worker of its own) runs it in production,
and in the embedded mode :func:`background_pool`, a small bounded pool of threads (the
compiled core releases the GIL while it searches, ``bots/native/module.c``), runs it off the
event loop. The same pool solves missing endgame tables in the embedded mode
(:mod:`bots.engine.tables`).

    >>> from variants import get_variant
    >>> v = get_variant("english")
    >>> a = analyse(v, v.initial_position(), depth=3)
    >>> a.depth >= 1 and len(a.pv) >= 1
    True
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bots.engine import search
from bots.engine.search import MATE, MATE_BOUND
from variants import VariantError, get_variant
from variants.base import Variant
from variants.errors import UnknownVariant
from variants.game import GameRecord
from variants.types import Color, Move, Position

# Hard bounds so a client cannot ask for an unbounded search.
MAX_DEPTH = 30
MAX_TIME = 5.0
# Hard bounds of one analysis board request (settings may lower them, never raise them).
REQUEST_MAX_DEPTH = 14
REQUEST_MAX_TIME = 1.0
REQUEST_MAX_PLIES = 600
POOL_ENV = "KONDAVO_ANALYSIS_THREADS"
NICE_ENV = "KONDAVO_ANALYSIS_NICE"


class AnalysisRequestError(ValueError):
    """A request's ruleset, FEN or moves are not usable; the message says why."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the engine thinks of one position."""

    score: int  # centi-men from White's point of view (+100: White is a man up)
    mate_in: int | None  # plies to a forced win (+: White wins, -: Black wins), else None
    depth: int  # deepest completed iteration
    nodes: int
    pv: tuple[Move, ...]  # best line from the position, first move first
    best: Move | None

    def as_dict(self, variant: Variant, position: Position) -> dict[str, object]:
        """JSON-ready, with the principal variation in the ruleset's notation."""
        notation: list[str] = []
        pos = position
        for move in self.pv:
            legal = variant.legal_moves(pos)
            if move not in legal:
                break
            notation.append(variant.format_move(pos, move, legal))
            pos = variant.apply(pos, move)
        return {"score": self.score, "mate_in": self.mate_in, "depth": self.depth,
                "nodes": self.nodes, "pv": notation}


def analyse(variant: Variant, target: GameRecord | Position, *, depth: int | None = None,
            time_limit: float | None = None, engine: str = "auto") -> Analysis:
    """Search ``target`` (a game record gives repetition history) to ``depth`` plies or for
    ``time_limit`` seconds (both capped); with neither, a 1 s search. Runs on the compiled
    core when the ruleset allows it (``engine``: see :func:`bots.engine.uses_native`)."""
    if depth is None and time_limit is None:
        time_limit = 1.0
    max_depth = min(max(1, depth), MAX_DEPTH) if depth is not None else MAX_DEPTH
    limit = min(max(0.01, time_limit), MAX_TIME) if time_limit is not None else MAX_TIME
    position = target.position if isinstance(target, GameRecord) else target
    result = search(variant, target, max_depth=max_depth, time_limit=limit, engine=engine)
    sign = 1 if position.turn == Color.WHITE else -1
    mate_in = None
    if abs(result.score) >= MATE_BOUND:
        plies = MATE - abs(result.score)
        mate_in = plies if result.score > 0 else -plies
        mate_in *= sign
    return Analysis(score=sign * result.score, mate_in=mate_in, depth=result.depth,
                    nodes=result.nodes, pv=result.pv, best=result.move)


def analyse_request(*, ruleset: str, fen: str, moves: Sequence[str] = (), depth: int,
                    time_limit: float) -> dict[str, Any]:
    """One analysis board request, JSON-ready: the position after ``moves`` (notations)
    from ``fen`` in ruleset ``ruleset``, searched to ``depth`` plies for ``time_limit``
    seconds (capped at ``REQUEST_MAX_DEPTH`` / ``REQUEST_MAX_TIME``). Reads nothing but its
    arguments and writes nothing, so running it twice gives the same kind of answer.
    Raises :class:`AnalysisRequestError` for unusable input."""
    try:
        variant = get_variant(str(ruleset))
    except UnknownVariant:
        raise AnalysisRequestError(f"unknown ruleset {ruleset!r}") from None
    if len(moves) > REQUEST_MAX_PLIES:
        raise AnalysisRequestError(f"the game is too long (limit {REQUEST_MAX_PLIES} moves)")
    try:
        record = GameRecord.from_notation(variant, [str(m) for m in moves], str(fen))
    except VariantError as exc:
        raise AnalysisRequestError(f"not a {variant.name} game: {exc}") from None
    depth = max(1, min(int(depth), REQUEST_MAX_DEPTH))
    time_limit = max(0.05, min(float(time_limit), REQUEST_MAX_TIME))
    position = record.position
    if not record.legal_moves():  # the game so far considered (variants.history)
        winner = "black" if position.turn is Color.WHITE else "white"
        return {"score": None, "mate_in": 0, "depth": 0, "nodes": 0, "pv": [],
                "game_over": True, "winner": winner}
    data = analyse(variant, record, depth=depth, time_limit=time_limit).as_dict(variant,
                                                                                 position)
    data["game_over"] = False
    return data


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def pool_size() -> int:
    """Threads of the embedded mode's pool (``KONDAVO_ANALYSIS_THREADS``, default 1)."""
    try:
        return max(1, min(int(os.environ.get(POOL_ENV, "1")), 8))
    except ValueError:
        return 1


_LOWERED = threading.local()


def lower_priority_once() -> None:
    """:func:`_lower_priority` for the calling thread, once (the analysis task's worker
    thread: on a machine shared with Daphnes, the searches yield to live play)."""
    if not getattr(_LOWERED, "done", False):
        _LOWERED.done = True
        _lower_priority()


def lower_thread_priority(nice: int) -> None:
    """The calling thread yields the CPU to the rest of the process (the event loop serving
    live games, a worker's bot moves): on Linux a thread has its own nice value, here the
    process's plus ``nice`` (at most 19, the lowest). Elsewhere, or when not allowed, it
    keeps the process's priority."""
    try:
        base = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                       min(19, base + max(0, nice)))
    except (AttributeError, OSError):
        pass


def _lower_priority() -> None:
    """An analysis thread's priority: ``KONDAVO_ANALYSIS_NICE`` (default 10) below the
    process's."""
    try:
        nice = int(os.environ.get(NICE_ENV, "10"))
    except ValueError:
        nice = 10
    lower_thread_priority(nice)


def background_pool() -> ThreadPoolExecutor:
    """The process's bounded pool for analysis searches and table solving in the embedded
    mode: ``pool_size()`` threads at a lower CPU priority, so at most that many searches run
    at once whatever arrives (what waits for a thread is bounded by the web's admission
    control) and the event loop is served first."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=pool_size(),
                                       thread_name_prefix="kondavo-analysis",
                                       initializer=_lower_priority)
        return _POOL
