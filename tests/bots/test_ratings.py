"""Nominal ratings of the bot levels: the committed table and how the lab chains it."""

from __future__ import annotations

import json

from bench.strength import ANCHOR, chain_ratings, ladder_from_tables
from bots.engine.levels import LEVELS, MAX_LEVEL, MIN_LEVEL
from bots.engine.ratings import RATINGS_FILE, nominal_rating

RULESETS = ("international", "english", "brazilian", "spanish", "turkish")


def test_ratings_file_is_well_formed_and_monotone() -> None:
    table = json.loads(RATINGS_FILE.read_text(encoding="utf-8"))
    assert set(RULESETS) <= set(table)
    for ruleset, levels in table.items():
        assert sorted(int(lv) for lv in levels) == list(LEVELS), ruleset
        ratings = [levels[str(lv)] for lv in range(MIN_LEVEL, MAX_LEVEL + 1)]
        assert all(isinstance(r, int) for r in ratings)
        assert ratings[0] == ANCHOR
        assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings), ruleset
        assert nominal_rating(ruleset, MAX_LEVEL) == ratings[-1]
    assert nominal_rating("no-such-ruleset", 3) is None


def test_chained_ratings() -> None:
    # 3/4 against the level below counts as 3.5/5 (one virtual draw): +147 Elo; a clean 4/4
    # as 4.5/5: +382 (not the 99% clamp).
    assert chain_ratings({2: (3.0, 4), 3: (4.0, 4)}) == {1: ANCHOR, 2: ANCHOR + 147,
                                                         3: ANCHOR + 147 + 382}
    assert chain_ratings({3: (1.0, 2)}) == {1: ANCHOR}  # a gap stops the chain


def test_ratings_from_saved_tables(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "t.md"
    path.write_text(
        "| ruleset | player | opponent | W | D | L | score | Elo | time |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|\n"
        "| english | L2 | L1 | 3 | 1 | 0 | 88% | +338 | 1 s |\n"
        "| english | L8 | random | 4 | 0 | 0 | 100% | +798 | 1 s |\n"
        "| english | L2 | L1 | 1 | 0 | 1 | 50% | 0 | 1 s |\n", encoding="utf-8")
    assert ladder_from_tables([str(path)]) == {"english": {2: (4.5, 6)}}
    again = Path(str(tmp_path)) / "again.md"
    again.write_text("| english | L2 | L1 | 0 | 2 | 0 | 50% | 0 | 1 s |\n", encoding="utf-8")
    assert ladder_from_tables([str(path), str(again)]) == {"english": {2: (1.0, 2)}}
