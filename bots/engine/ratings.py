"""Nominal ratings of the bot levels, per ruleset, as measured in the strength lab.

The figures live in ``bots/engine/data/ratings.json`` (``{ruleset key: {level: rating}}``),
written by the strength lab (``bench/strength.py``) from its matches. A ruleset or level the
lab has not measured has no nominal rating (``None``): pages then show the level alone.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

RATINGS_FILE = Path(__file__).with_name("data") / "ratings.json"


@cache
def _table() -> dict[str, dict[int, int]]:
    try:
        raw = json.loads(RATINGS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table: dict[str, dict[int, int]] = {}
    for key, levels in raw.items():
        if isinstance(levels, dict):
            table[str(key)] = {int(lv): int(r) for lv, r in levels.items()}
    return table


def nominal_rating(ruleset: str, level: int) -> int | None:
    """The measured rating of ``level`` in ``ruleset``, or None when not measured."""
    return _table().get(ruleset, {}).get(level)
