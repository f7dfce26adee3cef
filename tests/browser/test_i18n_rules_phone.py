"""On a phone, the rules of each country's game read in that country's language.

Turkish draughts in Turkish, Brazilian in Brazilian Portuguese, Spanish in Spanish and
International in Polish, for a phone (390x844) whose browser asks for that language: the <title>,
the heading and the sections are in that language, with no English-fallback note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from variants.rulesets.rules_pages import RULES_PAGES

pytestmark = pytest.mark.browser

ENGLISH_HEADINGS = [heading for heading, _ in RULES_PAGES["turkish"]["en"]["sections"]]


@pytest.mark.parametrize(("lang", "key", "title_word"), [
    ("tr", "turkish", "Kurallar"),
    ("pt-br", "brazilian", "Regras"),
    ("es", "spanish", "Reglas"),
    ("pl", "international", "Zasady"),
])
def test_rules_of_each_countrys_game_on_a_phone(daphne_server: str, new_page: Any, lang: str,
                                                key: str, title_word: str,
                                                artifacts_dir: Path) -> None:
    page = new_page(width=390, height=844, locale=lang)  # the browser asks for ``lang``
    page.goto(f"{daphne_server}/rules/{key}/")
    assert page.evaluate("document.documentElement.lang") == lang
    rules = RULES_PAGES[key][lang]
    assert page.title().startswith(title_word) and rules["title"] in page.title()
    assert page.locator("article h1").inner_text() == rules["title"]
    headings = page.locator("article h2").all_inner_texts()
    assert headings == [heading for heading, _ in rules["sections"]]
    assert not set(headings) & set(ENGLISH_HEADINGS)
    assert page.locator("article .banner").count() == 0
    assert page.locator("article").get_attribute("lang") == lang
    # The text fits the phone's width.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts_dir / f"rules-{key}-{lang}-phone.png"), full_page=True)
