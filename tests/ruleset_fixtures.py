"""A test ruleset with an outcome reason of its own, shared by the tests of the rules, the
game services and the game page's words.

``ThreeKings``: Brazilian rules, but three kings (and no man) against a lone piece is a draw
at once, reason ``three_kings``, worded in English and French only (other languages fall
back to the English words). ``with_three_kings``: the fixture that adds it to the default
registry (``variants.default_registry``, which the site reads) for one test.
"""

from __future__ import annotations

import pytest

from variants import Color, Outcome, Position, Reason
from variants import registry as registry_module
from variants.registry import BUILTINS, Registry
from variants.rulesets.brazilian import Brazilian

THREE_KINGS = Reason("three_kings", {"en": "three kings against one",
                                     "fr": "trois dames contre une"})


class ThreeKings(Brazilian):
    """A ruleset with a result of its own, and its own words for it."""

    key = "three-kings"
    name = "Three kings"
    outcome_reasons = (THREE_KINGS,)

    def special_outcome(self, position: Position) -> Outcome | None:
        for color in Color:
            if (not position.men(color) and position.kings(color).bit_count() >= 3
                    and position.pieces(color.opponent).bit_count() == 1):
                return Outcome(None, THREE_KINGS)
        return None


@pytest.fixture
def with_three_kings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in rulesets and ``ThreeKings`` as the default registry, for one test."""
    monkeypatch.setattr(registry_module, "_default", Registry([*BUILTINS, ThreeKings()]))
