"""Finding puzzles: in self-play games (offline) and in a finished game (the site's task).

Self-play games are varied on purpose: a few random opening moves, then each side plays a
node-bounded search with its own budget, root noise and an occasional random move, so the
games hold the mistakes that puzzles come from. Every position after the opening is
scanned (:meth:`~bots.puzzles.prover.Prover.scan`); candidates are proven
(:meth:`~bots.puzzles.prover.Prover.prove`); the positions along a kept puzzle's line are
not scanned again.

:func:`generate` appends to a JSON-lines file and is resumable: it reads the file first
(ids and positions already there are skipped) and goes on from the game after the highest
self-play seed in it. It stops at ``count`` puzzles in the file or after ``seconds``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bots.engine.search import MATE_BOUND, SearchResult
from bots.puzzles.generate_io import read_puzzles, write_puzzles
from bots.puzzles.prover import Prover, Settings, to_dict
from variants import get_variant
from variants.base import Variant
from variants.game import GameRecord
from variants.types import Color, Move, Position

MAX_PLIES = 160


@dataclass(frozen=True, slots=True)
class Style:
    """How one side plays a self-play game: its own search's node budget and root noise
    (0 nodes: the scan's move), and the probability of a random move."""

    nodes: int
    noise: int
    random_move: float


STYLES = (Style(300, 80, 0.08), Style(1_000, 40, 0.05), Style(3_000, 20, 0.03),
          Style(0, 0, 0.02), Style(0, 0, 0.0))
BLUNDER_RATE = 0.5  # the chance a side looks for a mistake to make at a balanced position
BLUNDER_NODES = 2_000
BLUNDER_TRIES = 10
BLUNDER_KEEP = 3
DECIDED = 400  # centi-men: a game this lopsided for a few plies has no more puzzles to give
DECIDED_PLIES = 6


@dataclass(slots=True)
class Scanned:
    """One self-play position with its scan: a candidate when ``result`` is not None."""

    ply: int
    position: Position
    result: SearchResult | None


def selfplay(prover: Prover, seed: int) -> Iterator[Scanned]:
    """Self-play game ``seed``, each position after the opening scanned once.

    A position is a candidate when the scan finds it decisive for the side to move, clearly
    above its static evaluation, and the side to move was not already winning before the
    opponent's last move (the opponent's scan a ply earlier was not decisively lost): the
    puzzle is the punishment of a mistake. The game stops once it is decided.
    """
    variant = prover.variant
    s = prover.settings
    rng = random.Random(seed)
    styles = {Color.WHITE: rng.choice(STYLES), Color.BLACK: rng.choice(STYLES)}
    opening = rng.randint(2, 8)
    record = GameRecord.new(variant)
    previous: int | None = None  # the scan score a ply earlier, for the side then to move
    decided = 0
    for ply in range(MAX_PLIES):
        legal = record.legal_moves()
        if record.outcome(legal) is not None:
            return
        position = record.position
        scan: SearchResult | None = None
        if ply >= opening:
            scan = prover.search(position, None, s.scan_nodes)
            candidate = None
            if (len(legal) >= 2 and scan.move is not None and scan.score >= s.win
                    and (previous is None or -previous < s.win)
                    and len(legal) <= s.max_legal
                    and scan.score - prover.static(position) >= s.gain * 4 // 5):
                candidate = scan
            yield Scanned(ply, position, candidate)
            previous = scan.score
            decided = decided + 1 if abs(scan.score) >= DECIDED else 0
            if decided >= DECIDED_PLIES:
                return
        style = styles[position.turn]
        if (scan is not None and abs(scan.score) < s.win and len(legal) >= 2
                and rng.random() < BLUNDER_RATE):
            for after, punished in _blunders(prover, position, legal, rng):
                yield Scanned(ply + 1, after, punished)  # a side line: a mistake
        if ply < opening or rng.random() < style.random_move:
            move = rng.choice(legal)
        elif style.nodes == 0 and scan is not None and scan.move is not None:
            move = scan.move
        else:
            chosen = _play_search(prover, position, style, rng.getrandbits(32))
            move = chosen if chosen is not None else rng.choice(legal)
        record.push(move, legal)


def _blunders(prover: Prover, position: Position, legal: list[Move],
              rng: random.Random) -> list[tuple[Position, SearchResult]]:
    """Mistakes at ``position``: the positions after moves that give the opponent a
    decisive answer a short search can see, each with its scan (the side lines puzzles
    are made of). Up to ``BLUNDER_TRIES`` legal moves in random order, each searched
    briefly; at most ``BLUNDER_KEEP`` kept."""
    s = prover.settings
    variant = prover.variant
    found: list[tuple[Position, SearchResult]] = []
    for move in rng.sample(legal, min(len(legal), BLUNDER_TRIES)):
        after = variant.apply(position, move)
        replies = variant.legal_moves(after)
        if len(replies) < 2 or len(replies) > s.max_legal:
            continue
        result = prover.search(after, None, BLUNDER_NODES)
        if (result.move is not None and s.win <= result.score < MATE_BOUND
                and result.score - prover.static(after) >= s.gain * 4 // 5):
            scan = prover.search(after, None, s.scan_nodes)
            if scan.move is not None and scan.score >= s.win:
                found.append((after, scan))
                if len(found) >= BLUNDER_KEEP:
                    break
    return found


def _play_search(prover: Prover, position: Position, style: Style, seed: int) -> Move | None:
    nodes = style.nodes or prover.settings.scan_nodes
    if prover.engine is not None:
        return prover.engine.search(position, node_limit=nodes, noise=style.noise,
                                    seed=seed, reuse_table=False, tables=False).move
    from bots.engine.search import search as python_search

    return python_search(prover.variant, position, node_limit=max(200, nodes // 20),
                         noise=style.noise, seed=seed).move


def line_positions(prover: Prover, puzzle: dict[str, object]) -> list[Position]:
    """The positions along a puzzle's solution (to skip scanning them again)."""
    variant = prover.variant
    position = variant.parse_fen(str(puzzle["fen"]))
    out = [position]
    for text in puzzle["solution"]:  # type: ignore[attr-defined]
        position = variant.apply(position, variant.parse_move(position, text))
        out.append(position)
    return out


def find(prover: Prover, position: Position, source: dict[str, object]) -> dict[str, object] | None:
    """The proven puzzle at ``position`` (solver to move) or None."""
    scanned = prover.scan(position)
    if scanned is None:
        return None
    proof = prover.prove(position, scanned.move, scanned.depth)
    if proof is None:
        return None
    return to_dict(prover, proof, source)


def generate(key: str, path: Path, *, count: int, seconds: float, seed: int = 1,
             settings: Settings | None = None,
             log: Callable[[str], None] = print) -> list[dict[str, object]]:
    """Self-play puzzles of ruleset ``key`` appended to ``path`` until it holds ``count`` or
    ``seconds`` have passed; returns every puzzle in the file."""
    from bots.puzzles.verify import checker_for, reprove

    variant = get_variant(key)
    prover = Prover(variant, settings or Settings())
    checker = checker_for(prover)
    started = time.monotonic()
    puzzles = []
    for old in read_puzzles(path):  # puzzles of a run before verification: check them now
        if "verified" not in old["proof"]:  # type: ignore[operator]
            why, again = reprove(checker, old)
            if why is not None or again is None:
                log(f"{key}: {old['id']} dropped: {why}")
                continue
            old["proof"]["verified"] = again.depth  # type: ignore[index]
        puzzles.append(old)
    ids = {str(p["id"]) for p in puzzles}
    fens = {str(p["fen"]) for p in puzzles}
    seeds = [int(p["source"]["seed"]) for p in puzzles  # type: ignore[index]
             if p["source"].get("kind") == "selfplay"]  # type: ignore[attr-defined]
    game = max(seeds, default=seed - 1) + 1
    write_puzzles(path, puzzles)  # whole lines only, before appending
    scanned = candidates = rejected = 0
    with path.open("a") as out:
        while len(puzzles) < count and time.monotonic() - started < seconds:
            skip: set[Position] = set()
            for item in selfplay(prover, game):
                if time.monotonic() - started >= seconds or len(puzzles) >= count:
                    break
                scanned += 1
                ply, position, found = item.ply, item.position, item.result
                if found is None or position in skip:
                    continue
                fen = variant.format_fen(position)
                if fen in fens:
                    continue
                candidates += 1
                proof = prover.prove(position, found.move, found.depth)
                if proof is None:
                    continue
                puzzle = to_dict(prover, proof, {"kind": "selfplay", "seed": game, "ply": ply})
                if puzzle["id"] in ids:
                    continue
                why, again = reprove(checker, puzzle)  # proven again, deeper
                if why is not None or again is None:
                    rejected += 1
                    continue
                puzzle["proof"]["verified"] = again.depth  # type: ignore[index]
                ids.add(str(puzzle["id"]))
                fens.add(fen)
                skip.update(line_positions(prover, puzzle))
                puzzles.append(puzzle)
                out.write(json.dumps(puzzle, sort_keys=True) + "\n")
                out.flush()
            log(f"{key}: game {game} done, {len(puzzles)} puzzles, {candidates} candidates "
                f"of {scanned} positions, {rejected} failed the deeper check, "
                f"{time.monotonic() - started:.0f} s")
            game += 1
    return puzzles


def puzzles_from_game(ruleset: str, initial_fen: str, moves: Sequence[str], *,
                      seconds: float = 20.0, prover: Prover | None = None
                      ) -> list[dict[str, object]]:
    """The proven puzzles of a finished game.

    ``initial_fen`` (empty: the ruleset's start) and ``moves`` in the ruleset's notation.
    Every position is scanned; candidates are proven (and proven again deeper, as the
    shipped puzzles are), those where the move played differs from the solution first,
    until ``seconds`` have passed. Each puzzle's source is
    ``{"kind": "game", "ply": n}`` (n: the ply of the puzzle's position, 0 = the start);
    ``played`` is the move actually played there when it is not the solution.
    """
    from bots.puzzles.verify import checker_for, reprove

    variant = get_variant(ruleset)
    prover = prover or _game_prover(variant)
    checker = checker_for(prover)
    started = time.monotonic()
    record = GameRecord.from_notation(variant, moves, initial_fen or None)
    positions = record.positions
    played = [m.move for m in record.moves]
    candidates: list[tuple[bool, int, Position, Move, int]] = []
    for ply, position in enumerate(positions[:-1]):
        if time.monotonic() - started >= seconds:
            break
        found = prover.scan(position)
        if found is None or found.move is None:
            continue
        mistake = ply < len(played) and played[ply] != found.move
        candidates.append((not mistake, ply, position, found.move, found.depth))
    candidates.sort(key=lambda c: (c[0], c[1]))
    out: list[dict[str, object]] = []
    covered: set[Position] = set()
    for _ok, ply, position, move, depth in candidates:
        if time.monotonic() - started >= seconds:
            break
        if position in covered:
            continue
        proof = prover.prove(position, move, depth)
        if proof is None:
            continue
        puzzle = to_dict(prover, proof, {"kind": "game", "ply": ply})
        why, again = reprove(checker, puzzle)  # VERIFY_PLIES deeper
        if why is not None or again is None:
            continue
        puzzle["proof"]["verified"] = again.depth  # type: ignore[index]
        if ply < len(played) and played[ply] != proof.moves[0]:
            puzzle["played"] = variant.format_move(position, played[ply])
        covered.update(line_positions(prover, puzzle))
        out.append(puzzle)
    out.sort(key=lambda p: p["source"]["ply"])  # type: ignore[index]
    return out


_GAME_PROVERS: dict[str, Prover] = {}


def _game_prover(variant: Variant) -> Prover:
    prover = _GAME_PROVERS.get(variant.key)
    if prover is None or prover.variant is not variant:
        prover = _GAME_PROVERS[variant.key] = Prover(variant, Settings(), tt_mb=16)
    return prover
