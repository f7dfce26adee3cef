"""Kondavo's draughts engine: no Django, any registered ruleset.

Searches run on the compiled core (``bots/native``, see ``bots.engine.native``) when it is
built and the ruleset is expressible as data, else on the pure-Python :class:`Searcher`.
``KONDAVO_ENGINE=python`` (environment) or ``engine="python"`` forces the pure-Python one.

    >>> from variants import get_variant
    >>> from bots.engine import choose_move
    >>> v = get_variant("english")
    >>> choose_move(v, v.initial_position(), level=3, seed=1) in v.legal_moves(v.initial_position())
    True
"""

from __future__ import annotations

import random
import time

from bots.engine.evaluation import DEFAULT_WEIGHTS, Evaluator, evaluator_for, weights_for
from bots.engine.guard import guard
from bots.engine.levels import (
    DEFAULT_CONFIG,
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    EngineConfig,
    Level,
    get_level,
)
from bots.engine.native import native_engine, native_supported
from bots.engine.search import MATE, MAX_PLY, Searcher, SearchResult
from bots.engine.search import search as python_search
from bots.engine.timing import Budget, Clock, budget
from variants.base import Variant
from variants.game import GameRecord
from variants.types import Move, Position

__all__ = [
    "DEFAULT_CONFIG", "DEFAULT_WEIGHTS", "LEVELS", "Clock", "MATE", "MAX_LEVEL", "MIN_LEVEL",
    "EngineConfig", "Evaluator", "Level", "SearchResult", "Searcher", "choose_move",
    "evaluator_for", "get_level", "native_supported", "python_search", "search", "search_level",
    "uses_native", "weights_for",
]


def uses_native(variant: Variant, engine: str = "auto") -> bool:
    """Whether a search of ``variant`` runs on the compiled core.

    ``engine``: ``"auto"`` (the core when it can), ``"python"`` (never) or ``"native"``
    (always; ValueError when the core cannot play this ruleset).
    """
    if engine == "python":
        return False
    supported = native_supported(variant)
    if engine == "native" and not supported:
        raise ValueError(f"the compiled core cannot play {variant!r}")
    if engine not in ("auto", "native"):
        raise ValueError(f"engine must be 'auto', 'python' or 'native', not {engine!r}")
    return supported


def search(variant: Variant, record_or_position: GameRecord | Position, *,
           max_depth: int = MAX_PLY, time_limit: float | None = None,
           node_limit: int | None = None, seed: int | None = None, noise: int = 0,
           engine: str = "auto", target_time: float | None = None) -> SearchResult:
    """Search ``record_or_position`` (a game record gives repetition and draw-counter history)
    on the compiled core or the pure-Python engine (see :func:`uses_native`). A ruleset's
    own outcome hooks are honoured at the root (:mod:`bots.engine.guard`).

    ``time_limit`` (seconds, wall clock) and ``node_limit`` stop the search; the first
    iteration (depth 1) always completes so a sensible move is always returned.
    ``target_time``: a clock's share (:class:`bots.engine.timing.Budget`); the compiled
    core may end the search after an iteration well before ``time_limit`` (the pure-Python
    search keeps to ``time_limit``).
    """
    native = uses_native(variant, engine)

    def run(target: GameRecord | Position, seconds: float | None,
            nodes: int | None) -> SearchResult:
        if native:
            return native_engine(variant).search(target, max_depth=max_depth,
                                                 time_limit=seconds, node_limit=nodes,
                                                 seed=seed, noise=noise,
                                                 target_time=target_time)
        return python_search(variant, target, max_depth=max_depth, time_limit=seconds,
                             node_limit=nodes, seed=seed, noise=noise)

    result = run(record_or_position, time_limit, node_limit)
    return guard(variant, record_or_position, result, run, time_limit=time_limit,
                 node_limit=node_limit)


def search_level(variant: Variant, record_or_position: GameRecord | Position, *, level: int,
                 seed: int | None = None, time_limit: float | None = None,
                 config: EngineConfig = DEFAULT_CONFIG, engine: str = "auto",
                 clock: Clock | None = None, book: bool = True,
                 target_time: float | None = None) -> SearchResult:
    """Search with a level's budget. ``time_limit`` overrides the level's share of time
    (``target_time`` with it: a clock's share the search aims at, see :func:`search`);
    ``clock`` (the bot's clock in a timed game) shortens it (:mod:`bots.engine.timing`).
    A forced move (the only legal one) is returned at once, without a search; so is a move
    of the opening book for a level that uses it (``book=False``: search anyway). The
    pure-Python search has levels of its own (:data:`bots.engine.levels.PYTHON_LEVELS`)."""
    spec = get_level(level, python=not uses_native(variant, engine))
    if isinstance(record_or_position, GameRecord):
        legal = record_or_position.legal_moves()  # a rule reading the game so far applies
        position = record_or_position.position
    else:
        legal = variant.legal_moves(record_or_position)
        position = record_or_position
    if len(legal) == 1:  # a forced move: a bot plays it at once (no score, no search)
        return SearchResult(legal[0], 0, 0, 0, 0.0, (legal[0],))
    rng = random.Random(seed)
    if book and spec.book:
        from bots.engine import book as opening_book  # not at import: `-m bots.engine.book`

        started = time.perf_counter()
        found = opening_book.choose(variant, position, rng)
        if found is not None and found[0] in legal:
            move, score = found
            return SearchResult(move, score, 0, 0, time.perf_counter() - started, (move,),
                                from_book=True)
    if time_limit is None:
        allotted = budget(spec.time_limit(config, timed=clock is not None), clock)
    else:
        allotted = Budget(time_limit, target_time)
    result = search(variant, record_or_position, max_depth=spec.max_depth,
                    time_limit=allotted.limit, node_limit=spec.nodes(config),
                    seed=rng.getrandbits(32), noise=spec.noise, engine=engine,
                    target_time=allotted.target)
    if spec.random_move and result.move is not None and rng.random() < spec.random_move:
        return SearchResult(rng.choice(legal), result.score, result.depth, result.nodes,
                            result.elapsed, (), result.stopped)
    return result


def choose_move(variant: Variant, record_or_position: GameRecord | Position, *, level: int,
                seed: int | None = None, time_limit: float | None = None,
                config: EngineConfig = DEFAULT_CONFIG, engine: str = "auto",
                clock: Clock | None = None, book: bool = True) -> Move:
    """The move a level-``level`` bot plays. Raises ValueError when there is no legal move."""
    result = search_level(variant, record_or_position, level=level, seed=seed,
                          time_limit=time_limit, config=config, engine=engine, clock=clock,
                          book=book)
    if result.move is None:
        raise ValueError("no legal move: the game is over")
    return result.move
