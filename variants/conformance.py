"""Conformance kit: checks any ruleset (built-in or plugin) runs from its own tests.

    from variants.conformance import check_perft_file, random_playouts
    check_perft_file(MY_VARIANT, Path(__file__).parent / "my.perft", max_nodes=200_000)
    random_playouts(MY_VARIANT, games=20, seed=1)

Another implementation of the same rules (a compiled move generator, say) is checked
against this reference through the small :class:`MoveGenerator` protocol:
``check_perft_file(variant, path, implementation=other)`` and
``check_implementation(variant, other, games=..., seed=...)``.

Every check raises :class:`ConformanceError` (an ``AssertionError``, so test runners show it
as a failure) with a message that says what broke and where; on success it returns a small
summary. Perft suites are text files of ``id <name>``, ``fen <fen>`` and ``perft <depth>
<nodes>`` lines (``#`` starts a comment); each ``perft`` line belongs to the latest ``fen``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from variants.base import Variant
from variants.game import GameRecord
from variants.history import has_history_rule
from variants.types import Color, Move, Position

SLOW_DEPTH = 7
SLOW_NODES = 2_000_000


class ConformanceError(AssertionError):
    """A ruleset broke one of the engine's contracts."""


class MoveGenerator(Protocol):
    """Another implementation of a ruleset's moves, checked against the reference."""

    def legal_moves(self, position: Position) -> list[Move]: ...

    def perft(self, position: Position, depth: int) -> int: ...


@dataclass(frozen=True, slots=True)
class PerftCase:
    """One ``perft <depth> <nodes>`` line of a suite, with the position it applies to."""

    name: str
    fen: str
    depth: int
    nodes: int
    line: int

    @property
    def slow(self) -> bool:
        return self.depth >= SLOW_DEPTH or self.nodes > SLOW_NODES

    @property
    def id(self) -> str:
        return f"{self.name}-d{self.depth}"


def read_perft_file(path: str | Path) -> list[PerftCase]:
    """Parse a perft suite; raises ValueError naming the line of any malformed entry."""
    cases: list[PerftCase] = []
    name = ""
    fen = ""
    text = Path(path).read_text(encoding="utf-8")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word == "id":
            name, fen = rest, ""
        elif word == "fen":
            fen = rest
            name = name or f"line{number}"
        elif word == "perft":
            parts = rest.split()
            if not fen or len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise ValueError(f"{path}:{number}: expected 'perft <depth> <nodes>' after "
                                 f"a 'fen' line, got {raw!r}")
            cases.append(PerftCase(name, fen, int(parts[0]), int(parts[1]), number))
        else:
            raise ValueError(f"{path}:{number}: unknown entry {word!r}")
    return cases


def reference_nodes(variant: Variant, fen: str, depth: int) -> int | None:
    """The node count the ruleset's own perft suite gives for ``fen`` at ``depth``, if any."""
    path = variant.perft_suite_path()
    if path is None or not path.is_file():
        return None
    wanted = variant.parse_fen(fen)
    for case in read_perft_file(path):
        if case.depth == depth and variant.parse_fen(case.fen) == wanted:
            return case.nodes
    return None


def perft_divide(variant: Variant, position: Position, depth: int) -> list[tuple[str, int]]:
    """Per-root-move leaf counts at ``depth``, sorted by notation."""
    legal = variant.legal_moves(position)
    rows = [(variant.format_move(position, m, legal),
             variant.perft(variant.apply(position, m), depth - 1)) for m in legal]
    rows.sort()
    return rows


def format_divide(rows: Sequence[tuple[str, int]]) -> str:
    return "\n".join(f"  {notation} {nodes}" for notation, nodes in rows)


def check_perft(variant: Variant, fen: str, depth: int, nodes: int, name: str = "",
                implementation: MoveGenerator | None = None) -> None:
    """Perft of ``fen`` at ``depth`` must be ``nodes``; the failure message carries a divide.

    ``implementation``: count with another implementation instead of ``variant.perft``.
    """
    position = variant.parse_fen(fen)
    counter = implementation if implementation is not None else variant
    got = counter.perft(position, depth)
    if got != nodes:
        rows = perft_divide(variant, position, depth) if depth >= 1 else []
        who = "" if implementation is None else f" ({type(implementation).__name__})"
        raise ConformanceError(
            f"{variant.key} perft{who} {name or fen} depth {depth}: expected {nodes}, "
            f"got {got}\nfen {fen}\nreference divide:\n{format_divide(rows)}")


