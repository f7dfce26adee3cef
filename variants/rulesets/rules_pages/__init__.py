"""The built-in rulesets' rules pages, per ruleset and language: one module per language.

Each built-in declares its pages as ``rules_pages = RULES_PAGES[key]`` (a plugin declares
its own the same way: a mapping of language code to page). A page is a title, a one-line
summary and (heading, paragraphs) sections; every built-in page ends with its language's
"end of the game" section (``COMMON``). A language module gives ``PAGES`` (ruleset key ->
page) and ``COMMON``. The site falls back to English, and says so, only for a language a
ruleset does not give; the built-ins give every site language.
"""

from __future__ import annotations

from types import ModuleType

from variants.base import RulesPage

from . import en, es, fr, it, pl, pt_br, tr

# Language code (as in ``Text`` tables: lower case, "pt-br") -> the module with its pages.
LANGUAGE_MODULES: dict[str, ModuleType] = {
    "en": en, "fr": fr, "it": it, "es": es, "pt-br": pt_br, "tr": tr, "pl": pl,
}


def _pages(key: str) -> dict[str, RulesPage]:
    pages: dict[str, RulesPage] = {}
    for lang, module in LANGUAGE_MODULES.items():
        page: RulesPage = module.PAGES[key]
        pages[lang] = {**page, "sections": [*page["sections"], *module.COMMON]}
    return pages


RULES_PAGES: dict[str, dict[str, RulesPage]] = {
    key: _pages(key) for key in en.PAGES
}

__all__ = ["LANGUAGE_MODULES", "RULES_PAGES"]
