"""Turkish (Dama) rules: orthogonal, algebraic, a1 = White's near left."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from variants import Color, GameRecord, Outcome, Position, Reason, get_variant

Moves = Callable[[str, str], list[str]]
TUR = get_variant("turkish")


def test_man_moves_forward_or_sideways_never_backward(moves_of: Moves) -> None:
    assert moves_of("turkish", "W:Wd4:Ba8") == ["d4-c4", "d4-d5", "d4-e4"]
    assert moves_of("turkish", "B:Wa1:Bd4") == ["d4-c4", "d4-d3", "d4-e4"]


def test_man_captures_forward_and_sideways(moves_of: Moves) -> None:
    assert moves_of("turkish", "W:Wd4:Bd5") == ["d4xd6"]
    assert moves_of("turkish", "W:Wd4:Bc4") == ["d4xb4"]


def test_man_does_not_capture_backward(moves_of: Moves) -> None:
    assert moves_of("turkish", "W:Wd4:Bd3,h8") == ["d4-c4", "d4-d5", "d4-e4"]


def test_nothing_moves_diagonally(moves_of: Moves) -> None:
    assert moves_of("turkish", "W:Wd4:Be5,c5,h8") == ["d4-c4", "d4-d5", "d4-e4"]


def test_king_flies_along_ranks_and_files(moves_of: Moves) -> None:
    expected = [f"a1-a{r}" for r in range(2, 9)] + [f"a1-{f}1" for f in "bcdefgh"]
    assert moves_of("turkish", "W:WKa1:Bh8") == sorted(expected)


def test_flying_capture_lands_on_any_empty_square_beyond(moves_of: Moves) -> None:
    assert moves_of("turkish", "W:WKa1:Ba4,h8") == ["a1xa5", "a1xa6", "a1xa7", "a1xa8"]


def test_maximum_capture(moves_of: Moves) -> None:
    assert moves_of("turkish", "W:Wb2,g2:Bb3,b5,g3") == ["b2xb4xb6"]


def test_captured_pieces_leave_at_once_so_their_squares_can_be_crossed(moves_of: Moves) -> None:
    # The king takes a2, c4, d3, b2 and lands on a2, the square of the first piece taken.
    assert moves_of("turkish", "W:WKa1:Ba2,c4,d3,b2") == ["a1xa4xd4xd2xa2"]


def test_no_180_degree_turn_between_captures(moves_of: Moves) -> None:
    # Going back down over d2 after taking d6 would reverse the line.
    assert moves_of("turkish", "W:Wa1,Kd4:Bd6,d2,h8") == ["d4xd1", "d4xd7", "d4xd8"]


def test_man_on_the_far_row_goes_on_sideways_as_a_man_and_is_crowned_at_the_end() -> None:
    # As a king on b8 it could fly down over b4; as a man it cannot.
    position = TUR.parse_fen("W:Wb6:Bb7,c8,b4,h5")
    legal = TUR.legal_moves(position)
    assert [TUR.format_move(position, m, legal) for m in legal] == ["b6xb8xd8"]
    assert legal[0].promotes
    assert TUR.format_fen(TUR.apply(position, legal[0])) == "B:WKd8:Bb4,h5"


def test_one_king_against_one_lone_man_wins_at_once() -> None:
    for fen in ("W:WKa1:Bh7", "B:WKa1:Bh7"):
        assert GameRecord.new(TUR, TUR.parse_fen(fen)).outcome() == Outcome(
            Color.WHITE, Reason.KING_VS_MAN)
    assert GameRecord.new(TUR, TUR.parse_fen("W:Wa2:BKh8")).outcome() == Outcome(
        Color.BLACK, Reason.KING_VS_MAN)


def test_king_vs_man_rule_is_exact() -> None:
    for fen in ("W:WKa1,Kb1:Bh7", "W:WKa1:Bh7,g7", "W:WKa1:BKh8", "W:Wa2:Bh7"):
        assert GameRecord.new(TUR, TUR.parse_fen(fen)).outcome() is None, fen


def test_sideways_man_move_is_not_an_advance() -> None:
    record = GameRecord.new(TUR, TUR.parse_fen("W:Wa2:Bh7"))
    record.push_notation("a2-b2")
    record.push_notation("h7-g7")
    assert record.quiet_plies == 2
    record.push_notation("b2-b3")
    assert record.quiet_plies == 0


def test_the_king_vs_man_rule_keeps_to_its_declared_one_piece_a_side() -> None:
    """Turkish declares ``special_outcome_pieces = 2`` (what lets the engines' search and
    endgame tables know the rule exactly); the conformance kit checks a declaration against
    the hook, and catches a ruleset whose rule fires with more pieces than it declares."""
    from variants.conformance import ConformanceError, check_special_outcome_pieces
    from variants.rulesets.turkish import Turkish

    assert check_special_outcome_pieces(TUR, [TUR.initial_position()]) == 2001

    class KingsVsMan(Turkish):
        key = "test-kings-vs-man"
        aliases = ()

        def special_outcome(self, position: Position) -> Outcome | None:
            for color in Color:
                if (not position.men(color) and position.kings(color)
                        and position.pieces(color.opponent).bit_count() == 1
                        and not position.kings(color.opponent)):
                    return Outcome(color, Reason.KING_VS_MAN)  # any number of kings
            return None

    with pytest.raises(ConformanceError, match="special_outcome_pieces = 2"):
        check_special_outcome_pieces(KingsVsMan(), [KingsVsMan().parse_fen("W:WKa1,Kb1:Bh7")])
