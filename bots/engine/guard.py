"""A ruleset's own outcome hooks, honoured at the root of every search.

Both engines model the shared end-of-game rules inside their trees: no pieces, no moves,
repetition, the ``draw_plies`` counter, and (the compiled core) one-piece-a-side special
outcomes. A ruleset may also declare rules of its own in Python, ``draw_outcome`` (for
example a federation's limit on king moves in some endings) and ``special_outcome`` with
more pieces; neither engine can see those inside its tree. So that a bot never walks into
such a result blind, :func:`guard` checks every root move against the hooks themselves:

- a move that wins at once by the ruleset's rule is played;
- a move that loses at once is avoided when anything else exists;
- a move that draws at once is avoided while the search thinks the bot is winning, and
  taken when the search thinks it is losing.

When the search's move must be replaced, the remaining moves are compared by a short search
of each (the budget left, shared between them). The guard only runs for rulesets that
override a hook: four of the five built-ins pay nothing, Turkish (its king-against-man
rule) a few milliseconds a move.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bots.engine.search import MATE, SearchResult
from variants.base import Variant
from variants.game import GameRecord
from variants.types import Color, Move, Outcome, Position

Search = Callable[[GameRecord, float | None, int | None], SearchResult]


def needs_guard(variant: Variant) -> bool:
    """True when ``variant`` declares outcome rules of its own in Python."""
    kind = type(variant)
    return (kind.draw_outcome is not Variant.draw_outcome
            or kind.special_outcome is not Variant.special_outcome)


def outcomes_in_core(variant: Variant) -> bool:
    """True when the compiled core knows every result of ``variant`` exactly, so that its
    endgame tables may be solved: no draw rules of its own, and special outcomes, if any,
    only with one piece a side (``special_outcome_pieces`` at most 2: the core's table of
    them, :func:`bots.engine.native.special_table`, is then the whole rule)."""
    kind = type(variant)
    pieces = kind.special_outcome_pieces
    return (kind.draw_outcome is Variant.draw_outcome
            and (kind.special_outcome is Variant.special_outcome
                 or (pieces is not None and pieces <= 2)))


def root_outcomes(variant: Variant, record: GameRecord,
                  legal: list[Move]) -> dict[Move, Outcome]:
    """The root moves after which the ruleset's hooks end the game, with the result."""
    found: dict[Move, Outcome] = {}
    for move in legal:
        record.push(move, legal)
        try:
            outcome = record.outcome()  # exactly as the referee will judge it
            if outcome is not None:
                found[move] = outcome
        finally:
            record.pop()
    return found


def as_record(variant: Variant, target: GameRecord | Position) -> GameRecord:
    """A record of ``target`` the guard may push moves onto (a copy: the caller's record,
    perhaps shared, is never touched)."""
    if not isinstance(target, GameRecord):
        return GameRecord.new(variant, target)
    return target.copy()


def guard(variant: Variant, target: GameRecord | Position, result: SearchResult,
          search_child: Search, *, time_limit: float | None,
          node_limit: int | None) -> SearchResult:
    """``result`` (a search of ``target``), corrected by the ruleset's own outcome hooks.

    ``search_child(record, seconds, nodes)`` searches ``record`` (the child of a root move)
    within the budget given; it is only called when the search's move must be replaced.
    """
    if result.move is None or not needs_guard(variant):
        return result
    started = time.perf_counter()
    record = as_record(variant, target)
    mover: Color = record.position.turn
    legal = record.legal_moves()  # the game so far considered (variants.history)
    ends = root_outcomes(variant, record, legal)
    if not ends:
        return result

    def replaced(move: Move, score: int, nodes: int = 0) -> SearchResult:
        pv = result.pv if move == result.move else (move,)
        return SearchResult(move, score, result.depth, result.nodes + nodes,
                            result.elapsed + time.perf_counter() - started, pv[:1],
                            result.stopped)

    for move in legal:
        outcome = ends.get(move)
        if outcome is not None and outcome.winner is mover:
            return replaced(move, MATE - 1)
    chosen = ends.get(result.move)
    draws = [m for m in legal if m in ends and ends[m].winner is None]
    if chosen is None:
        if result.score < 0 and draws:
            return replaced(draws[0], 0)
        return result
    if chosen.winner is None and result.score <= 0:
        return replaced(result.move, 0)  # no better than a draw expected: take it
    open_moves = [m for m in legal if m not in ends]
    if not open_moves:
        return replaced(draws[0], 0) if draws else result
    share_time = None if time_limit is None else max(0.01, time_limit / (2 * len(open_moves)))
    share_nodes = None if node_limit is None else max(200, node_limit // (2 * len(open_moves)))
    best: Move | None = None
    best_score = -MATE - 1
    nodes = 0
    for move in open_moves:
        record.push(move, legal)
        try:
            child = search_child(record, share_time, share_nodes)
        finally:
            record.pop()
        nodes += child.nodes
        # No move in the child: the opponent has no piece or no move, the mover wins.
        score = -child.score if child.move is not None else MATE - 1
        if score > best_score:
            best, best_score = move, score
    assert best is not None
    if draws and best_score < 0:
        return replaced(draws[0], 0, nodes)
    return replaced(best, best_score, nodes)

