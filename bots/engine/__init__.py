"""Kondavo's draughts engine: pure Python, no Django, any registered ruleset.

    >>> from variants import get_variant
    >>> from bots.engine import choose_move
    >>> v = get_variant("english")
    >>> choose_move(v, v.initial_position(), level=3, seed=1) in v.legal_moves(v.initial_position())
    True
"""

from __future__ import annotations

import random

from bots.engine.evaluation import DEFAULT_WEIGHTS, Evaluator, evaluator_for, weights_for
from bots.engine.levels import (
    DEFAULT_CONFIG,
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    EngineConfig,
    Level,
    get_level,
)
from bots.engine.search import MATE, Searcher, SearchResult, search
from variants.base import Variant
from variants.game import GameRecord
from variants.types import Move, Position

__all__ = [
    "DEFAULT_CONFIG", "DEFAULT_WEIGHTS", "LEVELS", "MATE", "MAX_LEVEL", "MIN_LEVEL",
    "EngineConfig", "Evaluator", "Level", "SearchResult", "Searcher", "choose_move",
    "evaluator_for", "get_level", "search", "search_level", "weights_for",
]


def search_level(variant: Variant, record_or_position: GameRecord | Position, *, level: int,
                 seed: int | None = None, time_limit: float | None = None,
                 config: EngineConfig = DEFAULT_CONFIG) -> SearchResult:
    """Search with a level's budget. ``time_limit`` overrides the level's share of time."""
    spec = get_level(level)
    limit = spec.time_limit(config) if time_limit is None else time_limit
    rng = random.Random(seed)
    result = search(variant, record_or_position, max_depth=spec.max_depth, time_limit=limit,
                    node_limit=spec.nodes(config), seed=rng.getrandbits(32),
                    noise=spec.noise)
    if spec.random_move and result.move is not None and rng.random() < spec.random_move:
        position = (record_or_position.position if isinstance(record_or_position, GameRecord)
                    else record_or_position)
        moves = variant.legal_moves(position)
        return SearchResult(rng.choice(moves), result.score, result.depth, result.nodes,
                            result.elapsed, (), result.stopped)
    return result


def choose_move(variant: Variant, record_or_position: GameRecord | Position, *, level: int,
                seed: int | None = None, time_limit: float | None = None,
                config: EngineConfig = DEFAULT_CONFIG) -> Move:
    """The move a level-``level`` bot plays. Raises ValueError when there is no legal move."""
    result = search_level(variant, record_or_position, level=level, seed=seed,
                          time_limit=time_limit, config=config)
    if result.move is None:
        raise ValueError("no legal move: the game is over")
    return result.move
