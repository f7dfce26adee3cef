"""The analysis service: White-relative scores, a legal best line, bounded effort."""

from __future__ import annotations

from bots.analysis import analyse
from bots.engine.ratings import nominal_rating
from variants import GameRecord, get_variant


def test_white_up_a_man_scores_positive_whoever_moves() -> None:
    v = get_variant("english")
    for fen in ("W:W21,22,23:B1,2", "B:W21,22,23:B1,2"):
        a = analyse(v, v.parse_fen(fen), depth=2)
        assert a.score > 0, fen
        assert a.best is not None and a.best in v.legal_moves(v.parse_fen(fen))


def test_pv_is_a_legal_line_in_notation() -> None:
    v = get_variant("international")
    pos = v.initial_position()
    a = analyse(v, pos, depth=3)
    assert a.depth >= 3 and len(a.pv) >= 1
    d = a.as_dict(v, pos)
    assert isinstance(d["pv"], list) and d["pv"] and all("-" in m or "x" in m for m in d["pv"])


def test_forced_win_reports_mate_from_whites_side() -> None:
    v = get_variant("english")
    # Black to move has one man that must be captured next move: a forced loss for Black.
    a = analyse(v, v.parse_fen("W:W14,K1:B9"), depth=6)
    assert a.mate_in is not None and a.mate_in > 0


def test_a_forced_move_is_searched_to_full_depth() -> None:
    """Brazilian 1. a3-b4 f6-g5 2. e3-f4: Black's g5xe3 is the only move, and after it
    White loses a man whichever way it takes back (2... b6-c5). The analysis must say so,
    not give the one-ply score of the forced capture (only a bot plays it unsearched)."""
    v = get_variant("brazilian")
    record = GameRecord.new(v)
    for move in ("a3-b4", "f6-g5", "e3-f4"):
        record.push_notation(move)
    a = analyse(v, record, depth=8)
    assert record.ply == 3  # the caller's record is left as it was
    assert a.pv[0] == a.best == v.legal_moves(record.position)[0]
    assert a.depth == 8 and a.score <= -80  # White's view: a man down
    # The forced move counts in the distance to a forced win: English, White's man on 28
    # has one move (28-24) and Black's two kings then win in one ply.
    e = get_variant("english")
    assert analyse(e, e.parse_fen("B:W24:BK13,K20"), depth=8).mate_in == -1
    assert analyse(e, e.parse_fen("W:W28:BK13,K20"), depth=8).mate_in == -2


def test_unmeasured_level_has_no_nominal_rating() -> None:
    assert nominal_rating("no-such-ruleset", 3) is None
