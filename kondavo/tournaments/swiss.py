"""Swiss pairings in the manner of the Dutch system (FIDE C.04.3), as pure functions.

A round's pairing is one **maximum-weight matching** (``networkx.max_weight_matching``, the
blossom algorithm, exact on integer weights) over the players, with a weight per possible
pair that encodes the Dutch system's priorities, most important first. Each level's whole
range over a round is smaller than one unit of the level above (integer weights of several
hundred bits where needed: Python integers), so the matching optimises them in order:

0. As many pairs as possible; then no repeated game, no two players with the same absolute
   colour preference, no second bye (hard: such pairs exist in the graph only when nothing
   else pairs everyone, e.g. a long event with few players).
1. Floaters, top score group first: the number of pairs across the boundary below the top
   score group, then below the second, ... (a pair across several groups counts at each).
2. Then the smallest score differences (the sum of their squares).
3. Colours: the fewest players denied a strong (or absolute) preference, then the fewest
   denied any preference.
4. Who floats: the lowest ranked of the upper group, against the highest ranked of the
   lower one.
5. Inside a score group: the top half meets the bottom half (the fewest pairs inside one
   half: exchanges), in order (rank i against rank i + size/2; the further a pair is from
   that, the worse: transpositions).

Ranking: score (descending), then the pairing number (seed: rating when joining,
descending, then who joined first). With an odd number of players, a phantom player below
every score group stands for the bye: whoever the matching pairs with it has the bye, which
by the levels above is someone without a bye yet, from the lowest score group, its lowest
ranked player. Colours (``colours_for``): each player's preference comes from their history:
absolute when the colour difference is beyond 1 or the last two games had the same colour,
strong with a difference of 1, mild (alternate) with 0; when both want the same colour, the
stronger preference gets it, then the larger colour difference, then the player who had
the other colour in the latest game where the two had different colours, then the higher
ranked. Round 1: the top seed has white and colours alternate by board.

Speed (the blossom algorithm is about cubic in pure Python): round 1 is the Dutch pairing
itself, without a matching (top half against bottom half, the lowest ranked has the bye).
Later rounds first match over a sparse graph: each player with the few ranks around their
ideal partners in their score group (rank +- size/2) and around themselves, the lowest of
each group with the highest of the next two groups, the bye with everyone
(``CANDIDATES``: 3, then 10 ranks); only if that cannot pair everyone is the matching run
on every allowed pair, then on every pair. Timings (300 and 500 players, 7 rounds): see
bench/results/live.md ("Swiss pairing").

Tie-breaks (``tiebreaks``): Buchholz (the sum of the opponents' scores; a bye counts as
nothing) and Sonneborn-Berger (the scores of the opponents beaten, plus half of those of
the opponents drawn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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


CANDIDATES = (3, 10)  # the sparse graphs: ranks around each player's ideal partners
BYE = -1  # the phantom player of an odd round


@dataclass(frozen=True, slots=True)
class _Node:
    id: int  # a player's id, or BYE
    group: int  # score group, 0 = the top one; the phantom: below every group
    rank: int  # place in its score group, 0 = its highest ranked
    size: int  # its score group's size
    score: int
    player: SwissPlayer | None
    wants: str | None  # colour preference (``preference``)
    strength: int


class _Weights:
    """The weight of a pair (the levels of the module docstring) in integer units."""

    def __init__(self, nodes: list[_Node], max_score: int, min_score: int) -> None:
        n = len(nodes)
        pairs = n // 2 + 2
        groups = max(node.group for node in nodes) + 1
        span = (max_score - min_score + 4) ** 2
        u5b = 1
        u5a = u5b * (pairs * n + 1)
        u4 = u5a * (pairs + 1)
        u3b = u4 * (2 * pairs * n + 1)
        u3a = u3b * (pairs + 1)
        u2 = u3a * (pairs + 1)
        u1 = u2 * (pairs * span + 1)
        base = pairs + 1  # one crossing of a boundary above outweighs all those below
        u0 = u1 * pairs * base ** (groups + 1)
        self.units = (u0, u1, u2, u3a, u3b, u4, u5a, u5b)
        self.top = u0 * (pairs + 1) * 4  # every weight is positive
        # crossing[k]: the penalty of crossing the boundaries above group k (prefix sums)
        self.crossing = [0]
        for k in range(groups):
            self.crossing.append(self.crossing[-1] + u1 * base ** (groups - k))

    @staticmethod
    def hard(a: _Node, b: _Node) -> bool:
        """A pair the rules forbid: a repeat, an absolute colour clash, a second bye."""
        if a.player is None or b.player is None:
            return (a.player or b.player).had_bye  # type: ignore[union-attr]
        if b.id in a.player.opponents:
            return True
        return a.wants is not None and a.wants == b.wants and a.strength == b.strength == 3

    def weight(self, a: _Node, b: _Node) -> tuple[int, bool]:
        """(the pair's weight, whether the rules forbid it)."""
        u0, _u1, u2, u3a, u3b, u4, u5a, u5b = self.units
        hi, lo = (a, b) if (a.group, a.rank) < (b.group, b.rank) else (b, a)
        hard = self.hard(a, b)
        penalty = u0 if hard else 0
        if hi.group != lo.group:
            penalty += self.crossing[lo.group] - self.crossing[hi.group]
            diff = hi.score - lo.score  # the phantom's score: below the lowest group's
            penalty += u2 * diff * diff
            penalty += u4 * ((hi.size - 1 - hi.rank) + lo.rank)
        else:  # the top half against the bottom half, in order
            half = hi.size // 2
            penalty += u5a * ((hi.rank < half) == (lo.rank < half))
            penalty += u5b * abs(lo.rank - hi.rank - half)
        if a.wants is not None and a.wants == b.wants:
            penalty += u3b + (u3a if min(a.strength, b.strength) >= 2 else 0)
        return self.top - penalty, hard


def _nodes(ranked: list[SwissPlayer]) -> list[_Node]:
    scores = sorted({p.score for p in ranked}, reverse=True)
    group_of = {s: i for i, s in enumerate(scores)}
    sizes = {s: sum(1 for p in ranked if p.score == s) for s in scores}
    seen: dict[int, int] = {}
    nodes = []
    for p in ranked:
        rank = seen.get(p.score, 0)
        seen[p.score] = rank + 1
        wants, strength = preference(p.colours)
        nodes.append(_Node(p.id, group_of[p.score], rank, sizes[p.score], p.score, p, wants,
                           strength))
    if len(nodes) % 2:
        nodes.append(_Node(BYE, len(scores), 0, 1, min(scores) - 2, None, None, 0))
    return nodes


def _match(size: int, edges: list[tuple[int, int, int]]) -> list[tuple[int, int]] | None:
    """A perfect matching of nodes ``0..size-1`` over ``edges`` (with weights), or None."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(size))
    graph.add_weighted_edges_from(edges)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < size:
        return None
    return [(a, b) for a, b in matching]


def _candidates(nodes: list[_Node], k: int) -> set[tuple[int, int]]:
    """A sparse graph's pairs: in each score group, each player with the ``k`` ranks on
    either side of its ideal partners (rank +- size/2) and of itself; across the next two
    groups down, the lowest ``2k`` of the upper one with the highest ``2k`` of the lower
    one; the phantom (bye) with everyone."""
    groups: dict[int, list[int]] = {}
    for i, node in enumerate(nodes):
        groups.setdefault(node.group, []).append(i)
    out: set[tuple[int, int]] = set()
    order = sorted(groups)
    for g in order:
        members = groups[g]
        size = len(members)
        if size <= 4 * k:
            out.update((a, b) for x, a in enumerate(members) for b in members[x + 1:])
        else:
            half = size // 2
            for r in range(size):
                for centre in (r + half, r - half, r):
                    for s in range(max(0, centre - k), min(size, centre + k + 1)):
                        if s != r:
                            a, b = members[r], members[s]
                            out.add((min(a, b), max(a, b)))
    for g in order:
        for down in (1, 2):  # the next two groups down
            for a in groups[g][-2 * k:]:
                for b in groups.get(g + down, [])[:2 * k]:
                    out.add((min(a, b), max(a, b)))
    phantom = [i for i, node in enumerate(nodes) if node.player is None]
    for p in phantom:
        out.update((min(i, p), max(i, p)) for i in range(len(nodes)) if i != p)
    return out


def _pairs(nodes: list[_Node], weights: _Weights) -> list[tuple[int, int]]:
    """The round's pairs (indices into ``nodes``): sparse graphs first (allowed pairs only,
    ``CANDIDATES`` ranks around the ideal partners), then every allowed pair, then every
    pair (repeats only when nothing else pairs everyone)."""
    n = len(nodes)
    tried: set[tuple[int, int]] = set()
    for k in CANDIDATES:
        pairs = _candidates(nodes, k)
        if pairs == tried:
            continue
        tried = pairs
        sparse = []
        for i, j in sorted(pairs):
            w, hard = weights.weight(nodes[i], nodes[j])
            if not hard:
                sparse.append((i, j, w))
        found = _match(n, sparse)
        if found is not None:
            return found
    allowed, every = [], []
    for i in range(n):
        for j in range(i + 1, n):
            w, hard = weights.weight(nodes[i], nodes[j])
            every.append((i, j, w))
            if not hard:
                allowed.append((i, j, w))
    for edges in (allowed, every):
        found = _match(n, edges)
        if found is not None:
            return found
    raise AssertionError("a complete graph always has a perfect matching")


def _first_round(nodes: list[_Node]) -> list[tuple[int, int]] | None:
    """Before anyone has played (one score group, no history), the Dutch pairing itself:
    rank i against rank i + n/2, the lowest ranked having the bye; None otherwise."""
    players = [node for node in nodes if node.player is not None]
    if any(node.player.opponents or node.player.colours or node.group  # type: ignore[union-attr]
           for node in players):
        return None
    half = len(players) // 2
    pairs = [(i, i + half) for i in range(half)]
    if len(players) % 2:
        pairs.append((len(players) - 1, len(nodes) - 1))  # the lowest ranked: the bye
    return pairs


def pair_round(players: Sequence[SwissPlayer]) -> RoundPairing:
    """The next round's pairings of ``players`` (the active ones)."""
    ranked = sorted(players, key=_rank_key)
    rank = {p.id: i for i, p in enumerate(ranked)}
    if len(ranked) < 2:
        return RoundPairing(pairs=[], bye=ranked[0].id if ranked else None)
    nodes = _nodes(ranked)
    weights = _Weights(nodes, ranked[0].score, ranked[-1].score)
    bye: int | None = None
    pairs: list[tuple[SwissPlayer, SwissPlayer]] = []
    for i, j in _first_round(nodes) or _pairs(nodes, weights):
        a, b = nodes[i], nodes[j]
        if a.player is None or b.player is None:
            bye = (a.player or b.player).id  # type: ignore[union-attr]
        else:
            pairs.append((a.player, b.player))
    pairs.sort(key=lambda ab: min(rank[ab[0].id], rank[ab[1].id]))
    return RoundPairing(
        pairs=[colours_for(a, b, board=i, rank=rank) for i, (a, b) in enumerate(pairs)],
        bye=bye)


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
