"""Spanish rules. Numbering: 1 = h1, 4 = b1, 5 = g2 ... 32 = a8."""

from __future__ import annotations

from collections.abc import Callable

from variants import get_variant

Moves = Callable[[str, str], list[str]]
SPA = get_variant("spanish")


def test_board_is_the_mirror_of_brazilian() -> None:
    assert SPA.square_label(SPA.geometry.square_at(0, 7) or 0) == "1"  # h1
    assert SPA.geometry.square_at(0, 0) is None  # a1 is not playable
    assert SPA.parse_square("32") == SPA.geometry.square_at(7, 0)  # a8


def test_men_move_forward_only_and_do_not_capture_backward(moves_of: Moves) -> None:
    # The black man on 11 (d3) is behind 14 (e4) with 7 empty: no capture.
    assert moves_of("spanish", "W:W14:B11") == ["14-18", "14-19"]


def test_king_flies(moves_of: Moves) -> None:
    assert moves_of("spanish", "W:WK1:B32") == ["1-10", "1-14", "1-19", "1-23", "1-28", "1-5"]


def test_most_kings_among_captures_of_equal_length(moves_of: Moves) -> None:
    # Each capture takes one piece; 14x21 takes a king, 14x23 a man: only 14x21.
    assert moves_of("spanish", "W:W14:B19,K18") == ["14x21"]


def test_most_pieces_before_most_kings(moves_of: Moves) -> None:
    # Two men (14x30) beat one king (14x21).
    assert moves_of("spanish", "W:W14:B19,27,K18") == ["14x30"]


def test_capturing_king_has_no_priority_over_a_capturing_man(moves_of: Moves) -> None:
    assert moves_of("spanish", "W:W14,K1:B5,19") == ["14x23", "1x10"]


def test_crowning_ends_the_move() -> None:
    position = SPA.parse_fen("W:W23:B27,26")
    legal = SPA.legal_moves(position)
    assert [SPA.format_move(position, m, legal) for m in legal] == ["23x30"]
    assert SPA.format_fen(SPA.apply(position, legal[0])) == "B:WK30:B26"
