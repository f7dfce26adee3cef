"""Rules that read the game so far: ``max_king_moves_with_men`` and the ``restrict`` hook,
through the records, the search and the conformance kit (literal positions, exact sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.analysis import analyse
from bots.engine import uses_native
from bots.engine.search import search
from variants import Color, GameRecord, IllegalMove, Move, Variant
from variants.conformance import random_playouts, run_all
from variants.history import History, Ply, legal_moves_in, ply_between
from variants.reference import covers
from variants.rulesets.brazilian import Brazilian
from variants.rulesets.international import International
from variants.spec import declarative_reason
from variants.toml_rulesets import load_ruleset_file


class KingLimit(International):
    """International with Frisian's limit: three quiet king moves in a row while men remain."""

    key = "king-limit"
    name = "King limit"
    max_king_moves_with_men = 3


def played(variant: Variant, fen: str, moves: list[str]) -> GameRecord:
    return GameRecord.from_notation(variant, moves, fen)


def legal(record: GameRecord) -> list[str]:
    position = record.position
    moves = record.legal_moves()
    return sorted(record.variant.format_move(position, m, moves) for m in moves)


KING_SHUFFLE = ["50-45", "1-6", "45-50", "6-1", "50-45", "1-6"]
START = "W:WK50,46:BK1"


def test_three_king_moves_then_a_man_must_move() -> None:
    variant = KingLimit()
    record = played(variant, START, KING_SHUFFLE[:4])
    assert legal(record) == ["46-41", "50-11", "50-17", "50-22", "50-28", "50-33", "50-39",
                             "50-44", "50-45", "50-6"]
    record = played(variant, START, KING_SHUFFLE)  # the king has moved three times
    assert legal(record) == ["46-41"]
    with pytest.raises(IllegalMove):
        record.push_notation("45-50")
    # The position alone does not know: International's generator still lists them.
    assert len(variant.legal_moves(record.position)) == 10


def test_a_man_move_starts_the_count_again() -> None:
    record = played(KingLimit(), START, [*KING_SHUFFLE, "46-41", "6-1"])
    assert legal(record) == ["41-36", "41-37", "45-12", "45-18", "45-23", "45-29", "45-34",
                             "45-40", "45-50", "45-7"]


def test_without_men_kings_move_freely() -> None:
    record = played(KingLimit(), "W:WK50:BK1", KING_SHUFFLE)
    assert legal(record) == ["45-1", "45-12", "45-18", "45-23", "45-29", "45-34", "45-40",
                             "45-50", "45-7"]


def test_a_record_resumed_from_positions_applies_it() -> None:
    """The site keeps positions since the last irreversible move, not moves."""
    variant = KingLimit()
    full = played(variant, START, KING_SHUFFLE)
    resumed = GameRecord.resume(variant, full.position, full.quiet_plies,
                                full.positions[:-1])
    assert legal(resumed) == ["46-41"]
    assert [m.notation for m in resumed.moves] == []
    last = next(History(full.positions).plies())
    assert ply_between(*last) == Ply(Color.BLACK, king=True, capture=False)  # 1-6


def test_the_ruleset_is_not_declarative_and_runs_in_python() -> None:
    reason = declarative_reason(KingLimit())
    assert reason is not None and reason.startswith("max_king_moves_with_men = 3")
    assert not uses_native(KingLimit())


def test_the_search_never_plays_or_expects_a_forbidden_king_move() -> None:
    variant = KingLimit()
    record = played(variant, START, KING_SHUFFLE)
    result = search(variant, record, max_depth=3)
    assert result.move is not None and variant.format_move(record.position, result.move) \
        == "46-41"
    earlier = played(variant, START, KING_SHUFFLE[:4])
    result = search(variant, earlier, max_depth=5)
    line = earlier.copy()
    for move in result.pv:  # every move of the line is legal in the game so far
        line.push(move)
    assert len(result.pv) >= 3


def test_the_analysis_reads_the_game_so_far() -> None:
    variant = KingLimit()
    record = played(variant, START, KING_SHUFFLE)
    analysis = analyse(variant, record, depth=4, engine="auto")
    assert analysis.best is not None
    assert variant.format_move(record.position, analysis.best) == "46-41"
    line = record.copy()
    for move in analysis.pv:
        line.push(move)


def test_the_conformance_kit_plays_it() -> None:
    stats = random_playouts(KingLimit(), games=2, seed=4, max_plies=120)
    assert stats.games == 2 and stats.plies > 0
    # The position's own moves are still compared with the reference generator.
    assert covers(KingLimit()) and covers(NoReturn())
    assert run_all(KingLimit(), games=2, seed=5)["reference_generator_checks"] > 20


class NoReturn(Brazilian):
    """A plugin's own history rule: a king may not go straight back to the square it just
    left on its side's previous move."""

    key = "no-return"
    name = "No return"

    def restrict(self, history: History, moves: list[Move]) -> list[Move]:
        positions = history.positions
        if len(positions) < 3:
            return moves
        before, after = positions[-3], positions[-2]
        mover = history.position.turn
        left = before.kings(mover) & ~after.kings(mover)
        arrived = after.kings(mover) & ~before.kings(mover)
        if not (left and arrived):
            return moves
        came_from, now_on = left.bit_length() - 1, arrived.bit_length() - 1
        return [m for m in moves
                if m.captured or (m.path[0], m.path[-1]) != (now_on, came_from)]


def test_a_plugin_restrict_hook_is_applied_and_named() -> None:
    variant = NoReturn()
    record = played(variant, "W:WKa1:BKh2", ["a1-b2", "h2-g1"])
    assert "b2-a1" not in legal(record) and "b2-c3" in legal(record)
    assert len(legal_moves_in(record)) == len(variant.legal_moves(record.position)) - 1
    assert declarative_reason(variant) == (
        "NoReturn overrides restrict (a rule that reads the game so far: only the Python "
        "engine follows it)")


def test_a_toml_file_declares_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "frisian-lite.toml"
    path.write_text('key = "frisian-lite"\nname = "Frisian (lite)"\nboard = "diagonal"\n'
                    'rows = 10\ncols = 10\ninitial_fen = "W:W31-50:B1-20"\n'
                    'men_capture = "forward-and-backward"\nflying_kings = true\n'
                    'precedence = "max_pieces"\nmax_king_moves_with_men = 3\n')
    variant = load_ruleset_file(path)
    assert variant.spec.max_king_moves_with_men == 3
    assert legal(played(variant, START, KING_SHUFFLE)) == ["46-41"]
