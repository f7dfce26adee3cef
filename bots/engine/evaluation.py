"""Static evaluation driven by a ruleset's declared properties.

Nothing here asks which ruleset it is. Every table is built once per variant from its
geometry, its promotion rows, its man move vectors and ``flying_kings``. A ruleset (built-in
or plugin) can refine the weights by declaring an optional ``eval_weights`` mapping; unknown
keys are refused so a typo does not go unnoticed.

Terms (centi-men, from the side to move's point of view):

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

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final
from weakref import WeakKeyDictionary

from variants.base import Variant
from variants.types import Bitboard, Color, Position, Square

DEFAULT_WEIGHTS: Final[Mapping[str, int]] = MappingProxyType({
    "man": 100,
    "king": 0,  # 0 = derived from the ruleset: flying or short kings
    "king_flying": 300,
    "king_short": 150,
    "advance": 3,
    "back_rank": 6,
    "centre": 4,
    "mobility": 2,
    "runaway": 60,
    "tempo": 8,
    "trade": 40,
})


def weights_for(variant: Variant) -> dict[str, int]:
    """The default weights refined by the ruleset's optional ``eval_weights`` mapping."""
    weights = dict(DEFAULT_WEIGHTS)
    extra: Mapping[str, int] = getattr(variant, "eval_weights", None) or {}
    unknown = set(extra) - set(weights)
    if unknown:
        raise ValueError(f"{variant!r}.eval_weights has unknown terms: {sorted(unknown)}")
    weights.update(extra)
    if not weights["king"]:
        weights["king"] = weights["king_flying" if variant.flying_kings else "king_short"]
    return weights


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


class Evaluator:
    """Evaluates positions of one ruleset. Build with :func:`evaluator_for` (cached)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.weights = w = weights_for(variant)
        g = variant.geometry
        self.geometry = g
        promotion: tuple[Bitboard, Bitboard] = getattr(
            variant, "_promotion", (g.rank_mask(variant.rows - 1), g.rank_mask(0)))
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
            cone = tuple(self._cone(sq, forward) for sq in range(g.size))
            sides.append(_Side(promo, back, tuple(rank_bonus), near, cone, steps, forward,
                               move_dirs))
        self.sides = (sides[0], sides[1])
        rows, cols = variant.rows, variant.cols
        lo_r, hi_r = rows // 2 - 1, rows // 2
        lo_c, hi_c = cols // 4, cols - cols // 4 - 1
        self.centre = 0
        for sq, (r, c) in enumerate(g.coords):
            if lo_r <= r <= hi_r and lo_c <= c <= hi_c:
                self.centre |= 1 << sq
        start = variant.initial_position()
        self.start_pieces = max(1, start.occupied.bit_count())

    def _cone(self, sq: Square, dirs: tuple[int, ...]) -> Bitboard:
        """Every square a man on ``sq`` could pass over on forward steps."""
        g = self.geometry
        seen = 0
        frontier = [sq]
        while frontier:
            nxt: list[Square] = []
            for s in frontier:
                for d in dirs:
                    n = g.neighbour[d][s]
                    if n >= 0 and not (seen >> n) & 1:
                        seen |= 1 << n
                        nxt.append(n)
            frontier = nxt
        return seen

    def material(self, position: Position, color: Color) -> int:
        w = self.weights
        return (position.men(color).bit_count() * w["man"]
                + position.kings(color).bit_count() * w["king"])

    def evaluate(self, position: Position) -> int:
        """Score of ``position`` for the side to move (positive: good for the mover)."""
        w = self.weights
        occupied = position.occupied
        empty = self.geometry.full & ~occupied
        shift = self.geometry.shift
        man_v, king_v = w["man"], w["king"]
        scores = [0, 0]
        materials = [0, 0]
        for color in (Color.WHITE, Color.BLACK):
            side = self.sides[color]
            if color is Color.WHITE:
                men, kings = position.white_men, position.white_kings
                opp_men, opp_kings = position.black_men, position.black_kings
            else:
                men, kings = position.black_men, position.black_kings
                opp_men, opp_kings = position.white_men, position.white_kings
            mat = men.bit_count() * man_v + kings.bit_count() * king_v
            materials[color] = mat
            s = mat
            if men:
                for mask, bonus in side.rank_bonus:
                    part = men & mask
                    if part:
                        s += part.bit_count() * bonus
                if opp_men:
                    s += (men & side.back_rank).bit_count() * w["back_rank"]
                mob = 0
                for d in side.move_dirs:
                    mob |= shift(men, d) & empty
                s += mob.bit_count() * w["mobility"]
                runners = men & side.near
                if runners:
                    full = w["runaway"] if not opp_kings else w["runaway"] // 2
                    while runners:
                        low = runners & -runners
                        runners ^= low
                        sq = low.bit_length() - 1
                        if not side.cone[sq] & occupied:
                            s += full - 8 * side.steps[sq]
            s += ((men | kings) & self.centre).bit_count() * w["centre"]
            scores[color] = s
        mover = position.turn
        result = scores[mover] - scores[mover.opponent] + w["tempo"]
        diff = materials[mover] - materials[mover.opponent]
        if diff:
            total = occupied.bit_count()
            result += diff * w["trade"] * (self.start_pieces - total) // (
                self.start_pieces * man_v)
        return result


def _lowest(bb: Bitboard) -> Square:
    return (bb & -bb).bit_length() - 1


_CACHE: WeakKeyDictionary[Variant, Evaluator] = WeakKeyDictionary()


def evaluator_for(variant: Variant) -> Evaluator:
    """The (cached) evaluator of ``variant``."""
    ev = _CACHE.get(variant)
    if ev is None:
        ev = _CACHE[variant] = Evaluator(variant)
    return ev