def check_perft_file(variant: Variant, path: str | Path, max_nodes: int = SLOW_NODES,
                     max_depth: int | None = None,
                     implementation: MoveGenerator | None = None) -> int:
    """Run every case of a suite with at most ``max_nodes`` nodes; returns how many ran."""
    ran = 0
    for case in read_perft_file(path):
        if case.nodes > max_nodes or (max_depth is not None and case.depth > max_depth):
            continue
        check_perft(variant, case.fen, case.depth, case.nodes, case.name, implementation)
        ran += 1
    return ran


def check_fen_round_trip(variant: Variant, positions: Iterable[Position]) -> int:
    """``parse_fen(format_fen(p)) == p`` and formatting is stable; returns how many checked."""
    count = 0
    for position in positions:
        fen = variant.format_fen(position)
        back = variant.parse_fen(fen)
        if back != position:
            raise ConformanceError(f"{variant.key}: FEN {fen} reads back as "
                                   f"{variant.format_fen(back)}")
        if variant.format_fen(back) != fen:
            raise ConformanceError(f"{variant.key}: FEN {fen} is not stable")
        count += 1
    return count


def check_notation_round_trip(variant: Variant, position: Position) -> int:
    """Every legal move formats and parses back to itself (also via its full path)."""
    legal = variant.legal_moves(position)
    fen = variant.format_fen(position)
    for move in legal:
        text = variant.format_move(position, move, legal)
        back = variant.parse_move(position, text, legal)
        if back != move:
            raise ConformanceError(f"{variant.key} {fen}: {text} parses as "
                                   f"{variant.format_move(position, back, legal)}")
        if move.captured:
            full = "x".join(variant.square_label(s) for s in move.path)
            if variant.parse_move(position, full, legal) != move:
                raise ConformanceError(f"{variant.key} {fen}: full path {full} does not parse "
                                       "back to its move")
    return len(legal)


def check_apply_deterministic(variant: Variant, position: Position) -> int:
    """Generating and applying moves twice gives the same results, and the input is intact."""
    before = variant.format_fen(position)
    first = variant.legal_moves(position)
    second = variant.legal_moves(position)
    if [m.key for m in first] != [m.key for m in second]:
        raise ConformanceError(f"{variant.key} {before}: legal_moves is not deterministic")
    for move in first:
        a = variant.apply(position, move)
        b = variant.apply(position, move)
        if a != b or hash(a) != hash(b):
            raise ConformanceError(f"{variant.key} {before}: apply is not deterministic")
    if variant.format_fen(position) != before:
        raise ConformanceError(f"{variant.key}: generating moves changed the position")
    return len(first)


def check_moves_unique(variant: Variant, position: Position, legal: Sequence[Move]) -> None:
    keys = [m.key for m in legal]
    if len(set(keys)) != len(keys):
        raise ConformanceError(f"{variant.key} {variant.format_fen(position)}: a legal move "
                               "is listed twice")


def check_position(variant: Variant, position: Position) -> None:
    """No two bitboards overlap and every piece stands on a playable square."""
    boards = (position.white_men, position.white_kings, position.black_men,
              position.black_kings)
    seen = 0
    for bb in boards:
        if bb & seen:
            raise ConformanceError(f"{variant.key}: overlapping bitboards in {position!r}")
        if bb < 0 or bb & ~variant.geometry.full:
            raise ConformanceError(f"{variant.key}: a piece off the board in {position!r}")
        seen |= bb


