"""Ruleset names as shown to people, in the current language.

The engine (``variants``) knows nothing of Django. Each ruleset declares its ``name`` in
English and, in ``display_names``, the same name in other languages: the built-ins and
plugins alike. A name a ruleset does not give in the current language is shown as written.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language


def ruleset_name(variant: Any, lang: str | None = None) -> str:
    """The display name of a ruleset in ``lang`` (default: the current language)."""
    localized = getattr(variant, "localized_name", None)
    if callable(localized):
        name = localized(lang or get_language() or "en")
        if name:
            return str(name)
    name = getattr(variant, "name", "") or ""
    return str(name) if name else str(getattr(variant, "key", "") or "")
