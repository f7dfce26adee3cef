"""Ruleset names as shown to people, in the current language.

The engine (``variants``) knows nothing of Django and declares each ``variant.name`` in
English. We translate that name at display time: the built-in names below are msgids of
the frontend catalog, with the context "ruleset" (so that the ruleset "Spanish" and the
language "Spanish" can be translated differently). A plugin ruleset's name is not in any
catalog and is shown as its author wrote it.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

RULESET_CONTEXT = "ruleset"

# Only here so that makemessages puts the built-in names in the catalog; never displayed.
BUILTIN_RULESET_NAMES = (
    pgettext_lazy("ruleset", "International"),
    pgettext_lazy("ruleset", "English checkers"),
    pgettext_lazy("ruleset", "Brazilian"),
    pgettext_lazy("ruleset", "Spanish"),
    pgettext_lazy("ruleset", "Turkish (Dama)"),
)


def translate_ruleset_name(name: str) -> str:
    """``name`` (a ``variant.name``) in the current language, unchanged if unknown."""
    if not name:  # gettext("") would return the catalog header
        return name
    return pgettext(RULESET_CONTEXT, name)


def ruleset_name(variant: Any) -> str:
    """The display name of a ruleset: its translated ``name``, else its ``key``."""
    name = getattr(variant, "name", "") or ""
    return translate_ruleset_name(name) if name else str(getattr(variant, "key", "") or "")
