"""The rule fields for kings, orthogonal captures on a diagonal board and capture by value.

Every case is a literal position with its exact set of legal moves, checked on the
ruleset's generator and on the plain reference generator (:mod:`variants.reference`).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from variants import Criterion, Variant, get_variant
from variants.conformance import random_playouts, run_all
from variants.reference import reference_moves
from variants.toml_rulesets import RulesetFileError, load_ruleset_file
from variants.words import describe_precedence

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
FRISIAN = DATA / "frisian-like.toml"
SHORT_LANDING = DATA / "short-landing.toml"

BOARD = 'board = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W21-32:B1-12"\n'
EIGHT = BOARD + 'men_capture = "forward-and-backward"\n'


def ruleset(tmp_path: Path, text: str, key: str = "test-fields") -> Variant:
    path = tmp_path / f"{key}.toml"
    path.write_text(f'key = "{key}"\nname = "Test fields"\n{text}', encoding="utf-8")
    return load_ruleset_file(path)


def edited(tmp_path: Path, source: Path, key: str, *changes: tuple[str, str]) -> Variant:
    """The ruleset of ``source`` under ``key`` with each (old, new) text replaced."""
    text = source.read_text(encoding="utf-8")
    for old, new in (("key = " + text.split("key = ", 1)[1].split("\n", 1)[0],
                      f'key = "{key}"'), *changes):
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / f"{key}.toml"
    path.write_text(text, encoding="utf-8")
    return load_ruleset_file(path)


def moves(variant: Variant, fen: str) -> list[str]:
    """The legal moves of ``fen`` in notation, sorted; the reference generator must list
    the same moves (same keys, same promotions)."""
    position = variant.parse_fen(fen)
    legal = variant.legal_moves(position)
    reference = reference_moves(variant, position)
    assert {m.key: m.promotes for m in legal} == \
        {k: m.promotes for k, m in reference.items()}, fen
    return sorted(variant.format_move(position, m, legal) for m in legal)


@pytest.fixture(scope="module")
def frisian() -> Variant:
    return load_ruleset_file(FRISIAN)


# --- men capturing orthogonally on a diagonal board -----------------------------------------

@pytest.mark.parametrize(("fen", "expected"), [
    ("W:W28:B29", ["28x30"]),  # along the row: g5 two files away, lands on i5
    ("B:W29:B28", ["28x30"]),  # the same for Black
    ("W:W38:B28", ["38x18"]),  # up the e-file: e3 over e5 to e7
    ("W:W18:B28", ["18x38"]),  # and down it (men capture backward too)
    ("W:W28:B29,25", ["28x30"]),  # from i5, j6 stands on the edge: nothing behind it
])
def test_men_capture_along_rows_and_files(frisian: Variant, fen: str,
                                          expected: list[str]) -> None:
    assert moves(frisian, fen) == expected


def test_without_the_orthogonal_vectors_the_same_position_has_no_capture() -> None:
    international = get_variant("international")
    assert moves(international, "W:W28:B29") == ["28-22", "28-23"]


def test_an_orthogonal_capture_continues_diagonally(frisian: Variant) -> None:
    # e5 over g5 to i5, then up the diagonal over h6 to g7: one move, 28x30x19.
    assert moves(frisian, "W:W28:B29,24") == ["28x19"]
    # c5 over e5 to g5, then over h6 to i7.
    assert moves(frisian, "W:W27:B28,24") == ["27x20"]


def test_either_path_of_a_capture_names_it(frisian: Variant) -> None:
    """e5 takes d6, e7 and f6 and comes back: by c7 then g7, or by g7 then c7 (the step
    between them runs along row 7). Both full paths name the one move."""
    position = frisian.parse_fen("W:W28,30,31,33,34,36-50:B1-16,18,20,22,23")
    legal = frisian.legal_moves(position)
    assert [frisian.format_move(position, m, legal) for m in legal] == ["28x28"]
    for text in ("28x28", "28x17x19x28", "28x19x17x28"):
        assert frisian.parse_move(position, text) == legal[0]


# --- kings: directions, flying moves and flying captures ---------------------------------

def test_kings_capture_orthogonally_from_afar(frisian: Variant) -> None:
    assert moves(frisian, "W:WK26:B29") == ["26x30"]
    assert moves(frisian, "W:WK26:B28") == ["26x29", "26x30"]
    assert moves(frisian, "W:WK46:B16") == ["46x6"]  # up the a-file: a1 over a7 to a9


def test_kings_move_only_along_their_own_directions(frisian: Variant) -> None:
    # Diagonal moves only (kings_move): none along row 5 or the a-file.
    assert moves(frisian, "W:WK26:B1") == ["26-12", "26-17", "26-21", "26-3", "26-31",
                                           "26-37", "26-42", "26-48", "26-8"]


def test_far_moves_with_short_captures(tmp_path: Path) -> None:
    far = ruleset(tmp_path, EIGHT + "flying_kings = true\nflying_captures = false\n")
    assert moves(far, "W:WK29:B22") == ["29-25"]  # c3 is two squares away: no capture
    assert moves(far, "W:WK29:B25") == ["29x22"]  # the next square only
    assert moves(far, "W:WK29:B4") == ["29-11", "29-15", "29-18", "29-22", "29-25", "29-8"]


def test_short_moves_with_far_captures(tmp_path: Path) -> None:
    short = ruleset(tmp_path, EIGHT + "flying_kings = false\nflying_captures = true\n")
    assert moves(short, "W:WK29:B15") == ["29x11", "29x4", "29x8"]
    assert moves(short, "W:WK29:B4") == ["29-25"]


def test_flying_captures_default_to_flying_kings(tmp_path: Path) -> None:
    flying = ruleset(tmp_path, EIGHT + "flying_kings = true\n")
    assert flying.spec.flying_captures is None
    assert moves(flying, "W:WK29:B15") == ["29x11", "29x4", "29x8"]


# --- where a flying capture lands ------------------------------------------------------

def test_landing_on_the_next_square_only() -> None:
    short = load_ruleset_file(SHORT_LANDING)
    assert moves(short, "W:WK29:B22,6") == ["29x18"]
    assert moves(short, "W:WK29:B15") == ["29x11"]
    assert moves(short, "B:W15:BK4") == ["4x18"]
    assert moves(short, "W:WK29:B22,14") == ["29x9"]  # lands on d4, then takes c5


def test_landing_anywhere_behind(tmp_path: Path) -> None:
    anywhere = edited(tmp_path, SHORT_LANDING, "any-landing",
                      ('king_landing = "next"', 'king_landing = "any"'))
    # From e5 the king goes on over c7 to b8: a chain that can go on must go on.
    assert moves(anywhere, "W:WK29:B22,6") == ["29x1"]
    assert moves(anywhere, "W:WK29:B15") == ["29x11", "29x4", "29x8"]


# --- capture precedence by value --------------------------------------------------------

def test_the_capture_taking_the_most_value(frisian: Variant) -> None:
    assert frisian.capture_criteria == (Criterion.MOST_VALUE, Criterion.MOST_KINGS,
                                        Criterion.WITH_KING)
    assert frisian.spec.piece_values == (2, 3)
    assert moves(frisian, "W:W28:B29,K22") == ["28x17"]  # a king (3) before a man (2)
    assert moves(frisian, "W:W28:B29,20,K22") == ["28x10"]  # two men (4) before a king (3)


def test_equal_value_goes_to_the_next_criterion(frisian: Variant, tmp_path: Path) -> None:
    # One man each, the same value: the king must capture (with_king).
    assert moves(frisian, "W:W28,K46:B29,41") == ["46x32", "46x37"]
    values = ("man = 2, king = 3", "man = 1, king = 2")
    even = edited(tmp_path, FRISIAN, "frisian-even", values)
    # Two men (2) against one king (2): the most kings decides.
    assert moves(even, "W:W28:B29,20,K22") == ["28x17"]
    only_value = edited(tmp_path, FRISIAN, "value-only", values,
                        ('["most_value", "most_kings", "with_king"]', '["most_value"]'))
    assert moves(only_value, "W:W28:B29,20,K22") == ["28x10", "28x17"]


def test_value_precedence_in_words() -> None:
    assert describe_precedence((Criterion.MOST_VALUE, Criterion.WITH_KING)) == (
        "capturing is mandatory: the capture taking the most value, then a capture with a "
        "king rather than with a man")


# --- the files, their checks and their errors ------------------------------------------

@pytest.mark.parametrize("path", [FRISIAN, SHORT_LANDING])
def test_the_data_rulesets_pass_the_conformance_kit(path: Path) -> None:
    variant = load_ruleset_file(path)
    summary = run_all(variant, variant.perft_suite_path(), games=3, seed=2)
    assert summary["perft_cases"] >= 8
    assert summary["reference_generator_checks"] > 100


def test_different_rules_have_different_digests(tmp_path: Path) -> None:
    short = load_ruleset_file(SHORT_LANDING)
    anywhere = edited(tmp_path, SHORT_LANDING, "short-landing", ('"next"', '"any"'))
    assert short.key == anywhere.key
    assert short.spec.changed()["king_landing"] == "next"
    assert short.spec.digest() != anywhere.spec.digest()
    frisian = load_ruleset_file(FRISIAN)
    assert frisian.spec.changed()["piece_values"] == [2, 3]


def test_export_writes_the_fields_back(frisian: Variant, tmp_path: Path) -> None:
    from variants.export import ruleset_to_toml

    text = ruleset_to_toml(frisian)
    assert 'kings_move = "diagonal"' in text
    assert 'kings_capture = "diagonal-and-orthogonal"' in text
    assert 'men_capture = "diagonal-and-orthogonal"' in text
    path = tmp_path / "copy.toml"
    path.write_text(text.replace('perft_suite = "frisian-like.perft"\n', ""), encoding="utf-8")
    assert load_ruleset_file(path).spec == frisian.spec


@pytest.mark.parametrize(("text", "field", "message"), [
    ("men_capture = [[0, 1]]\n", "men_capture", "leaves the played squares"),
    ("kings_capture = [[0, 0]]\n", "kings_capture", "not a direction"),
    ('kings_move = "forward"\n', "kings_move", "the same seen from either side"),
    ('kings_move = "sideways"\n', "kings_move", "must be one of"),
    ('king_landing = "far"\n', "king_landing", '"any" or "next"'),
    ("piece_values = { man = 0, king = 3 }\n", "piece_values", "two positive integers"),
    ("piece_values = { man = 2 }\n", "piece_values", "two positive integers"),
    ("flying_captures = 1\n", "flying_captures", "true or false"),
    ('precedence = ["most_worth"]\n', "precedence", "most_value"),
])
def test_errors_name_the_field(tmp_path: Path, text: str, field: str, message: str) -> None:
    with pytest.raises(RulesetFileError) as info:
        ruleset(tmp_path, BOARD + text)
    assert info.value.field == field
    assert message in str(info.value)


def test_orthogonal_vectors_on_an_orthogonal_board(tmp_path: Path) -> None:
    # Kings that move and capture diagonally as well as straight, on all 64 squares.
    board = ('board = "orthogonal"\nrows = 8\ncols = 8\nnotation = "algebraic"\n'
             'initial_fen = "W:Wa2,b2,c2,d2,e2,f2,g2,h2:Ba7,b7,c7,d7,e7,f7,g7,h7"\n'
             'kings_move = "diagonal-and-orthogonal"\nkings_capture = "diagonal-and-orthogonal"\n'
             "flying_kings = true\n")
    queen = ruleset(tmp_path, board)
    assert moves(queen, "W:WKa1:Bc3") == ["a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8"]
    # h8 has nothing behind it: no capture; 7 + 7 squares straight, 3 on each diagonal.
    assert len(moves(queen, "W:WKd4:Bh8")) == 26


# --- an independent implementation: pydraughts' Frisian ------------------------------------

@pytest.fixture(scope="module")
def pydraughts() -> ModuleType:
    """pydraughts 0.6.7 (``make test-peers``; skipped without it). Its Frisian captures are
    the frisian-like file's: the most value with a king worth 1.5 men, then the most kings,
    then a king's capture. Its limit on king moves needs a game record, which a board made
    from a FEN does not have."""
    where = os.environ.get("KONDAVO_PYDRAUGHTS") or str(REPO / ".venv/test-peers/pydraughts")
    if Path(where).is_dir() and where not in sys.path:
        sys.path.append(where)
    module = pytest.importorskip("draughts", reason="pydraughts is not installed")
    if not hasattr(module, "Board") or not Path(where, "pydraughts-0.6.7.dist-info").exists():
        pytest.skip("the `draughts` package found is not pydraughts 0.6.7")
    return module


def test_same_legal_moves_as_pydraughts_frisian(frisian: Variant,
                                                 pydraughts: ModuleType) -> None:
    stats = random_playouts(frisian, games=12, seed=2024, max_plies=200,
                            keep_positions=3000)
    positions = random.Random(1).sample(stats.positions, min(400, len(stats.positions)))
    with_captures = with_kings = 0
    for position in positions:
        fen = frisian.format_fen(position)
        ours = {(m.origin + 1, m.destination + 1, frozenset(s + 1 for s in m.captured))
                for m in frisian.legal_moves(position)}
        board = pydraughts.Board(variant="frisian", fen=fen)
        theirs = {(m.board_move[0][0], m.board_move[-1][-1], frozenset(m.captures or []))
                  for m in board.legal_moves()}
        assert ours == theirs, fen
        with_captures += any(k[2] for k in ours)
        with_kings += bool(position.white_kings | position.black_kings)
    assert with_captures > 100 and with_kings > 20
