"""Evaluation features and the fitted evaluation: the Python reference of the C evaluation.

Every feature is computed from a ruleset's geometry and declared rules only (no ruleset
names): the board's squares and directions, the men's move directions, the promotion rows
and ``flying_kings``. Features are seen from the side to move: each is the mover's count
minus the opponent's, the opponent's computed on the board turned round (Black's squares
mirrored onto White's, so one table serves both colours).

Features (names in :attr:`FeatureSpace.names`):

- ``tempo``: 1 (the value of having the move; the model's intercept);
- ``man``, ``king``: material;
- ``king_centre``: kings on the central squares; ``king_mobility``: squares the kings can
  move to (along open rays for flying kings);
- ``man_mobility``: empty squares the men can step to;
- ``back_guard``: men on their own first row while the opponent still has men;
- ``outpost``: men in the opponent's half with every square behind them held by their side;
- ``locked``: men with no empty square to step to;
- ``runaway``: men near promotion with an empty path (every forward square free);
  ``runaway_near`` adds the ranks they have already made;
- ``wing_balance``: ``|men on the left half - men on the right half|`` (a penalty, fitted);
- ``trade``: material lead (men + 3 per king) times pieces already off the board;
- ``king_men``: kings times the opponent's men (a king among many men is worth more than
  one in an ending);
- ``man_sq[i]``: a man on (mirrored) square ``i`` (advancement, centre, edges);
- ``pat[b][s]``: windows of four neighbouring playable squares (a square, its two
  neighbours along the first two forward directions, and the square beyond both: a diamond
  on diagonal boards, a 2x2 block on orthogonal ones) in state ``s`` (3^4 states: empty,
  own piece, opponent piece), one table per band ``b`` = rank of the window's first square;
- ``reg[r][s]``: regions of eight playable squares (blocks of four rows of the board, four
  columns wide on diagonal boards and two on orthogonal ones, at every second row and
  column: 9 on 8x8 diagonal boards, 16 on 10x10, 12 on the orthogonal 8x8) in state ``s``
  (3^8 states), one table per region ``r``: the shapes strong players read (a wing's
  formation, a tail, a hook), learned where the data has them. A model without region
  weights scores as before and costs nothing for them.

Every feature has two weights, a middle-game one and an ending one (the weight vector is
the middle-game set, then the ending set: :attr:`FeatureSpace.nweights` long), blended by
the phase: the pieces on the board, ``p = min(pieces, start pieces)`` of ``P = start
pieces``. Each set's sum is in 1/64 centi-men; the blend ``(mid * p + end * (P - p)) / P``
and then the division by 64 are truncated towards zero (the C core does the same integer
steps). A model with one set (older files, the default model) uses it for both phases, and
scores exactly as before. The score is then adjusted by the ending rules
(:meth:`FittedEvaluator.endgame`): endings that material cannot win are scaled towards 0
(kings-only endings per ``flying_kings`` and the board's directions; with men left and
flying kings, see :meth:`FittedEvaluator.drawn_with_men`), won kings-only ones get a term
that brings the kings to the lone king.

Weights are fitted (``python -m bots.training.fit``) and committed as data in
``bots/engine/data/eval-<ruleset key>.json``; ``native_params`` lays the same tables out as
the flat int32 array the compiled evaluation (``bots/native/eval.c``) reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from variants.base import Variant
from variants.geometry import Geometry
from variants.types import Bitboard, Color, Position, Square

WEIGHT_UNIT: Final = 64  # weights are integers in 1/64 centi-men
PATTERN_SIZE: Final = 4
PATTERN_STATES: Final = 3 ** PATTERN_SIZE
# Regions: blocks of REGION_ROWS rows of the board holding REGION_SIZE playable squares (4x4
# on diagonal boards, 4 rows by 2 columns on orthogonal ones), one table of 3^8 states each.
REGION_SIZE: Final = 8
REGION_ROWS: Final = 4
REGION_STATES: Final = 3 ** REGION_SIZE
# A region weight's bound (1/64 centi-men, exclusive): the core keeps White's minus Black's
# weight of a region in 32 bits.
REGION_WEIGHT_LIMIT: Final = 1 << 29
PHASES: Final[tuple[str, ...]] = ("middle", "ending")  # weight sets, blended by the phase
SCALARS: Final[tuple[str, ...]] = (
    "tempo", "man", "king", "king_centre", "king_mobility", "man_mobility", "back_guard",
    "outpost", "locked", "runaway", "runaway_near", "wing_balance", "trade", "king_men",
)
# The scalars computed from both sides at once (not by ``side_scalars``).
TRADE: Final = SCALARS.index("trade")
KING_MEN: Final = SCALARS.index("king_men")
KING_UNITS: Final = 3  # a king's weight in the ``trade`` feature's material count
DATA_DIR: Final = Path(__file__).with_name("data")
# King endings (not fitted): a drawn ending keeps 1/DRAW_SCALE of its score; a won one gains
# DRIVE per square the strong kings come closer to the lone king (summed), from far away.
DRAW_SCALE: Final = 8
DRIVE: Final = 4
# With flying kings on a diagonal board, a lone king is beaten from the longest diagonal
# (the main road): holding it with a king is worth MAIN_ROAD_DRIVES * DRIVE in a winnable
# ending against a lone king.
MAIN_ROAD_DRIVES: Final = 8


def _lsb_squares(bb: Bitboard) -> list[Square]:
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


class FeatureSpace:
    """The feature tables of one ruleset (built once per variant, see :func:`space_for`).

    Each group of tables has its own builder, called in this order (a later one reads what
    an earlier one set): the board's frame (views, mirror), the men's directions, the
    per-colour square masks, the pattern windows, the main lines, the step groups of the
    blocked-side check, and the feature layout.
    """

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self._build_frame(variant)
        self._build_directions(variant)
        self._build_masks()
        self._build_windows()
        self._build_regions()
        self._build_lines()
        self._build_steps()
        self._build_layout()

    def _build_frame(self, variant: Variant) -> None:
        """Size, relative ranks per colour, the colour mirror, files and ranks."""
        g = variant.geometry
        self.size = n = g.size
        self.rows, self.cols = rows, cols = variant.rows, variant.cols
        self.flying = bool(variant.flying_kings)
        self.diagonal = all(dr != 0 and dc != 0 for dr, dc in g.vectors)
        coords = g.coords
        self._index = index = {rc: i for i, rc in enumerate(coords)}
        top = _top_square(coords, rows)
        self.white_up = white_up = bool((variant.promotion_squares(Color.WHITE) >> top) & 1)
        # Relative rank: 0 on the colour's own first row, rows - 1 on its promotion row.
        self.rel_rank = (tuple(r if white_up else rows - 1 - r for r, _c in coords),
                         tuple(rows - 1 - r if white_up else r for r, _c in coords))
        # Black's squares mirrored onto White's: the board turned round, else flipped.
        mirror = tuple(index.get((rows - 1 - r, cols - 1 - c), index.get((rows - 1 - r, c), -1))
                       for r, c in coords)
        if sorted(mirror) != list(range(n)):
            raise ValueError(f"{variant!r}: the board has no colour mirror")
        self.canon = (tuple(range(n)), mirror)  # real square -> White-view square
        self.file = tuple(c for _r, c in coords)
        self.rank = tuple(r for r, _c in coords)
        self.neighbour = g.neighbour
        self.rays = g.rays
        self.ndirs = len(g.vectors)
        self.start_pieces = max(1, variant.initial_position().occupied.bit_count())

    def _build_directions(self, variant: Variant) -> None:
        """The men's move, forward and backward directions per colour."""
        g = variant.geometry
        vec = {v: i for i, v in enumerate(g.vectors)}
        sign = (1 if self.white_up else -1, -1 if self.white_up else 1)
        move_dirs: list[tuple[int, ...]] = []
        fwd_dirs: list[tuple[int, ...]] = []
        back_dirs: list[tuple[int, ...]] = []
        for color in (0, 1):
            vectors = [(dr * sign[color], dc) for dr, dc in variant.man_move_vectors]
            move_dirs.append(tuple(vec[v] for v in vectors if v in vec))
            fwd = tuple(vec[v] for v in vectors if v in vec and v[0] * sign[color] > 0)
            fwd_dirs.append(fwd)
            back_dirs.append(tuple(g.opposite[d] for d in fwd))
        self.move_dirs = (move_dirs[0], move_dirs[1])
        self.fwd_dirs = (fwd_dirs[0], fwd_dirs[1])
        self.back_dirs = (back_dirs[0], back_dirs[1])
        self.cone = tuple(tuple(g.cone(sq, fwd_dirs[c]) for sq in range(self.size))
                          for c in (0, 1))

    def _build_masks(self) -> None:
        """Centre, and per colour: back rank, opponent's half, wings, near promotion, and
        the ranks still to go."""
        rows, cols, n = self.rows, self.cols, self.size
        lo_r, hi_r = rows // 2 - 1, rows // 2
        lo_c, hi_c = cols // 4, cols - cols // 4 - 1
        self.centre = sum(1 << sq for sq in range(n)
                          if lo_r <= self.rank[sq] <= hi_r and lo_c <= self.file[sq] <= hi_c)
        near_limit = max(2, rows // 2 - 1)

        def mask(color: int, test: Callable[[int, int], bool]) -> Bitboard:
            """Squares where ``test(relative rank, White-view file)`` holds for ``color``."""
            rel, canon = self.rel_rank[color], self.canon[color]
            return sum(1 << sq for sq in range(n) if test(rel[sq], self.file[canon[sq]]))

        def per_colour(test: Callable[[int, int], bool]) -> tuple[Bitboard, Bitboard]:
            return mask(0, test), mask(1, test)

        self.back_rank = per_colour(lambda rr, _f: rr == 0)
        self.opp_half = per_colour(lambda rr, _f: rr >= rows // 2)
        self.left = per_colour(lambda _rr, f: f < cols // 2)
        self.right = per_colour(lambda _rr, f: f >= cols - cols // 2)
        self.near = per_colour(lambda rr, _f: 0 < rows - 1 - rr <= near_limit)
        self.steps = tuple(tuple(rows - 1 - rr for rr in self.rel_rank[c]) for c in (0, 1))

    def _build_windows(self) -> None:
        """The pattern windows on White's view of the board, their bands, and the same
        windows as real squares per colour."""
        g = self.variant.geometry
        index = self._index
        up = [v for v in g.vectors if v[0] > 0]
        a = up[0] if up else g.vectors[0]
        b = next((v for v in g.vectors if v not in (a, (-a[0], -a[1])) and v[0] >= 0),
                 g.vectors[1])
        windows: list[tuple[int, int, int, int]] = []
        bands: list[int] = []
        for sq, (r, c) in enumerate(g.coords):
            n1 = index.get((r + a[0], c + a[1]))
            n2 = index.get((r + b[0], c + b[1]))
            n3 = index.get((r + a[0] + b[0], c + a[1] + b[1]))
            if n1 is not None and n2 is not None and n3 is not None:
                windows.append((sq, n1, n2, n3))
                bands.append(self.rel_rank[0][sq])
        band_ids = {rank: i for i, rank in enumerate(sorted(set(bands)))}
        self.windows = tuple(windows)
        self.window_band = tuple(band_ids[r] for r in bands)
        self.nbands = len(band_ids)
        mirror = self.canon[1]
        self.real_windows = (tuple(windows),
                             tuple(tuple(mirror[q] for q in w) for w in windows))

    def _build_regions(self) -> None:
        """The regions on White's view of the board (squares ascending), and the same
        regions as real squares per colour. None on a board with more than
        ``NATIVE_MAX_REGIONS`` of them."""
        rows, cols = self.rows, self.cols
        width = max(1, round(REGION_SIZE * rows * cols / (REGION_ROWS * self.size)))
        index = self._index
        regions: list[tuple[int, ...]] = []
        for r0 in range(0, rows - REGION_ROWS + 1, 2):
            for c0 in range(0, cols - width + 1, 2):
                squares = sorted(index[(r, c)] for r in range(r0, r0 + REGION_ROWS)
                                 for c in range(c0, c0 + width) if (r, c) in index)
                if len(squares) == REGION_SIZE:
                    regions.append(tuple(squares))
        if len(regions) > NATIVE_MAX_REGIONS:
            regions = []
        self.regions = tuple(regions)
        self.nregions = len(regions)
        mirror = self.canon[1]
        self.real_regions = (self.regions,
                             tuple(tuple(mirror[q] for q in reg) for reg in regions))

    def _build_lines(self) -> None:
        """The longest lines of the board (the main roads)."""
        g = self.variant.geometry
        line_len = [max(len(g.rays[d][sq]) + len(g.rays[g.opposite[d]][sq]) + 1
                        for d in range(self.ndirs)) for sq in range(self.size)]
        longest = max(line_len, default=0)
        self.main_line = sum(1 << sq for sq, length in enumerate(line_len) if length == longest)

    def _build_steps(self) -> None:
        """One-step shifts per colour's men and for kings, merged by delta (the blocked-side
        check :meth:`can_move`)."""
        g = self.variant.geometry
        self.full = g.full
        self.man_steps = (_step_groups(g, self.move_dirs[0]), _step_groups(g, self.move_dirs[1]))
        self.king_steps = _step_groups(g, tuple(range(self.ndirs)))

    def _build_layout(self) -> None:
        """Feature names (scalars, man squares, windows) and where each group starts in the
        weight vector."""
        names = list(SCALARS)
        names += [f"man_sq{i}" for i in range(self.size)]
        names += [f"pat{b}_{s}" for b in range(self.nbands) for s in range(PATTERN_STATES)]
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(names)}
        self.psq_base = len(SCALARS)
        self.pat_base = self.psq_base + self.size
        # The region tables follow, unnamed (reg_base + r * REGION_STATES + state).
        self.reg_base = len(names)
        self.nfeatures = self.reg_base + self.nregions * REGION_STATES
        # Weights: one set per phase (PHASES order), each nfeatures long.
        self.nweights = len(PHASES) * self.nfeatures

    def phase(self, position: Position) -> int:
        """The middle-game share of ``position`` in ``[0, start_pieces]``: the pieces on the
        board (the ending set's share is ``start_pieces`` minus it)."""
        return min(position.occupied.bit_count(), self.start_pieces)

    def can_move(self, position: Position) -> bool:
        """Whether the side to move has a non-capturing step (men forward, kings any way).

        For the built-in move generator a side without a capture has a legal move exactly
        when this holds (a flying king's first ray square is its one-step square).
        """
        empty = self.full & ~position.occupied
        color = int(position.turn)
        men, kings = ((position.white_men, position.white_kings) if color == 0
                      else (position.black_men, position.black_kings))
        for groups, bb in ((self.man_steps[color], men), (self.king_steps, kings)):
            if bb:
                for delta, sources in groups:
                    part = bb & sources
                    if part and (part << delta if delta > 0 else part >> -delta) & empty:
                        return True
        return False

    # --- features -----------------------------------------------------------------------------
    def side_scalars(self, position: Position, color: int) -> list[int]:
        """The scalar features of ``color`` (tempo, trade and king_men left at 0), in SCALARS
        order."""
        if color == 0:
            men, kings = position.white_men, position.white_kings
            opp_men = position.black_men
        else:
            men, kings = position.black_men, position.black_kings
            opp_men = position.white_men
        own = men | kings
        occupied = position.occupied
        nb = self.neighbour
        # man mobility (a set of target squares), locked men
        targets = 0
        locked = 0
        for sq in _lsb_squares(men):
            free = False
            for d in self.move_dirs[color]:
                m = nb[d][sq]
                if m >= 0 and not (occupied >> m) & 1:
                    targets |= 1 << m
                    free = True
            if not free:
                locked += 1
        # outposts
        outpost = 0
        for sq in _lsb_squares(men & self.opp_half[color]):
            ok = True
            for d in self.back_dirs[color]:
                m = nb[d][sq]
                if m < 0 or not (own >> m) & 1:
                    ok = False
                    break
            if ok:
                outpost += 1
        # runaways
        runaway = runaway_near = 0
        cone, steps = self.cone[color], self.steps[color]
        for sq in _lsb_squares(men & self.near[color]):
            if not cone[sq] & occupied:
                runaway += 1
                runaway_near += self.rows - steps[sq]
        # kings
        king_mob = 0
        for sq in _lsb_squares(kings):
            for d in range(self.ndirs):
                for m in self.rays[d][sq]:
                    if (occupied >> m) & 1:
                        break
                    king_mob += 1
                    if not self.flying:
                        break
        back = (men & self.back_rank[color]).bit_count() if opp_men else 0
        wing = abs((men & self.left[color]).bit_count() - (men & self.right[color]).bit_count())
        return [0, men.bit_count(), kings.bit_count(), (kings & self.centre).bit_count(),
                king_mob, targets.bit_count(), back, outpost, locked, runaway, runaway_near,
                wing, 0, 0]

    def joint_scalars(self, position: Position, mine: Sequence[int],
                      theirs: Sequence[int]) -> tuple[int, int]:
        """``trade`` and ``king_men`` (the scalars of both sides at once) from the mover's
        and the opponent's :meth:`side_scalars`."""
        units = (mine[1] - theirs[1]) + KING_UNITS * (mine[2] - theirs[2])
        gone = self.start_pieces - position.occupied.bit_count()
        trade = units * gone if gone > 0 else 0
        return trade, mine[2] * theirs[1] - theirs[2] * mine[1]

    def pattern_states(self, position: Position, color: int) -> list[int]:
        """The state of every window seen by ``color`` (digits: 0 empty, 1 own, 2 other;
        the window's first square is the lowest digit)."""
        return _states(position, color, self.real_windows[color])

    def region_states(self, position: Position, color: int) -> list[int]:
        """The state of every region seen by ``color`` (as :meth:`pattern_states`)."""
        return _states(position, color, self.real_regions[color])

    def features(self, position: Position, *, patterns: bool = True) -> dict[int, int]:
        """Sparse feature vector (index -> value, zeros left out) from the mover's view
        (``patterns=False``: without the pattern windows)."""
        mover = int(position.turn)
        out: dict[int, int] = {}
        mine = self.side_scalars(position, mover)
        theirs = self.side_scalars(position, 1 - mover)
        for i in range(1, TRADE):
            v = mine[i] - theirs[i]
            if v:
                out[i] = v
        out[0] = 1
        for i, v in zip((TRADE, KING_MEN), self.joint_scalars(position, mine, theirs),
                        strict=True):
            if v:
                out[i] = v
        for color, sign in ((mover, 1), (1 - mover, -1)):
            men = position.white_men if color == 0 else position.black_men
            canon = self.canon[color]
            for sq in _lsb_squares(men):
                i = self.psq_base + canon[sq]
                out[i] = out.get(i, 0) + sign
            if not patterns:
                continue
            for w, state in enumerate(self.pattern_states(position, color)):
                i = self.pat_base + self.window_band[w] * PATTERN_STATES + state
                out[i] = out.get(i, 0) + sign
            for r, state in enumerate(self.region_states(position, color)):
                i = self.reg_base + r * REGION_STATES + state
                out[i] = out.get(i, 0) + sign
        return {i: v for i, v in out.items() if v}


def _states(position: Position, color: int,
            groups: Sequence[Sequence[Square]]) -> list[int]:
    """The base-3 state of each group of squares seen by ``color`` (0 empty, 1 own, 2
    other; the group's first square is the lowest digit)."""
    if color == 0:
        own = position.white_men | position.white_kings
        other = position.black_men | position.black_kings
    else:
        own = position.black_men | position.black_kings
        other = position.white_men | position.white_kings
    states = []
    for group in groups:
        s = 0
        mult = 1
        for sq in group:
            if (own >> sq) & 1:
                s += mult
            elif (other >> sq) & 1:
                s += 2 * mult
            mult *= 3
        states.append(s)
    return states


def _step_groups(g: Geometry, dirs: tuple[int, ...]) -> tuple[tuple[int, Bitboard], ...]:
    """One-step shifts along ``dirs`` merged by delta: ``(delta, squares that can step)``."""
    merged: dict[int, Bitboard] = {}
    for d in dirs:
        for delta, sources in g.shifts[d]:
            merged[delta] = merged.get(delta, 0) | sources
    return tuple(sorted(merged.items()))


def _top_square(coords: Sequence[tuple[int, int]], rows: int) -> int:
    for sq, (r, _c) in enumerate(coords):
        if r == rows - 1:
            return sq
    raise ValueError("board without a top row")


@cache
def _space(variant: Variant) -> FeatureSpace:
    return FeatureSpace(variant)


def space_for(variant: Variant) -> FeatureSpace:
    """The (cached) feature space of ``variant``."""
    return _space(variant)


# --- weights ----------------------------------------------------------------------------------
def weights_path(key: str) -> Path:
    return DATA_DIR / f"eval-{key}.json"


def load_weights(variant: Variant, *, lite: bool = False) -> list[int] | None:
    """The committed fitted weights of ``variant`` (integers, 1/64 centi-men) or None.

    ``lite`` selects the model fitted without pattern features (the pure-Python search's
    evaluation, cheaper per node); a file without one gives None.
    """
    try:
        raw = json.loads(weights_path(variant.key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    model = raw.get("lite" if lite else "full")
    if not isinstance(model, Mapping):
        return None
    return weights_from_model(space_for(variant), model)


def weights_from_model(space: FeatureSpace, model: Mapping[str, Any]) -> list[int]:
    """Integer weight vector (:attr:`FeatureSpace.nweights`: the middle-game set, then the
    ending set) from a model mapping: one set per phase under the names of ``PHASES``, or a
    single set (scalars by name, ``man_sq``, ``patterns``) used for both phases."""
    if all(name in model for name in PHASES):
        out: list[int] = []
        for name in PHASES:
            out += _weight_set(space, model[name])
        return out
    if any(name in model for name in PHASES):
        raise ValueError(f"a phased model needs every set of {PHASES}")
    return _weight_set(space, model) * len(PHASES)


def _weight_set(space: FeatureSpace, model: Mapping[str, Any]) -> list[int]:
    """One phase's integer weights (nfeatures long) from scalars, ``man_sq``, ``patterns``."""
    w = [0] * space.nfeatures
    for name, value in model.get("scalars", {}).items():
        if name not in space.index or name not in SCALARS:
            raise ValueError(f"unknown evaluation term {name!r}")
        w[space.index[name]] = round(float(value) * WEIGHT_UNIT)
    psq = model.get("man_sq", [])
    if psq and len(psq) != space.size:
        raise ValueError("man_sq has the wrong length for this board")
    for i, value in enumerate(psq):
        w[space.psq_base + i] = round(float(value) * WEIGHT_UNIT)
    patterns = model.get("patterns", [])
    if patterns and (len(patterns) != space.nbands
                     or any(len(t) != PATTERN_STATES for t in patterns)):
        raise ValueError("patterns have the wrong shape for this board")
    for b, table in enumerate(patterns):
        for s, value in enumerate(table):
            w[space.pat_base + b * PATTERN_STATES + s] = round(float(value) * WEIGHT_UNIT)
    regions = model.get("regions", [])
    if regions and len(regions) != space.nregions:
        raise ValueError("regions have the wrong count for this board")
    for r, table in enumerate(regions):
        if isinstance(table, int) and not isinstance(table, bool):
            # The same table as an earlier region's (tied regions store it once).
            if not 0 <= table < r or not isinstance(regions[table], Mapping):
                raise ValueError(f"region {r} refers to {table!r}, not an earlier table")
            table = regions[table]
        elif not isinstance(table, Mapping):
            raise ValueError(f"region {r} is neither a table nor an earlier region's index")
        for key, value in table.items():
            state = int(key)
            if not 0 <= state < REGION_STATES:
                raise ValueError(f"region state {key!r} out of range")
            w[space.reg_base + r * REGION_STATES + state] = round(float(value) * WEIGHT_UNIT)
    return w


def _div_units(total: int) -> int:
    """``total / WEIGHT_UNIT`` truncated towards zero (as C's integer division)."""
    return total // WEIGHT_UNIT if total >= 0 else -((-total) // WEIGHT_UNIT)


class FittedEvaluator:
    """The fitted evaluation of one ruleset: the reference for the compiled evaluation.

    What the pure-Python search calls: ``evaluate`` and ``can_move``.
    """

    def __init__(self, variant: Variant, weights: Sequence[int]) -> None:
        self.variant = variant
        self.space = s = space_for(variant)
        if len(weights) != s.nweights:
            raise ValueError("weight vector length does not match the feature space")
        self.weights = tuple(int(x) for x in weights)
        nf = s.nfeatures
        self.middle, self.ending = self.weights[:nf], self.weights[nf:]
        self.use_patterns = (any(self.middle[s.pat_base:s.reg_base])
                             or any(self.ending[s.pat_base:s.reg_base]))
        self.use_regions = any(self.middle[s.reg_base:]) or any(self.ending[s.reg_base:])
        self.can_move = s.can_move

    def raw(self, position: Position) -> int:
        """The linear score in 1/64 centi-men (mover's view), before the endgame rules: the
        two phases' sums blended by :meth:`FeatureSpace.phase`, truncated towards zero."""
        s = self.space
        wm, we = self.middle, self.ending
        mover = int(position.turn)
        mine = s.side_scalars(position, mover)
        theirs = s.side_scalars(position, 1 - mover)
        mid, end = wm[0], we[0]
        for i in range(1, TRADE):
            v = mine[i] - theirs[i]
            if v:
                mid += wm[i] * v
                end += we[i] * v
        trade, king_men = s.joint_scalars(position, mine, theirs)
        mid += wm[TRADE] * trade + wm[KING_MEN] * king_men
        end += we[TRADE] * trade + we[KING_MEN] * king_men
        base = s.psq_base
        for color, sign in ((mover, 1), (1 - mover, -1)):
            men = position.white_men if color == 0 else position.black_men
            canon = s.canon[color]
            part_m = part_e = 0
            for sq in _lsb_squares(men):
                i = base + canon[sq]
                part_m += wm[i]
                part_e += we[i]
            if self.use_patterns:
                pat = s.pat_base
                band = s.window_band
                for k, state in enumerate(s.pattern_states(position, color)):
                    i = pat + band[k] * PATTERN_STATES + state
                    part_m += wm[i]
                    part_e += we[i]
            if self.use_regions:
                for r, state in enumerate(s.region_states(position, color)):
                    i = s.reg_base + r * REGION_STATES + state
                    part_m += wm[i]
                    part_e += we[i]
            mid += sign * part_m
            end += sign * part_e
        full = s.start_pieces
        phase = s.phase(position)
        return _div_toward_zero(mid * phase + end * (full - phase), full)

    def evaluate(self, position: Position) -> int:
        """Score of ``position`` for the side to move, centi-men."""
        return self.endgame(position, _div_units(self.raw(position)))

    @staticmethod
    def drawn_with_men(strong: int, weak: int, lone_on_main_road: bool) -> bool:
        """With flying kings and men still on the board, a side holding a king (``weak``
        pieces) draws against ``strong`` <= 3 pieces when it is at most one piece down (two
        against a lone king; three against two; two or three each), and a lone king on the
        main diagonal draws against three (even if all three promote, three kings cannot
        take it off the main road)."""
        if strong > 3 or weak > strong:
            return False
        return strong - weak <= 1 or lone_on_main_road

    def main_road(self, strong_kings: Bitboard) -> int:
        """The term for a strong king on the main road in a winnable ending against a lone
        king (flying kings on a diagonal board only)."""
        s = self.space
        if s.flying and s.diagonal and strong_kings & s.main_line:
            return MAIN_ROAD_DRIVES * DRIVE
        return 0

    def endgame(self, position: Position, score: int) -> int:
        """King-ending knowledge on top of the linear score (see the module docstring)."""
        s = self.space
        mover = position.turn
        if position.white_men or position.black_men:
            # Men left: with flying kings, endings the favoured side cannot win are scaled.
            if not s.flying or not score:
                return score
            favoured = mover if score > 0 else mover.opponent
            weak = favoured.opponent
            weak_men, weak_kings = position.men(weak), position.kings(weak)
            if not weak_kings:
                return score
            alone = not weak_men and weak_kings.bit_count() == 1
            if self.drawn_with_men(position.pieces(favoured).bit_count(),
                                   (weak_men | weak_kings).bit_count(),
                                   alone and bool(weak_kings & s.main_line)):
                return _div_toward_zero(score, DRAW_SCALE)
            road = self.main_road(position.kings(favoured)) if alone else 0
            return score + road if favoured == mover else score - road
        wk, bk = position.white_kings.bit_count(), position.black_kings.bit_count()
        if wk == bk or not wk or not bk:
            return _div_toward_zero(score, DRAW_SCALE) if wk == bk else score
        strong = 0 if wk > bk else 1
        ks, kw = max(wk, bk), min(wk, bk)
        weak_kings = position.black_kings if strong == 0 else position.white_kings
        strong_kings = position.white_kings if strong == 0 else position.black_kings
        if kw >= 2:
            return _div_toward_zero(score, 2)  # several kings a side: hard to win
        lone = (weak_kings & -weak_kings).bit_length() - 1
        if not s.flying or not s.diagonal:
            need = 2
        elif (s.main_line >> lone) & 1:
            need = 4
        else:
            need = 3
        if ks < need:
            return _div_toward_zero(score, DRAW_SCALE)
        # Won: bring the kings to the lone king.
        far = 0
        lr, lf = s.rank[lone], s.file[lone]
        for sq in _lsb_squares(strong_kings):
            far += max(abs(s.rank[sq] - lr), abs(s.file[sq] - lf))
        bonus = DRIVE * (ks * (max(s.rows, s.cols) - 1) - far) + self.main_road(strong_kings)
        return score + bonus if strong == int(mover) else score - bonus


def _div_toward_zero(value: int, by: int) -> int:
    return value // by if value >= 0 else -((-value) // by)


def fitted_evaluator(variant: Variant, *, lite: bool = False) -> FittedEvaluator | None:
    """The fitted evaluator of ``variant`` from its committed weights, or None."""
    weights = load_weights(variant, lite=lite)
    return None if weights is None else FittedEvaluator(variant, weights)


def default_evaluator(variant: Variant) -> FittedEvaluator:
    """The evaluator of a ruleset without fitted weights: :func:`default_model`."""
    return FittedEvaluator(variant, weights_from_model(space_for(variant), default_model(variant)))


# --- the compiled evaluation's parameters ---------------------------------------------------
NATIVE_HEADER: Final = 32
NATIVE_SCALAR_SLOTS: Final = 16  # the ending set's scalar weights, after the header
NATIVE_MAX_BANDS: Final = 16
NATIVE_MAX_REGIONS: Final = 32
# Header slots after the SCALARS weights (0..13); must match bots/native/eval.h.
_H_START_PIECES, _H_FLYING, _H_DIAGONAL, _H_ROWS, _H_COLS, _H_NBANDS = 14, 15, 16, 17, 18, 19
_H_KING_UNITS, _H_DRAW_SCALE, _H_DRIVE, _H_UNIT, _H_MOVE_DIRS, _H_BACK_DIRS = (
    20, 21, 22, 23, 24, 26)
_H_MAIN_ROAD, _H_PHASES, _H_NREGIONS = 28, 29, 30
# Square flags (per colour): must match KD_SQ_* in bots/native/eval.h.
SQ_BACK_RANK, SQ_OPP_HALF, SQ_LEFT, SQ_RIGHT, SQ_NEAR, SQ_CENTRE, SQ_MAIN_LINE = (
    1, 2, 4, 8, 16, 32, 64)


def native_params_len(nsq: int, nregions: int = 0) -> int:
    """The array's length on a board of ``nsq`` squares with ``nregions`` region tables
    (0 when a model has no region weights)."""
    phases = len(PHASES)
    return (NATIVE_HEADER + NATIVE_SCALAR_SLOTS + (2 * phases + 22) * nsq
            + phases * NATIVE_MAX_BANDS * PATTERN_STATES
            + nregions * (2 * REGION_SIZE + phases * REGION_STATES))


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def default_model(variant: Variant) -> dict[str, Any]:
    """The default terms (:func:`bots.engine.evaluation.weights_for`, the hand-set
    evaluation's, refined by the ruleset's ``eval_weights``) expressed on these features: the
    model of a ruleset without fitted weights (e.g. a plugin), so both engines always have
    one, and the prior of the fit."""
    from bots.engine.evaluation import weights_for

    hw = weights_for(variant)
    space = space_for(variant)
    rows = space.rows
    table = []
    for sq in range(space.size):
        progress = space.rel_rank[0][sq]
        value = progress * hw["advance"] if 0 < progress < rows - 1 else 0
        if (space.centre >> sq) & 1:
            value += hw["centre"]
        table.append(float(value))
    return {
        "scalars": {
            "tempo": hw["tempo"], "man": hw["man"], "king": hw["king"],
            "king_centre": hw["centre"], "man_mobility": hw["mobility"],
            "back_guard": hw["back_rank"], "runaway": hw["runaway"] - 8 * rows,
            "runaway_near": 8, "trade": hw["trade"] * hw["man"] / 100 / space.start_pieces,
        },
        "man_sq": table,
    }


def native_weights(variant: Variant) -> list[int]:
    """The compiled evaluation's weights: the fitted ``full`` model, else :func:`default_model`."""
    weights = load_weights(variant)
    if weights is None:
        weights = weights_from_model(space_for(variant), default_model(variant))
    return weights


def native_params(variant: Variant, weights: Sequence[int] | None = None) -> list[int]:
    """The flat int32 array ``bots/native/eval.h`` describes (``kd_eval_init``'s input).

    ``weights``: a full weight vector (:attr:`FeatureSpace.nweights`, both phases); default
    the ruleset's committed ones."""
    s = space_for(variant)
    w = list(weights) if weights is not None else native_weights(variant)
    if len(w) != s.nweights:
        raise ValueError("weight vector length does not match the feature space")
    nf = s.nfeatures
    sets = [w[k * nf:(k + 1) * nf] for k in range(len(PHASES))]
    n = s.size
    if s.nbands > NATIVE_MAX_BANDS:
        raise ValueError(f"{variant!r}: more than {NATIVE_MAX_BANDS} pattern bands")
    header = [0] * NATIVE_HEADER
    header[:len(SCALARS)] = sets[0][:len(SCALARS)]
    header[_H_PHASES] = len(PHASES)
    ending_scalars = [0] * NATIVE_SCALAR_SLOTS
    ending_scalars[:len(SCALARS)] = sets[1][:len(SCALARS)]
    header[_H_START_PIECES] = s.start_pieces
    header[_H_FLYING] = int(s.flying)
    header[_H_DIAGONAL] = int(s.diagonal)
    header[_H_ROWS], header[_H_COLS] = s.rows, s.cols
    header[_H_NBANDS] = s.nbands
    header[_H_KING_UNITS], header[_H_DRAW_SCALE] = KING_UNITS, DRAW_SCALE
    header[_H_DRIVE], header[_H_UNIT] = DRIVE, WEIGHT_UNIT
    header[_H_MAIN_ROAD] = MAIN_ROAD_DRIVES * DRIVE
    for c in (0, 1):
        header[_H_MOVE_DIRS + c] = sum(1 << d for d in s.move_dirs[c])
        header[_H_BACK_DIRS + c] = sum(1 << d for d in s.back_dirs[c])
    psq: list[int] = []
    flags: list[int] = []
    steps: list[int] = []
    cones: list[int] = []
    windows: list[int] = []
    for ws in sets:
        for c in (0, 1):
            psq += [ws[s.psq_base + s.canon[c][sq]] for sq in range(n)]
    for c in (0, 1):
        for sq in range(n):
            f = 0
            for mask, bit in ((s.back_rank[c], SQ_BACK_RANK), (s.opp_half[c], SQ_OPP_HALF),
                              (s.left[c], SQ_LEFT), (s.right[c], SQ_RIGHT),
                              (s.near[c], SQ_NEAR), (s.centre, SQ_CENTRE),
                              (s.main_line, SQ_MAIN_LINE)):
                if (mask >> sq) & 1:
                    f |= bit
            flags.append(f)
        steps += list(s.steps[c])
        for sq in range(n):
            cones += [_int32(s.cone[c][sq] >> (32 * k)) for k in range(4)]
        real = s.real_windows[c]
        for i in range(n):
            windows += list(real[i]) if i < len(real) else [-1] * PATTERN_SIZE
    bands = [s.window_band[i] if i < len(s.windows) else -1 for i in range(n)]
    patterns: list[int] = []
    for ws in sets:
        table = [0] * (NATIVE_MAX_BANDS * PATTERN_STATES)
        table[:s.nbands * PATTERN_STATES] = ws[s.pat_base:s.reg_base]
        patterns += table
    # The regions only when the model weighs them: none costs the core nothing.
    nregions = s.nregions if any(any(ws[s.reg_base:]) for ws in sets) else 0
    header[_H_NREGIONS] = nregions
    regions: list[int] = []
    if nregions:
        for c in (0, 1):
            for reg in s.real_regions[c]:
                regions += list(reg)
        for ws in sets:
            table = ws[s.reg_base:]
            if any(abs(v) >= REGION_WEIGHT_LIMIT for v in table):
                raise ValueError(f"a region weight is not within +-{REGION_WEIGHT_LIMIT}")
            regions += table
    out = (header + ending_scalars + psq + flags + steps + list(s.file) + cones + windows
           + bands + patterns + regions)
    assert len(out) == native_params_len(n, nregions)
    return out


def reference_evaluator(variant: Variant) -> FittedEvaluator:
    """The Python twin of the compiled evaluation of ``variant`` (same weights, same score)."""
    return FittedEvaluator(variant, native_weights(variant))
