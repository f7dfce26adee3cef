"""English checkers rules. Numbering: 1 = b8 ... 29 = a1, 32 = g1."""

from __future__ import annotations

from collections.abc import Callable

from variants import Color, get_variant

Moves = Callable[[str, str], list[str]]
ENG = get_variant("english")


def test_black_moves_first() -> None:
    start = ENG.initial_position()
    assert start.turn is Color.BLACK
    assert sorted(ENG.format_move(start, m) for m in ENG.legal_moves(start)) == [
        "10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]


def test_men_move_forward_only(moves_of: Moves) -> None:
    assert moves_of("english", "W:W18:B1") == ["18-14", "18-15"]
    assert moves_of("english", "B:W32:B18") == ["18-22", "18-23"]


def test_men_do_not_capture_backward(moves_of: Moves) -> None:
    # The black man on 22 is behind the white man on 18 with 25 empty: no capture.
    assert moves_of("english", "W:W18:B22") == ["18-14", "18-15"]


def test_men_capture_forward(moves_of: Moves) -> None:
    assert moves_of("english", "B:W22:B18") == ["18x25"]


def test_king_steps_one_square_in_four_directions(moves_of: Moves) -> None:
    assert moves_of("english", "W:WK18:B1") == ["18-14", "18-15", "18-22", "18-23"]


def test_king_captures_short_only(moves_of: Moves) -> None:
    # 23 is adjacent (taken, landing 27); 11 is two squares away on a diagonal: not a capture.
    assert moves_of("english", "W:WK18:B23,11") == ["18x27"]


def test_free_choice_of_capture_but_a_chain_must_be_completed(moves_of: Moves) -> None:
    # 29x22 takes one piece, 27x9 two: both legal; 27x18 (stopping half-way) is not.
    assert moves_of("english", "W:W27,29:B23,14,25") == ["27x9", "29x22"]


def test_crowning_ends_the_move() -> None:
    # the new king could jump 27 but the move ends on 31.
    position = ENG.parse_fen("B:W26,27:B22")
    legal = ENG.legal_moves(position)
    assert [ENG.format_move(position, m, legal) for m in legal] == ["22x31"]
    assert ENG.format_fen(ENG.apply(position, legal[0])) == "W:W27:BK31"
