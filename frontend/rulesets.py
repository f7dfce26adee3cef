"""The rulesets this site offers, in order, and their words in the visitor's language.

Every page, menu, banner and footer takes rulesets from here, and the words from the
rulesets themselves (``variants``: display names, summary, rules pages, forced-capture
explanation). Nothing here names a ruleset.

Which rulesets, in what order, is the games app's policy
(``kondavo.games.moderation.offered_variants``: ``KONDAVO_RULESETS``, then the admin's
"rulesets offered by the site" rows, which this module reads for it: ``ruleset_choices``).
"""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from kondavo.games.moderation import is_offered, offered_variants
from variants import Precedence, Variant, default_registry

from .naming import ruleset_name

__all__ = ["capture_sentence", "capture_sentences", "current_lang", "is_offered",
           "offered_variants", "page_in_language", "ruleset_choices", "ruleset_entries",
           "ruleset_entry"]


def ruleset_choices() -> dict[str, tuple[bool, int]]:
    """The admin's rows as ``key -> (enabled, position)``, for the games app's policy
    (``kondavo.games.moderation.offered_variants``, registered in ``FrontendConfig.ready``)."""
    from .models import RulesetChoice

    try:
        return {row.key: (row.enabled, row.position) for row in RulesetChoice.objects.all()}
    except DatabaseError:  # no table yet (before migrate): the settings alone decide
        return {}


def current_lang() -> str:
    return get_language() or "en"


def page_in_language(page_lang: str, lang: str) -> bool:
    """Whether words a ruleset gives in ``page_lang`` (as ``Variant.rules_page`` reports it:
    "fr", "pt-br") are in the visitor's language ``lang`` ("fr", "pt-br", "pt_BR"); a page
    in the base language ("pt") serves its regional variants too."""
    code = lang.strip().replace("_", "-").lower()
    return page_lang in (code, code.split("-")[0])


def ruleset_entry(variant: Variant, lang: str | None = None) -> dict[str, Any]:
    """What menus and pages show about one ruleset."""
    lang = lang or current_lang()
    name = ruleset_name(variant, lang)
    page = variant.rules_page(lang)
    title = name
    if page is not None and page_in_language(page[1], lang):
        title = page[0]["title"]  # where the rules fall back to English, keep the name
    return {"key": variant.key, "name": name, "summary": variant.summary_text(lang),
            "title": title, "has_rules": page is not None}


def ruleset_entries(lang: str | None = None) -> list[dict[str, Any]]:
    return [ruleset_entry(v, lang) for v in offered_variants()]


def _standard_sentences() -> dict[str, str]:
    """The shared capture rules, translated by the site's catalog."""
    return {
        Precedence.FREE.description: _(
            "Capture is mandatory: you may choose any capture, but you must complete it."),
        Precedence.MAX_PIECES.description: _(
            "Capture is mandatory: the longest capture is mandatory."),
        Precedence.MAX_PIECES_THEN_KINGS.description: _(
            "Capture is mandatory: the longest capture, then the one taking the most "
            "kings."),
    }


def capture_sentence(variant: Variant, lang: str | None = None) -> str:
    """The forced-capture banner of ``variant`` in ``lang`` (the ruleset's own words first)."""
    lang = lang or current_lang()
    if variant.has_capture_explanation:
        return variant.capture_rule_text(lang)
    text = variant.capture_rule_text("en")
    return _standard_sentences().get(text) or _("Capture is mandatory: {rule}").format(
        rule=text)


def capture_sentences(lang: str | None = None) -> dict[str, str]:
    """Banner text by the English rule the game state carries (``capture_rule``)."""
    out = _standard_sentences()
    for variant in default_registry():
        out[variant.capture_rule_text("en")] = capture_sentence(variant, lang)
    return out


def ruleset_reasons(lang: str | None = None) -> dict[str, str]:
    """The outcome reasons rulesets declare of their own (``outcome_reasons``), worded in
    ``lang`` (default: the request's): the game page shows them like the built-in ones."""
    lang = lang or current_lang()
    out: dict[str, str] = {}
    for variant in default_registry():
        for reason in variant.outcome_reasons:
            out.setdefault(reason.value, reason.text(lang) or reason.value)
    return out

