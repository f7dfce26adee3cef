"""A second, deliberately plain move generator, to cross-check the fast one.

It reads the same declared rules (board, the men's and the kings' move and capture
directions, flying moves and flying captures, where a flying capture lands, whether men
capture kings, removal timing, the 180-degree ban, mid-capture promotion, capture precedence
with piece values) but shares
no code with the bitboard engine of :mod:`variants.base`: squares are (rank, file) pairs,
pieces live in dicts, and capture chains are found by a direct recursive search. It is slow
and meant for tests and ``python -m variants check`` only. A ruleset that overrides
``rank_captures`` has that hook applied to the complete captures found here (the hook *is*
the rule); one that overrides ``legal_moves``, ``captures`` or ``quiet_moves`` is outside
what this generator can know, and :func:`covers` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from variants.base import Criterion, PromotionRule, Variant
from variants.spec import declarative_reason, overridden_hooks
from variants.types import Color, Move, Position

Coord = tuple[int, int]
Key = tuple[int, int, int]  # origin, destination, captured mask (internal square indices)


def covers(variant: Variant) -> bool:
    """True when this generator models every rule of ``variant`` that a position decides:
    it is declarative (:func:`variants.spec.declarative_reason`), or its only hooks are
    ``rank_captures``, which this generator applies to the complete captures it finds, and
    a rule reading the game so far (``restrict``, ``max_king_moves_with_men``), which
    applies on top of the position's moves that are compared here."""
    return declarative_reason(variant, ignore=("rank_captures", "restrict")) is None


@dataclass(frozen=True)
class _Chain:
    path: tuple[Coord, ...]
    captured: tuple[Coord, ...]
    promotes: bool


