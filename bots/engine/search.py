"""Iterative-deepening alpha-beta (PVS) for any registered ruleset.

- Transposition table keyed by the :class:`~variants.types.Position` value itself (a frozen,
  hashable dataclass): ``(depth, score, bound, best move)``.
- Move ordering: TT move, captures (most pieces, then kings), promotions, two killers per
  ply, history heuristic.
- Quiescence over forced captures: captures are mandatory, so at the horizon a side that
  has a capture must play it (no standing pat); otherwise the static evaluation stands.
  A position with a single legal move is searched one ply deeper (forced-move extension).
- Draws in the tree: a position already seen in the game or the search path scores 0, and so
  does reaching the ruleset's no-progress limit (``draw_plies``). ``special_outcome`` (a
  ruleset's immediate results) is honoured. Only reversible plies (no capture, no man
  advance) can repeat a position, so the path is scanned back no further than the last
  irreversible ply, and not at all right after one.
- Rules that read the game so far (a ruleset's ``restrict`` hook, :mod:`variants.history`)
  are applied at every node to the game's positions followed by the search path, so the
  search never plays or expects a move such a rule forbids.
- Speed: for rulesets on the built-in move generator, a horizon node generates captures only
  (quiet moves are never built there) and checks for a blocked side with bitboards.
- Limits enforced by the search itself: a wall-clock deadline and a node budget, checked
  every :data:`CHECK_EVERY` nodes; the best move of the deepest finished work is returned.
- Deterministic for a seed under a node or depth limit (time limits depend on the machine).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from bots.engine.evaluation import Evaluator, evaluator_for
from variants.base import Variant
from variants.game import GameRecord
from variants.history import History, has_history_rule
from variants.types import Color, Move, Position

MATE = 1_000_000
MATE_BOUND = MATE - 10_000
INFINITY = MATE + 1
MAX_PLY = 96
CHECK_EVERY = 256  # nodes between two deadline / node-budget checks
TT_MAX_ENTRIES = 400_000

EXACT, LOWER, UPPER = 0, 1, 2

_Key = tuple[int, int, int]
_TTEntry = tuple[int, int, int, Move | None]


class _Stop(Exception):
    """Raised inside the tree when the deadline or the node budget is reached."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found, with statistics."""

    move: Move | None
    score: int  # centi-men for the side to move; +-(MATE - n) for a win/loss in n plies
    depth: int  # deepest completed iteration (0: no iteration completed)
    nodes: int
    elapsed: float  # seconds
    pv: tuple[Move, ...] = ()
    stopped: bool = False  # a limit stopped the search before max_depth
    root_scores: dict[_Key, int] = field(default_factory=dict, repr=False)
    from_book: bool = False  # the move came from the opening book (no search)

    @property
    def nps(self) -> float:
        return self.nodes / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def is_mate_score(self) -> bool:
        return abs(self.score) >= MATE_BOUND


def _history_of(record_or_position: GameRecord | Position) -> tuple[Position, list[Position],
                                                                     int]:
    if isinstance(record_or_position, GameRecord):
        positions = list(record_or_position.positions)
        return positions[-1], positions[:-1], record_or_position.quiet_plies
    return record_or_position, [], 0


