"""The public rules interface: declared rules and hooks, and the fast paths following them.

The rulesets here are built in the test from a built-in one (Brazilian: 8x8, algebraic,
men capture backward, flying kings, longest capture) by changing one declaration or hook.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from variants import Color, GameRecord, Move, Outcome, Position, Reason, Variant
from variants.base import Criterion, Precedence, describe_precedence, localize
from variants.conformance import (
    ConformanceError,
    check_perft_matches_moves,
    check_reference_moves,
    random_playouts,
)
from variants.reference import covers
from variants.rulesets.brazilian import Brazilian


def notations(variant: Variant, fen: str) -> list[str]:
    position = variant.parse_fen(fen)
    legal = variant.legal_moves(position)
    return sorted(variant.format_move(position, m, legal) for m in legal)


class NoKingCapture(Brazilian):
    key = "test-no-king-capture"
    men_capture_kings = False


class KingFirst(Brazilian):
    key = "test-king-first"
    precedence = (Criterion.WITH_KING,)


class EarliestKing(Brazilian):
    key = "test-earliest-king"
    precedence = (Criterion.MOST_PIECES, Criterion.EARLIEST_KING)


class MostKings(Brazilian):
    key = "test-most-kings"
    precedence = (Criterion.MOST_PIECES, Criterion.MOST_KINGS)


class LowestOrigin(Brazilian):
    """A capture hook data cannot express: only captures from the lowest origin square."""

    key = "test-lowest-origin"
    precedence = Precedence.FREE

    def rank_captures(self, position: Position, moves: Sequence[Move]) -> list[Move]:
        low = min(m.origin for m in moves)
        return [m for m in moves if m.origin == low]


class NoKingMoves(Brazilian):
    """Overrides the public legal_moves: kings may not make quiet moves."""

    key = "test-no-king-moves"

    def legal_moves(self, position: Position) -> list[Move]:
        kings = position.kings(position.turn)
        moves = super().legal_moves(position)
        if moves and moves[0].captured:
            return moves
        return [m for m in moves if not (kings >> m.origin) & 1]


class OneRepetition(Brazilian):
    """Declares its own draw rule: drawn as soon as a position repeats."""

    key = "test-one-repetition"

    def draw_outcome(self, record: GameRecord) -> Outcome | None:
        if record.repetition_count() >= 2:
            return Outcome(None, Reason.THREEFOLD)
        return None


BRAZILIAN = Brazilian()


def test_men_may_not_capture_kings_but_kings_still_block() -> None:
    fen = "W:Wc3,e3:BKd4,f4"
    assert notations(BRAZILIAN, fen) == ["c3xe5xg3"]
    assert notations(NoKingCapture(), fen) == ["e3xg5"]


def test_a_king_may_capture_kings_when_men_may_not() -> None:
    assert notations(NoKingCapture(), "W:WKa1:BKc3") == ["a1xd4", "a1xe5", "a1xf6", "a1xg7",
                                                        "a1xh8"]


def test_with_king_criterion_makes_a_king_capture_first() -> None:
    fen = "W:Wc3,Kh2:Bd4,d6,g3"
    assert notations(BRAZILIAN, fen) == ["c3xe5xc7", "h2xf4xb8", "h2xf4xc7"]
    assert notations(KingFirst(), fen) == ["h2xf4xb8", "h2xf4xc7"]


def test_earliest_king_criterion_prefers_the_chain_meeting_a_king_first() -> None:
    fen = "W:Wc3:BKd4,f6,b4,Kb6"
    assert notations(MostKings(), fen) == ["c3xa5xc7", "c3xe5xg7"]
    assert notations(EarliestKing(), fen) == ["c3xe5xg7"]


def test_precedence_enum_and_criteria_agree() -> None:
    assert Precedence.MAX_PIECES_THEN_KINGS.criteria == (Criterion.MOST_PIECES,
                                                         Criterion.MOST_KINGS)
    assert MostKings().capture_criteria == Precedence.MAX_PIECES_THEN_KINGS.criteria
    assert Precedence.FREE.description == describe_precedence(())
    assert "meeting a king first" in EarliestKing().capture_rule_text()


def test_a_capture_hook_filters_complete_captures() -> None:
    fen = "W:Wc3,g3:Bd4,f4"
    assert notations(BRAZILIAN, fen) == ["c3xe5", "g3xe5"]
    assert notations(LowestOrigin(), fen) == [
        "c3xe5" if BRAZILIAN.parse_square("c3") < BRAZILIAN.parse_square("g3") else "g3xe5"]


# One position per rule above where it changes the legal moves.
SHOWCASES = ("W:Wc3,e3:BKd4,f4", "W:Wc3,Kh2:Bd4,d6,g3", "W:Wc3:BKd4,f6,b4,Kb6",
             "W:Wc3,g3:Bd4,f4")


@pytest.mark.parametrize("kind", [NoKingCapture, KingFirst, EarliestKing, LowestOrigin])
def test_perft_fast_path_follows_declared_rules_and_hooks(kind: type[Variant]) -> None:
    variant = kind()
    assert variant._fast_perft  # the raw-bitboard path, not a walk
    stats = random_playouts(variant, games=4, seed=3, max_plies=160, keep_positions=300)
    positions = [variant.parse_fen(fen) for fen in SHOWCASES] + stats.positions[::6]
    assert len(positions) >= 20
    differs = 0
    for position in positions:
        nodes = check_perft_matches_moves(variant, position, depth=2)
        differs += nodes != BRAZILIAN.perft(position, 2)
    assert differs > 0  # the rule changed the tree, and perft followed it


def test_perft_follows_an_overridden_legal_moves() -> None:
    variant = NoKingMoves()
    assert not variant._fast_perft
    position = variant.parse_fen("W:WKa1,c3:Bh8")
    assert variant.perft(position, 1) == 2  # c3-b4, c3-d4; the king may not move
    assert BRAZILIAN.perft(position, 1) == 3  # and a1-b2 (c3 blocks the diagonal)
    stats = random_playouts(variant, games=3, seed=5, max_plies=120, keep_positions=100)
    for p in stats.positions[::10]:
        check_perft_matches_moves(variant, p, depth=2)


def test_public_fast_path_api_splits_legal_moves() -> None:
    position = BRAZILIAN.parse_fen("W:Wc3,g3:Bd4")
    captures = BRAZILIAN.captures(position)
    quiet = BRAZILIAN.quiet_moves(position)
    assert [BRAZILIAN.format_move(position, m) for m in captures] == ["c3xe5"]
    assert sorted(BRAZILIAN.format_move(position, m) for m in quiet) == [
        "c3-b4", "g3-f4", "g3-h4"]
    assert BRAZILIAN.legal_moves(position) == captures
    assert BRAZILIAN.promotion_squares(Color.WHITE) == BRAZILIAN.geometry.rank_mask(7)


def test_draw_rules_are_a_hook() -> None:
    variant = OneRepetition()
    record = GameRecord.new(variant, variant.parse_fen("W:WKa1:BKh2"))
    for text in ("a1-b2", "h2-g1", "b2-a1"):
        record.push_notation(text)
        assert record.outcome() is None
    record.push_notation("g1-h2")
    assert record.outcome() == Outcome(None, Reason.THREEFOLD)
    shared = GameRecord.new(BRAZILIAN, BRAZILIAN.parse_fen("W:WKa1:BKh2"))
    for text in ("a1-b2", "h2-g1", "b2-a1", "g1-h2"):
        shared.push_notation(text)
    assert shared.outcome() is None


@pytest.mark.parametrize(("scoring", "white", "black", "draw"), [
    ("2-0", "2-0", "0-2", "1-1"), ("1-0", "1-0", "0-1", "1/2-1/2")])
def test_result_text_follows_scoring(scoring: str, white: str, black: str, draw: str) -> None:
    kind = type("Scored", (Brazilian,), {"key": "test-scored", "scoring": scoring})
    variant = kind()
    assert variant.result_text(Color.WHITE) == white
    assert variant.result_text(Color.BLACK) == black
    assert variant.result_text(None) == draw


def test_bad_declarations_are_refused_with_the_field_named() -> None:
    with pytest.raises(ValueError, match="scoring"):
        type("Bad", (Brazilian,), {"key": "bad", "scoring": "3-0"})()
    with pytest.raises(ValueError, match="precedence"):
        type("Bad", (Brazilian,), {"key": "bad", "precedence": ("longest",)})()


def test_words_fall_back_to_english() -> None:
    assert localize({"en": "Hello", "fr": "Bonjour"}, "fr-ca") == ("Bonjour", "fr")
    assert localize({"en": "Hello", "fr": "Bonjour"}, "pt-br") == ("Hello", "en")
    assert localize("Hello", "tr") == ("Hello", "en")
    kind = type("Worded", (Brazilian,), {
        "key": "test-worded", "display_names": {"fr": "Dames test"},
        "summary": {"en": "A test.", "fr": "Un test."},
        "capture_explanation": {"en": "Take!", "it": "Prendi!"}})
    variant = kind()
    assert variant.localized_name("fr") == "Dames test"
    assert variant.localized_name("it") is None
    assert variant.summary_text("fr") == "Un test."
    assert variant.capture_rule_text("it") == "Prendi!"
    assert variant.capture_rule_text("fr") == "Take!"
    assert variant.rules_page("en") is None  # Brazilian's page is not inherited
    assert BRAZILIAN.rules_page("fr") is not None
    assert NoKingCapture().localized_name("fr") is None  # nor its names


def test_board_spec_says_which_colour_is_played_on() -> None:
    assert BRAZILIAN.board.as_dict()["playing_squares"] == "dark"
    light = type("Light", (Brazilian,), {"key": "test-light", "playing_squares_dark": False})()
    assert light.board.as_dict()["playing_squares"] == "light"


@pytest.mark.parametrize("kind", [NoKingCapture, KingFirst, EarliestKing, MostKings,
                                  LowestOrigin])
def test_the_plain_reference_generator_agrees(kind: type[Variant]) -> None:
    variant = kind()
    stats = random_playouts(variant, games=3, seed=9, max_plies=160, keep_positions=200)
    positions = [variant.parse_fen(fen) for fen in SHOWCASES] + stats.positions[::4]
    assert check_reference_moves(variant, positions) == len(positions)


def test_the_reference_check_catches_a_fast_path_that_ignores_a_rule() -> None:
    variant = Brazilian()
    position = variant.parse_fen("W:Wc3,e3:Bd4,f4,d6")  # c3xe5xg3 beats the single captures
    assert check_reference_moves(variant, [position]) == 1
    variant._native_rank = 0  # a fast path forgetting the longest-capture rule
    with pytest.raises(ConformanceError, match="reference generator gives"):
        check_reference_moves(variant, [position])
    assert not covers(NoKingMoves())
    assert check_reference_moves(NoKingMoves(), [position]) == 0
