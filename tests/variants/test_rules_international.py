"""International rules and the shared rules, one test per rule.

Numbering (White at the bottom): 1 = b10 ... 5 = j10, 46 = a1 ... 50 = i1.
"""

from __future__ import annotations

from collections.abc import Callable

from variants import Color, get_variant

Moves = Callable[[str, str], list[str]]
INTL = get_variant("international")


def test_man_moves_one_square_diagonally_forward(moves_of: Moves) -> None:
    assert moves_of("international", "W:W33:B3") == ["33-28", "33-29"]
    assert moves_of("international", "B:W48:B18") == ["18-22", "18-23"]


def test_capture_is_mandatory_and_man_captures_forward(moves_of: Moves) -> None:
    assert moves_of("international", "W:W28,48:B22") == ["28x17"]


def test_man_captures_backward(moves_of: Moves) -> None:
    assert moves_of("international", "W:W28:B33") == ["28x39"]


def test_king_flies_along_a_diagonal(moves_of: Moves) -> None:
    assert moves_of("international", "W:WK46:B5") == [
        "46-10", "46-14", "46-19", "46-23", "46-28", "46-32", "46-37", "46-41"]


def test_flying_king_captures_at_a_distance_and_lands_on_any_square_beyond(
        moves_of: Moves) -> None:
    assert moves_of("international", "W:WK46:B28") == [
        "46x10", "46x14", "46x19", "46x23", "46x5"]


def test_flying_king_must_land_where_it_can_continue(moves_of: Moves) -> None:
    # After jumping 28 only the landing on 19 lets the king go on (over 24).
    assert moves_of("international", "W:WK46:B28,24") == ["46x30", "46x35"]


def test_maximum_capture_counts_kings_and_men_alike(moves_of: Moves) -> None:
    # 32x21 takes a king, 34x12 takes two men: the two men are mandatory.
    assert moves_of("international", "W:W32,34:BK27,29,18") == ["34x12"]


def test_free_choice_among_maximal_captures_and_jumped_pieces_block(moves_of: Moves) -> None:
    # Both take two pieces. From 4 the king cannot go back over 9 (still on the board until
    # the move ends) to take 31 as well.
    assert moves_of("international", "W:WK2:B8,9,31") == ["2x36", "2x4"]


def test_two_paths_with_the_same_captures_are_one_move() -> None:
    # the king loops round and returns to 2, clockwise or not: one move.
    position = INTL.parse_fen("W:WK2:B7,8,17,18")
    legal = INTL.legal_moves(position)
    assert [INTL.format_move(position, m, legal) for m in legal] == ["2x2"]
    assert sorted(INTL.square_label(s) for s in legal[0].captured) == ["17", "18", "7", "8"]
    # A piece cannot be jumped twice: 7 stays jumped once although 2x11 would follow.
    assert INTL.format_fen(INTL.apply(position, legal[0])) == "B:WK2:B"


def test_man_passing_the_far_row_mid_capture_stays_a_man(moves_of: Moves) -> None:
    assert moves_of("international", "W:W13:B8,7") == ["13x11"]
    position = INTL.parse_fen("W:W13:B8,7")
    (move,) = INTL.legal_moves(position)
    assert [INTL.square_label(s) for s in move.path] == ["13", "2", "11"]
    assert not move.promotes
    assert INTL.format_fen(INTL.apply(position, move)) == "B:W11:B"


def test_man_ending_a_capture_on_the_far_row_is_crowned() -> None:
    position = INTL.parse_fen("W:W13:B8")
    (move,) = INTL.legal_moves(position)
    assert INTL.format_move(position, move) == "13x2"
    assert INTL.format_fen(INTL.apply(position, move)) == "B:WK2:B"


def test_man_moving_to_the_far_row_is_crowned(moves_of: Moves) -> None:
    assert moves_of("international", "W:W7:B50") == ["7-1", "7-2"]
    position = INTL.parse_fen("W:W7:B50")
    after = INTL.apply(position, INTL.parse_move(position, "7-1"))
    assert INTL.format_fen(after) == "B:WK1:B50"


def test_start_position_white_moves_first() -> None:
    start = INTL.initial_position()
    assert INTL.format_fen(start) == "W:W31-50:B1-20".replace(
        "31-50", ",".join(str(i) for i in range(31, 51))).replace(
        "1-20", ",".join(str(i) for i in range(1, 21)))
    assert start.turn is Color.WHITE
    assert len(INTL.legal_moves(start)) == 9
