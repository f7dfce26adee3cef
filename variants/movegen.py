"""The move generator every ruleset configures: bitboards, driven by the declared rules.

It reads the ruleset's declared rules (``Variant.spec``: the men's and the kings' move and
capture directions, flying moves and flying captures, where a flying capture lands, whether
men capture kings, removal timing, the 180-degree ban, mid-capture promotion, capture
precedence and piece values) and nothing else.

Directions are (rank step, file step) vectors. Besides the board's own lines, a piece may
use any vector that joins two played squares: ``(0, 2)`` on a diagonal board runs along a
row over its dark squares (the piece jumped stands two files away, the landing four away:
Frisian captures). Such vectors get their own tables (``move_geometry``: the board's lines
first, then the others, each with its opposite); ``geometry`` keeps the board's lines.

Its public methods are the hooks a Python ruleset may override (``legal_moves``,
``captures``, ``quiet_moves``, ``apply``, ``rank_captures``, ``has_capture``); overriding
any method of :class:`MoveGenerator` makes the ruleset non-declarative
(:func:`variants.spec.declarative_reason`), so it is played by the pure-Python engine.
``perft`` runs on raw bitboards only while none of the move-generation methods is
overridden; it applies ``rank_captures`` exactly as ``captures`` does, and walks the public
methods otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar, cast

from variants.errors import IllegalMove
from variants.geometry import DIAGONAL, Geometry, Vector
from variants.spec import Criterion, PromotionRule
from variants.types import Bitboard, Color, Move, Position, Square

if TYPE_CHECKING:
    from variants.base import Variant

_GENERATION_METHODS = ("legal_moves", "captures", "quiet_moves", "apply")


class MoveGenerator:
    """The move-generation part of a ruleset (a base class of ``Variant``)."""

    if TYPE_CHECKING:
        rows: ClassVar[int]
        vectors: ClassVar[tuple[Vector, ...]]
        man_move_vectors: ClassVar[tuple[Vector, ...]]
        man_capture_vectors: ClassVar[tuple[Vector, ...]]
        men_capture_kings: ClassVar[bool]
        king_move_vectors: ClassVar[tuple[Vector, ...] | None]
        king_capture_vectors: ClassVar[tuple[Vector, ...] | None]
        flying_kings: ClassVar[bool]
        flying_captures: ClassVar[bool | None]
        king_landing: ClassVar[str]
        piece_values: ClassVar[tuple[int, int]]
        immediate_removal: ClassVar[bool]
        no_reversal: ClassVar[bool]
        mid_capture_promotion: ClassVar[PromotionRule]
        geometry: Geometry
        _labels: tuple[str, ...]

        @property
        def capture_criteria(self) -> tuple[Criterion, ...]: ...

    def _init_generator(self) -> None:
        """Build the bitboard tables of the declared rules (``self.geometry`` is set)."""
        board = tuple(self.vectors)
        man_moves = _vectors("man_move_vectors", self.man_move_vectors, board)
        man_captures = _vectors("man_capture_vectors", self.man_capture_vectors, board)
        king_moves = _vectors("king_move_vectors", self.king_move_vectors or board, board)
        king_captures = _vectors("king_capture_vectors", self.king_capture_vectors or board,
                                 board)
        for field, vectors in (("king_move_vectors", king_moves),
                               ("king_capture_vectors", king_captures)):
            lopsided = [(dr, dc) for dr, dc in vectors if (-dr, dc) not in vectors]
            if lopsided:  # a king has no forward: its directions serve both sides as given
                dr, dc = lopsided[0]
                raise ValueError(f"{field}: {(dr, dc)!r} without {(-dr, dc)!r} (a king's "
                                 "directions must be the same seen from either side)")
        extra: list[Vector] = []
        for vectors in (man_moves, man_captures, king_moves, king_captures):
            for dr, dc in vectors:
                for w in ((dr, dc), (-dr, -dc), (-dr, dc), (dr, -dc)):
                    if w not in board and w not in extra:
                        extra.append(w)
        geometry = self.geometry
        if extra:
            geometry = Geometry.build(self.geometry.rows, self.geometry.cols,
                                      list(self.geometry.coords),
                                      board + tuple(extra))
        self.move_geometry = geometry
        vec = {v: i for i, v in enumerate(geometry.vectors)}

        def mirrored(vectors: tuple[Vector, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
            white = tuple(vec[v] for v in vectors)
            black = tuple(vec[(-dr, dc)] for dr, dc in vectors)
            return white, black

        self._man_moves = mirrored(man_moves)
        self._man_captures = mirrored(man_captures)
        # Kings have no forward: the same directions for both sides, in the declared order.
        self._king_moves = tuple(vec[v] for v in king_moves)
        self._king_captures = tuple(vec[v] for v in king_captures)
        self._flying_captures = (self.flying_kings if self.flying_captures is None
                                 else bool(self.flying_captures))
        if self.king_landing not in ("any", "next"):
            raise ValueError(f"king_landing must be \"any\" or \"next\", not "
                             f"{self.king_landing!r}")
        self._land_next = self.king_landing == "next"
        values = tuple(self.piece_values)
        if len(values) != 2 or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                                       for n in values):
            raise ValueError(f"piece_values must be two positive integers (man, king), not "
                             f"{self.piece_values!r}")
        # Bitboard tables for the hot paths, per colour: men's one-step moves as
        # (delta, sources) and men's jumps as (victim delta, landing delta, sources), split by
        # the sign of the shift so no branch is needed.
        self._steps = tuple(_step_groups(geometry, dirs) for dirs in self._man_moves)
        self._jumps = tuple(_jump_groups(geometry, dirs) for dirs in self._man_captures)
        self._promotion = (geometry.rank_mask(self.rows - 1), geometry.rank_mask(0))
        criteria = self.capture_criteria
        # The capture collector applies the leading MOST_PIECES / MOST_KINGS criteria while
        # it searches (cheap); anything else goes through rank_captures on complete moves.
        native = 0
        if criteria[:1] == (Criterion.MOST_PIECES,):
            native = 2 if criteria[1:2] == (Criterion.MOST_KINGS,) else 1
        self._native_rank = native
        kind = type(self)
        self._post_rank = (kind.rank_captures is not MoveGenerator.rank_captures
                           or len(criteria) > native)
        # perft runs on raw bitboards only while the move generation is the engine's own.
        self._fast_perft = all(getattr(kind, name) is getattr(MoveGenerator, name)
                               for name in _GENERATION_METHODS)

    def promotion_squares(self, color: Color) -> Bitboard:
        """The far row where ``color``'s men are crowned."""
        return self._promotion[color]

    # --- move generation ------------------------------------------------------------------
    def legal_moves(self, position: Position) -> list[Move]:
        """Every legal move, each once (unique by origin, destination and captured set)."""
        captures = self.captures(position)
        if captures:
            return captures
        return self.quiet_moves(position)

    def has_capture(self, position: Position) -> bool:
        return bool(self.captures(position))

    def quiet_moves(self, position: Position) -> list[Move]:
        """Every non-capturing move of the side to move, whether or not a capture is forced.

        Engines use it with :meth:`captures`: the legal moves are the captures if there are
        any, else these.
        """
        color = position.turn
        if color is Color.WHITE:
            men, kings = position.white_men, position.white_kings
        else:
            men, kings = position.black_men, position.black_kings
        g = self.move_geometry
        empty = g.full & ~position.occupied
        promo = self._promotion[color]
        moves: list[Move] = []
        append = moves.append
        if men:
            for d in self._man_moves[color]:
                for delta, sources in g.shifts[d]:
                    src = men & sources
                    if not src:
                        continue
                    t = (src << delta if delta > 0 else src >> -delta) & empty
                    while t:
                        low = t & -t
                        t ^= low
                        dest = low.bit_length() - 1
                        append(Move((dest - delta, dest), (), bool(low & promo), 0))
        flying = self.flying_kings
        rays = g.rays
        king_dirs = self._king_moves
        while kings:
            low = kings & -kings
            kings ^= low
            sq = low.bit_length() - 1
            for d in king_dirs:
                for n in rays[d][sq]:
                    if not (empty >> n) & 1:
                        break
                    append(Move((sq, n), (), False, 0))
                    if not flying:
                        break
        return moves

    def captures(self, position: Position) -> list[Move]:
        """Every legal capture of the side to move (empty when it has none).

        Complete chains only, deduplicated, after the capture precedence: the declared
        ``precedence`` and the ``rank_captures`` hook.
        """
        if position.turn is Color.WHITE:
            found = self._capture_found(position.white_men, position.white_kings,
                                        position.black_men, position.black_kings, Color.WHITE)
        else:
            found = self._capture_found(position.black_men, position.black_kings,
                                        position.white_men, position.white_kings, Color.BLACK)
        return [Move(path, captured, promotes, key[2])
                for key, (path, captured, promotes) in found.items()]

    def rank_captures(self, position: Position, moves: Sequence[Move]) -> list[Move]:
        """Of the complete captures ``moves`` (all the mover has), the legal ones.

        The default keeps the moves that score highest on the declared ``precedence``
        criteria, in order. Override it for a rule data cannot express; return a subset of
        ``moves`` (never an empty one when ``moves`` is not empty). Both ``captures`` and
        ``perft`` go through it.
        """
        criteria = self.capture_criteria
        if not criteria or len(moves) < 2:
            return list(moves)
        variant = cast("Variant", self)
        scored = [(tuple(c.score(variant, position, m) for c in criteria), m) for m in moves]
        best = max(score for score, _m in scored)
        return [m for score, m in scored if score == best]

    def _capture_found(self, men: Bitboard, kings: Bitboard, om: Bitboard, ok: Bitboard,
                       color: Color) -> dict[tuple[Square, Square, Bitboard],
                                             tuple[tuple[Square, ...], tuple[Square, ...],
                                                   bool]]:
        """The legal captures of the side with ``men`` and ``kings`` against ``om``/``ok``,
        keyed by (origin, destination, captured mask): what ``captures`` and ``perft`` use.
        """
        opp = om | ok
        if not opp:
            return {}
        occupied = men | kings | opp
        man_targets = opp if self.men_capture_kings else om
        # Men that have a jump right now: a cheap bitboard filter before the search.
        starters = 0
        if men and man_targets:
            empty = self.move_geometry.full & ~occupied
            up, down = self._jumps[color]
            for a, b, src in up:
                starters |= men & src & (man_targets >> a) & (empty >> b)
            for a, b, src in down:
                starters |= men & src & (man_targets << a) & (empty << b)
        if not (starters or kings):
            return {}
        found = self._collect(starters, kings, opp, ok, occupied, color).found
        if self._post_rank and len(found) > 1:
            if color is Color.WHITE:
                position = Position(men, kings, om, ok, color)
            else:
                position = Position(om, ok, men, kings, color)
            moves = [Move(path, captured, promotes, key[2])
                     for key, (path, captured, promotes) in found.items()]
            kept = self.rank_captures(position, moves)
            found = {m.key: found[m.key] for m in kept}
        return found

    def _collect(self, starters: Bitboard, kings: Bitboard, opp: Bitboard,
                 opp_kings: Bitboard, occupied: Bitboard, color: Color) -> _Collector:
        """Complete the capture chains of the men in ``starters`` and of ``kings``."""
        found = _Collector(self._native_rank)
        promo = self._promotion[color]
        man_targets = opp if self.men_capture_kings else opp & ~opp_kings
        self._search_from_each(found, starters, False, self._man_captures[color], promo,
                               occupied, man_targets, opp_kings)
        self._search_from_each(found, kings, True, self._king_captures, promo, occupied, opp,
                               opp_kings)
        return found

    def _search_from_each(self, found: _Collector, pieces: Bitboard, king: bool,
                          dirs: tuple[int, ...], promo: Bitboard, occupied: Bitboard,
                          targets: Bitboard, opp_kings: Bitboard) -> None:
        """The capture chains of each piece in ``pieces`` (all men or all kings) into
        ``found``: a chain starts with nothing taken, and the mover's own square is free."""
        search = self._search
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            sq = low.bit_length() - 1
            search(found, king, dirs, promo, sq, (sq,), (), 0, 0, occupied ^ low, targets,
                   opp_kings, -1)

    def _search(self, found: _Collector, king: bool, dirs: tuple[int, ...], promo: Bitboard,
                sq: Square, path: tuple[Square, ...], captured: tuple[Square, ...],
                captured_mask: Bitboard, kings_taken: int, blockers: Bitboard,
                targets: Bitboard, opp_kings: Bitboard, last: int) -> bool:
        """Depth-first search of capture chains from ``sq``; returns True if one exists.

        ``blockers``: squares that stop a piece (the mover is not among them);
        ``targets``: enemy pieces still capturable. Complete chains go to ``found``.
        """
        g = self.move_geometry
        flying = king and self._flying_captures
        reverse = g.opposite[last] if last >= 0 and self.no_reversal else -1
        any_capture = False
        for d in dirs:
            if d == reverse:
                continue
            if flying:
                ray = g.rays[d][sq]
                i = 0
                n = len(ray)
                while i < n and not (blockers >> ray[i]) & 1:
                    i += 1
                if i >= n - 1:
                    continue
                victim = ray[i]
                if not (targets >> victim) & 1:
                    continue
                landings = []
                for j in range(i + 1, n):
                    if (blockers >> ray[j]) & 1:
                        break
                    landings.append(ray[j])
                    if self._land_next:  # only the square right behind the piece taken
                        break
                if not landings:
                    continue
            else:
                victim = g.neighbour[d][sq]
                if victim < 0 or not (targets >> victim) & 1:
                    continue
                land = g.neighbour[d][victim]
                if land < 0 or (blockers >> land) & 1:
                    continue
                landings = [land]
            any_capture = True
            vbit = 1 << victim
            new_captured = captured + (victim,)
            new_mask = captured_mask | vbit
            new_kings = kings_taken + (1 if opp_kings & vbit else 0)
            new_targets = targets ^ vbit
            new_blockers = blockers & ~vbit if self.immediate_removal else blockers
            stops: list[Square] = []
            continued = False
            for land in landings:
                new_path = path + (land,)
                if (not king and (promo >> land) & 1
                        and self.mid_capture_promotion is not PromotionRule.STAYS_MAN):
                    if self.mid_capture_promotion is PromotionRule.ENDS_MOVE:
                        found.add(new_path, new_captured, new_mask, new_kings, True)
                        continued = True
                    elif self._search(_Crowned(found), True, self._king_captures, promo, land,
                                      new_path, new_captured, new_mask, new_kings,
                                      new_blockers, new_targets | (opp_kings & ~new_mask),
                                      opp_kings, d):
                        continued = True  # CONTINUES_AS_KING: the rest is a king's capture
                    else:
                        stops.append(land)
                    continue
                if self._search(found, king, dirs, promo, land, new_path, new_captured,
                                new_mask, new_kings, new_blockers, new_targets, opp_kings, d):
                    continued = True
                else:
                    stops.append(land)
            # A chain that can go on must go on: a flying king may stop on a square from
            # which it cannot continue only when no landing square lets it continue.
            if not continued:
                for land in stops:
                    found.add(path + (land,), new_captured, new_mask, new_kings,
                              not king and bool((promo >> land) & 1))
        return any_capture

    # --- applying -------------------------------------------------------------------------
    def apply(self, position: Position, move: Move) -> Position:
        """The position after ``move``. The move must come from ``legal_moves(position)``."""
        o = 1 << move.path[0]
        d = 1 << move.path[-1]
        cm = ~move.captured_mask
        wm, wk = position.white_men, position.white_kings
        bm, bk = position.black_men, position.black_kings
        if position.turn is Color.WHITE:
            if wm & o:
                wm ^= o
                if move.promotes:
                    wk |= d
                else:
                    wm |= d
            elif wk & o:
                wk = (wk ^ o) | d
            else:
                raise IllegalMove(code="move_no_piece", side="White",
                                  square=self._labels[move.path[0]])
            bm &= cm
            bk &= cm
            return Position(wm, wk, bm, bk, Color.BLACK)
        if bm & o:
            bm ^= o
            if move.promotes:
                bk |= d
            else:
                bm |= d
        elif bk & o:
            bk = (bk ^ o) | d
        else:
            raise IllegalMove(code="move_no_piece", side="Black",
                              square=self._labels[move.path[0]])
        wm &= cm
        wk &= cm
        return Position(wm, wk, bm, bk, Color.WHITE)

    def perft(self, position: Position, depth: int) -> int:
        """Leaf nodes of the legal move tree ``depth`` plies deep (unique-move convention).

        While the ruleset keeps the engine's own ``legal_moves``, ``captures``,
        ``quiet_moves`` and ``apply``, this runs on raw bitboards (quiet moves are never
        turned into Move objects, leaf quiet moves are counted with popcounts) and takes
        its captures from the same code as ``captures``, ``rank_captures`` included. A
        ruleset that overrides any of those methods is counted through them instead.
        """
        if depth <= 0:
            return 1
        if not self._fast_perft:
            return self._walk_perft(position, depth)
        if position.turn is Color.WHITE:
            return self._perft(position.white_men, position.white_kings, position.black_men,
                               position.black_kings, Color.WHITE, depth)
        return self._perft(position.black_men, position.black_kings, position.white_men,
                           position.white_kings, Color.BLACK, depth)

    def _walk_perft(self, position: Position, depth: int) -> int:
        """Perft through the public ``legal_moves`` and ``apply`` (any overridden rules)."""
        moves = self.legal_moves(position)
        if depth == 1:
            return len(moves)
        return sum(self._walk_perft(self.apply(position, m), depth - 1) for m in moves)

    def _perft(self, men: Bitboard, kings: Bitboard, om: Bitboard, ok: Bitboard,
               color: Color, depth: int) -> int:
        """Perft from the mover's side: (men, kings) to move against (om, ok)."""
        occupied = men | kings | om | ok
        g = self.move_geometry
        empty = g.full & ~occupied
        other = Color.BLACK if color is Color.WHITE else Color.WHITE
        captures = self._capture_found(men, kings, om, ok, color)
        if captures:
            if depth == 1:
                return len(captures)
            total = 0
            for (origin, destination, mask), (_path, _captured, promotes) in captures.items():
                o = 1 << origin
                d = 1 << destination
                keep = ~mask
                if men & o:
                    if promotes:
                        total += self._perft(om & keep, ok & keep, men ^ o, kings | d, other,
                                             depth - 1)
                    else:
                        total += self._perft(om & keep, ok & keep, men ^ o | d, kings, other,
                                             depth - 1)
                else:
                    total += self._perft(om & keep, ok & keep, men, kings ^ o | d, other,
                                         depth - 1)
            return total
        up, down = self._steps[color]
        flying = self.flying_kings
        if depth == 1:
            count = 0
            if men:
                for delta, src in up:
                    count += ((men & src) << delta & empty).bit_count()
                for delta, src in down:
                    count += ((men & src) >> delta & empty).bit_count()
            while kings:
                low = kings & -kings
                kings ^= low
                sq = low.bit_length() - 1
                for d in self._king_moves:
                    for n in g.rays[d][sq]:
                        if not (empty >> n) & 1:
                            break
                        count += 1
                        if not flying:
                            break
            return count
        total = 0
        perft = self._perft
        promo = self._promotion[color]
        if men:
            below = depth - 1
            for delta, src in up:
                t = (men & src) << delta & empty
                while t:
                    dest = t & -t
                    t ^= dest
                    if dest & promo:
                        total += perft(om, ok, men ^ dest >> delta, kings | dest, other, below)
                    else:
                        total += perft(om, ok, men ^ (dest >> delta | dest), kings, other, below)
            for delta, src in down:
                t = (men & src) >> delta & empty
                while t:
                    dest = t & -t
                    t ^= dest
                    if dest & promo:
                        total += perft(om, ok, men ^ dest << delta, kings | dest, other, below)
                    else:
                        total += perft(om, ok, men ^ (dest << delta | dest), kings, other, below)
        rest = kings
        while rest:
            low = rest & -rest
            rest ^= low
            sq = low.bit_length() - 1
            for d in self._king_moves:
                for n in g.rays[d][sq]:
                    if not (empty >> n) & 1:
                        break
                    total += perft(om, ok, men, kings ^ low | 1 << n, other, depth - 1)
                    if not flying:
                        break
        return total



