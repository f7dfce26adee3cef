"""The analysis service: evaluation and best line for a position, on the bots' engine
(the compiled core when available, else the pure-Python search).

This is the one entry point the site uses for analysis (the analysis board, mistakes in a
finished game). It knows nothing of Django. Scores are reported from White's point of view
so a page can draw one evaluation bar for the whole game.

    >>> from variants import get_variant
    >>> v = get_variant("english")
    >>> a = analyse(v, v.initial_position(), depth=3)
    >>> a.depth >= 1 and len(a.pv) >= 1
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from bots.engine import search
from bots.engine.search import MATE, MATE_BOUND
from variants.base import Variant
from variants.game import GameRecord
from variants.types import Color, Move, Position

# Hard bounds so a client cannot ask for an unbounded search.
MAX_DEPTH = 30
MAX_TIME = 5.0


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
