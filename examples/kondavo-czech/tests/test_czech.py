"""Czech draughts: the rules that differ from the built-ins, the conformance kit, and a
cross-check of the perft suite against Kondavo's plain reference generator."""

from __future__ import annotations

from pathlib import Path

import kondavo_czech
from kondavo_czech import CZECH

from variants.conformance import check_perft_file, read_perft_file, run_all
from variants.reference import reference_perft

PERFT = Path(kondavo_czech.__file__).parent / "czech.perft"


def moves(fen: str) -> list[str]:
    position = CZECH.parse_fen(fen)
    legal = CZECH.legal_moves(position)
    return sorted(CZECH.format_move(position, m, legal) for m in legal)


def test_perft() -> None:
    assert check_perft_file(CZECH, PERFT, max_nodes=10_000) == 15


def test_conformance_kit() -> None:
    summary = run_all(CZECH, PERFT, games=8, seed=7, max_nodes=10_000)
    assert summary["reference_generator_checks"] > 100


def test_perft_suite_agrees_with_the_reference_generator() -> None:
    cases = [c for c in read_perft_file(PERFT) if c.nodes <= 2_000]
    assert len(cases) >= 10
    for case in cases:
        assert reference_perft(CZECH, CZECH.parse_fen(case.fen), case.depth) == case.nodes


def test_men_capture_forward_only() -> None:
    assert moves("W:Wd4:Bc3,e5") == ["d4xf6"]


def test_a_king_that_can_capture_must_capture_short_or_long() -> None:
    # The man's c3xe5xg7 takes two, but a king can capture, so only king captures are legal,
    # the single ones (over f6) as well as the double ones (g3 then d4).
    assert moves("W:Wc3,Kh4:Bd4,f6,g3") == ["h4xa7", "h4xb6", "h4xc5", "h4xd8", "h4xe7"]


def test_without_a_king_capture_men_choose_freely() -> None:
    # a3xc5 cannot stop there (it can go on over d6); e3xg5 takes one piece and is legal.
    assert moves("W:Wa3,e3:Bb4,d6,f4") == ["a3xe7", "e3xg5"]


def test_flying_king_captures_at_a_distance() -> None:
    assert moves("W:WKa1:Bd4") == ["a1xe5", "a1xf6", "a1xg7", "a1xh8"]


def test_a_man_crowned_during_a_capture_stops() -> None:
    position = CZECH.parse_fen("W:Wb6:Bc7,e7")
    (move,) = CZECH.legal_moves(position)
    assert CZECH.format_move(position, move) == "b6xd8" and move.promotes
