"""The hand-set evaluation: the engine's first evaluation, kept as a baseline.

It left the production path when fitted weights arrived (``bots.engine.features``; a ruleset
without fitted weights plays on :func:`bots.engine.features.default_model`, these terms laid
out on the fitted features). What still uses it: the fit's comparison (``fit``'s
``hand_set`` cross-entropy) and the strength lab's oldest yardstick (``bench.strength``'s
"today's L8": the pure-Python search with this evaluation, as of commit e377148).

Terms (centi-men, from the side to move's point of view, weights from
:func:`bots.engine.evaluation.weights_for`):

- ``man`` / ``king``: material. The king's default depends on ``flying_kings``.
- ``advance``: per rank of progress of a man towards its promotion row.
- ``back_rank``: men still guarding their own back rank (the opponent's promotion row),
  while the opponent still has men that could crown there.
- ``centre``: pieces on the central squares.
- ``mobility``: empty squares the men can step to.
- ``runaway``: a man whose whole forward path to promotion is empty (a free path).
- ``tempo``: the side to move's bonus (having the move is worth something).
- ``trade``: when ahead in material, a bonus growing as pieces come off (trade down).
"""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from bots.engine.evaluation import weights_for
from variants.base import Variant
from variants.geometry import Geometry
from variants.types import Bitboard, Color, Position, Square


@dataclass(frozen=True, slots=True)
class _Side:
    """Tables for one colour."""

    promotion: Bitboard  # the row where this colour's men crown
    back_rank: Bitboard  # this colour's own first row (the opponent's promotion row)
    rank_bonus: tuple[tuple[Bitboard, int], ...]  # (squares, advance bonus) per rank
    near: Bitboard  # men close enough to promotion to test for a free path
    cone: tuple[Bitboard, ...]  # per square: every square on the forward paths to promotion
    steps: tuple[int, ...]  # per square: ranks still to go to promotion
    forward_dirs: tuple[int, ...]  # geometry directions of the men's forward moves
    move_dirs: tuple[int, ...]  # geometry directions of every man move
    # Per-square positional value of a man (advance + centre) split into binary planes:
    # sum(popcount(men & mask) << bit) is the table's total without a loop over squares.
    man_planes: tuple[tuple[Bitboard, int], ...]
    man_steps: tuple[tuple[int, Bitboard], ...]  # (delta, sources) of every man move


