"""The rulesets this site offers, in order, and their words in the visitor's language.

Every page, menu, banner and footer takes rulesets from here, and the words from the
rulesets themselves (``variants``: display names, summary, rules pages, forced-capture
explanation). Nothing here names a ruleset.

Which rulesets, in what order: ``KONDAVO_RULESETS`` (setting and environment variable, a
comma-separated list of keys; empty means every installed ruleset, built-ins first), then
the admin's "rulesets offered by the site" rows (enable/disable, position).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from variants import Precedence, Variant, default_registry

from .naming import ruleset_name

log = logging.getLogger(__name__)


def _configured() -> list[Variant]:
    registry = default_registry()
    keys = [k.strip() for k in getattr(settings, "KONDAVO_RULESETS", None) or [] if k.strip()]
    if not keys:
        return list(registry)
    chosen: list[Variant] = []
    for key in keys:
        if key in registry:
            variant = registry.get(key)
            if variant not in chosen:
                chosen.append(variant)
        else:
            log.warning("KONDAVO_RULESETS names %r, which is not installed; skipped", key)
    return chosen


def offered_variants() -> list[Variant]:
    """The rulesets the site offers, in the operator's order."""
    from .models import RulesetChoice

    chosen = _configured()
    try:
        rows = {row.key: row for row in RulesetChoice.objects.all()}
    except DatabaseError:  # no table yet (before migrate): the settings alone decide
        rows = {}
    order = {v.key: i for i, v in enumerate(chosen)}
    kept = [v for v in chosen if v.key not in rows or rows[v.key].enabled]
    kept.sort(key=lambda v: (0, rows[v.key].position, order[v.key]) if v.key in rows
              else (1, 0, order[v.key]))
    return kept


def is_offered(key: str) -> bool:
    return any(v.key == key for v in offered_variants())


def current_lang() -> str:
    return get_language() or "en"


def ruleset_entry(variant: Variant, lang: str | None = None) -> dict[str, Any]:
    """What menus and pages show about one ruleset."""
    lang = lang or current_lang()
    name = ruleset_name(variant, lang)
    page = variant.rules_page(lang)
    title = name
    if page is not None and page[1] == lang.split("-")[0].lower():
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
