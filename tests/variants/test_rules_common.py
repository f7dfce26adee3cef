"""Rules common to every ruleset: alternation, results, draws, move identity, notation, errors."""

from __future__ import annotations

import random

import pytest

from variants import (
    AmbiguousMove,
    Color,
    GameRecord,
    IllegalMove,
    InvalidFEN,
    InvalidNotation,
    InvalidSquare,
    Move,
    Outcome,
    Position,
    Reason,
    UnknownVariant,
    Variant,
    VariantError,
    get_variant,
    variant_keys,
)

KEYS = ["international", "english", "brazilian", "spanish", "turkish"]


def test_builtins_are_registered() -> None:
    assert variant_keys()[:5] == KEYS


@pytest.mark.parametrize("key", KEYS)
def test_players_alternate(key: str) -> None:
    variant = get_variant(key)
    start = variant.initial_position()
    after = variant.apply(start, variant.legal_moves(start)[0])
    assert after.turn is start.turn.opponent


def test_every_jumped_piece_is_captured() -> None:
    v = get_variant("international")
    position = v.parse_fen("W:W34:B29,18")
    (move,) = v.legal_moves(position)
    assert v.format_fen(v.apply(position, move)) == "B:W12:B"


def test_win_when_the_opponent_has_no_pieces() -> None:
    v = get_variant("international")
    outcome = GameRecord.new(v, v.parse_fen("B:W28:B")).outcome()
    assert outcome == Outcome(Color.WHITE, Reason.NO_PIECES)
    assert outcome is not None and outcome.result == "2-0"


def test_win_when_the_opponent_has_no_legal_move() -> None:
    v = get_variant("international")
    # The black man on 36 is blocked by 41 and cannot jump it (47 is taken).
    position = v.parse_fen("B:W41,47:B36")
    assert v.legal_moves(position) == []
    outcome = GameRecord.new(v, position).outcome()
    assert outcome == Outcome(Color.WHITE, Reason.NO_MOVES)
    assert outcome is not None and outcome.result == "2-0"


def test_threefold_repetition_counts_the_start_position() -> None:
    v = get_variant("international")
    record = GameRecord.new(v, v.parse_fen("W:WK46:BK1"))
    for ply, text in enumerate(["46-41", "1-6", "41-46", "6-1"] * 2, 1):
        assert record.outcome() is None
        record.push_notation(text)
        assert record.ply == ply
    # The start position now stands for the third time (start, ply 4, ply 8).
    assert record.repetition_count() == 3
    assert record.outcome() == Outcome(None, Reason.THREEFOLD)
    assert record.outcome() is not None


def test_a_copied_record_goes_on_by_itself() -> None:
    v = get_variant("international")
    record = GameRecord.new(v, v.parse_fen("W:WK46:BK1"))
    for text in ["46-41", "1-6", "41-46", "6-1", "46-41", "1-6", "41-46"]:
        record.push_notation(text)
    copy = record.copy()
    copy.push_notation("6-1")  # the start position a third time, in the copy only
    assert copy.outcome() == Outcome(None, Reason.THREEFOLD)
    assert (copy.ply, copy.quiet_plies) == (8, 8)
    assert record.outcome() is None
    assert (record.ply, record.quiet_plies, record.repetition_count()) == (7, 7, 2)
    copy.pop()
    assert copy.positions == record.positions and copy.quiet_plies == record.quiet_plies


def _quiet_walk(variant: Variant, fen: str, plies: int) -> GameRecord:
    """Play ``plies`` king moves that capture nothing, allow no capture, repeat nothing.

    Looks one reply ahead so that the opponent always has such a move too; the order of
    candidate moves is shuffled by a fixed seed.
    """
    rng = random.Random(0)
    record = GameRecord.new(variant, variant.parse_fen(fen))

    def safe(position: Position, seen: set[Position]) -> list[tuple[Move, Position]]:
        out = []
        for move in variant.legal_moves(position):
            after = variant.apply(position, move)
            if not move.captured and not variant.has_capture(after) and after not in seen:
                out.append((move, after))
        rng.shuffle(out)
        return out

    for _ in range(plies):
        assert record.outcome() is None, (record.ply, record.outcome())
        seen = set(record.positions)
        for move, after in safe(record.position, seen):
            if safe(after, seen | {after}):
                record.push(move)
                break
        else:
            pytest.fail(f"no fresh quiet move at ply {record.ply}")
    return record


QUIET_KINGS = {
    # FMJD: three kings against one is drawn after 16 moves; not on Kondavo.
    "international": "W:WK47,K48,K49:BK25",
    # WCDF 40-move rule; not on Kondavo.
    "english": "W:WK29,K30,K31:BK4",
    # Brazilian 20-move rule; not on Kondavo.
    "brazilian": "W:WKc1,Ke1,Kg1:BKb8",
    "spanish": "W:WK2,K3,K4:BK29",
    # Turkish federation: one piece each is a draw; not on Kondavo.
    "turkish": "W:WKa1:BKh8",
}


@pytest.mark.parametrize("key", KEYS)
def test_fifty_move_rule_and_no_federation_draw_rules(key: str) -> None:
    variant = get_variant(key)
    record = _quiet_walk(variant, QUIET_KINGS[key], 99)
    # 16, 20, 25 and 40 moves have passed: the game goes on.
    assert record.quiet_plies == 99
    assert record.outcome() is None
    record = _quiet_walk(variant, QUIET_KINGS[key], 100)
    assert record.outcome() == Outcome(None, Reason.FIFTY_MOVES)


def test_capture_resets_the_draw_counter() -> None:
    v = get_variant("international")
    record = GameRecord.new(v, v.parse_fen("W:WK46,28:BK5,22"))
    record.push_notation("28x17")
    assert record.quiet_plies == 0


