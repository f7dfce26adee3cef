"""Every engine error carries a stable code and its params (variants/errors.py), and its
English text (the command line's and the logs') is built from them."""

from __future__ import annotations

import pickle

import pytest

from variants import (
    AmbiguousMove,
    GameRecord,
    IllegalMove,
    InvalidFEN,
    InvalidNotation,
    InvalidPDN,
    PDNMoveError,
    UnknownVariant,
    VariantError,
    get_variant,
)
from variants.errors import MESSAGES, describe, error_codes
from variants.pdn import read_pdn

INTL = get_variant("international")
ENGLISH = get_variant("english")


def _raised(call: object) -> VariantError:
    with pytest.raises(VariantError) as info:
        call()  # type: ignore[operator]
    return info.value


@pytest.mark.parametrize(("fen", "code", "params", "text"), [
    ("X:W31", "fen_no_turn", {"fen": "X:W31"},
     "'X:W31': a FEN starts with the side to move, W or B"),
    ("W:Q31:B1", "fen_bad_list", {"fen": "W:Q31:B1", "letter": "Q"},
     "'W:Q31:B1': each piece list starts with W or B, not 'Q'"),
    ("W:W31:W32", "fen_list_twice", {"fen": "W:W31:W32", "letter": "W"},
     "'W:W31:W32': the W piece list appears twice"),
    ("W:W31:B31", "fen_square_twice", {"fen": "W:W31:B31", "square": "31"},
     "'W:W31:B31': square 31 is given twice"),
])
def test_fen_errors_name_their_code_and_params(fen: str, code: str, params: dict[str, str],
                                               text: str) -> None:
    exc = _raised(lambda: INTL.parse_fen(fen))
    assert isinstance(exc, InvalidFEN)
    assert exc.code == code and dict(exc.params) == params and exc.cause is None
    assert str(exc) == text


def test_a_bad_square_in_a_fen_wraps_the_square_error() -> None:
    exc = _raised(lambda: INTL.parse_fen("W:W51:B1"))
    assert exc.code == "fen_bad_square" and exc.params["fen"] == "W:W51:B1"
    assert exc.cause is not None and exc.cause.code == "square_not_playable"
    assert dict(exc.cause.params) == {"text": "51", "ruleset": "International",
                                      "ruleset_key": "international"}
    assert str(exc) == "'W:W51:B1': '51' is not a playable square in International"
    assert error_codes(exc) == ["fen_bad_square", "square_not_playable"]


def test_move_errors() -> None:
    start = INTL.initial_position()
    exc = _raised(lambda: INTL.parse_move(start, "hello"))
    assert isinstance(exc, InvalidNotation) and exc.code == "not_a_move"
    assert dict(exc.params) == {"text": "hello", "example": INTL.format_move(
        start, INTL.legal_moves(start)[0])}
    exc = _raised(lambda: INTL.parse_move(start, "32-26"))
    assert isinstance(exc, IllegalMove) and exc.code == "move_illegal"
    assert dict(exc.params) == {"move": "32-26"}
    assert str(exc) == "32-26 is not a legal move here"
    capture = ENGLISH.parse_fen("B:W18:B14")  # 14x23 is forced
    exc = _raised(lambda: ENGLISH.parse_move(capture, "14-17"))
    assert exc.code == "move_illegal_capture" and dict(exc.params) == {"move": "14-17",
                                                                       "count": 1}
    assert str(exc) == ("14-17 is not a legal move here (a capture is mandatory: 1 piece(s) "
                        "must be taken)")


def test_an_ambiguous_move_lists_its_candidates() -> None:
    exc = AmbiguousMove("28x19", ["28x23x19", "28x17x19"])
    assert exc.code == "move_ambiguous"
    assert dict(exc.params) == {"text": "28x19", "candidates": "28x23x19, 28x17x19"}
    assert exc.candidates == ("28x23x19", "28x17x19")
    assert str(exc) == ("28x19 is ambiguous: it could be 28x23x19, 28x17x19; write the full "
                        "capture path")


def test_a_replayed_move_names_its_number_and_keeps_its_class() -> None:
    exc = _raised(lambda: GameRecord.from_notation(INTL, ["32-28", "32-28"]))
    assert isinstance(exc, IllegalMove)
    assert exc.code == "move_in_game" and dict(exc.params) == {"number": 1, "text": "32-28"}
    assert error_codes(exc) == ["move_in_game", "move_illegal"]
    assert str(exc) == "move 1 (32-28): 32-28 is not a legal move here"


@pytest.mark.parametrize(("text", "code", "params"), [
    ('[Event "x"\n1. 32-28 *', "pdn_malformed_tag", {"line": 1}),
    ("1. 32-28 {never closed", "pdn_unterminated_comment", {"line": 1}),
    ("1. 32-28 )", "pdn_unopened_variation", {"line": 1}),
    ("1. 32-28 (19-23", "pdn_unclosed_variation", {}),
    ('[GameType "99"]\n1. 32-28 *', "pdn_unknown_gametype", {"game": 1, "gametype": "99"}),
])
def test_pdn_errors(text: str, code: str, params: dict[str, object]) -> None:
    exc = _raised(lambda: read_pdn(text, None if "GameType" in text else INTL))
    assert isinstance(exc, InvalidPDN)
    assert exc.code == code and dict(exc.params) == params


def test_pdn_move_and_fen_errors_wrap_their_cause() -> None:
    exc = _raised(lambda: read_pdn("1. 32-28 32-28 *", INTL))
    assert isinstance(exc, PDNMoveError) and isinstance(exc, IllegalMove)
    assert exc.code == "pdn_bad_move"
    assert dict(exc.params) == {"game": 1, "number": 1, "text": "32-28"}
    assert error_codes(exc) == ["pdn_bad_move", "move_illegal"]
    assert str(exc) == "game 1, move 1 (32-28): 32-28 is not a legal move here"
    exc = _raised(lambda: read_pdn('[FEN "Q:W31"]\n*', INTL))
    assert error_codes(exc) == ["pdn_bad_fen", "fen_no_turn"]
    assert str(exc) == "game 1: bad FEN tag: 'Q:W31': a FEN starts with the side to move, W or B"


def test_unknown_ruleset() -> None:
    exc = _raised(lambda: get_variant("checkers-on-mars"))
    assert isinstance(exc, UnknownVariant) and exc.code == "ruleset_unknown_name"
    assert exc.params["name"] == "checkers-on-mars"


def test_an_error_with_its_own_text_has_its_class_code() -> None:
    exc = InvalidFEN("a plugin's own words")
    assert exc.code == "invalid_fen" and dict(exc.params) == {} and str(exc) == \
        "a plugin's own words"
    assert VariantError("x").code == "error"


def test_every_code_has_an_english_message_that_formats() -> None:
    assert describe("move_illegal", {"move": "32-27"}) == "32-27 is not a legal move here"
    assert describe("no-such-code", {}) == "no-such-code"
    assert all(isinstance(text, str) and text for text in MESSAGES.values())


def test_errors_survive_pickling() -> None:
    exc = _raised(lambda: read_pdn("1. 32-28 32-28 *", INTL))
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is PDNMoveError and back.code == exc.code
    assert dict(back.params) == dict(exc.params) and str(back) == str(exc)
    assert back.cause is not None and back.cause.code == "move_illegal"
