"""A ruleset's own outcome reasons reach the game page's words, in the reader's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from frontend import rulesets
from frontend.jsi18n import js_strings
from variants import Color, Outcome, Position, Reason, Registry
from variants.registry import BUILTINS
from variants.rulesets.brazilian import Brazilian

THREE_KINGS = Reason("three_kings", {"en": "three kings against one",
                                     "fr": "trois dames contre une"})


class ThreeKings(Brazilian):
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
    registry = Registry([*BUILTINS, ThreeKings()])
    monkeypatch.setattr(rulesets, "default_registry", lambda: registry)


def test_the_page_words_a_ruleset_reason_in_the_reader_language(with_three_kings: None) -> None:
    with translation.override("fr"):
        reasons = js_strings()["reasons"]
        assert isinstance(reasons, dict)
        assert reasons["three_kings"] == "trois dames contre une"
        assert reasons["threefold"] != "the same position occurred three times"  # French
    with translation.override("pl"):  # no Polish words: the English ones
        assert rulesets.ruleset_reasons()["three_kings"] == "three kings against one"


def test_the_builtins_declare_no_reason_of_their_own() -> None:
    assert rulesets.ruleset_reasons("fr") == {}
