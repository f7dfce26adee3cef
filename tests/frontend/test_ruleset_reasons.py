"""A ruleset's own outcome reasons reach the game page's words, in the reader's language."""

from __future__ import annotations

import pytest
from django.utils import translation
from ruleset_fixtures import with_three_kings  # noqa: F401  (the fixture)

from frontend import rulesets
from frontend.jsi18n import js_strings


@pytest.mark.usefixtures("with_three_kings")
def test_the_page_words_a_ruleset_reason_in_the_reader_language() -> None:
    with translation.override("fr"):
        reasons = js_strings()["reasons"]
        assert isinstance(reasons, dict)
        assert reasons["three_kings"] == "trois dames contre une"
        assert reasons["threefold"] != "the same position occurred three times"  # French
    with translation.override("pl"):  # no Polish words: the English ones
        assert rulesets.ruleset_reasons()["three_kings"] == "three kings against one"


def test_the_builtins_declare_no_reason_of_their_own() -> None:
    assert rulesets.ruleset_reasons("fr") == {}