class _Collector:
    """Complete capture chains, deduplicated, filtered as they come by the leading native
    criteria: ``rank`` 0 none, 1 most pieces, 2 most pieces then most kings."""

    __slots__ = ("rank", "best", "found")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.best: tuple[int, int] = (0, 0)
        self.found: dict[tuple[Square, Square, Bitboard],
                         tuple[tuple[Square, ...], tuple[Square, ...], bool]] = {}

    def add(self, path: tuple[Square, ...], captured: tuple[Square, ...], mask: Bitboard,
            kings: int, promotes: bool) -> None:
        if self.rank:
            score = (len(captured), kings if self.rank == 2 else 0)
            if score < self.best:
                return
            if score > self.best:
                self.best = score
                self.found.clear()
        key = (path[0], path[-1], mask)
        if key not in self.found:
            self.found[key] = (path, captured, promotes)

    def moves(self) -> list[Move]:
        return [Move(path, captured, promotes, key[2])
                for key, (path, captured, promotes) in self.found.items()]


class _Crowned(_Collector):
    """Forwards chains of a man crowned mid-capture, marking them as promotions."""

    __slots__ = ("parent",)

    def __init__(self, parent: _Collector) -> None:
        self.parent = parent

    def add(self, path: tuple[Square, ...], captured: tuple[Square, ...], mask: Bitboard,
            kings: int, promotes: bool) -> None:
        self.parent.add(path, captured, mask, kings, True)


