"""Rules pages in every site language: the built-ins have them all, plugins fall back.

Every built-in ruleset's rules page exists in every language of ``settings.LANGUAGES``,
mirrors the English page (same sections, same paragraphs, same figures), and is served with
its title, headings and <title> in the visitor's language and without the English-fallback
note. A plugin that gives fewer languages still falls back to English and says so.
"""

from __future__ import annotations

import html as html_lib
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from frontend.rulesets import page_in_language
from variants import registry as registry_module
from variants.registry import BUILTINS, Registry
from variants.rulesets.rules_pages import LANGUAGE_MODULES, RULES_PAGES

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SITE_LANGS = [code for code, _name in settings.LANGUAGES]
OTHER_LANGS = [code for code in SITE_LANGS if code != "en"]
FALLBACK_NOTE = "These rules are not yet available in your language; here they are in English."

# One sentence per language and ruleset written in that game's own words: a page that lost
# its translation (or fell back to English) fails here.
OWN_WORDS = {
    "tr": {"turkish": ("Taş alma", "Alma zorunludur"), "international": ("Damalar", "taş")},
    "pt-br": {"brazilian": ("Tomada", "lei da maioria"), "international": ("Pedras", "pedra")},
    "es": {"spanish": ("Capturas", "ley de la calidad"), "international": ("Peones", "peón")},
    "pl": {"international": ("Bicie", "bicie większościowe"), "turkish": ("Damki", "pionek")},
    "fr": {"international": ("Prises", "prise"), "spanish": ("Pions", "pion")},
    "it": {"turkish": ("Prese", "presa"), "english": ("Pedine", "pedina")},
}


def _text(html: str) -> str:
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def _numbers(text: str) -> Counter[str]:
    """The figures a text gives (square numbers, board sizes, rows, move counts)."""
    return Counter(re.findall(r"\d+", text))


# --------------------------------------------------------------------------- the pages


def test_every_site_language_has_a_module_of_rules_pages() -> None:
    assert sorted(LANGUAGE_MODULES) == sorted(SITE_LANGS)
    for key, pages in RULES_PAGES.items():
        assert sorted(pages) == sorted(SITE_LANGS), key


