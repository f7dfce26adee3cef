"""Canadian draughts: International rules on 12x12, the conformance kit, and a cross-check
of the perft suite against Kondavo's plain reference generator."""

from __future__ import annotations

from pathlib import Path

import kondavo_canadian
from kondavo_canadian import CANADIAN

from variants.conformance import check_perft_file, read_perft_file, run_all
from variants.reference import reference_perft

PERFT = Path(kondavo_canadian.__file__).parent / "canadian.perft"


def moves(fen: str) -> list[str]:
    position = CANADIAN.parse_fen(fen)
    legal = CANADIAN.legal_moves(position)
    return sorted(CANADIAN.format_move(position, m, legal) for m in legal)


def test_perft() -> None:
    assert check_perft_file(CANADIAN, PERFT, max_nodes=20_000) == 14


def test_conformance_kit() -> None:
    summary = run_all(CANADIAN, PERFT, games=4, seed=7, max_nodes=2_000)
    assert summary["reference_generator_checks"] > 100


def test_perft_suite_agrees_with_the_reference_generator() -> None:
    cases = [c for c in read_perft_file(PERFT) if c.nodes <= 2_500]
    assert len(cases) >= 8
    for case in cases:
        assert reference_perft(CANADIAN, CANADIAN.parse_fen(case.fen), case.depth) == case.nodes


def test_board_and_start() -> None:
    assert CANADIAN.squares == 72
    board = CANADIAN.board.as_dict()
    assert (board["rows"], board["cols"], board["playing_squares"]) == (12, 12, "dark")
    start = CANADIAN.initial_position()
    assert start.white_men.bit_count() == start.black_men.bit_count() == 30
    assert moves("W:W43-72:B1-30") == ["43-37", "44-37", "44-38", "45-38", "45-39", "46-39",
                                       "46-40", "47-40", "47-41", "48-41", "48-42"]


def test_men_capture_backward_and_the_longest_capture_is_mandatory() -> None:
    # One piece forward (38), backward (49) or backward (50): free choice of equals.
    assert moves("W:W44:B38,50,49") == ["44x33", "44x55", "44x57"]
    # 44x33x46x57 takes three (forward, then backward twice): the only legal move.
    position = CANADIAN.parse_fen("W:W44:B38,51,39")
    (move,) = CANADIAN.legal_moves(position)
    assert [CANADIAN.square_label(s) for s in move.path] == ["44", "33", "46", "57"]