class Searcher:
    """One search. Create, call :meth:`run`, read the result. Not reusable across games."""

    def __init__(self, variant: Variant, *, history: Iterable[Position] = (),
                 quiet_plies: int = 0, deadline: float | None = None,
                 node_limit: int | None = None, rng: random.Random | None = None,
                 noise: int = 0, evaluator: Evaluator | None = None) -> None:
        self.variant = variant
        history = tuple(history)
        self.line = history  # the game's positions before the root, oldest first
        self.evaluator = evaluator or evaluator_for(variant)
        self.evaluate = self.evaluator.evaluate
        self.legal_moves = variant.legal_moves
        self.apply = variant.apply
        self.resets = variant.resets_draw_counter
        kind = type(variant)
        self.special = (variant.special_outcome
                        if kind.special_outcome is not Variant.special_outcome else None)
        # On the built-in generator, legal moves are the captures if any, else quiet moves.
        builtin = kind.legal_moves is Variant.legal_moves
        # A rule reading the game so far (variants.history) restricts the moves at every
        # node, given the game's positions and the search path: never a move it forbids.
        self.restrict = variant.restrict if has_history_rule(variant) else None
        self.captures = variant.captures if builtin and self.restrict is None else None
        self.quiet_moves = variant.quiet_moves if builtin else None
        if kind.quiet_moves is Variant.quiet_moves:
            self.can_move = self.evaluator.can_move
        else:
            quiet_moves = self.quiet_moves
            self.can_move = lambda position: bool(quiet_moves and quiet_moves(position))
        self.fast_resets = (kind.resets_draw_counter is Variant.resets_draw_counter
                            and kind.is_advance is Variant.is_advance)
        self.rank = tuple(r for r, _c in variant.geometry.coords)
        self.draw_plies = variant.draw_plies
        self.root_quiet = quiet_plies
        self.game_seen: frozenset[Position] = frozenset(history)
        self.path: list[Position] = []  # the search path: root .. parent of the node
        self.deadline = deadline
        self.node_limit = node_limit
        self.rng = rng or random.Random(0)
        self.noise = noise
        self.nodes = 0
        self.armed = False  # limits apply once the first iteration is complete
        self.extension_ply = 0
        self._partial: tuple[Move, int] | None = None
        self.tt: dict[Position, _TTEntry] = {}
        self.killers: list[list[_Key | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history: dict[tuple[int, int], int] = {}

    # --- limits -----------------------------------------------------------------------------
    def _check(self) -> None:
        if not self.armed:
            return
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Stop
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _Stop

    # --- driver -------------------------------------------------------------------------------
    def run(self, root: Position, max_depth: int = MAX_PLY) -> SearchResult:
        started = time.perf_counter()
        moves = self.legal_moves(root)
        if self.restrict is not None:
            moves = self.restrict(History((*self.line, root)), moves)
        if not moves:
            return SearchResult(None, -MATE, 0, 0, time.perf_counter() - started)
        # Seeded shuffle then stable sorts: equal moves are broken by the seed.
        self.rng.shuffle(moves)
        moves.sort(key=self._static_order, reverse=True)
        noise = {m.key: self.rng.randint(-self.noise, self.noise) if self.noise else 0
                 for m in moves}
        best_move = moves[0]
        best_score = 0
        completed = 0
        stopped = False
        root_scores: dict[_Key, int] = {}
        max_depth = max(1, min(max_depth, MAX_PLY // 2))
        for depth in range(1, max_depth + 1):
            try:
                scores = self._root(root, moves, depth, noise)
            except _Stop:
                stopped = True
                # Moves of the unfinished iteration were searched in order; one that beat
                # the previous best (searched first) at the deeper depth is trustworthy.
                partial = self._partial
                if partial is not None:
                    best_move, best_score = partial
                break
            root_scores = scores
            moves.sort(key=lambda m: scores[m.key] + noise[m.key], reverse=True)
            best_move = moves[0]
            best_score = scores[best_move.key]
            completed = depth
            self.armed = True
            self._check_between_iterations()
            if self._out_of_budget():
                stopped = depth < max_depth
                break
            if abs(best_score) >= MATE_BOUND and not self.noise:
                break  # a forced result is known; deeper search will not change it
        elapsed = time.perf_counter() - started
        pv = self._pv(root, best_move)
        return SearchResult(best_move, best_score, completed, self.nodes, elapsed, pv, stopped,
                            root_scores)

    def _check_between_iterations(self) -> None:
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()

    def _out_of_budget(self) -> bool:
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def _root(self, root: Position, moves: list[Move], depth: int,
              noise: dict[_Key, int]) -> dict[_Key, int]:
        """Scores of the root moves at ``depth``.

        Without noise, PVS: the first move exactly, the others proven worse or re-searched.
        With noise (low levels), every move gets an exact score so the noise is fair.
        """
        self._partial = None
        self.extension_ply = 2 * depth + 4
        self.path = [root]
        scores: dict[_Key, int] = {}
        alpha = -INFINITY
        best = -INFINITY
        for i, move in enumerate(moves):
            child = self.apply(root, move)
            quiet = self._next_quiet(root, move, self.root_quiet)
            if i == 0 or self.noise:
                score = -self._negamax(child, depth - 1, -INFINITY, INFINITY, 1, quiet)
            else:
                score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1, quiet)
                if score > alpha:
                    score = -self._negamax(child, depth - 1, -INFINITY, -alpha, 1, quiet)
            scores[move.key] = score
            total = score + noise[move.key]
            if total > best:
                best = total
                if i > 0 or self._partial is None:
                    self._partial = (move, score)
            if score > alpha:
                alpha = score
        self.path = []
        self.tt[root] = (depth, alpha, EXACT, max(moves, key=lambda m: scores[m.key]))
        return scores

    def _next_quiet(self, position: Position, move: Move, quiet: int) -> int:
        """Plies since the last capture or man advance after ``move`` (the draw counter)."""
        if self.fast_resets:
            if move.captured:
                return 0
            origin = move.path[0]
            men = position.white_men if position.turn is Color.WHITE else position.black_men
            if (men >> origin) & 1 and self.rank[origin] != self.rank[move.path[-1]]:
                return 0
            return quiet + 1
        return 0 if self.resets(position, move) else quiet + 1

    def _static_order(self, move: Move) -> int:
        if move.captured:
            return 1_000_000 + 1000 * len(move.captured)
        if move.promotes:
            return 900_000
        return self.history.get((move.path[0], move.path[-1]), 0)

    # --- the tree ------------------------------------------------------------------------------
    def _negamax(self, pos: Position, depth: int, alpha: int, beta: int, ply: int,
                 quiet: int) -> int:
        self.nodes += 1
        if not self.nodes % CHECK_EVERY:
            self._check()
        if quiet:
            # The last ply was reversible: a draw by the counter or a repetition is possible.
            if quiet >= self.draw_plies:
                return 0
            if quiet >= 4:
                path = self.path
                n = len(path)
                k = 4
                last = quiet if quiet < n else n
                while k <= last:
                    if path[n - k] == pos:
                        return 0
                    k += 2
            if self.game_seen and pos in self.game_seen:
                return 0
        if self.special is not None:
            special = self.special(pos)
            if special is not None:
                if special.winner is None:
                    return 0
                return MATE - ply if special.winner is pos.turn else -(MATE - ply)
        captures = self.captures
        if captures is not None:
            moves = captures(pos)
            if not moves:
                if depth <= 0 or ply >= MAX_PLY:
                    # Quiet horizon: stand pat, unless the side to move is blocked (a loss).
                    return self.evaluate(pos) if self.can_move(pos) else -(MATE - ply)
                moves = self.quiet_moves(pos)  # type: ignore[misc]
                if not moves:
                    return -(MATE - ply)
        else:
            moves = self.legal_moves(pos)
            if self.restrict is not None:
                moves = self.restrict(History((*self.line, *self.path, pos)), moves)
            if not moves:
                return -(MATE - ply)
            if depth <= 0 and not moves[0].captured:
                return self.evaluate(pos)  # quiet horizon: stand pat
        if ply >= MAX_PLY:
            return self.evaluate(pos)
        if depth < 0:
            depth = 0

        tt_move_key: _Key | None = None
        entry = self.tt.get(pos)
        if entry is not None:
            e_depth, e_score, e_bound, e_move = entry
            if e_move is not None:
                tt_move_key = e_move.key
            if e_depth >= depth:
                if e_score >= MATE_BOUND:
                    e_score -= ply
                elif e_score <= -MATE_BOUND:
                    e_score += ply
                if (e_bound == EXACT or (e_bound == LOWER and e_score >= beta)
                        or (e_bound == UPPER and e_score <= alpha)):
                    return e_score

        n = len(moves)
        if n > 1:
            killers = self.killers[ply]
            history = self.history

            def order(m: Move) -> int:
                k = m.key
                if k == tt_move_key:
                    return 10_000_000
                if m.captured:
                    return 1_000_000 + 1000 * len(m.captured)
                if m.promotes:
                    return 900_000
                if k == killers[0]:
                    return 800_000
                if k == killers[1]:
                    return 700_000
                return history.get((m.path[0], m.path[-1]), 0)

            moves.sort(key=order, reverse=True)
            new_depth = depth - 1
        elif ply < self.extension_ply:
            # Forced move: do not spend depth on it (bounded per iteration).
            new_depth = depth
        else:
            new_depth = depth - 1

        orig_alpha = alpha
        best = -INFINITY
        best_move = moves[0]
        path = self.path
        path.append(pos)
        apply = self.apply
        next_quiet = self._next_quiet
        for i, move in enumerate(moves):
            child = apply(pos, move)
            q = next_quiet(pos, move, quiet)
            if i == 0:
                score = -self._negamax(child, new_depth, -beta, -alpha, ply + 1, q)
            else:
                score = -self._negamax(child, new_depth, -alpha - 1, -alpha, ply + 1, q)
                if alpha < score < beta:
                    score = -self._negamax(child, new_depth, -beta, -alpha, ply + 1, q)
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move.captured:
                            mkey = move.key
                            killers = self.killers[ply]
                            if killers[0] != mkey:
                                killers[1] = killers[0]
                                killers[0] = mkey
                            hk = (move.path[0], move.path[-1])
                            self.history[hk] = self.history.get(hk, 0) + depth * depth
                        break
        path.pop()

        if best <= orig_alpha:
            bound = UPPER
        elif best >= beta:
            bound = LOWER
        else:
            bound = EXACT
        stored = best
        if stored >= MATE_BOUND:
            stored += ply
        elif stored <= -MATE_BOUND:
            stored -= ply
        self.tt[pos] = (depth, stored, bound, best_move)
        return best

    def _pv(self, root: Position, first: Move | None) -> tuple[Move, ...]:
        pv: list[Move] = []
        pos = root
        move = first
        visited: set[Position] = set()
        while move is not None and len(pv) < 32 and pos not in visited:
            visited.add(pos)
            legal = self.legal_moves(pos)
            if move not in legal:
                break
            pv.append(move)
            pos = self.apply(pos, move)
            entry = self.tt.get(pos)
            move = entry[3] if entry is not None else None
        return tuple(pv)


def search(variant: Variant, record_or_position: GameRecord | Position, *,
           max_depth: int = MAX_PLY, time_limit: float | None = None,
           node_limit: int | None = None, seed: int | None = None,
           noise: int = 0) -> SearchResult:
    """Search ``record_or_position`` (a game record gives repetition and draw-counter history).

    ``time_limit`` (seconds, wall clock) and ``node_limit`` stop the search; the first
    iteration (depth 1) always completes so a sensible move is always returned.
    """
    root, history, quiet = _history_of(record_or_position)
    deadline = time.perf_counter() + time_limit if time_limit is not None else None
    searcher = Searcher(variant, history=history, quiet_plies=quiet, deadline=deadline,
                        node_limit=node_limit, rng=random.Random(seed), noise=noise)
    return searcher.run(root, max_depth)