def test_promotion_counts_as_a_forward_man_move() -> None:
    v = get_variant("international")
    record = GameRecord.new(v, v.parse_fen("W:W7,K46:BK50"))
    record.push_notation("46-41")
    record.push_notation("50-44")
    assert record.quiet_plies == 2
    record.push_notation("7-1")
    assert record.quiet_plies == 0
    assert v.format_fen(record.position) == "B:WK1,K41:BK44"


# --- notation (section 2) -----------------------------------------------------------------

AMBIGUOUS = "W:W30:B25,17,26,18"  # English: 30x21x14 and 30x23x14 both end on 14


def test_ambiguous_short_form_is_rejected_with_the_candidates() -> None:
    v = get_variant("english")
    position = v.parse_fen(AMBIGUOUS)
    legal = v.legal_moves(position)
    assert sorted(v.format_move(position, m, legal) for m in legal) == [
        "30x21x14", "30x23x14"]
    with pytest.raises(AmbiguousMove) as err:
        v.parse_move(position, "30x14")
    assert sorted(err.value.candidates) == ["30x21x14", "30x23x14"]
    assert "30x21x14" in str(err.value) and "30x23x14" in str(err.value)
    move = v.parse_move(position, "30x21x14")
    assert sorted(v.square_label(s) for s in move.captured) == ["17", "25"]
    assert v.format_move(position, move) == "30x21x14"


def test_unambiguous_capture_accepts_short_form_and_full_path() -> None:
    v = get_variant("international")
    position = v.parse_fen("W:W34:B29,18")
    short = v.parse_move(position, "34x12")
    assert v.parse_move(position, "34x23x12") == short
    assert v.format_move(position, short) == "34x12"


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("fen", ["", "X:W31:B1", "W:W51:B1", "W:W31,31:B1", "W:W31:W32",
                                 "W:Q31:B1", "W:W40-31:B1", "W:W31:B31"])
def test_bad_fen_raises_invalid_fen(fen: str) -> None:
    with pytest.raises(InvalidFEN) as err:
        get_variant("international").parse_fen(fen)
    assert str(err.value)


def test_unknown_square() -> None:
    with pytest.raises(InvalidSquare, match="51"):
        get_variant("international").parse_square("51")
    with pytest.raises(InvalidSquare, match="i9"):
        get_variant("turkish").parse_square("i9")
    with pytest.raises(InvalidSquare):
        get_variant("spanish").parse_square("a1")  # not a playing square in Spanish


def test_unknown_variant() -> None:
    with pytest.raises(UnknownVariant, match="chess"):
        get_variant("chess")
    assert issubclass(UnknownVariant, LookupError)


def test_move_errors_are_specific_and_mutate_nothing() -> None:
    v = get_variant("international")
    record = GameRecord.new(v)
    before = record.position
    cases: list[tuple[str, type[VariantError], str]] = [
        ("hello", InvalidNotation, "not a move"),
        ("31-99", InvalidNotation, "99"),
        ("31-25", IllegalMove, "31-25"),
        ("20-24", IllegalMove, "20-24"),  # Black's man while White is to move
    ]
    for text, error, fragment in cases:
        with pytest.raises(error, match=fragment):
            record.push_notation(text)
        assert record.ply == 0
        assert record.position == before
    assert all(issubclass(e, ValueError) for _t, e, _f in cases)


def test_mandatory_capture_is_explained() -> None:
    v = get_variant("international")
    position = v.parse_fen("W:W28,48:B22")
    with pytest.raises(IllegalMove, match="capture is mandatory"):
        v.parse_move(position, "48-42")


def test_applying_a_move_of_the_wrong_side_raises() -> None:
    v = get_variant("international")
    start = v.initial_position()
    black_move = v.legal_moves(v.parse_fen("B:W31-50:B1-20"))[0]
    with pytest.raises(IllegalMove, match="no White piece"):
        v.apply(start, black_move)
    assert start == v.initial_position()


def test_record_push_rejects_an_illegal_move() -> None:
    v = get_variant("english")
    record = GameRecord.new(v)
    white_move = v.legal_moves(v.parse_fen("W:W21-32:B1-12"))[0]
    with pytest.raises(IllegalMove):
        record.push(white_move)
    assert record.ply == 0


def test_any_full_path_of_a_move_is_accepted() -> None:
    # The king may land on 32 or 28 after taking 37 and still take 23: one move, two paths.
    v = get_variant("international")
    position = v.parse_fen("W:WK46:B37,23")
    move = v.parse_move(position, "46x19")
    assert v.parse_move(position, "46x28x19") == move
    assert v.parse_move(position, "46x32x19") == move
    with pytest.raises(IllegalMove):
        v.parse_move(position, "46x32x18x19")
    # The loop of section 8 can be written either way round.
    loop = v.parse_fen("W:WK2:B7,8,17,18")
    assert v.parse_move(loop, "2x11x22x13x2") == v.parse_move(loop, "2x13x22x11x2")
    with pytest.raises(IllegalMove):
        v.parse_move(loop, "2x16x27x13x2")


def test_replaying_notation_names_the_move_number() -> None:
    v = get_variant("english")
    with pytest.raises(IllegalMove, match=r"^move 2 \(1-2\)"):
        GameRecord.from_notation(v, ["11-15", "23-19", "1-2"])
    with pytest.raises(AmbiguousMove, match=r"^move 1 \(30x14\)") as err:
        GameRecord.from_notation(v, ["30x14"], start_fen=AMBIGUOUS)
    assert sorted(err.value.candidates) == ["30x21x14", "30x23x14"]
