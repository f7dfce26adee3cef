"""Russian draughts: the rules that differ from the built-ins, and Kondavo's conformance kit."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import kondavo_russian
import pytest
from kondavo_russian import RUSSIAN

from variants.conformance import check_perft_file, random_playouts, run_all

PERFT = Path(kondavo_russian.__file__).parent / "russian.perft"


def moves(fen: str) -> list[str]:
    position = RUSSIAN.parse_fen(fen)
    legal = RUSSIAN.legal_moves(position)
    return sorted(RUSSIAN.format_move(position, m, legal) for m in legal)


def test_perft() -> None:
    assert check_perft_file(RUSSIAN, PERFT, max_nodes=40_000) == 6


@pytest.mark.slow
def test_perft_deep() -> None:
    assert check_perft_file(RUSSIAN, PERFT, max_nodes=10**9) == 7


def test_conformance_kit() -> None:
    summary = run_all(RUSSIAN, games=10, seed=7)
    assert summary["plies"] > 0


def test_men_capture_backward() -> None:
    assert moves("W:Wd4:Bc3") == ["d4xb2"]


def test_free_choice_of_capture() -> None:
    # a3xe7 takes two pieces, e3xg5 one: both are legal (no maximum rule).
    assert moves("W:Wa3,e3:Bb4,d6,f4") == ["a3xe7", "e3xg5"]


def test_man_crowned_mid_capture_goes_on_as_a_king() -> None:
    # b6xd8 crowns the man; as a king it flies on over f6 (two squares away).
    position = RUSSIAN.parse_fen("W:Wb6:Bc7,f6")
    assert moves("W:Wb6:Bc7,f6") == ["b6xg5", "b6xh4"]
    for move in RUSSIAN.legal_moves(position):
        assert move.promotes
    after = RUSSIAN.apply(position, RUSSIAN.parse_move(position, "b6xg5"))
    assert RUSSIAN.format_fen(after) == "B:WKg5:B"


def test_flying_king_must_land_where_it_can_continue() -> None:
    # After c3 only the landing on f6 lets the king go on over e7; free choice does not
    # allow stopping early.
    assert moves("W:WKa1:Bc3,e7") == ["a1xd8"]


# --------------------------------------------------------------------- pydraughts


def _square(number: int) -> str:
    """pydraughts' Russian square number as a label: 1 = a1, 2 = c1 ... 32 = h8."""
    rank, k = divmod(number - 1, 4)
    return "abcdefgh"[2 * k + rank % 2] + str(rank + 1)


def test_same_legal_moves_as_pydraughts_over_random_games(pydraughts: ModuleType) -> None:
    stats = random_playouts(RUSSIAN, games=12, seed=2024, keep_positions=2000)
    positions = random.Random(1).sample(stats.positions, min(500, len(stats.positions)))
    with_captures = 0
    for position in positions:
        fen = RUSSIAN.format_fen(position)
        ours = {(RUSSIAN.square_label(m.origin), RUSSIAN.square_label(m.destination),
                 frozenset(RUSSIAN.square_label(s) for s in m.captured))
                for m in RUSSIAN.legal_moves(position)}
        board = pydraughts.Board(variant="russian", fen=fen)
        theirs = {(_square(m.board_move[0][0]), _square(m.board_move[-1][-1]),
                   frozenset(_square(s) for s in m.captures or []))
                  for m in board.legal_moves()}
        assert ours == theirs, fen
        with_captures += any(k[2] for k in ours)
    assert with_captures > 50
