"""Italian draughts: the rules that differ from the built-ins, the conformance kit, and a
cross-check against pydraughts (an independent implementation) when it is installed."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import kondavo_italian
import pytest
from kondavo_italian import ITALIAN

from variants import Position
from variants.conformance import check_perft_file, random_playouts, run_all

PERFT = Path(kondavo_italian.__file__).parent / "italian.perft"


def moves(fen: str) -> list[str]:
    position = ITALIAN.parse_fen(fen)
    legal = ITALIAN.legal_moves(position)
    return sorted(ITALIAN.format_move(position, m, legal) for m in legal)


def test_perft() -> None:
    assert check_perft_file(ITALIAN, PERFT, max_nodes=10_000) == 8


@pytest.mark.slow
def test_perft_deep() -> None:
    assert check_perft_file(ITALIAN, PERFT, max_nodes=10**9) == 9


def test_conformance_kit() -> None:
    summary = run_all(ITALIAN, PERFT, games=8, seed=7, max_nodes=10_000)
    assert summary["perft_cases"] == 8
    assert summary["reference_generator_checks"] > 100


def test_corner_on_the_left_is_not_played_on_but_squares_are_dark() -> None:
    board = ITALIAN.board.as_dict()
    assert board["playing_squares"] == "dark"
    assert ITALIAN.geometry.square_at(0, 0) is None  # a1
    assert ITALIAN.square_label(ITALIAN.geometry.square_at(7, 0) or 0) == "1"  # a8


def test_a_man_may_not_capture_a_king() -> None:
    # d3 (22) faces a king on c4 (18): no capture, so only the quiet move to e4.
    assert moves("W:W22:BK18,17") == ["22-19"]


def test_men_capture_forward_only() -> None:
    assert moves("W:W14:B18,10,3") == ["14x5"]


def test_with_equal_pieces_the_king_must_capture() -> None:
    assert moves("W:W22,K28:B18,23") == ["28x19"]


def test_then_the_most_kings() -> None:
    assert moves("W:WK19:B14,5,15,K7") == ["19x3"]


def test_then_the_king_met_first() -> None:
    # e4 takes d5 (a king) then b7, or f5 then f7 (a king): the first is compulsory.
    assert moves("W:WK19:BK14,5,15,K7") == ["19x1"]


def test_a_man_crowned_during_a_capture_stops() -> None:
    position = ITALIAN.parse_fen("W:W10:B6,7")
    (move,) = ITALIAN.legal_moves(position)
    assert ITALIAN.format_move(position, move) == "10x3" and move.promotes
    assert ITALIAN.format_fen(ITALIAN.apply(position, move)) == "B:WK3:B7"


# --------------------------------------------------------------------- pydraughts


def _keys(position: Position) -> set[tuple[int, int, frozenset[int]]]:
    return {(int(ITALIAN.square_label(m.origin)), int(ITALIAN.square_label(m.destination)),
             frozenset(int(ITALIAN.square_label(s)) for s in m.captured))
            for m in ITALIAN.legal_moves(position)}


def _peer_keys(pydraughts: ModuleType, fen: str) -> set[tuple[int, int, frozenset[int]]]:
    # pydraughts numbers the Italian board exactly as this ruleset does (1 = a8 .. 32 = h1).
    board = pydraughts.Board(variant="italian", fen=fen)
    return {(m.board_move[0][0], m.board_move[-1][-1], frozenset(m.captures or []))
            for m in board.legal_moves()}


def test_same_legal_moves_as_pydraughts_over_random_games(pydraughts: ModuleType) -> None:
    stats = random_playouts(ITALIAN, games=12, seed=2024, keep_positions=2000)
    rng = random.Random(1)
    positions = rng.sample(stats.positions, min(600, len(stats.positions)))
    with_captures = 0
    for position in positions:
        fen = ITALIAN.format_fen(position)
        ours = _keys(position)
        assert ours == _peer_keys(pydraughts, fen), fen
        with_captures += any(k[2] for k in ours)
    assert with_captures > 50


def test_same_perft_as_pydraughts_from_the_start(pydraughts: ModuleType) -> None:
    def peer_perft(board: object, depth: int) -> int:
        unique = {}
        for m in board.legal_moves():  # type: ignore[attr-defined]
            unique.setdefault((m.board_move[0][0], m.board_move[-1][-1],
                               frozenset(m.captures or [])), m)
        if depth == 1:
            return len(unique)
        total = 0
        for m in unique.values():
            board.push(m)  # type: ignore[attr-defined]
            total += peer_perft(board, depth - 1)
            board.pop()  # type: ignore[attr-defined]
        return total

    board = pydraughts.Board(variant="italian")
    start = ITALIAN.initial_position()
    for depth in (1, 2, 3, 4):
        assert ITALIAN.perft(start, depth) == peer_perft(board, depth)
