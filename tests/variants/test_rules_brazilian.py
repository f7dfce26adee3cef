"""Brazilian rules: International rules on 8x8, algebraic notation."""

from __future__ import annotations

from collections.abc import Callable

from variants import get_variant

Moves = Callable[[str, str], list[str]]
BRA = get_variant("brazilian")


def test_men_move_forward_only(moves_of: Moves) -> None:
    assert moves_of("brazilian", "W:Wd4:Bh8") == ["d4-c5", "d4-e5"]


def test_man_captures_backward(moves_of: Moves) -> None:
    assert moves_of("brazilian", "W:Wd4:Bc3") == ["d4xb2"]


def test_maximum_capture_and_full_path_notation(moves_of: Moves) -> None:
    # h2xf4 takes one piece, c3xe5xg7 two: only the longer one is legal.
    assert moves_of("brazilian", "W:Wc3,h2:Bd4,f6,g3") == ["c3xe5xg7"]


def test_king_flies(moves_of: Moves) -> None:
    assert moves_of("brazilian", "W:WKa1:Bh8") == [
        "a1-b2", "a1-c3", "a1-d4", "a1-e5", "a1-f6", "a1-g7"]


def test_man_passing_the_far_row_stays_a_man() -> None:
    position = BRA.parse_fen("W:Wb6:Bc7,e7")
    (move,) = BRA.legal_moves(position)
    assert BRA.format_move(position, move) == "b6xd8xf6"
    assert BRA.format_fen(BRA.apply(position, move)) == "B:Wf6:B"


def test_numeric_input_is_accepted() -> None:
    start = BRA.initial_position()
    # International-style numbers on 8x8: 22 = c3, 18 = d4.
    assert BRA.parse_move(start, "22-18") == BRA.parse_move(start, "c3-d4")
    assert BRA.parse_fen("W:W22:B1") == BRA.parse_fen("W:Wc3:Bb8")