def check_transition(variant: Variant, before: Position, move: Move, after: Position) -> None:
    """The invariants of one applied move."""
    check_position(variant, after)
    mover = before.turn
    fen = variant.format_fen(before)
    if after.turn is not mover.opponent:
        raise ConformanceError(f"{variant.key} {fen}: the side to move did not alternate")
    if bin(after.pieces(mover)).count("1") != bin(before.pieces(mover)).count("1"):
        raise ConformanceError(f"{variant.key} {fen}: the mover's piece count changed")
    expected_opp = before.pieces(mover.opponent) & ~move.captured_mask
    if after.pieces(mover.opponent) != expected_opp:
        raise ConformanceError(f"{variant.key} {fen}: captured pieces did not disappear "
                               "(or other pieces did)")
    if move.captured_mask & ~before.pieces(mover.opponent):
        raise ConformanceError(f"{variant.key} {fen}: a move captures a non-enemy square")
    if len(move.captured) != bin(move.captured_mask).count("1"):
        raise ConformanceError(f"{variant.key} {fen}: a piece was captured twice")
    if move.captured and len(move.path) != len(move.captured) + 1:
        raise ConformanceError(f"{variant.key} {fen}: a capture path needs one landing "
                               "square per captured piece")
    if not (after.pieces(mover) >> move.destination) & 1:
        raise ConformanceError(f"{variant.key} {fen}: the mover is not on its destination")
    if after.occupied.bit_count() > before.occupied.bit_count():
        raise ConformanceError(f"{variant.key} {fen}: the piece count grew")


@dataclass
class PlayoutStats:
    games: int = 0
    plies: int = 0
    positions: list[Position] = field(default_factory=list, repr=False)
    outcomes: dict[str, int] = field(default_factory=dict)


def check_perft_matches_moves(variant: Variant, position: Position, depth: int = 2) -> int:
    """``variant.perft`` (a fast path on raw bitboards) agrees with ``legal_moves``/``apply``.

    Perft tables prove the fast path; this proves the move generator players actually use
    counts the same tree. Returns the node count.
    """

    def walk(p: Position, d: int) -> int:
        if d == 0:
            return 1
        return sum(walk(variant.apply(p, m), d - 1) for m in variant.legal_moves(p))

    slow = walk(position, depth)
    fast = variant.perft(position, depth)
    if slow != fast:
        raise ConformanceError(f"{variant.key} {variant.format_fen(position)} depth {depth}: "
                               f"perft {fast} but legal_moves/apply give {slow}")
    return fast


def _show(variant: Variant, moves: Iterable[Move]) -> str:
    """Moves as full paths (``c3-d4``, ``c3xe5xg3``), sorted: for error messages."""
    sep = {True: "x", False: "-"}
    return " ".join(sorted(sep[bool(m.captured)].join(variant.square_label(s) for s in m.path)
                           for m in moves))


def check_reference_moves(variant: Variant, positions: Iterable[Position]) -> int:
    """``legal_moves`` agrees with the plain generator of :mod:`variants.reference` (a
    second implementation of the declared rules) on every position; returns how many."""
    from variants.reference import covers, reference_moves

    if not covers(variant):
        return 0
    count = 0
    for position in positions:
        legal = variant.legal_moves(position)
        want = reference_moves(variant, position)
        got = {m.key: m for m in legal}
        if got.keys() != want.keys() or any(got[k].promotes != want[k].promotes for k in got):
            raise ConformanceError(
                f"{variant.key} {variant.format_fen(position)}: legal_moves gives "
                f"[{_show(variant, legal)}] but the reference generator gives "
                f"[{_show(variant, want.values())}]")
        count += 1
    return count


def random_position(variant: Variant, rng: random.Random, pieces: int) -> Position:
    """A random position of ``pieces`` pieces: each side at least one, each piece a man or a
    king with even odds, no man on its own crowning row (drawn again), either side to move."""
    size = variant.geometry.size
    while True:
        groups = [0, 0, 0, 0]  # white men, white kings, black men, black kings
        ok = True
        for n, sq in enumerate(rng.sample(range(size), pieces)):
            colour = n % 2 if n < 2 else rng.randint(0, 1)
            king = rng.random() < 0.5
            if not king and variant.promotion_squares((Color.WHITE, Color.BLACK)[colour]) >> sq & 1:
                ok = False
            groups[2 * colour + king] |= 1 << sq
        if ok:
            return Position(groups[0], groups[1], groups[2], groups[3], rng.choice(list(Color)))


