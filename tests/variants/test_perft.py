"""Perft suites (variants/perft/<key>.perft) from and the section 8 positions.

A failure prints the divide (per-root-move counts) to locate the wrong subtree.
Deep entries (depth >= 7 or more than 2,000,000 nodes) are marked slow: run with -m slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import variants
from variants import get_variant
from variants.conformance import PerftCase, check_perft, read_perft_file

PERFT_DIR = Path(variants.__file__).parent / "perft"


def _cases() -> list[object]:
    params: list[object] = []
    for path in sorted(PERFT_DIR.glob("*.perft")):
        for case in read_perft_file(path):
            marks = [pytest.mark.slow] if case.slow else []
            params.append(pytest.param(path.stem, case, marks=marks,
                                       id=f"{path.stem}-{case.id}"))
    return params


def test_every_builtin_has_a_suite() -> None:
    stems = {p.stem for p in PERFT_DIR.glob("*.perft")}
    assert {"international", "english", "brazilian", "spanish", "turkish"} <= stems


@pytest.mark.parametrize(("key", "case"), _cases())
def test_perft(key: str, case: PerftCase) -> None:
    check_perft(get_variant(key), case.fen, case.depth, case.nodes, case.name)
