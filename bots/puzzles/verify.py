"""Proving shipped puzzles again, deeper than they were generated (``verify``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bots.puzzles.generate import read_puzzles, write_puzzles
from bots.puzzles.prover import Prover, Settings
from variants import get_variant


def reprove(prover: Prover, puzzle: dict[str, object]) -> str | None:
    """Why ``puzzle`` fails a new proof with ``prover``'s settings (None: it holds)."""
    variant = prover.variant
    position = variant.parse_fen(str(puzzle["fen"]))
    solution: list[str] = list(puzzle["solution"])  # type: ignore[call-overload]
    first = variant.parse_move(position, solution[0])
    depth = int(puzzle["proof"]["depth"])  # type: ignore[index]
    proof = prover.prove(position, first, depth - prover.settings.extra_depth)
    if proof is None:
        return "not proven"
    line = [variant.format_move(p, m) for p, m in zip(proof.positions, proof.moves,
                                                       strict=True)]
    if line != solution:
        # a deeper search may end the line earlier or later; the moves shown must agree
        common = min(len(line), len(solution))
        if line[:common] != solution[:common]:
            return f"line differs: {' '.join(line)}"
    return None


def verify_file(path: Path, *, plies: int = 2, drop: bool = False,
                log: Callable[[str], None] = print) -> tuple[list[str], int]:
    """Re-prove every puzzle of ``path`` ``plies`` deeper; returns (rejected ids, total).
    ``drop``: rewrite the file without the rejected ones."""
    puzzles = read_puzzles(path)
    provers: dict[str, Prover] = {}
    rejects: list[str] = []
    for puzzle in puzzles:
        key = str(puzzle["ruleset"])
        if key not in provers:
            provers[key] = Prover(get_variant(key), Settings().deeper(plies))
        why = reprove(provers[key], puzzle)
        if why is not None:
            rejects.append(str(puzzle["id"]))
            log(f"reject {puzzle['id']}: {why}")
    if drop and rejects:
        bad = set(rejects)
        write_puzzles(path, [p for p in puzzles if p["id"] not in bad])
    return rejects, len(puzzles)