def _vectors(field: str, vectors: Iterable[Sequence[int]],
             board: tuple[Vector, ...]) -> tuple[Vector, ...]:
    """``vectors`` as a tuple of pairs, each checked by :func:`check_vector`."""
    out: list[Vector] = []
    for v in vectors:
        pair = tuple(v)
        check_vector(field, pair, board)
        out.append((pair[0], pair[1]))
    return tuple(out)


def check_vector(field: str, vector: Sequence[object], board: tuple[Vector, ...]) -> None:
    """Raise ``ValueError`` naming ``field`` unless ``vector`` is a direction a piece can use
    on this board: two integers, not both 0, and on a diagonal board an even sum (a step
    from a played square to another one, such as (1, 1) or (0, 2))."""
    if len(vector) != 2 or not all(isinstance(n, int) and not isinstance(n, bool)
                                   for n in vector):
        raise ValueError(f"{field}: {tuple(vector)!r} is not a (rank step, file step) pair")
    dr, dc = int(vector[0]), int(vector[1])  # type: ignore[call-overload]
    if (dr, dc) == (0, 0):
        raise ValueError(f"{field}: (0, 0) is not a direction")
    if board == DIAGONAL and (dr + dc) % 2:
        raise ValueError(f"{field}: {vector!r} leaves the played squares of a diagonal board "
                         "(use steps with an even sum: (1, 1) diagonally, (0, 2) or (2, 0) "
                         "along a row or a file)")