def check_special_outcome_pieces(variant: Variant, positions: Iterable[Position],
                                 seed: int = 0, samples: int = 2000) -> int:
    """A ruleset that declares ``special_outcome_pieces`` keeps to it: ``special_outcome``
    gives no result with more pieces on the board, over ``positions`` and ``samples``
    random positions of one to three pieces more than declared (the engines trust the
    declaration: their search and endgame tables know the rule only up to it). Returns
    how many positions were checked (0: nothing declared)."""
    most = type(variant).special_outcome_pieces
    if most is None:
        return 0
    rng = random.Random(seed)
    size = variant.geometry.size

    def sampled() -> Iterable[Position]:
        for _ in range(samples):
            yield random_position(variant, rng, min(size, most + rng.randint(1, 3)))

    count = 0
    for position in (*positions, *sampled()):
        if position.occupied.bit_count() <= most:
            continue
        outcome = variant.special_outcome(position)
        if outcome is not None:
            raise ConformanceError(
                f"{variant.key} {variant.format_fen(position)}: special_outcome gives "
                f"{outcome.reason.value} with {position.occupied.bit_count()} pieces, but the "
                f"ruleset declares special_outcome_pieces = {most}")
        count += 1
    return count


def random_playouts(variant: Variant, games: int, seed: int, max_plies: int = 300,
                    start: Position | None = None, keep_positions: int = 0) -> PlayoutStats:
    """Play ``games`` random games and check every invariant along the way.

    Checked at every ply: no overlapping bitboards, side to move alternates, captured
    pieces disappear and nothing else does, piece count never grows, legal moves are unique
    by key, a man that ends its move on the far row is crowned. A game ends with an outcome
    or at ``max_plies`` (counted as ``"ply_cap"``). ``keep_positions`` keeps up to that many
    visited positions in the result (for further checks). The legal moves are the
    record's (a ruleset's ``restrict`` hook applies), checked to be among the position's own.
    """
    rng = random.Random(seed)
    stats = PlayoutStats()
    history_rule = has_history_rule(variant)
    for _ in range(games):
        record = GameRecord.new(variant, start)
        check_position(variant, record.position)
        result = "ply_cap"
        for _ply in range(max_plies):
            outcome = record.outcome()
            if outcome is not None:
                result = outcome.reason.value
                break
            position = record.position
            legal = record.legal_moves()  # the game so far considered (variants.history)
            if history_rule:
                check_restriction(variant, position, legal)
            check_moves_unique(variant, position, legal)
            move = rng.choice(legal)
            record.push(move)
            after = record.position
            check_transition(variant, position, move, after)
            if after.men(position.turn) & variant.promotion_squares(position.turn):
                raise ConformanceError(f"{variant.key} {variant.format_fen(position)}: a man "
                                       "ended its move on the far row uncrowned")
            stats.plies += 1
            if len(stats.positions) < keep_positions:
                stats.positions.append(after)
        stats.games += 1
        stats.outcomes[result] = stats.outcomes.get(result, 0) + 1
    return stats


def check_restriction(variant: Variant, position: Position, restricted: Sequence[Move]) -> None:
    """A ruleset's ``restrict`` hook only removes moves: what it keeps is among the moves
    of the position alone."""
    full = {m.key for m in variant.legal_moves(position)}
    extra = [m for m in restricted if m.key not in full]
    if extra:
        raise ConformanceError(f"{variant.key} {variant.format_fen(position)}: restrict added "
                               f"moves that are not legal in the position: "
                               f"[{_show(variant, extra)}]")


