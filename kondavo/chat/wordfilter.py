"""The chat's word filter: a small curated list per site language (``data/words.json``, or
the file named by ``KONDAVO_CHAT_WORDS_FILE``), matched as whole words, case-insensitively
and Unicode-aware (``Ä``/``ä``, ``İ``/``i``, composed or decomposed letters alike).

Every language's list applies in every room (a room's readers speak many languages). A line
that matches is refused with an error, never altered.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from django.conf import settings

DEFAULT_FILE = Path(__file__).parent / "data" / "words.json"


def normalise(text: str) -> str:
    """Compatibility-composed and case-folded: what the patterns are matched against."""
    return unicodedata.normalize("NFKC", text).casefold()


def _pattern(words: list[str]) -> re.Pattern[str] | None:
    parts = []
    for word in words:
        tokens = normalise(word).split()
        if tokens:
            parts.append(r"\s+".join(re.escape(t) for t in tokens))
    if not parts:
        return None
    # Whole words: no letter, digit or underscore right before or after (``\w`` is Unicode).
    return re.compile(r"(?<!\w)(?:" + "|".join(sorted(parts, key=len, reverse=True))
                      + r")(?!\w)")


@lru_cache(maxsize=4)
def _patterns(path: str) -> dict[str, re.Pattern[str]]:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    out = {}
    for lang, words in raw.items():
        if lang.startswith("_") or not isinstance(words, list):
            continue
        pattern = _pattern([str(w) for w in words])
        if pattern is not None:
            out[lang] = pattern
    return out


def words_file() -> str:
    return str(getattr(settings, "KONDAVO_CHAT_WORDS_FILE", "") or DEFAULT_FILE)


def blocked_word(text: str) -> tuple[str, str] | None:
    """``(language, word as written)`` of the first refused word in ``text``, or None."""
    folded = normalise(text)
    for lang, pattern in _patterns(words_file()).items():
        match = pattern.search(folded)
        if match is not None:
            return lang, match.group(0)
    return None


def languages() -> list[str]:
    return sorted(_patterns(words_file()))
