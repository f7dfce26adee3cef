"""Set-up positions that cannot occur in a game are refused, naming the problem, in every
ruleset (the default ``Variant.position_problems``, driven by the ruleset's data)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from variants import (
    Color,
    InvalidFEN,
    InvalidPosition,
    Position,
    Variant,
    VariantError,
    default_registry,
    get_variant,
)
from variants.toml_rulesets import load_ruleset_file

REPO = Path(__file__).resolve().parents[2]

# (ruleset, possible position, [(impossible position, words the refusal must contain)])
CASES: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("international", "W:W31,K45:B6,12", [
        ("W:W:B1-20", "White has no pieces"),
        ("W:W31-50:B", "Black has no pieces"),
        ("W:W21-50:B1-15", "White has 30 men: a side starts with 20"),
        ("W:W31-50,K26:B1-20", "White has 21 pieces: a side starts with 20"),
        ("W:W3,31:B20", "White has men on its crowning row (3)"),
        ("W:W31:B20,47,48", "Black has men on its crowning row (47, 48)"),
    ]),
    ("english", "B:W21,K5:B10", [
        ("B:W21-32:B", "Black has no pieces"),
        ("B:W17-29:B1-4", "White has 13 men: a side starts with 12"),
        ("B:W2,21:B10", "White has men on its crowning row (2)"),
        ("B:W21:B10,30", "Black has men on its crowning row (30)"),
    ]),
    ("brazilian", "W:Wa1,c3:Bf6,Kh8", [
        ("W:W:Bb6", "White has no pieces"),
        ("W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3,b4:Bf6",
         "White has 13 men: a side starts with 12"),
        ("W:Wd8,c3:Bf6", "White has men on its crowning row (d8)"),
        ("W:Wc3:Bf6,c1", "Black has men on its crowning row (c1)"),
    ]),
    ("spanish", "W:W5,K30:B25", [
        ("W:W1-12:B", "Black has no pieces"),
        ("W:W1-13:B21-32", "White has 13 men: a side starts with 12"),
        ("W:W30,5:B25", "White has men on its crowning row (30)"),
        ("W:W5:B25,2", "Black has men on its crowning row (2)"),
    ]),
    ("turkish", "W:Wa2,Kd4:Bh7", [
        ("W:W:Bh7", "White has no pieces"),
        ("W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3,a4:Bh7",
         "White has 17 men: a side starts with 16"),
        ("W:We8,a2:Bh7", "White has men on its crowning row (e8)"),
        ("W:Wa2:Bh7,b1", "Black has men on its crowning row (b1)"),
    ]),
]

# Pieces on squares that are not played on never get as far as a position.
OFF_BOARD = [("international", "W:W51:B1"), ("english", "B:W33:B1"),
             ("brazilian", "W:Wa2:Bf6"), ("spanish", "W:W0:B25"), ("turkish", "W:Wi9:Bh7")]


@pytest.mark.parametrize(("key", "fen", "bad"), CASES, ids=[c[0] for c in CASES])
def test_impossible_positions_are_refused_by_name(key: str, fen: str,
                                                  bad: list[tuple[str, str]]) -> None:
    variant = get_variant(key)
    assert variant.position_problems(variant.initial_position()) == []
    good = variant.parse_fen(fen)
    assert variant.position_problems(good) == []
    variant.check_position(good)
    for text, words in bad:
        position = variant.parse_fen(text)
        problems = variant.position_problems(position)
        assert len(problems) == 1 and words in problems[0], (text, problems)
        with pytest.raises(InvalidPosition) as err:
            variant.check_position(position)
        assert str(err.value) == f"impossible position in {variant.name}: {problems[0]}"
        assert isinstance(err.value, VariantError)


@pytest.mark.parametrize(("key", "fen"), OFF_BOARD, ids=[c[0] for c in OFF_BOARD])
def test_pieces_off_the_played_squares_are_refused(key: str, fen: str) -> None:
    with pytest.raises(InvalidFEN):
        get_variant(key).parse_fen(fen)


def test_positions_built_by_hand_are_checked_too() -> None:
    variant = get_variant("english")
    off_board = Position(1 << 40, 0, 1 << 5, 0, Color.WHITE)
    assert variant.position_problems(off_board) == [
        "some pieces are not on the board's played squares", "White has no pieces"]
    stacked = Position(1 << 20, 0, 1 << 20, 0, Color.WHITE)
    assert variant.position_problems(stacked) == ["a square holds two pieces"]


def test_every_problem_is_named_at_once() -> None:
    variant = get_variant("international")
    problems = variant.position_problems(variant.parse_fen("W:W1,21-50:B"))
    assert problems == [
        "White has 31 men: a side starts with 20",
        "White has men on its crowning row (1): a man that reaches it becomes a king",
        "Black has no pieces"]


@pytest.fixture
def russian(monkeypatch: pytest.MonkeyPatch) -> Iterator[Variant]:
    monkeypatch.syspath_prepend(str(REPO / "examples" / "kondavo-russian" / "src"))
    from kondavo_russian import RUSSIAN

    yield RUSSIAN
    sys.modules.pop("kondavo_russian", None)


def test_a_plugin_ruleset_gets_the_check(russian: Variant) -> None:
    start = russian.initial_position()
    assert russian.position_problems(start) == []
    crowning = ", ".join(russian.square_label(s) for s in range(russian.squares)
                         if russian.promotion_squares(Color.WHITE) >> s & 1)
    first = crowning.split(", ")[0]
    problems = russian.position_problems(russian.parse_fen(f"W:W{first}:B"))
    assert problems == [f"White has men on its crowning row ({first}): a man that reaches it "
                        "becomes a king", "Black has no pieces"]


def test_a_data_only_ruleset_gets_the_check() -> None:
    variant = load_ruleset_file(REPO / "tests" / "data" / "pool-lite.toml")
    start = variant.initial_position()
    count = start.pieces(Color.WHITE).bit_count()
    assert variant.position_problems(start) == []
    emptied = Position(start.white_men, start.white_kings, 0, 0, Color.WHITE)
    assert variant.position_problems(emptied) == ["Black has no pieces"]
    extra = next(1 << s for s in range(variant.squares)
                 if not (start.occupied | variant.promotion_squares(Color.WHITE)) >> s & 1)
    crowded = Position(start.white_men | extra, 0, start.black_men, 0, Color.WHITE)
    assert variant.position_problems(crowded) == [
        f"White has {count + 1} men: a side starts with {count}"]


@pytest.mark.parametrize("variant", list(default_registry()), ids=lambda v: v.key)
def test_every_installed_ruleset_accepts_its_start_and_refuses_an_empty_side(
        variant: Variant) -> None:
    """Whatever is installed (the plugins pass installs the examples): the start position is
    possible, a side emptied or given one man too many is not."""
    start = variant.initial_position()
    assert variant.position_problems(start) == []
    no_black = Position(start.white_men, start.white_kings, 0, 0, start.turn)
    assert variant.position_problems(no_black) == [f"{variant.side_names[1]} has no pieces"]
    count = start.pieces(Color.WHITE).bit_count()
    free = [s for s in range(variant.squares)
            if not (start.occupied | variant.promotion_squares(Color.WHITE)) >> s & 1]
    crowded = Position(start.white_men | 1 << free[0], start.white_kings, start.black_men,
                       start.black_kings, start.turn)
    assert variant.position_problems(crowded) == [
        f"{variant.side_names[0]} has {count + 1} men: a side starts with {count}"]
