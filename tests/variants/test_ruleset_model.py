"""The ruleset model: the frozen rules specification and the one "is it declarative?"
predicate every part of the project asks (the compiled core, the reference generator)."""

from __future__ import annotations

import dataclasses
import io
import tomllib
from collections.abc import Sequence
from pathlib import Path

import pytest
from ruleset_fixtures import ThreeKings

from variants import (
    Criterion,
    DiagonalVariant,
    GameRecord,
    Move,
    Outcome,
    Position,
    Precedence,
    PromotionRule,
    Reason,
    Variant,
    get_variant,
)
from variants.__main__ import main
from variants.export import rules_to_toml, ruleset_to_toml
from variants.reference import covers
from variants.registry import BUILTINS
from variants.rulesets.brazilian import Brazilian
from variants.rulesets.english import English
from variants.spec import RulesSpec, declarative_reason, generation_hooks, overridden_hooks
from variants.toml_rulesets import load_ruleset_file, ruleset_from_mapping

DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_spec_holds_the_declared_rules() -> None:
    spanish = get_variant("spanish").spec
    assert spanish == RulesSpec(
        board="diagonal", rows=8, cols=8, playable_parity=1, number_from_bottom_right=True,
        initial_fen="W:W1-12:B21-32", man_move_vectors=((1, -1), (1, 1)),
        man_capture_vectors=((1, -1), (1, 1)), flying_kings=True,
        precedence=(Criterion.MOST_PIECES, Criterion.MOST_KINGS),
        mid_capture_promotion=PromotionRule.ENDS_MOVE)
    turkish = get_variant("turkish").spec
    assert (turkish.board, turkish.man_capture_vectors, turkish.immediate_removal,
            turkish.no_reversal) == ("orthogonal", ((1, 0), (0, -1), (0, 1)), True, True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spanish.rows = 10  # type: ignore[misc]


def test_the_digest_changes_with_the_rules_and_only_with_them() -> None:
    english, brazilian = get_variant("english"), get_variant("brazilian")
    assert english.spec.digest() == English().spec.digest()  # stable across instances
    assert english.spec.digest() != brazilian.spec.digest()

    class Renamed(English):
        key = "renamed"
        name = "Renamed"
        summary = "English, under another name."

    assert Renamed().spec.digest() == english.spec.digest()  # words are not rules
    changed = dataclasses.replace(english.spec, draw_plies=80)
    assert changed.digest() != english.spec.digest()


@pytest.mark.parametrize("variant", BUILTINS, ids=lambda v: v.key)
def test_every_builtin_is_declarative(variant: object) -> None:
    assert declarative_reason(variant) is None  # type: ignore[arg-type]
    assert overridden_hooks(variant) == ()  # type: ignore[arg-type]


def test_a_toml_ruleset_is_declarative() -> None:
    pool = load_ruleset_file(DATA / "pool-lite.toml")
    assert declarative_reason(pool) is None
    assert covers(pool)


class FirstCapture(Brazilian):
    """A plugin with a capture rule in Python."""

    key = "first-capture"
    name = "First capture"

    def rank_captures(self, position: Position, moves: Sequence[Move]) -> list[Move]:
        return [min(moves, key=lambda m: m.key)]


class NoKingMoves(Brazilian):
    key = "no-king-moves"
    name = "No king moves"

    def quiet_moves(self, position: Position) -> list[Move]:
        kings = position.kings(position.turn)
        return [m for m in super().quiet_moves(position) if not (kings >> m.path[0]) & 1]


class PrivateSearch(Brazilian):
    """Overrides a private part of the generator: still a generation override."""

    key = "private-search"
    name = "Private search"

    def _capture_found(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return super()._capture_found(*args, **kwargs)


class OwnWords(Brazilian):
    """Overrides words and notation only: still declarative."""

    key = "own-words"
    name = "Own words"

    def summary_text(self, lang: str = "en") -> str:
        return "Brazilian rules, our words."

    def format_fen(self, position: Position) -> str:
        return super().format_fen(position)


def test_the_predicate_names_the_override() -> None:
    assert declarative_reason(FirstCapture()) == (
        "FirstCapture overrides rank_captures (move generation in Python)")
    assert declarative_reason(NoKingMoves()) == (
        "NoKingMoves overrides quiet_moves (move generation in Python)")
    assert "overrides _capture_found" in (declarative_reason(PrivateSearch()) or "")
    assert declarative_reason(OwnWords()) is None
    assert "_capture_found" in generation_hooks()
    assert "format_fen" not in generation_hooks()


def test_the_reference_generator_follows_a_ranking_hook_but_not_a_generator() -> None:
    assert covers(FirstCapture())
    assert not covers(NoKingMoves())
    assert not covers(PrivateSearch())


def test_a_rule_value_the_generators_do_not_know_is_refused() -> None:
    class Landing(Brazilian):
        key = "landing"
        king_landing = "far"

    with pytest.raises(ValueError, match="king_landing"):
        Landing()


def test_a_ruleset_declares_its_own_outcome_reason() -> None:
    variant = ThreeKings()
    outcome = variant.outcome(GameRecord.new(variant, variant.parse_fen("W:WKa1,Kc1,Ke1:BKh8")))
    assert outcome == Outcome(None, Reason("three_kings"))
    assert outcome is not None and outcome.reason.value == "three_kings"
    assert variant.reason_text("three_kings", "fr") == "trois dames contre une"
    assert variant.reason_text("three_kings", "pl") == "three kings against one"
    assert variant.reason_text("threefold") is None  # a built-in: the site words it
    assert Reason.THREEFOLD == Reason("threefold") and Reason.THREEFOLD.value == "threefold"
    assert declarative_reason(variant) is None  # an outcome hook, not a move rule
    with pytest.raises(ValueError, match="reason's code"):
        Reason("a reason longer than sixteen")


# --- the command line with ruleset files --------------------------------------------------

def test_perft_and_moves_take_a_toml_path() -> None:
    out = io.StringIO()
    assert main(["perft", str(DATA / "pool-lite.toml"), "3"], out=out) == 0
    brazilian = get_variant("brazilian")
    assert out.getvalue().split()[-1] == str(brazilian.perft(brazilian.initial_position(), 3))
    out = io.StringIO()
    assert main(["moves", str(DATA / "pool-lite.toml"), "--fen", "W:Wc3,e3:Bd4,f4,d6"],
                out=out) == 0
    assert out.getvalue().split() == ["c3xc7", "c3xg3", "e3xe7"]


def test_list_reports_a_broken_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken.toml").write_text('key = "broken"\nname = "Broken"\n'
                                          'board = "diagonal"\nrows = 8\ncols = 8\n'
                                          'initial_fen = "W:W21-32:B1-12"\n'
                                          'men_capture = [[1, 1], [0, 1]]\n')
    monkeypatch.setenv("KONDAVO_RULESET_DIRS", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    assert main(["list"], out=out, err=err) == 0
    assert "international" in out.getvalue().split()
    assert "broken.toml: field 'men_capture': (0, 1) leaves the played squares of a " \
        "diagonal board" in err.getvalue()


# --- the round trip between a ruleset and its file -----------------------------------------

@pytest.mark.parametrize("variant", BUILTINS, ids=lambda v: v.key)
def test_every_builtin_exports_to_a_file_with_the_same_spec(variant: Variant,
                                                            tmp_path: Path) -> None:
    out = io.StringIO()
    assert main(["export", variant.key], out=out) == 0
    path = tmp_path / f"{variant.key}.toml"
    path.write_text(out.getvalue().replace(f'key = "{variant.key}"', 'key = "copy"'))
    copy = load_ruleset_file(path)
    assert copy.spec == variant.spec
    assert copy.board == variant.board
    assert copy.rules_page("fr") == variant.rules_page("fr")
    assert copy.perft(copy.initial_position(), 3) == variant.perft(variant.initial_position(), 3)


def test_a_file_round_trips_through_its_spec() -> None:
    pool = load_ruleset_file(DATA / "pool-lite.toml")
    again = tomllib.loads(ruleset_to_toml(pool))
    assert rules_to_toml(pool.spec).items() <= again.items()
    assert again["precedence"] == "max_pieces" and again["men_capture"] == \
        "forward-and-backward"


def test_the_export_names_what_a_file_cannot_hold() -> None:
    text = ruleset_to_toml(get_variant("turkish"))
    assert text.splitlines()[1].startswith(
        "# Not in this file (a ruleset file cannot hold them): the Python hook "
        "special_outcome")
    assert "the Python hook rank_captures" in ruleset_to_toml(FirstCapture())


# --- declaring the rules as one value -------------------------------------------------------

def test_a_class_declares_its_rules_as_one_spec() -> None:
    class Mini(DiagonalVariant):
        key = "mini"
        name = "Mini"
        rules = RulesSpec(rows=6, cols=6, initial_fen="W:W13-18:B1-6", flying_kings=True,
                          precedence=Precedence.MAX_PIECES.criteria)

    mini = Mini()
    assert mini.spec == RulesSpec(rows=6, cols=6, initial_fen="W:W13-18:B1-6",
                                  flying_kings=True, precedence=(Criterion.MOST_PIECES,))
    assert (Mini.flying_kings, Mini.rows, Mini.rules) == (True, 6, None)  # unpacked

    class MiniByAttributes(DiagonalVariant):  # the same rules, field by field
        key = "mini2"
        name = "Mini"
        rows = cols = 6
        initial_fen = "W:W13-18:B1-6"
        flying_kings = True
        precedence = Precedence.MAX_PIECES

    same = MiniByAttributes()
    assert same.spec == mini.spec and same.spec.digest() == mini.spec.digest()
    assert mini.perft(mini.initial_position(), 4) == same.perft(same.initial_position(), 4)


def test_a_spec_of_the_wrong_board_is_refused() -> None:
    with pytest.raises(TypeError, match="rules.board is 'orthogonal'"):
        class Wrong(DiagonalVariant):
            key = "wrong"
            rules = RulesSpec(board="orthogonal", initial_fen="W:Wa2:Ba7")


def test_named_precedences_and_lists_are_stored_in_one_form() -> None:
    loose = RulesSpec(precedence=Precedence.MAX_PIECES,  # type: ignore[arg-type]
                      man_capture_vectors=[[1, 1], [1, -1]])  # type: ignore[arg-type]
    assert loose == RulesSpec(precedence=(Criterion.MOST_PIECES,),
                              man_capture_vectors=((1, 1), (1, -1)))
    assert hash(loose) == hash(RulesSpec(precedence=(Criterion.MOST_PIECES,),
                                         man_capture_vectors=((1, 1), (1, -1))))


@pytest.mark.parametrize("path", sorted(DATA.glob("*.toml")), ids=lambda p: p.stem)
def test_every_ruleset_file_round_trips(path: Path) -> None:
    """File -> spec -> file -> spec, with the kings' and capture-value fields too."""
    variant = load_ruleset_file(path)
    copy = ruleset_from_mapping(tomllib.loads(ruleset_to_toml(variant)), path)
    assert copy.spec == variant.spec
    assert copy.perft(copy.initial_position(), 3) == variant.perft(variant.initial_position(), 3)
