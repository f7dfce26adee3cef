"""A ruleset's words: its names, one-line summary, rules pages, forced-capture banner and
result notation, in the languages it gives (English is the fallback).

Nothing here changes a rule. A ruleset declares its words as class attributes (see
:class:`RulesetWords`); a data-only ruleset file as tables (``[summary]``, ``[rules.en]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, TypedDict

from variants.spec import Criterion
from variants.types import Color, Reason

Text = str | Mapping[str, str]
"""Words a ruleset brings: one English string, or a mapping of language code to string
(``{"en": "...", "fr": "..."}``; English is the fallback)."""


class RulesPage(TypedDict):
    """A ruleset's rules page in one language."""

    title: str
    summary: str
    sections: list[tuple[str, list[str]]]  # (heading, paragraphs)


SCORINGS = ("2-0", "1-0")


def _lang_candidates(lang: str) -> list[str]:
    code = lang.strip().replace("_", "-").lower()
    return [code, code.split("-")[0]] if code else []


def localize(text: Text, lang: str) -> tuple[str, str]:
    """(``text`` in ``lang``, the language actually used): falls back to English, then to
    any language given; ``("", "")`` for empty text."""
    if isinstance(text, str):
        return text, "en"
    table = {k.replace("_", "-").lower(): v for k, v in text.items()}
    for code in [*_lang_candidates(lang), "en"]:
        if table.get(code):
            return table[code], code
    for code, value in table.items():
        if value:
            return value, code
    return "", ""


_CRITERION_TEXT = {
    Criterion.MOST_PIECES: "the capture taking the most pieces",
    Criterion.MOST_KINGS: "the one taking the most kings",
    Criterion.WITH_KING: "a capture with a king rather than with a man",
    Criterion.EARLIEST_KING: "the one meeting a king first",
    Criterion.MOST_VALUE: "the capture taking the most value",
}


def describe_precedence(criteria: Sequence[Criterion]) -> str:
    """The English banner text of a capture rule (the default forced-capture explanation)."""
    if not criteria:
        return ("capturing is mandatory (any capture may be chosen, but it must be "
                "completed)")
    if tuple(criteria) == (Criterion.MOST_PIECES,):
        return "capturing is mandatory and the longest capture is mandatory"
    if tuple(criteria) == (Criterion.MOST_PIECES, Criterion.MOST_KINGS):
        return ("capturing is mandatory: the longest capture, then the one taking the most "
                "kings")
    return "capturing is mandatory: " + ", then ".join(_CRITERION_TEXT[c] for c in criteria)



class RulesetWords:
    """The words part of a ruleset (a base class of ``Variant``)."""

    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    display_names: ClassVar[Mapping[str, str]] = {}  # ``name`` in other languages
    summary: ClassVar[Text] = ""  # one line for menus and the home page
    capture_explanation: ClassVar[Text] = ""  # the forced-capture banner; "" = from rules
    rules_pages: ClassVar[Mapping[str, RulesPage]] = {}  # language -> rules page
    scoring: ClassVar[str] = "2-0"  # "2-0": win 2-0, draw 1-1; "1-0": win 1-0, draw 1/2-1/2
    outcome_reasons: ClassVar[tuple[Reason, ...]] = ()  # the ruleset's own, with words

    if TYPE_CHECKING:
        @property
        def capture_criteria(self) -> tuple[Criterion, ...]: ...

    # --- words ------------------------------------------------------------------------------
    def _own_words(self, attr: str) -> object:
        """A words attribute as declared by this ruleset, not inherited from the ruleset it
        subclasses: a plugin built on ``International`` does not show International's rules
        page or names. (Declared on the class that sets ``key`` or a subclass of it.)"""
        for kind in type(self).__mro__:
            if attr in vars(kind):
                return vars(kind)[attr]
            if "key" in vars(kind):
                break
        return getattr(RulesetWords, attr)

    @property
    def own_aliases(self) -> tuple[str, ...]:
        """``aliases`` as declared by this ruleset (not those of the ruleset it subclasses)."""
        aliases: tuple[str, ...] = self._own_words("aliases")  # type: ignore[assignment]
        return tuple(aliases)

    def localized_name(self, lang: str) -> str | None:
        """``name`` in ``lang`` when the ruleset gives it (``display_names``), else None."""
        names: Mapping[str, str] = self._own_words("display_names")  # type: ignore[assignment]
        for code in _lang_candidates(lang):
            for key, value in names.items():
                if key.replace("_", "-").lower() == code and value:
                    return value
        return None

    def summary_text(self, lang: str = "en") -> str:
        """The one-line summary in ``lang`` (English fallback; "" when none is given)."""
        summary: Text = self._own_words("summary")  # type: ignore[assignment]
        text = localize(summary, lang)[0]
        if not text:
            page = self.rules_page(lang)
            text = page[0]["summary"] if page else ""
        return text

    def capture_rule_text(self, lang: str = "en") -> str:
        """Why a capture is forced, for the banner: ``capture_explanation`` or, when the
        ruleset gives none, the English description of its declared precedence."""
        explanation: Text = self._own_words("capture_explanation")  # type: ignore[assignment]
        text = localize(explanation, lang)[0]
        return text or describe_precedence(self.capture_criteria)

    @property
    def has_capture_explanation(self) -> bool:
        return bool(self._own_words("capture_explanation"))

    def rules_page(self, lang: str = "en") -> tuple[RulesPage, str] | None:
        """(rules page, its language) in ``lang`` or the English fallback; None if none."""
        pages: Mapping[str, RulesPage] = self._own_words("rules_pages")  # type: ignore[assignment]
        if not pages:
            return None
        table = {k.replace("_", "-").lower(): v for k, v in pages.items()}
        for code in [*_lang_candidates(lang), "en", *table]:
            if code in table:
                return table[code], code
        return None

    def reason_text(self, code: str, lang: str = "en") -> str | None:
        """The words of this ruleset's own outcome reason ``code`` in ``lang`` (declared in
        ``outcome_reasons``), or None when it is not one of them (the site words the
        built-in reasons itself)."""
        for reason in self.outcome_reasons:
            if reason.value == code:
                return reason.text(lang) or code
        return None

    def result_text(self, winner: Color | None) -> str:
        """The result from White's side in this ruleset's ``scoring`` notation."""
        if self.scoring == "1-0":
            if winner is None:
                return "1/2-1/2"
            return "1-0" if winner is Color.WHITE else "0-1"
        if winner is None:
            return "1-1"
        return "2-0" if winner is Color.WHITE else "0-2"


__all__ = ["SCORINGS", "RulesPage", "RulesetWords", "Text", "describe_precedence",
           "localize"]