class HandSetEvaluator:
    """The hand-set evaluation of one ruleset. Build with :func:`handset_evaluator` (cached)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.weights = w = weights_for(variant)
        self.man_v, self.king_v = w["man"], w["king"]
        self.back_w, self.mob_w, self.runaway_w = w["back_rank"], w["mobility"], w["runaway"]
        g = variant.geometry
        self.geometry = g
        self.full = g.full
        promotion = (variant.promotion_squares(Color.WHITE),
                     variant.promotion_squares(Color.BLACK))
        rows, cols = variant.rows, variant.cols
        lo_r, hi_r = rows // 2 - 1, rows // 2
        lo_c, hi_c = cols // 4, cols - cols // 4 - 1
        self.centre = 0
        for sq, (r, c) in enumerate(g.coords):
            if lo_r <= r <= hi_r and lo_c <= c <= hi_c:
                self.centre |= 1 << sq
        vec_index = {v: i for i, v in enumerate(g.vectors)}
        sides: list[_Side] = []
        for color in (Color.WHITE, Color.BLACK):
            promo = promotion[color]
            back = promotion[color.opponent]
            promo_rank = g.coords[_lowest(promo)][0] if promo else variant.rows - 1
            sign = 1 if color is Color.WHITE else -1
            vectors = [(dr * sign, dc) for dr, dc in variant.man_move_vectors]
            move_dirs = tuple(vec_index[v] for v in vectors if v in vec_index)
            forward = tuple(vec_index[v] for v in vectors
                            if v in vec_index and v[0] * (promo_rank - 0.5 * variant.rows) > 0)
            steps = tuple(abs(promo_rank - r) for r, _c in g.coords)
            rank_bonus: list[tuple[Bitboard, int]] = []
            for rank in range(variant.rows):
                progress = variant.rows - 1 - abs(promo_rank - rank)
                if 0 < progress < variant.rows - 1:
                    rank_bonus.append((g.rank_mask(rank), progress * w["advance"]))
            near = 0
            for sq, n in enumerate(steps):
                if 0 < n <= max(2, variant.rows // 2 - 1):
                    near |= 1 << sq
            cone = tuple(g.cone(sq, forward) for sq in range(g.size))
            table = [0] * g.size
            for mask, bonus in rank_bonus:
                for sq in range(g.size):
                    if (mask >> sq) & 1:
                        table[sq] += bonus
            for sq in range(g.size):
                if (self.centre >> sq) & 1:
                    table[sq] += w["centre"]
            sides.append(_Side(promo, back, tuple(rank_bonus), near, cone, steps, forward,
                               move_dirs, _planes(table), _step_groups(g, move_dirs)))
        self.sides = (sides[0], sides[1])
        start = variant.initial_position()
        self.start_pieces = max(1, start.occupied.bit_count())
        self.king_steps = _step_groups(g, tuple(range(len(g.vectors))))

    def material(self, position: Position, color: Color) -> int:
        w = self.weights
        return (position.men(color).bit_count() * w["man"]
                + position.kings(color).bit_count() * w["king"])

    def evaluate(self, position: Position) -> int:
        """Score of ``position`` for the side to move (positive: good for the mover).

        Bitboards and popcounts only: per-square tables are summed through their binary
        planes, mobility is one shifted bitboard per distinct shift.
        """
        w = self.weights
        occupied = (position.white_men | position.white_kings | position.black_men
                    | position.black_kings)
        empty = self.full & ~occupied
        man_v, king_v = self.man_v, self.king_v
        centre = self.centre
        back_w, mob_w, runaway_w = self.back_w, self.mob_w, self.runaway_w
        scores = [0, 0]
        materials = [0, 0]
        for color in (0, 1):
            side = self.sides[color]
            if color == 0:
                men, kings = position.white_men, position.white_kings
                opp_men, opp_kings = position.black_men, position.black_kings
            else:
                men, kings = position.black_men, position.black_kings
                opp_men, opp_kings = position.white_men, position.white_kings
            mat = men.bit_count() * man_v
            if kings:
                mat += kings.bit_count() * king_v
                s = mat + (kings & centre).bit_count() * w["centre"]
            else:
                s = mat
            materials[color] = mat
            if men:
                for mask, bit in side.man_planes:
                    part = men & mask
                    if part:
                        s += part.bit_count() << bit
                if opp_men:
                    s += (men & side.back_rank).bit_count() * back_w
                mob = 0
                for delta, sources in side.man_steps:
                    part = men & sources
                    if part:
                        mob |= part << delta if delta > 0 else part >> -delta
                s += (mob & empty).bit_count() * mob_w
                runners = men & side.near
                if runners:
                    full = runaway_w if not opp_kings else runaway_w // 2
                    cone, steps = side.cone, side.steps
                    while runners:
                        low = runners & -runners
                        runners ^= low
                        sq = low.bit_length() - 1
                        if not cone[sq] & occupied:
                            s += full - 8 * steps[sq]
            scores[color] = s
        mover = int(position.turn)
        result = scores[mover] - scores[1 - mover] + w["tempo"]
        diff = materials[mover] - materials[1 - mover]
        if diff:
            total = occupied.bit_count()
            result += diff * w["trade"] * (self.start_pieces - total) // (
                self.start_pieces * man_v)
        return result

    def can_move(self, position: Position) -> bool:
        """Whether the side to move has a non-capturing step (men forward, kings any way).

        For the built-in move generator a side without a capture has a legal move exactly
        when this holds (a flying king's first ray square is its one-step square).
        """
        occupied = position.occupied
        empty = self.full & ~occupied
        if position.turn is Color.WHITE:
            men, kings, side = position.white_men, position.white_kings, self.sides[0]
        else:
            men, kings, side = position.black_men, position.black_kings, self.sides[1]
        for groups, bb in ((side.man_steps, men), (self.king_steps, kings)):
            if bb:
                for delta, sources in groups:
                    part = bb & sources
                    if part and (part << delta if delta > 0 else part >> -delta) & empty:
                        return True
        return False


def _planes(table: list[int]) -> tuple[tuple[Bitboard, int], ...]:
    """A table of non-negative per-square values as (squares with bit k set, k) pairs."""
    if min(table, default=0) < 0:
        raise ValueError("per-square tables must be non-negative")
    planes = []
    for bit in range(max(table, default=0).bit_length()):
        mask = 0
        for sq, value in enumerate(table):
            if (value >> bit) & 1:
                mask |= 1 << sq
        if mask:
            planes.append((mask, bit))
    return tuple(planes)


def _step_groups(g: Geometry, dirs: tuple[int, ...]) -> tuple[tuple[int, Bitboard], ...]:
    """One-step shifts along ``dirs`` merged by delta: ``(delta, squares that can step)``."""
    merged: dict[int, Bitboard] = {}
    for d in dirs:
        for delta, sources in g.shifts[d]:
            merged[delta] = merged.get(delta, 0) | sources
    return tuple(sorted(merged.items()))


def _lowest(bb: Bitboard) -> Square:
    return (bb & -bb).bit_length() - 1


_CACHE: WeakKeyDictionary[Variant, HandSetEvaluator] = WeakKeyDictionary()


def handset_evaluator(variant: Variant) -> HandSetEvaluator:
    """The (cached) hand-set evaluator of ``variant``."""
    ev = _CACHE.get(variant)
    if ev is None:
        ev = _CACHE[variant] = HandSetEvaluator(variant)
    return ev