@pytest.mark.parametrize("lang", SITE_LANGS)
@pytest.mark.parametrize("variant", BUILTINS, ids=lambda v: v.key)
def test_builtin_rules_page_is_in_every_site_language(variant: object, lang: str) -> None:
    found = variant.rules_page(lang)  # type: ignore[attr-defined]
    assert found is not None, (variant, lang)
    page, page_lang = found
    # The page served is the visitor's language: the English-fallback note never shows.
    assert page_in_language(page_lang, lang), (variant, lang, page_lang)
    assert page["title"] and page["summary"] and page["sections"]
    # The home page's one-line summary is the page's, in the same language.
    assert variant.summary_text(lang) == page["summary"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", OTHER_LANGS)
@pytest.mark.parametrize("key", sorted(RULES_PAGES))
def test_a_translated_page_mirrors_the_english_one(key: str, lang: str) -> None:
    """Same sections, same number of paragraphs, same figures: the same rules and facts."""
    english, page = RULES_PAGES[key]["en"], RULES_PAGES[key][lang]
    assert len(page["sections"]) == len(english["sections"])
    english_headings = {heading for heading, _ in english["sections"]}
    for (heading, paragraphs), (_en_heading, en_paragraphs) in zip(
            page["sections"], english["sections"], strict=True):
        assert heading and heading not in english_headings, (key, lang, heading)
        assert len(paragraphs) == len(en_paragraphs), (key, lang, heading)
        for text, en_text in zip(paragraphs, en_paragraphs, strict=True):
            assert _numbers(text) == _numbers(en_text), (key, lang, text)
    assert _numbers(page["summary"]) == _numbers(english["summary"]), (key, lang)
    assert page["title"] != english["title"] and page["summary"] != english["summary"]


# --------------------------------------------------------------------------- served pages


@pytest.mark.parametrize("lang", SITE_LANGS)
@pytest.mark.parametrize("key", sorted(RULES_PAGES))
def test_rules_page_is_served_in_the_visitors_language(client: Client, key: str,
                                                      lang: str) -> None:
    response = client.get(f"/rules/{key}/", HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    html = response.content.decode()
    page, english = RULES_PAGES[key][lang], RULES_PAGES[key]["en"]
    assert f'<html lang="{lang}"' in html
    assert f'<article class="rules-text" lang="{lang}">' in html
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    assert title is not None
    with translation.override(lang):
        expected = translation.gettext("Rules: %(name)s") % {"name": page["title"]}
        note = translation.gettext(FALLBACK_NOTE)
    assert expected in title.group(1)
    assert [html_lib.unescape(h) for h in re.findall(r"<h1>(.*?)</h1>", html)] == [page["title"]]
    headings = [html_lib.unescape(h) for h in re.findall(r"<h2>(.*?)</h2>", html)]
    for heading, _paragraphs in page["sections"]:
        assert heading in headings, (key, lang, heading)
    assert FALLBACK_NOTE not in html and note not in html
    if lang != "en":
        assert english["title"] not in title.group(1)
        for en_heading, _ in english["sections"]:
            assert en_heading not in headings, (key, lang, en_heading)
        text = _text(html)
        assert page["summary"] in text and english["summary"] not in text


@pytest.mark.parametrize(("lang", "key"), [(lang, key) for lang, keys in OWN_WORDS.items()
                                           for key in keys])
def test_rules_pages_use_the_games_own_words(client: Client, lang: str, key: str) -> None:
    heading, words = OWN_WORDS[lang][key]
    html = client.get(f"/rules/{key}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert heading in [html_lib.unescape(h) for h in re.findall(r"<h2>(.*?)</h2>", html)]
    assert words in _text(html)


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_home_and_rules_index_summaries_in_the_visitors_language(client: Client,
                                                                lang: str) -> None:
    for url in ("/", "/rules/"):
        text = _text(client.get(url, HTTP_ACCEPT_LANGUAGE=lang).content.decode())
        for key, pages in RULES_PAGES.items():
            assert pages[lang]["summary"] in text, (url, key)
            assert pages["en"]["summary"] not in text, (url, key)
    index = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    for key, pages in RULES_PAGES.items():
        links = re.findall(rf'<a href="/rules/{key}/">(.*?)</a>', index)
        assert pages[lang]["title"] in [html_lib.unescape(link) for link in links], key


# --------------------------------------------------------------------------- plugins


@pytest.fixture
def with_examples(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The Italian (English and Italian pages) and Czech (English page) example plugins."""
    monkeypatch.syspath_prepend(str(EXAMPLES / "kondavo-italian" / "src"))
    monkeypatch.syspath_prepend(str(EXAMPLES / "kondavo-czech" / "src"))
    from kondavo_czech import CZECH
    from kondavo_italian import ITALIAN

    monkeypatch.setattr(registry_module, "_default", Registry([*BUILTINS, ITALIAN, CZECH]))
    yield
    sys.modules.pop("kondavo_italian", None)
    sys.modules.pop("kondavo_czech", None)


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_plugin_pages_fall_back_to_english_where_they_give_no_language(
        client: Client, with_examples: None, lang: str) -> None:
    with translation.override(lang):
        note = translation.gettext(FALLBACK_NOTE)
    for key, given in (("italian", {"it"}), ("czech", set())):
        html = client.get(f"/rules/{key}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
        assert f'<html lang="{lang}"' in html
        if lang in given:
            assert f'<article class="rules-text" lang="{lang}">' in html and note not in html
        else:
            assert '<article class="rules-text" lang="en">' in html
            assert note in html and (lang == "en" or note != FALLBACK_NOTE)
    # The built-ins next to them stay in the visitor's language.
    html = client.get("/rules/turkish/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert note not in html