def check_same_moves(variant: Variant, other: MoveGenerator, position: Position) -> int:
    """``other`` lists exactly the reference's legal moves, each leading to the same position.

    Moves are compared by key (origin, destination, captured set: the unique-moves
    convention), then by promotion and by the position ``variant.apply`` makes of them; a
    capture's path must start and end where its key says and have one landing per captured
    piece. Returns the number of moves.
    """
    fen = variant.format_fen(position)
    reference = variant.legal_moves(position)
    theirs = other.legal_moves(position)
    ref_by_key = {m.key: m for m in reference}
    their_by_key = {m.key: m for m in theirs}
    if len(their_by_key) != len(theirs):
        raise ConformanceError(f"{variant.key} {fen}: the other implementation lists a move "
                               "twice")
    if ref_by_key.keys() != their_by_key.keys():
        def names(keys: Iterable[tuple[int, int, int]], moves: dict[tuple[int, int, int], Move]
                  ) -> list[str]:
            return sorted("x".join(variant.square_label(s) for s in moves[k].path)
                          for k in keys)

        missing = names(ref_by_key.keys() - their_by_key.keys(), ref_by_key)
        extra = names(their_by_key.keys() - ref_by_key.keys(), their_by_key)
        raise ConformanceError(f"{variant.key} {fen}: legal moves differ; missing {missing}, "
                               f"extra {extra}")
    for key, mine in ref_by_key.items():
        move = their_by_key[key]
        label = "x".join(variant.square_label(s) for s in mine.path)
        if move.promotes != mine.promotes:
            raise ConformanceError(f"{variant.key} {fen}: {label} promotes={move.promotes} in "
                                   f"the other implementation, {mine.promotes} here")
        if (move.path[0], move.path[-1]) != (key[0], key[1]) or (
                move.captured and len(move.path) != len(move.captured) + 1) or (
                sorted(move.captured) != sorted(mine.captured)):
            raise ConformanceError(f"{variant.key} {fen}: {label} has a malformed path or "
                                   f"captured list in the other implementation: {move!r}")
        if variant.apply(position, move) != variant.apply(position, mine):
            raise ConformanceError(f"{variant.key} {fen}: {label} leads elsewhere in the other "
                                   "implementation")
    return len(reference)


def check_implementation(variant: Variant, other: MoveGenerator, games: int, seed: int,
                         max_plies: int = 300, perft_depth: int = 2,
                         perft_every: int = 10) -> dict[str, int]:
    """Random games on the reference; at every ply ``other`` must agree on the exact legal
    moves (:func:`check_same_moves`), and every ``perft_every`` plies on perft at
    ``perft_depth``. Returns counts of positions, moves and perft checks."""
    rng = random.Random(seed)
    summary = {"positions": 0, "moves": 0, "perft_checks": 0}
    for _ in range(games):
        record = GameRecord.new(variant)
        for ply in range(max_plies):
            if record.outcome() is not None:
                break
            position = record.position
            summary["moves"] += check_same_moves(variant, other, position)
            summary["positions"] += 1
            if perft_every and ply % perft_every == 0:
                expected = variant.perft(position, perft_depth)
                got = other.perft(position, perft_depth)
                if got != expected:
                    raise ConformanceError(
                        f"{variant.key} {variant.format_fen(position)} perft {perft_depth}: "
                        f"reference {expected}, other implementation {got}")
                summary["perft_checks"] += 1
            record.push(rng.choice(record.legal_moves()))
    return summary


def run_all(variant: Variant, perft_path: str | Path | None = None, games: int = 10,
            seed: int = 0, max_nodes: int = 200_000) -> dict[str, int]:
    """Every check above in one call, for a ruleset package's smoke test."""
    summary: dict[str, int] = {}
    if perft_path is not None:
        summary["perft_cases"] = check_perft_file(variant, perft_path, max_nodes=max_nodes)
    stats = random_playouts(variant, games, seed, keep_positions=200)
    summary["plies"] = stats.plies
    positions = [variant.initial_position(), *stats.positions]
    summary["fen_round_trips"] = check_fen_round_trip(variant, positions)
    summary["notation_round_trips"] = sum(check_notation_round_trip(variant, p)
                                          for p in positions)
    summary["apply_checks"] = sum(check_apply_deterministic(variant, p) for p in positions)
    summary["perft_cross_checks"] = sum(1 for p in positions[::5]
                                        if check_perft_matches_moves(variant, p, 2) >= 0)
    summary["reference_generator_checks"] = check_reference_moves(variant, positions)
    summary["special_outcome_checks"] = check_special_outcome_pieces(variant, positions, seed)
    return summary


__all__ = [
    "ConformanceError", "MoveGenerator", "PerftCase", "PlayoutStats",
    "check_apply_deterministic", "check_fen_round_trip", "check_implementation",
    "check_moves_unique", "check_notation_round_trip", "check_perft", "check_perft_file",
    "check_perft_matches_moves", "check_position", "check_reference_moves", "check_same_moves",
    "check_special_outcome_pieces", "random_position",
    "check_transition", "format_divide", "perft_divide", "random_playouts", "read_perft_file",
    "reference_nodes", "run_all",
]
