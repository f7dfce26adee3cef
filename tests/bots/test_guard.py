"""A ruleset's own outcome hooks (``draw_outcome``, ``special_outcome``) are honoured by the
bots at the root, on the compiled core and on the pure-Python engine alike.

The rules here are deliberately artificial ("a white piece on square N ends the game"):
they make the hook fire on one chosen root move, which is what the guard must notice.
"""

from __future__ import annotations

import pytest

from bots.engine import MATE, search, uses_native
from bots.engine.guard import needs_guard, outcomes_in_core
from variants import get_variant
from variants.game import GameRecord
from variants.rulesets.english import English
from variants.types import Color, Move, Outcome, Position, Reason

ENGINES = ["auto", "python"]
WINNING = "W:WK14,K15,K22:BK5"  # three kings against one: White is winning
LOSING = "W:WK32:BK1,K2,K3"  # one king against three: White is lost


def _ruleset(kind: str, square: int | None) -> English:
    """English draughts plus one house rule about a white piece on ``square`` (an index;
    None: the rule never fires): ``draw`` (draw_outcome), ``win`` or ``loss`` for White
    (special_outcome). Every such ruleset has the same key, so the same evaluation."""
    bit = 0 if square is None else 1 << square

    class HouseRule(English):
        key = "test-house-rule"
        aliases = ()

        if kind == "draw":
            def draw_outcome(self, record: GameRecord) -> Outcome | None:
                if record.position.pieces(Color.WHITE) & bit:
                    return Outcome(None, Reason.THREEFOLD)
                return super().draw_outcome(record)
        else:
            def special_outcome(self, position: Position) -> Outcome | None:
                if position.pieces(Color.WHITE) & bit:
                    winner = Color.WHITE if kind == "win" else Color.BLACK
                    return Outcome(winner, Reason.NO_MOVES)
                return None

    return HouseRule()


def _destination_square(move: Move) -> int:
    return move.path[-1]


def _plain_choice(fen: str, engine: str) -> tuple[Move, int]:
    """The move and score of the search when the house rule never fires."""
    variant = _ruleset("draw", None)
    result = search(variant, variant.parse_fen(fen), node_limit=20_000, seed=1, engine=engine)
    assert result.move is not None
    return result.move, result.score


def test_only_rulesets_with_their_own_hooks_are_guarded() -> None:
    for key in ("english", "international", "brazilian", "spanish"):
        assert not needs_guard(get_variant(key))
    assert needs_guard(get_variant("turkish"))  # its king-against-man rule
    assert needs_guard(_ruleset("draw", 1))
    assert needs_guard(_ruleset("win", 1))


def test_the_core_knows_the_results_of_rulesets_whose_special_outcomes_are_one_a_side() -> None:
    """What the endgame tables may be solved for: no rule of its own, or special outcomes
    declared to need one piece a side (Turkish); a house rule on more pieces, or one that
    says nothing about its pieces, or a draw rule of its own, stays with the guard."""
    for key in ("english", "international", "brazilian", "spanish", "turkish"):
        assert outcomes_in_core(get_variant(key))
    assert get_variant("turkish").special_outcome_pieces == 2
    assert not outcomes_in_core(_ruleset("draw", 1))
    assert not outcomes_in_core(_ruleset("win", 1))
    declared = type(_ruleset("win", 1))
    declared.special_outcome_pieces = 2
    assert outcomes_in_core(declared())
    declared.special_outcome_pieces = 3
    assert not outcomes_in_core(declared())


@pytest.mark.parametrize("engine", ENGINES)
def test_a_winning_bot_avoids_the_rulesets_own_draw(engine: str) -> None:
    plain, score = _plain_choice(WINNING, engine)
    assert score > 100
    variant = _ruleset("draw", _destination_square(plain))
    assert uses_native(variant, engine) is (engine == "auto")
    record = GameRecord.new(variant, variant.parse_fen(WINNING))
    result = search(variant, record, node_limit=20_000, seed=1, engine=engine)
    assert result.move is not None and result.move != plain
    record.push(result.move)
    assert record.outcome() is None
    assert result.score > 100


@pytest.mark.parametrize("engine", ENGINES)
def test_a_losing_bot_takes_the_rulesets_own_draw(engine: str) -> None:
    english = get_variant("english")
    position = english.parse_fen(LOSING)
    plain, score = _plain_choice(LOSING, engine)
    assert score < -100
    other = next(m for m in english.legal_moves(position)
                 if _destination_square(m) != _destination_square(plain))
    variant = _ruleset("draw", _destination_square(other))
    result = search(variant, position, node_limit=20_000, seed=1, engine=engine)
    assert result.move == other
    assert result.score == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bot_plays_the_rulesets_own_win(engine: str) -> None:
    english = get_variant("english")
    position = english.parse_fen(LOSING)
    plain, _ = _plain_choice(LOSING, engine)
    other = next(m for m in english.legal_moves(position)
                 if _destination_square(m) != _destination_square(plain))
    variant = _ruleset("win", _destination_square(other))
    result = search(variant, position, node_limit=20_000, seed=1, engine=engine)
    assert result.move == other
    assert result.score == MATE - 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bot_avoids_the_rulesets_own_loss(engine: str) -> None:
    plain, _ = _plain_choice(WINNING, engine)
    variant = _ruleset("loss", _destination_square(plain))
    record = GameRecord.new(variant, variant.parse_fen(WINNING))
    result = search(variant, record, node_limit=20_000, seed=1, engine=engine)
    assert result.move is not None and result.move != plain
    before = len(record.moves)
    record.push(result.move)
    assert record.outcome() is None
    assert len(record.moves) == before + 1  # the guard worked on a copy of the record


def test_the_callers_record_is_left_as_it_was() -> None:
    plain, _ = _plain_choice(WINNING, "auto")
    variant = _ruleset("draw", _destination_square(plain))
    record = GameRecord.new(variant, variant.parse_fen(WINNING))
    search(variant, record, node_limit=5_000, seed=1)
    assert record.moves == [] and record.positions == (record.start,)
    assert record.quiet_plies == 0