def reference_moves(variant: Variant, position: Position) -> dict[Key, Move]:
    """The legal moves of ``position`` by the plain generator, keyed like ``Move.key``."""
    coords = variant.geometry.coords
    index = {rc: i for i, rc in enumerate(coords)}
    mover = position.turn
    sign = 1 if mover is Color.WHITE else -1
    far_rank = variant.rows - 1 if mover is Color.WHITE else 0

    def squares(bb: int) -> set[Coord]:
        return {coords[i] for i in range(len(coords)) if (bb >> i) & 1}

    own_men, own_kings = squares(position.men(mover)), squares(position.kings(mover))
    opp_men = squares(position.men(mover.opponent))
    opp_kings = squares(position.kings(mover.opponent))
    occupied = own_men | own_kings | opp_men | opp_kings

    def forward(vectors: tuple[tuple[int, int], ...]) -> list[Coord]:
        return [(dr * sign, dc) for dr, dc in vectors]

    man_steps = forward(variant.man_move_vectors)
    man_jumps = forward(variant.man_capture_vectors)
    # Kings have no forward: their vectors are the same for both sides (None: every line of
    # the board). A vector such as (0, 2) on a diagonal board runs along a row over the
    # played squares only: the piece it jumps is two files away.
    king_steps = [(dr, dc) for dr, dc in variant.king_move_vectors or variant.vectors]
    king_jumps = [(dr, dc) for dr, dc in variant.king_capture_vectors or variant.vectors]
    flying_moves = variant.flying_kings
    flying_captures = (flying_moves if variant.flying_captures is None
                       else variant.flying_captures)
    land_next = variant.king_landing == "next"

    def on_board(rc: Coord) -> bool:
        return rc in index

    # --- captures ---------------------------------------------------------------------------
    chains: list[_Chain] = []

    def search(sq: Coord, king: bool, path: tuple[Coord, ...], captured: tuple[Coord, ...],
               last: Coord | None, crowned: bool, start: Coord) -> bool:
        blockers = (occupied - {start}) - (set(captured) if variant.immediate_removal
                                           else set())
        found_any = False
        for d in (king_jumps if king else man_jumps):
            if variant.no_reversal and last is not None and d == (-last[0], -last[1]):
                continue
            r, c = sq[0] + d[0], sq[1] + d[1]
            if king and flying_captures:
                while on_board((r, c)) and (r, c) not in blockers:
                    r, c = r + d[0], c + d[1]
            victim = (r, c)
            if not on_board(victim) or victim not in (opp_men | opp_kings):
                continue
            if victim in captured:
                continue
            if victim in opp_kings and not king and not variant.men_capture_kings:
                continue
            landings: list[Coord] = []
            r, c = victim[0] + d[0], victim[1] + d[1]
            while on_board((r, c)) and (r, c) not in blockers:
                landings.append((r, c))
                if not (king and flying_captures) or land_next:
                    break
                r, c = r + d[0], c + d[1]
            if not landings:
                continue
            found_any = True
            ends: list[_Chain] = []
            continued = False
            for land in landings:
                new_path, new_captured = path + (land,), captured + (victim,)
                if not king and land[0] == far_rank and (
                        variant.mid_capture_promotion is not PromotionRule.STAYS_MAN):
                    if variant.mid_capture_promotion is PromotionRule.ENDS_MOVE:
                        chains.append(_Chain(new_path, new_captured, True))
                        continued = True
                    elif search(land, True, new_path, new_captured, d, True, start):
                        continued = True
                    else:
                        ends.append(_Chain(new_path, new_captured, True))
                    continue
                if search(land, king, new_path, new_captured, d, crowned, start):
                    continued = True
                else:
                    ends.append(_Chain(new_path, new_captured,
                                       crowned or (not king and land[0] == far_rank)))
            if not continued:  # a chain that can go on must go on
                chains.extend(ends)
        return found_any

    for sq in sorted(own_men):
        search(sq, False, (sq,), (), None, False, sq)
    for sq in sorted(own_kings):
        search(sq, True, (sq,), (), None, False, sq)

    def key(chain: _Chain) -> Key:
        mask = 0
        for rc in chain.captured:
            mask |= 1 << index[rc]
        return index[chain.path[0]], index[chain.path[-1]], mask

    if chains:
        unique: dict[Key, _Chain] = {}
        for chain in chains:
            unique.setdefault(key(chain), chain)
        kept = _rank(variant, list(unique.values()), own_kings, opp_kings)
        moves = {key(ch): Move.make(tuple(index[rc] for rc in ch.path),
                                    tuple(index[rc] for rc in ch.captured), ch.promotes)
                 for ch in kept}
        if "rank_captures" in overridden_hooks(variant):
            hooked = variant.rank_captures(position, list(moves.values()))
            moves = {m.key: m for m in hooked}
        return moves

    # --- quiet moves ----------------------------------------------------------------------
    out: dict[Key, Move] = {}
    for sq in own_men:
        for dr, dc in man_steps:
            to = (sq[0] + dr, sq[1] + dc)
            if on_board(to) and to not in occupied:
                move = Move.make((index[sq], index[to]), (), to[0] == far_rank)
                out[move.key] = move
    for sq in own_kings:
        for dr, dc in king_steps:
            to = (sq[0] + dr, sq[1] + dc)
            while on_board(to) and to not in occupied:
                move = Move.make((index[sq], index[to]))
                out[move.key] = move
                if not flying_moves:
                    break
                to = (to[0] + dr, to[1] + dc)
    return out


def reference_perft(variant: Variant, position: Position, depth: int) -> int:
    """Perft through the plain generator (and ``variant.apply``): an independent count."""
    if depth <= 0:
        return 1
    moves = reference_moves(variant, position).values()
    if depth == 1:
        return len(moves)
    return sum(reference_perft(variant, variant.apply(position, m), depth - 1) for m in moves)


def _rank(variant: Variant, chains: list[_Chain], own_kings: set[Coord],
          opp_kings: set[Coord]) -> list[_Chain]:
    """The declared precedence criteria, applied one after the other."""
    man_value, king_value = variant.piece_values
    for criterion in variant.capture_criteria:
        def score(ch: _Chain, c: Criterion = criterion) -> tuple[int, ...]:
            if c is Criterion.MOST_PIECES:
                return (len(ch.captured),)
            if c is Criterion.MOST_KINGS:
                return (sum(1 for rc in ch.captured if rc in opp_kings),)
            if c is Criterion.WITH_KING:
                return (1 if ch.path[0] in own_kings else 0,)
            if c is Criterion.MOST_VALUE:
                return (sum(king_value if rc in opp_kings else man_value
                            for rc in ch.captured),)
            return tuple(1 if rc in opp_kings else 0 for rc in ch.captured)

        best = max(score(ch) for ch in chains)
        chains = [ch for ch in chains if score(ch) == best]
    return chains


__all__ = ["covers", "reference_moves", "reference_perft"]
