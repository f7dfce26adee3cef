"""Proving a puzzle: exactly one move keeps a decisive advantage, and the forced line after it.

A :class:`Prover` holds one ruleset's engine (the compiled core when it plays the ruleset,
else the pure-Python search) and proves positions:

1. :meth:`Prover.scan` is the cheap pre-filter: one node-bounded search. A position is a
   candidate when its score is decisive (``win``) and clearly above the position's static
   evaluation (something happens: material, a king or the game is won by force).
2. :meth:`Prover.prove` searches *every* legal move of the solver separately (apply the move,
   search the reply at a fixed depth deeper than the scan reached), so the best move and the
   margin to the second best are exact at that depth: the puzzle's move must be the scan's
   move, decisive, and every alternative at least ``margin`` worse and not decisive itself.
   The opponent's replies are searched the same way and the line follows the reply that is
   worst for the solver (its best defence). Later solver moves must be unique the same way,
   or forced, until the gain is clear: the opponent has no capture left and the solver is a
   man up on the start, has a king more, has won the game, or stands in an endgame-table
   win; a solver choice that is not unique before that rejects the position.
3. Positions in the endgame tables are scored by the tables (exact, no search), so an
   ending puzzle's "only move wins" is exact.

Scores are centi-men from the solver's side; wins are ``MATE - plies``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from bots.engine.native import NativeEngine, native_supported
from bots.engine.search import MATE, MATE_BOUND, SearchResult
from bots.engine.search import search as python_search
from variants.base import Variant
from variants.types import Color, Move, Position

THEMES = ("shot", "sacrifice", "breakthrough", "ending", "forced_capture", "material")
"""Every theme a puzzle can carry (see :func:`themes_of`)."""

MAN = 100  # centi-men
KING = 250  # a king's weight in the material count of a line's gain
WON_MARGIN = 10_000  # the margin written for a won game against no win (mate scores)


@dataclass(frozen=True, slots=True)
class Settings:
    """How hard the prover works and what it calls decisive.

    ``scan_nodes``: the pre-filter search. Proof searches (each solver alternative and each
    opponent reply, searched after the move) go to ``scan depth + extra_depth`` plies from
    the puzzle's position, at least ``min_depth``; one that a ``node_cap`` stops before its
    depth proves nothing (the position is rejected). ``win``: a score at least this is a
    decisive advantage. ``margin``: how much worse than the solution every alternative
    must be. ``gain``: the material a line must win (unless it makes a king, wins the game
    or reaches a table win). ``max_solver_moves``: a longer line rejects the position;
    ``ending_moves``: a line from the endgame tables ends after this many solver moves.
    """

    scan_nodes: int = 20_000
    extra_depth: int = 2
    min_depth: int = 8
    max_depth: int = 16
    node_cap: int = 3_000_000
    win: int = 150
    margin: int = 150
    gain: int = MAN
    max_solver_moves: int = 8
    ending_moves: int = 4
    max_legal: int = 40

    def deeper(self, plies: int) -> Settings:
        """The same settings proving ``plies`` deeper (the ``verify`` command)."""
        return replace(self, extra_depth=self.extra_depth + plies,
                       min_depth=self.min_depth + plies, max_depth=self.max_depth + plies,
                       node_cap=self.node_cap * 2)


@dataclass(slots=True)
class Proof:
    """A proven line: ``moves`` alternate solver, opponent, ..., solver."""

    position: Position
    moves: list[Move]
    positions: list[Position]  # before each move of ``moves``
    scores: list[int]  # the solver's score after each solver move
    margins: list[int]  # best minus second best at each solver choice (MATE when forced)
    depth: int  # plies from the puzzle's position of every proof search
    found_depth: int  # the depth the scan reached
    nodes: int
    table: bool  # the start is in the endgame tables
    legal_count: int

    @property
    def margin(self) -> int:
        return min(self.margins)


class Unproven(Exception):
    """A search stopped before its depth: nothing is proven."""


@dataclass(slots=True)
class _Budget:
    nodes: int = 0


@dataclass
class Prover:
    """One ruleset's prover (keeps its engine and transposition table between positions).
    Every search has the same seed, so equal moves are always tried in the same order."""

    variant: Variant
    settings: Settings = field(default_factory=Settings)
    tt_mb: int = 64
    shared: NativeEngine | None = None  # another prover's engine, to use instead of a new one
    # endgame tables: "wait" (load, or solve before the first proof), "off"; None: "wait"
    # unless KONDAVO_ENGINE_TABLES is "off"
    tables: str | None = None

    def __post_init__(self) -> None:
        self.engine: NativeEngine | None = self.shared
        if self.engine is None and native_supported(self.variant):
            from bots.engine import tables

            self.engine = NativeEngine(self.variant, tt_mb=self.tt_mb)
            tables.attach(self.engine, self.table_mode())
        self.lock = threading.Lock()
        self._budget = _Budget()
        self.reason = ""  # why the last proof failed
        self._finder: NativeEngine | None = None

    def table_mode(self) -> str:
        from bots.engine import tables

        return self.tables or ("off" if tables.mode() == "off" else "wait")

    # --- engine access ------------------------------------------------------------------
    def search(self, position: Position, depth: int | None, nodes: int | None) -> SearchResult:
        if self.engine is not None:
            return self.engine.search(position, max_depth=depth or 64, node_limit=nodes,
                                      seed=0, reuse_table=True, tables=True)
        return python_search(self.variant, position, max_depth=depth or 64, node_limit=nodes,
                             seed=0)

    def fresh_search(self, position: Position, depth: int) -> SearchResult:
        """A full-width search of ``depth`` plies on a small engine of its own, its table
        emptied first (for the rating: how deep the engine must look to find a move)."""
        if self.engine is None:
            return python_search(self.variant, position, max_depth=depth,
                                 node_limit=self.settings.node_cap, seed=0)
        if self._finder is None:
            from bots.engine import tables

            self._finder = NativeEngine(self.variant, tt_mb=4)
            tables.attach(self._finder, self.table_mode())
        return self._finder.search(position, max_depth=depth,
                                   node_limit=self.settings.node_cap, seed=0,
                                   reuse_table=False, tables=True)

    def probe(self, position: Position) -> int:
        """The endgame tables' byte for ``position`` (-1: not in them; 0 a draw; else 1 +
        the plies to the end, an odd number of plies a win for the side to move)."""
        if self.engine is None or not self.engine.table_pieces:
            return -1
        if (position.occupied.bit_count() > self.engine.table_pieces
                or not position.pieces(Color.WHITE) or not position.pieces(Color.BLACK)):
            return -1
        return self.engine.probe(position)

    def terminal(self, position: Position) -> int | None:
        """The score for the side to move of a finished game (None: it goes on)."""
        mover = position.turn
        if not position.pieces(mover):
            return -MATE
        special = self.variant.special_outcome(position)
        if special is not None:
            if special.winner is None:
                return 0
            return MATE if special.winner is mover else -MATE
        if not self.variant.legal_moves(position):
            return -MATE
        return None

    def value(self, position: Position, depth: int) -> int:
        """Score of ``position`` for its side to move: exact when finished or in the tables,
        else a search of exactly ``depth`` plies (:class:`Unproven` if it stops short)."""
        done = self.terminal(position)
        if done is not None:
            return done
        byte = self.probe(position)
        if byte >= 0:
            if byte == 0:
                return 0
            distance = byte - 1  # plies to the end: odd, the side to move wins
            return MATE - distance if distance % 2 else -(MATE - distance)
        if depth <= 0:
            depth = 1
        result = self.search(position, depth, self.settings.node_cap)
        self._budget.nodes += result.nodes
        if result.stopped and result.depth < depth:  # (a mate found ends a search early)
            raise Unproven(f"search stopped at depth {result.depth} of {depth}")
        return result.score

    def quick(self, position: Position) -> int:
        """A shallow score for ordering moves (not part of any proof)."""
        done = self.terminal(position)
        if done is not None:
            return done
        return self.search(position, 3, 2_000).score

    # --- the pre-filter -----------------------------------------------------------------
    def scan(self, position: Position) -> SearchResult | None:
        """A node-bounded search; the result when the position is a candidate, else None."""
        legal = self.variant.legal_moves(position)
        if len(legal) < 2 or len(legal) > self.settings.max_legal:
            return None
        if self.terminal(position) is not None:
            return None
        result = self.search(position, None, self.settings.scan_nodes)
        if result.move is None or result.score < self.settings.win:
            return None
        if result.score >= MATE_BOUND:
            return result
        static = self.static(position)
        if result.score - static < self.settings.gain * 4 // 5:
            return None
        return result

    def static(self, position: Position) -> int:
        if self.engine is not None:
            return self.engine.evaluate(position)
        return material(position, position.turn)

    # --- the proof ----------------------------------------------------------------------
    def prove(self, position: Position, hint: Move | None = None,
              found_depth: int | None = None, depth: int | None = None) -> Proof | None:
        """The proven puzzle starting at ``position`` (solver to move), or None.

        ``hint``: the move the scan found (the proof must agree with it); ``found_depth``:
        the depth the scan reached (the proof searches deeper); ``depth``: the proof's
        depth instead of the settings' (a re-proof).
        """
        with self.lock:
            if hint is None or found_depth is None:
                scanned = self.scan(position)
                if scanned is None:
                    return None
                hint, found_depth = scanned.move, scanned.depth
            self._budget = _Budget()
            self.reason = ""
            try:
                return self._prove(position, hint, found_depth, depth)
            except Unproven:
                self.reason = "unproven"
                return None

    def _prove(self, root: Position, hint: Move | None, found_depth: int,
               depth: int | None = None) -> Proof | None:
        s = self.settings
        if depth is None:
            depth = min(max(found_depth + s.extra_depth, s.min_depth), s.max_depth)
        child_depth = depth - 1
        legal = self.variant.legal_moves(root)
        if len(legal) < 2:
            return None
        table = self.probe(root) >= 0
        solver = root.turn
        start_material = material(root, solver)
        start_kings = root.kings(solver).bit_count()
        moves: list[Move] = []
        positions: list[Position] = []
        scores: list[int] = []
        margins: list[int] = []
        node = root
        while True:
            first = not moves
            choice = self._solver_choice(node, hint if first else None, child_depth)
            if choice is None:
                # not unique: the line may end before this choice if the gain is clear
                if first or not self._gained(node, solver, start_material, start_kings,
                                             table, at_solver_node=True):
                    self.reason = "not unique" if first else "later choice"
                    return None
                moves.pop()
                positions.pop()
                break
            move, score, margin = choice
            if first and hint is not None and move != hint:
                self.reason = "deeper search disagrees"
                return None
            positions.append(node)
            moves.append(move)
            scores.append(score)
            margins.append(margin)
            after = self.variant.apply(node, move)
            if self.terminal(after) is not None:
                break
            if table:  # a won ending: the line goes on while the win is unique
                if len(scores) >= s.ending_moves:
                    break
            elif self._gained(after, solver, start_material, start_kings, table):
                break
            if len(scores) >= s.max_solver_moves:
                self.reason = "too long"
                return None
            reply = self._defence(after, child_depth)
            if reply is None:
                self.reason = "defence holds"
                return None
            positions.append(after)
            moves.append(reply)
            node = self.variant.apply(after, reply)
        return Proof(root, moves, positions, scores, margins, depth, found_depth,
                     self._budget.nodes, table, len(legal))

    def _solver_choice(self, node: Position, hint: Move | None,
                       child_depth: int) -> tuple[Move, int, int] | None:
        """The solver's only good move at ``node``: (move, score, margin), or None when
        the best is not decisive or another move comes within the margin / is decisive."""
        s = self.settings
        legal = self.variant.legal_moves(node)
        if len(legal) == 1:
            move = legal[0]
            return move, -self.value(self.variant.apply(node, move), child_depth), MATE
        # the hint first, then the others best first by a shallow look: a second good
        # move, the usual reason to reject, is then found after one or two deep searches
        shallow = {m: -self.quick(self.variant.apply(node, m)) for m in legal}
        ordered = sorted(legal, key=lambda m: (m != hint, -shallow[m]))
        best: tuple[Move, int] | None = None
        second = -MATE - 1
        for move in ordered:
            score = -self.value(self.variant.apply(node, move), child_depth)
            if best is None:
                if score < s.win:
                    return None
                best = (move, score)
                continue
            if score > best[1]:
                second, best = best[1], (move, score)
            else:
                second = max(second, score)
            if second >= s.win or best[1] - second < s.margin:
                return None
        assert best is not None
        return best[0], best[1], best[1] - second

    def _defence(self, node: Position, child_depth: int) -> Move | None:
        """The opponent's best reply at ``node``: the one after which the solver scores
        least (None when even that leaves the solver short of a decisive score)."""
        legal = self.variant.legal_moves(node)
        if len(legal) == 1:
            return legal[0]
        worst: tuple[int, Move] | None = None
        for move in legal:
            score = self.value(self.variant.apply(node, move), child_depth)
            if worst is None or score < worst[0]:
                worst = (score, move)
        assert worst is not None
        if worst[0] < self.settings.win:
            return None
        return worst[1]

    def _gained(self, position: Position, solver: Color, start_material: int,
                start_kings: int, table: bool, *, at_solver_node: bool = False) -> bool:
        """Whether the line may end at ``position`` (after a solver move, or at the
        solver's next turn): the gain is on the board and cannot be taken back at once."""
        if table:
            return True
        if not at_solver_node and self.variant.has_capture(position):
            return False
        byte = self.probe(position)
        if byte > 0:
            solver_to_move = position.turn is solver
            return ((byte - 1) % 2 == 1) == solver_to_move
        if material(position, solver) - start_material >= self.settings.gain:
            return True
        return position.kings(solver).bit_count() > start_kings and \
            material(position, solver) - start_material >= -MAN


def material(position: Position, color: Color) -> int:
    """Men and kings of ``color`` minus the opponent's, in centi-men (a king is ``KING``)."""
    other = color.opponent
    return (MAN * (position.men(color).bit_count() - position.men(other).bit_count())
            + KING * (position.kings(color).bit_count() - position.kings(other).bit_count()))


# --- themes and rating ----------------------------------------------------------------------
def first_jumps(variant: Variant, position: Position) -> set[tuple[int, int]]:
    """(origin, first captured square) of every first jump the side to move has, whatever
    the precedence rule then allows."""
    g = variant.geometry
    color = position.turn
    opp = position.pieces(color.opponent)
    opp_kings = position.kings(color.opponent)
    occupied = position.occupied
    men = position.men(color)
    sign = 1 if color is Color.WHITE else -1
    vec = {v: i for i, v in enumerate(g.vectors)}
    man_dirs = [vec[(dr * sign, dc)] for dr, dc in variant.man_capture_vectors]
    men_take_kings = bool(getattr(variant, "men_capture_kings", True))
    found: set[tuple[int, int]] = set()
    for sq in range(g.size):
        if men >> sq & 1:
            for d in man_dirs:
                over = g.neighbour[d][sq]
                if over < 0 or not opp >> over & 1:
                    continue
                if not men_take_kings and opp_kings >> over & 1:
                    continue
                land = g.neighbour[d][over]
                if land >= 0 and not occupied >> land & 1:
                    found.add((sq, over))
        elif position.kings(color) >> sq & 1:
            for rays in g.rays:
                ray = rays[sq]
                for i, n in enumerate(ray):
                    if not occupied >> n & 1:
                        if not variant.flying_kings:
                            break
                        continue
                    if opp >> n & 1 and (variant.flying_kings or i == 0) \
                            and i + 1 < len(ray) and not occupied >> ray[i + 1] & 1:
                        found.add((sq, n))
                    break
    return found


def precedence_forced(variant: Variant, position: Position) -> bool:
    """Whether the capture precedence rule, not just compulsory capture, decides the side
    to move's capture here: a jump the piece could start is not allowed, because it does
    not complete the capture the rule demands."""
    legal = variant.legal_moves(position)
    if not legal or not legal[0].captured:
        return False
    allowed = {(m.origin, m.captured[0]) for m in legal}
    return bool(first_jumps(variant, position) - allowed)


def themes_of(variant: Variant, proof: Proof, ending_pieces: int) -> list[str]:
    """The puzzle's themes (a subset of :data:`THEMES`, sorted)."""
    root = proof.position
    solver = root.turn
    themes: set[str] = set()
    start = material(root, solver)
    solver_moves = proof.moves[0::2]
    replies = proof.moves[1::2]
    sacrifice = False
    if len(proof.moves) >= 2:
        after_reply = variant.apply(proof.positions[1], proof.moves[1])
        sacrifice = material(after_reply, solver) < start and bool(proof.moves[1].captured)
    if sacrifice:
        themes.add("sacrifice")
        if any(len(m.captured) >= 2 for m in solver_moves[1:]):
            themes.add("shot")
    if any(m.promotes for m in solver_moves):
        themes.add("breakthrough")
    if proof.table or root.occupied.bit_count() <= ending_pieces:
        themes.add("ending")
    for i, reply in enumerate(replies):
        if reply.captured and precedence_forced(variant, proof.positions[2 * i + 1]):
            themes.add("forced_capture")
            break
    if not themes:
        themes.add("material")
    return sorted(themes)


def find_depth(prover: Prover, position: Position, move: Move, limit: int = 10) -> int:
    """The shallowest full-width search depth whose best move is ``move`` with a decisive
    score (``limit`` + 1 when none up to ``limit``): each depth a search of its own on an
    empty transposition table, so what the proof left there does not help."""
    for depth in range(1, limit + 1):
        result = prover.fresh_search(position, depth)
        if result.move == move and result.score >= prover.settings.win:
            return depth
    return limit + 1


def rating_of(solver_moves: int, found: int, sacrifice: bool, quiet_first: bool,
              legal_count: int) -> int:
    """An initial puzzle rating: longer lines, deeper finds, sacrifices and quiet first
    moves are harder; within 600..2800."""
    rating = 700 + 70 * found + 110 * (solver_moves - 1)
    if sacrifice:
        rating += 150
    if quiet_first:
        rating += 100
    rating += 4 * min(legal_count, 25)
    return max(600, min(2800, rating))


def rate(prover: Prover, puzzle: dict[str, object]) -> int:
    """The initial rating of a puzzle in the data format (:func:`rating_of`)."""
    variant = prover.variant
    position = variant.parse_fen(str(puzzle["fen"]))
    solution: list[str] = list(puzzle["solution"])  # type: ignore[call-overload]
    legal = variant.legal_moves(position)
    first = variant.parse_move(position, solution[0], legal)
    found = find_depth(prover, position, first)
    themes: list[str] = list(puzzle["themes"])  # type: ignore[call-overload]
    return rating_of((len(solution) + 1) // 2, found, "sacrifice" in themes,
                     not first.captured, len(legal))


def puzzle_id(key: str, fen: str, solution: Sequence[str]) -> str:
    digest = hashlib.sha1((fen + " " + " ".join(solution)).encode()).hexdigest()
    return f"{key}-{digest[:10]}"


def to_dict(prover: Prover, proof: Proof, source: dict[str, object]) -> dict[str, object]:
    """The puzzle in the shipped data format."""
    variant = prover.variant
    fen = variant.format_fen(proof.position)
    solution = [variant.format_move(pos, move)
                for pos, move in zip(proof.positions, proof.moves, strict=True)]
    initial = variant.initial_position().occupied.bit_count()
    themes = themes_of(variant, proof, ending_pieces=max(6, initial // 4))
    found = find_depth(prover, proof.position, proof.moves[0])
    rating = rating_of((len(proof.moves) + 1) // 2, found, "sacrifice" in themes,
                       not proof.moves[0].captured, proof.legal_count)
    margin = proof.margin
    return {
        "id": puzzle_id(variant.key, fen, solution),
        "ruleset": variant.key,
        "fen": fen,
        "solution": solution,
        "solver": "white" if proof.position.turn is Color.WHITE else "black",
        "themes": themes,
        "rating": rating,
        "source": source,
        "proof": {"depth": proof.depth, "margin": min(margin, WON_MARGIN),
                  "nodes": proof.nodes},
    }
