"""PDN 3.0 reading and writing (variants/pdn.py)."""

from __future__ import annotations

import pytest

from variants import (
    AmbiguousMove,
    GameRecord,
    IllegalMove,
    InvalidPDN,
    PDNMoveError,
    Registry,
    UnknownVariant,
    get_variant,
)
from variants.pdn import MAX_PDN_CHARS, read_pdn, write_pdn
from variants.registry import BUILTINS

INTL = get_variant("international")


def test_write_has_the_seven_tags_gametype_and_numbered_movetext() -> None:
    record = GameRecord.from_notation(INTL, ["32-28", "19-23", "28x19", "14x23"])
    text = write_pdn(record, {"Event": "Club night", "White": "Ada", "Black": "Bob",
                              "Date": "2026.11.29", "Annotator": 'Say "hi"'})
    assert text.splitlines() == [
        '[Event "Club night"]',
        '[Site "?"]',
        '[Date "2026.11.29"]',
        '[Round "?"]',
        '[White "Ada"]',
        '[Black "Bob"]',
        '[Result "*"]',
        '[GameType "20,W,10,10,N2,0"]',
        '[Annotator "Say \\"hi\\""]',
        "",
        "1. 32-28 19-23 2. 28x19 14x23 *",
    ]
    (game,) = read_pdn(text)
    assert game.tags["Annotator"] == 'Say "hi"'
    assert game.moves == ["32-28", "19-23", "28x19", "14x23"]


def test_write_result_from_the_outcome_and_fen_for_a_set_up_position() -> None:
    record = GameRecord.new(INTL, INTL.parse_fen("W:W28:B22"))
    record.push_notation("28x17")
    text = write_pdn(record)
    assert '[Result "2-0"]' in text
    assert '[SetUp "1"]' in text and '[FEN "W:W28:B22"]' in text
    assert text.rstrip().endswith("1. 28x17 2-0")
    (game,) = read_pdn(text)
    assert game.result == "2-0"
    assert game.start_fen == "W:W28:B22"
    assert game.record.outcome() is not None


def test_black_to_move_start_uses_an_ellipsis() -> None:
    record = GameRecord.new(INTL, INTL.parse_fen("B:W45:B4"))
    record.push_notation("4-10")
    record.push_notation("45-40")
    text = write_pdn(record)
    assert "1... 4-10 2. 45-40 *" in text
    assert read_pdn(text)[0].moves == ["4-10", "45-40"]


@pytest.mark.parametrize("key", ["international", "english", "brazilian", "spanish", "turkish"])
def test_round_trip_every_ruleset(key: str) -> None:
    variant = get_variant(key)
    record = GameRecord.new(variant)
    for _ in range(30):
        if record.outcome() is not None:
            break
        moves = sorted(variant.legal_moves(record.position), key=lambda m: m.key)
        record.push(moves[record.ply % len(moves)])
    (game,) = read_pdn(write_pdn(record))
    assert game.variant is variant
    assert game.moves == record.notations
    assert game.record.position == record.position


SAMPLE = """
% an escape line, ignored
[Event "First"]
[GameType "20"]
[Result "2-0"]
1. 32-28 {a comment (with brackets)} 19-23 (1... 18-23 2. 40-34 (2. 33-29)) 2. 28x19 $1
14x23! ; to the end of the line
3. 37-32? 2-0

[Event "Second"]
[GameType "21,B,8,8,N1,0"]
1.11-15 23-19 2. 8-11 1-0
[Event "Third"]
[GameType "30,W,8,8,A0,0"]
1. d3-d4 d6-d5 *
"""


def test_read_several_games_skipping_comments_and_variations() -> None:
    games = read_pdn(SAMPLE)
    assert [g.tags["Event"] for g in games] == ["First", "Second", "Third"]
    assert [g.variant.key for g in games] == ["international", "english", "turkish"]
    assert games[0].moves == ["32-28", "19-23", "28x19", "14x23", "37-32"]
    assert games[1].moves == ["11-15", "23-19", "8-11"]
    assert games[2].moves == ["d3-d4", "d6-d5"]
    assert [g.result for g in games] == ["2-0", "2-0", "*"]


def test_without_gametype_the_given_variant_is_used() -> None:
    (game,) = read_pdn("1. 11-15 23-19 *", variant=get_variant("english"))
    assert game.variant.key == "english"
    with pytest.raises(InvalidPDN, match="no GameType"):
        read_pdn("1. 11-15 23-19 *")


def test_unknown_gametype() -> None:
    with pytest.raises(InvalidPDN, match="GameType"):
        read_pdn('[GameType "99"]\n1. 11-15 *')
    (game,) = read_pdn('[GameType "99"]\n1. 11-15 *', variant=get_variant("english"))
    assert game.variant.key == "english"


def test_illegal_move_names_the_move_number_and_reason() -> None:
    text = '[GameType "20"]\n1. 32-28 19-23 2. 28-22 *'
    with pytest.raises(PDNMoveError) as err:
        read_pdn(text)
    assert isinstance(err.value, InvalidPDN) and isinstance(err.value, IllegalMove)
    assert err.value.move_number == 2 and err.value.text == "28-22"
    assert "move 2 (28-22)" in str(err.value)
    assert "capture is mandatory" in str(err.value)


def test_ambiguous_move_is_reported() -> None:
    text = ('[GameType "21"]\n[SetUp "1"]\n[FEN "W:W30:B25,17,26,18"]\n'
            "1... 30x14 *")
    with pytest.raises(PDNMoveError) as err:
        read_pdn(text)
    assert isinstance(err.value.cause, AmbiguousMove)
    assert "30x21x14" in str(err.value) and "move 1" in str(err.value)


@pytest.mark.parametrize("text, fragment", [
    ('[GameType "20"]\n1. 32-28 {never closed', "unterminated comment"),
    ('[GameType "20"]\n1. 32-28 (19-23 *', "never closed"),
    ('[GameType "20"]\n1. 32-28 ) *', "closes no variation"),
    ('[GameType "20"]\n[FEN "W:W99:B1"]\n*', "bad FEN"),
    ('[GameType "20"\n1. 32-28 *', "malformed tag"),
])
def test_malformed_pdn(text: str, fragment: str) -> None:
    with pytest.raises(InvalidPDN, match=fragment):
        read_pdn(text)


def test_oversized_input_is_refused() -> None:
    with pytest.raises(InvalidPDN, match="too large"):
        read_pdn(" " * (MAX_PDN_CHARS + 1))


def test_registry_by_gametype() -> None:
    registry = Registry(BUILTINS)
    assert registry.by_gametype(26).key == "brazilian"
    assert registry.by_gametype("24,W,8,8,N1,1").key == "spanish"
    with pytest.raises(UnknownVariant):
        registry.by_gametype(99)


def test_results_are_written_in_the_ruleset_scoring() -> None:
    english = get_variant("english")
    record = GameRecord.new(english)
    record.push_notation("9-14")
    text = write_pdn(record, {"Result": "2-0"})
    assert '[Result "1-0"]' in text and text.rstrip().endswith("1-0")
    assert '[Result "1/2-1/2"]' in write_pdn(record, {"Result": "1-1"})
    international = get_variant("international")
    assert '[Result "0-2"]' in write_pdn(GameRecord.new(international), {"Result": "0-1"})
    (game,) = read_pdn(text)
    assert game.result == "2-0"  # read back as the PDN 3.0 value
