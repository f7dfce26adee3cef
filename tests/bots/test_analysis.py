"""The analysis service: White-relative scores, a legal best line, bounded effort."""

from __future__ import annotations

from bots.analysis import analyse
from bots.engine.ratings import nominal_rating
from variants import get_variant


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


def test_unmeasured_level_has_no_nominal_rating() -> None:
    assert nominal_rating("no-such-ruleset", 3) is None
