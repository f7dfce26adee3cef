"""The data files: one JSON object a line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from bots.puzzles.prover import WON_MARGIN


def read_puzzles(path: Path) -> list[dict[str, object]]:
    """The puzzles of a JSON-lines file (a last line cut short by a stopped run is
    skipped)."""
    if not path.exists():
        return []
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    out: list[dict[str, object]] = []
    for i, line in enumerate(lines):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            if i != len(lines) - 1:
                raise
    return out


def write_puzzles(path: Path, puzzles: Sequence[dict[str, object]]) -> None:
    """Write ``puzzles`` sorted by id, one JSON object a line (sorted keys)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for puzzle in puzzles:  # a won game against no win: one figure, not a mate distance
        proof = puzzle["proof"]
        proof["margin"] = min(int(proof["margin"]), WON_MARGIN)  # type: ignore[index]
    ordered = sorted(puzzles, key=lambda p: str(p["id"]))
    path.write_text("".join(json.dumps(p, sort_keys=True) + "\n" for p in ordered))
