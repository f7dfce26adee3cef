"""Board geometry: squares, neighbours, rays and bitboard shifts, all precomputed once."""

from __future__ import annotations

from dataclasses import dataclass

from variants.types import Bitboard, Square

Vector = tuple[int, int]
"""A direction as (rank step, file step); rank grows towards Black, file towards h."""

DIAGONAL: tuple[Vector, ...] = ((1, -1), (1, 1), (-1, -1), (-1, 1))
ORTHOGONAL: tuple[Vector, ...] = ((1, 0), (-1, 0), (0, -1), (0, 1))


@dataclass(frozen=True, slots=True)
class Geometry:
    """Immutable lookup tables for one board.

    Squares are internal indices ``0..n-1``; ``coords[i]`` is ``(rank, file)`` with rank 0 the
    row nearest White and file 0 the a-file. ``neighbour[d][i]`` is the next square from ``i``
    in direction ``d`` (or -1), ``rays[d][i]`` every square from ``i`` to the edge, and
    ``shifts[d]`` lists ``(delta, sources)`` pairs so that moving a whole bitboard one step in
    direction ``d`` is ``OR((bb & sources) << delta)`` (a right shift for negative deltas).
    """

    rows: int
    cols: int
    coords: tuple[tuple[int, int], ...]
    vectors: tuple[Vector, ...]
    neighbour: tuple[tuple[int, ...], ...]
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    shifts: tuple[tuple[tuple[int, Bitboard], ...], ...]
    opposite: tuple[int, ...]
    full: Bitboard

    @staticmethod
    def build(rows: int, cols: int, coords: list[tuple[int, int]],
              vectors: tuple[Vector, ...]) -> Geometry:
        index = {rc: i for i, rc in enumerate(coords)}
        if len(index) != len(coords):
            raise ValueError("duplicate square coordinates")
        neighbour: list[tuple[int, ...]] = []
        rays: list[tuple[tuple[int, ...], ...]] = []
        shifts: list[tuple[tuple[int, Bitboard], ...]] = []
        for dr, dc in vectors:
            nb: list[int] = []
            ry: list[tuple[int, ...]] = []
            by_delta: dict[int, Bitboard] = {}
            for i, (r, c) in enumerate(coords):
                n = index.get((r + dr, c + dc), -1)
                nb.append(n)
                if n >= 0:
                    by_delta[n - i] = by_delta.get(n - i, 0) | (1 << i)
                ray: list[int] = []
                rr, cc = r + dr, c + dc
                while (rr, cc) in index:
                    ray.append(index[(rr, cc)])
                    rr, cc = rr + dr, cc + dc
                ry.append(tuple(ray))
            neighbour.append(tuple(nb))
            rays.append(tuple(ry))
            shifts.append(tuple(sorted(by_delta.items())))
        opposite = tuple(vectors.index((-dr, -dc)) for dr, dc in vectors)
        return Geometry(rows, cols, tuple(coords), vectors, tuple(neighbour), tuple(rays),
                        tuple(shifts), opposite, (1 << len(coords)) - 1)

    @property
    def size(self) -> int:
        return len(self.coords)

    def shift(self, bb: Bitboard, direction: int) -> Bitboard:
        """Every square of ``bb`` moved one step in ``direction`` (off-board steps vanish)."""
        out = 0
        for delta, sources in self.shifts[direction]:
            part = bb & sources
            if part:
                out |= part << delta if delta > 0 else part >> -delta
        return out

    def square_at(self, rank: int, file: int) -> Square | None:
        try:
            return self.coords.index((rank, file))
        except ValueError:
            return None

    def cone(self, square: Square, directions: tuple[int, ...]) -> Bitboard:
        """Every square reachable from ``square`` by steps along ``directions`` (``square``
        itself only if a step leads back to it): a man's forward cone, for example."""
        seen = 0
        frontier = [square]
        while frontier:
            nxt: list[Square] = []
            for s in frontier:
                for d in directions:
                    m = self.neighbour[d][s]
                    if m >= 0 and not (seen >> m) & 1:
                        seen |= 1 << m
                        nxt.append(m)
            frontier = nxt
        return seen

    def rank_mask(self, rank: int) -> Bitboard:
        mask = 0
        for i, (r, _c) in enumerate(self.coords):
            if r == rank:
                mask |= 1 << i
        return mask