Groups = tuple[tuple[int, Bitboard], ...]
JumpGroups = tuple[tuple[int, int, Bitboard], ...]


def _step_groups(g: Geometry, dirs: tuple[int, ...]) -> tuple[Groups, Groups]:
    """One-step shifts of ``dirs`` as (delta, sources): left shifts, then right shifts."""
    up: dict[int, Bitboard] = {}
    down: dict[int, Bitboard] = {}
    for d in dirs:
        for delta, sources in g.shifts[d]:
            if delta > 0:
                up[delta] = up.get(delta, 0) | sources
            else:
                down[-delta] = down.get(-delta, 0) | sources
    return tuple(sorted(up.items())), tuple(sorted(down.items()))


def _jump_groups(g: Geometry, dirs: tuple[int, ...]) -> tuple[JumpGroups, JumpGroups]:
    """Short jumps of ``dirs`` as (victim delta, landing delta, sources), split by sign.

    A man on a source square has a jump when ``opp`` holds the victim square and the landing
    square is empty: ``src & (opp >> a) & (empty >> b)`` (left shifts for the other sign).
    """
    up: dict[tuple[int, int], Bitboard] = {}
    down: dict[tuple[int, int], Bitboard] = {}
    for d in dirs:
        for sq in range(g.size):
            victim = g.neighbour[d][sq]
            land = g.neighbour[d][victim] if victim >= 0 else -1
            if land < 0:
                continue
            a, b = victim - sq, land - sq
            if a > 0:
                up[(a, b)] = up.get((a, b), 0) | 1 << sq
            else:
                down[(-a, -b)] = down.get((-a, -b), 0) | 1 << sq
    return (tuple((a, b, m) for (a, b), m in sorted(up.items())),
            tuple((a, b, m) for (a, b), m in sorted(down.items())))


__all__ = ["MoveGenerator"]
