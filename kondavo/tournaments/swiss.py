"""Swiss pairings in the manner of the Dutch system (FIDE C.04.3), as pure functions.

No Python library fits: ``swissdutch`` (the only Dutch implementation on PyPI of some age)
is an alpha its author stopped maintaining in 2015, with a rule left out; the FIDE-endorsed
programs are C++ executables. So this module implements a clear Dutch-style procedure
(not the full FIDE criteria list):

1. Ranking: score (descending), then the pairing number (the seed: rating when joining,
   descending, then who joined first).
2. Bye: with an odd number of players, the lowest-ranked player who has not had a bye yet
   (and whose absence leaves the others pairable) gets it: one point (2 half points).
3. Score groups from the top. Players floated down from the group above (downfloaters)
   meet the highest players of the group first. The rest of the group is homogeneous:
   with an odd count, its lowest-ranked player floats down (the lowest one whose floating
   leaves everything below pairable). The top half S1 meets the bottom half S2 in order
   (S1[i] - S2[i]); when that repeats a game (or gives both players the colour neither
   must avoid), S2 is transposed (the next arrangement of S2 in lexicographic order), then
   one player of S1 is exchanged with one of S2 (the lowest of S1 with the highest of S2
   first). A pairing is accepted only if everything below it can still be paired without a
   repeat (look-ahead); if the group cannot be paired at all, its players float down.
4. Colours: each player's preference comes from their history: absolute when the colour
   difference is beyond 1 or the last two games had the same colour (two players with the
   same absolute preference never meet), strong with a difference of 1, mild (alternate)
   with 0. When both want the same colour, the stronger preference gets it, then the larger
   colour difference, then the player who had the other colour in the latest game where
   the two had different colours, then the higher ranked. Round 1: the top seed has white
   and colours alternate by board.

When no pairing without a repeat exists (a long event with few players), the players are
paired in ranking order, repeats allowed.

Tie-breaks (``tiebreaks``): Buchholz (the sum of the opponents' scores; a bye counts as
nothing) and Sonneborn-Berger (the scores of the opponents beaten, plus half of those of
the opponents drawn).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

LOOKAHEAD_STEPS = 200_000  # a bound on the matching search (never reached by small events)


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    id: int
    score: int  # half points: a win 2, a draw 1
    seed: int  # pairing number, 1 = the highest rated
    opponents: frozenset[int]
    colours: str = ""  # "w" / "b" per game played, "-" for a round without a game
    had_bye: bool = False


@dataclass(frozen=True, slots=True)
class RoundPairing:
    pairs: list[tuple[int, int]]  # (white, black)
    bye: int | None


def preference(colours: str) -> tuple[str | None, int]:
    """(colour wanted, strength): 3 absolute, 2 strong, 1 mild, 0 none."""
    played = [c for c in colours if c in "wb"]
    if not played:
        return None, 0
    diff = played.count("w") - played.count("b")
    if diff > 1 or played[-2:] == ["w", "w"]:
        return "b", 3
    if diff < -1 or played[-2:] == ["b", "b"]:
        return "w", 3
    if diff == 1:
        return "b", 2
    if diff == -1:
        return "w", 2
    return ("b" if played[-1] == "w" else "w"), 1


def _compatible(a: SwissPlayer, b: SwissPlayer, *, strict_colours: bool) -> bool:
    if b.id in a.opponents:
        return False
    pa, sa = preference(a.colours)
    pb, sb = preference(b.colours)
    if pa is not None and pa == pb:
        if sa == 3 and sb == 3:
            return False
        if strict_colours and sa >= 2 and sb >= 2:
            return False
    return True


def colours_for(a: SwissPlayer, b: SwissPlayer, *, board: int, rank: dict[int, int]
                ) -> tuple[int, int]:
    """(white, black) for ``a`` and ``b`` (see rule 4); ``board``: 0-based board number."""
    higher, lower = (a, b) if rank[a.id] < rank[b.id] else (b, a)
    pa, sa = preference(a.colours)
    pb, sb = preference(b.colours)
    if pa is None and pb is None:  # the first round: alternate by board
        return (higher.id, lower.id) if board % 2 == 0 else (lower.id, higher.id)
    if pa != pb:
        if pa is not None:
            return (a.id, b.id) if pa == "w" else (b.id, a.id)
        return (b.id, a.id) if pb == "w" else (a.id, b.id)
    wanted = pa
    winner: SwissPlayer | None = None
    if sa != sb:
        winner = a if sa > sb else b
    else:
        da = abs(a.colours.count("w") - a.colours.count("b"))
        db = abs(b.colours.count("w") - b.colours.count("b"))
        if da != db:
            winner = a if da > db else b
        else:
            ha = [c for c in a.colours if c in "wb"]
            hb = [c for c in b.colours if c in "wb"]
            for ca, cb in zip(reversed(ha), reversed(hb), strict=False):
                if ca != cb:  # the one who had the other colour then gets what both want
                    winner = a if ca != wanted else b
                    break
    if winner is None:
        winner = higher
    loser = b if winner is a else a
    return (winner.id, loser.id) if wanted == "w" else (loser.id, winner.id)


def _rank_key(p: SwissPlayer) -> tuple[int, int]:
    return (-p.score, p.seed)


class _Budget:
    def __init__(self) -> None:
        self.left = LOOKAHEAD_STEPS

    def spend(self) -> bool:
        self.left -= 1
        return self.left > 0


def _matchable(players: Sequence[SwissPlayer], budget: _Budget) -> bool:
    """Whether ``players`` can all be paired without a repeat (an odd count never can)."""
    if len(players) % 2:
        return False
    if not players:
        return True
    if not budget.spend():
        return True  # too long to tell: assume so (the final fallback still pairs)
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if _compatible(first, other, strict_colours=False) and _matchable(
                [*rest[:i], *rest[i + 1:]], budget):
            return True
    return False


def _arrangements(s1: list[SwissPlayer], s2: list[SwissPlayer]
                  ) -> Iterator[tuple[list[SwissPlayer], list[SwissPlayer]]]:
    """The halves to try: as they are, then with one exchange (rule 3)."""
    yield s1, s2
    swaps = sorted(((i, j) for i in range(len(s1)) for j in range(len(s2))),
                   key=lambda ij: (ij[1] + (len(s1) - 1 - ij[0]), -ij[0], ij[1]))
    for i, j in swaps:
        n1, n2 = list(s1), list(s2)
        n1[i], n2[j] = s2[j], s1[i]
        yield sorted(n1, key=_rank_key), sorted(n2, key=_rank_key)


def _transpositions(s1: list[SwissPlayer], s2: list[SwissPlayer], strict: bool,
                    budget: _Budget) -> Iterator[list[tuple[SwissPlayer, SwissPlayer]]]:
    """Pairings S1[i]-S2[σ(i)], σ in lexicographic order, each pair compatible."""
    used: list[bool] = [False] * len(s2)
    chosen: list[tuple[SwissPlayer, SwissPlayer]] = []

    def walk(i: int) -> Iterator[list[tuple[SwissPlayer, SwissPlayer]]]:
        if i == len(s1):
            yield list(chosen)
            return
        for j, b in enumerate(s2):
            if used[j] or not _compatible(s1[i], b, strict_colours=strict):
                continue
            if not budget.spend():
                return
            used[j] = True
            chosen.append((s1[i], b))
            yield from walk(i + 1)
            chosen.pop()
            used[j] = False

    yield from walk(0)


def _pair_homogeneous(group: list[SwissPlayer], below: list[SwissPlayer], budget: _Budget
                      ) -> tuple[list[tuple[SwissPlayer, SwissPlayer]], list[SwissPlayer]]:
    """Pairs of one score group (already without its downfloaters) and who floats down."""
    group = sorted(group, key=_rank_key)
    floaters_options: list[list[SwissPlayer]] = [[]]
    if len(group) % 2:
        floaters_options = [[p] for p in reversed(group)]  # the lowest first
    for strict in (True, False):
        for floaters in floaters_options:
            members = [p for p in group if p not in floaters]
            half = len(members) // 2
            for s1, s2 in _arrangements(members[:half], members[half:]):
                for pairs in _transpositions(s1, s2, strict, budget):
                    if _matchable(sorted([*floaters, *below], key=_rank_key), budget):
                        return pairs, floaters
                    break  # the look-ahead fails whatever the order of these pairs
    return [], group  # nothing works: the whole group floats down


def _pair_brackets(players: list[SwissPlayer], budget: _Budget
                   ) -> list[tuple[SwissPlayer, SwissPlayer]] | None:
    scores = sorted({p.score for p in players}, reverse=True)
    groups = [sorted([p for p in players if p.score == s], key=_rank_key) for s in scores]
    out: list[tuple[SwissPlayer, SwissPlayer]] = []
    floaters: list[SwissPlayer] = []
    for gi, group in enumerate(groups):
        below = [p for g in groups[gi + 1:] for p in g]
        residents = list(group)
        still_floating: list[SwissPlayer] = []
        for mdp in floaters:  # downfloaters meet the highest residents they may meet
            partner = None
            for r in residents:
                if not _compatible(mdp, r, strict_colours=False):
                    continue
                rest = [p for p in residents if p is not r]
                if _matchable(sorted([*still_floating, *rest, *below], key=_rank_key)
                              if len(rest) % 2 == 0 or below else rest, budget):
                    partner = r
                    break
            if partner is None:
                still_floating.append(mdp)
            else:
                residents.remove(partner)
                out.append((mdp, partner))
        pairs, down = _pair_homogeneous(residents, [*still_floating, *below], budget)
        out.extend(pairs)
        floaters = sorted([*still_floating, *down], key=_rank_key)
    if floaters:
        return None
    return out


def _match_in_order(players: list[SwissPlayer], budget: _Budget
                    ) -> list[tuple[SwissPlayer, SwissPlayer]] | None:
    """Any pairing without a repeat, the highest ranked paired first (backtracking)."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if not _compatible(first, other, strict_colours=False) or not budget.spend():
            continue
        tail = _match_in_order([*rest[:i], *rest[i + 1:]], budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


def pair_round(players: Sequence[SwissPlayer]) -> RoundPairing:
    """The next round's pairings of ``players`` (the active ones)."""
    ranked = sorted(players, key=_rank_key)
    rank = {p.id: i for i, p in enumerate(ranked)}
    budget = _Budget()
    bye: SwissPlayer | None = None
    if len(ranked) % 2:
        eligible = [p for p in reversed(ranked) if not p.had_bye] or list(reversed(ranked))
        bye = next((p for p in eligible
                    if _matchable([q for q in ranked if q is not p], budget)), eligible[0])
        ranked = [p for p in ranked if p is not bye]
    pairs = _pair_brackets(ranked, budget)
    if pairs is None:
        pairs = _match_in_order(ranked, budget)
    if pairs is None:  # repeats cannot be avoided
        pairs = [(ranked[i], ranked[i + 1]) for i in range(0, len(ranked) - 1, 2)]
    pairs.sort(key=lambda ab: min(rank[ab[0].id], rank[ab[1].id]))
    return RoundPairing(
        pairs=[colours_for(a, b, board=i, rank=rank) for i, (a, b) in enumerate(pairs)],
        bye=bye.id if bye is not None else None)


@dataclass(frozen=True, slots=True)
class Game:
    white: int
    black: int | None  # None: a bye of ``white``
    result: str  # "white", "black", "draw", "bye"


def tiebreaks(scores: dict[int, int], games: Sequence[Game]) -> dict[int, tuple[float, float]]:
    """(Buchholz, Sonneborn-Berger) per player, in points (``scores`` in half points)."""
    buch = dict.fromkeys(scores, 0.0)
    sb = dict.fromkeys(scores, 0.0)
    for g in games:
        if g.black is None or g.result == "bye":
            continue
        w, b = g.white, g.black
        buch[w] = buch.get(w, 0.0) + scores.get(b, 0) / 2
        buch[b] = buch.get(b, 0.0) + scores.get(w, 0) / 2
        if g.result == "white":
            sb[w] = sb.get(w, 0.0) + scores.get(b, 0) / 2
        elif g.result == "black":
            sb[b] = sb.get(b, 0.0) + scores.get(w, 0) / 2
        elif g.result == "draw":
            sb[w] = sb.get(w, 0.0) + scores.get(b, 0) / 4
            sb[b] = sb.get(b, 0.0) + scores.get(w, 0) / 4
    return {pid: (buch.get(pid, 0.0), sb.get(pid, 0.0)) for pid in scores}
