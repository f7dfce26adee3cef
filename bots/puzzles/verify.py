"""Proving puzzles again, deeper than they were generated (``verify``, and every puzzle the
generator keeps)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bots.puzzles.generate_io import read_puzzles, write_puzzles
from bots.puzzles.prover import Proof, Prover, Settings
from variants import get_variant

VERIFY_PLIES = 2  # how much deeper than its proof a puzzle is proven again


def checker_for(prover: Prover, plies: int = VERIFY_PLIES) -> Prover:
    """A prover ``plies`` deeper than ``prover`` sharing its engine (and so its
    transposition table and endgame tables)."""
    return Prover(prover.variant, prover.settings.deeper(plies), shared=prover.engine)


def reprove(prover: Prover, puzzle: dict[str, object],
            plies: int = VERIFY_PLIES) -> tuple[str | None, Proof | None]:
    """Prove ``puzzle`` again, ``plies`` deeper than its recorded proof, with ``prover``'s
    other settings: (why it fails or None, the new proof). The line must agree with the
    puzzle's in every move both show (a deeper search may end it a move earlier or
    later).

    The engine's table and move-ordering history are emptied first, so the verdict
    depends on the puzzle and the engine alone, not on the positions searched before it
    (the generator's check and ``verify`` of a whole file then agree on every puzzle)."""
    if prover.engine is not None:
        prover.engine.clear()
    variant = prover.variant
    position = variant.parse_fen(str(puzzle["fen"]))
    solution: list[str] = list(puzzle["solution"])  # type: ignore[call-overload]
    first = variant.parse_move(position, solution[0])
    depth = int(puzzle["proof"]["depth"])  # type: ignore[index]
    proof = prover.prove(position, first, depth, depth + plies)
    if proof is None:
        return f"not proven ({prover.reason})", None
    line = [variant.format_move(p, m) for p, m in zip(proof.positions, proof.moves,
                                                       strict=True)]
    common = min(len(line), len(solution))
    if line[:common] != solution[:common]:
        return f"line differs: {' '.join(line)}", proof
    return None, proof


def verify_file(path: Path, *, plies: int = VERIFY_PLIES, drop: bool = False,
                log: Callable[[str], None] = print) -> tuple[list[str], int]:
    """Re-prove every puzzle of ``path`` ``plies`` deeper than it was proven; returns
    (rejected ids, total). ``drop``: rewrite the file without the rejected ones."""
    puzzles = read_puzzles(path)
    provers: dict[str, Prover] = {}
    rejects: list[str] = []
    for puzzle in puzzles:
        key = str(puzzle["ruleset"])
        if key not in provers:
            provers[key] = Prover(get_variant(key), Settings().deeper(plies))
        why, _proof = reprove(provers[key], puzzle, plies)
        if why is not None:
            rejects.append(str(puzzle["id"]))
            log(f"reject {puzzle['id']}: {why}")
    if drop and rejects:
        bad = set(rejects)
        write_puzzles(path, [p for p in puzzles if p["id"] not in bad])
    return rejects, len(puzzles)
