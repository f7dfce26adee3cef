"""Every message of every catalog is translated, in every site language, and compiled.

The catalogs are the ``django.po`` files under each app's ``locale/`` (and the project's
``locale/`` when there is one). For every language of ``settings.LANGUAGES`` but English:
every msgid has a non-empty msgstr (every plural form), none is fuzzy, the placeholders of
the msgid survive, and the committed ``django.mo`` says the same as the ``.po``. Finally the
strings marked for translation in the code and templates (extracted with ``makemessages``
into a scratch copy) are all in the catalogs.
"""

from __future__ import annotations

import ast
import gettext
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.translation import to_locale

REPO = Path(__file__).resolve().parents[2]
LOCALES = [to_locale(code) for code, _name in settings.LANGUAGES if code != "en"]
SKIP_DIRS = {".venv", ".git", "node_modules", "staticfiles", "tests", "examples", "bench",
             "__pycache__", "deploy", "docs"}
# What the scratch copy for makemessages needs: the code and templates that mark strings.
SOURCE_DIRS = ("frontend", "kondavo", "rating", "variants", "bots")


@dataclass
class Entry:
    msgctxt: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False


def parse_po(path: Path) -> list[Entry]:
    """The entries of a .po file: the header and obsolete (``#~``) entries left out."""
    entries: list[Entry] = []
    entry, name, index = Entry(), "", 0

    def flush() -> None:
        nonlocal entry
        if entry.msgid:
            entries.append(entry)
        entry = Entry()

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            flush()
            continue
        if line.startswith("#~"):
            continue
        if line.startswith("#"):
            entry.fuzzy = entry.fuzzy or (line.startswith("#,") and "fuzzy" in line)
            continue
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(".*")$', line)
        if match:
            if match.group(1) in ("msgctxt", "msgid") and entry.msgstr:
                flush()  # two entries without a blank line between them
            name, index = match.group(1), int(match.group(2) or 0)
            value = ast.literal_eval(match.group(3))
        elif line.startswith('"'):
            value = ast.literal_eval(line)
        else:
            raise AssertionError(f"{path}:{number}: cannot read {raw!r}")
        if name == "msgctxt":
            entry.msgctxt = (entry.msgctxt or "") + value
        elif name == "msgid":
            entry.msgid += value
        elif name == "msgid_plural":
            entry.msgid_plural = (entry.msgid_plural or "") + value
        else:
            entry.msgstr[index] = entry.msgstr.get(index, "") + value
    flush()
    return entries


def locale_dirs(root: Path) -> list[Path]:
    """Every ``locale`` directory holding Django catalogs under ``root``."""
    found = []
    for dirpath, dirnames, _files in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        if Path(dirpath).name == "locale" and any(
                (Path(dirpath) / d / "LC_MESSAGES" / "django.po").is_file() for d in dirnames):
            found.append(Path(dirpath))
            dirnames[:] = []
    return sorted(found)


CATALOG_DIRS = locale_dirs(REPO)
CATALOGS = [(d, loc) for d in CATALOG_DIRS for loc in LOCALES]


def _id(value: object) -> str:
    return str(value.relative_to(REPO)) if isinstance(value, Path) else str(value)


def _placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"%\(\w+\)[sdif]|\{\w*\}", text))


def test_the_catalogs_are_found() -> None:
    assert {d.relative_to(REPO).as_posix() for d in CATALOG_DIRS} >= {
        "frontend/locale", "rating/locale", "kondavo/accounts/locale",
        "kondavo/tournaments/locale"}
    assert set(LOCALES) == {"fr", "it", "tr", "es", "pt_BR", "pl"}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("catalog", CATALOG_DIRS, ids=_id)
def test_every_msgid_is_translated(catalog: Path, locale: str) -> None:
    po = catalog / locale / "LC_MESSAGES" / "django.po"
    assert po.is_file(), f"{po} is missing: every app catalog exists in every site language"
    entries = parse_po(po)
    assert entries
    fuzzy = [e.msgid for e in entries if e.fuzzy]
    assert not fuzzy, f"{po}: fuzzy entries {fuzzy}"
    empty = [e.msgid for e in entries
             if not e.msgstr or not all(value.strip() for value in e.msgstr.values())]
    assert not empty, f"{po}: untranslated {empty}"
    lost = [(e.msgid, s) for e in entries for s in e.msgstr.values()
            if _placeholders(s) != _placeholders(e.msgid)
            and _placeholders(s) != _placeholders(e.msgid_plural or "")]
    assert not lost, f"{po}: placeholders changed {lost}"


@pytest.mark.parametrize("catalog", CATALOG_DIRS, ids=_id)
def test_every_language_has_the_same_msgids(catalog: Path) -> None:
    keys = {loc: {(e.msgctxt, e.msgid) for e in
                  parse_po(catalog / loc / "LC_MESSAGES" / "django.po")} for loc in LOCALES}
    reference = keys["fr"]
    for loc, found in keys.items():
        assert found == reference, (loc, sorted(found ^ reference, key=str))


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("catalog", CATALOG_DIRS, ids=_id)
def test_the_committed_mo_is_compiled_from_the_po(catalog: Path, locale: str) -> None:
    po = catalog / locale / "LC_MESSAGES" / "django.po"
    with open(po.with_suffix(".mo"), "rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    for e in parse_po(po):
        key = e.msgid if e.msgctxt is None else f"{e.msgctxt}\x04{e.msgid}"
        if e.msgid_plural is None:
            assert compiled.get(key) == e.msgstr[0], f"{po}: recompile ({e.msgid!r})"
        else:
            for i, value in e.msgstr.items():
                assert compiled.get((key, i)) == value, f"{po}: recompile ({e.msgid!r})"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs GNU gettext (xgettext)")
def test_every_string_marked_in_the_code_is_in_the_catalogs(tmp_path: Path) -> None:
    """makemessages, run on a scratch copy of the code, finds nothing the catalogs lack."""
    copy = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.mo", "*.po", "static", "migrations")
    for name in SOURCE_DIRS:
        shutil.copytree(REPO / name, copy / name, ignore=ignore)
    shutil.copy(REPO / "manage.py", copy / "manage.py")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ.get(
        "DJANGO_SETTINGS_MODULE", "kondavo.settings.test")}
    subprocess.run([sys.executable, "manage.py", "makemessages", "-l", "fr", "--no-location",
                    "--no-wrap"], cwd=copy, env=env, check=True, capture_output=True,
                   timeout=120)
    marked: dict[tuple[str | None, str], str] = {}
    for po in copy.rglob("django.po"):
        for e in parse_po(po):
            marked[(e.msgctxt, e.msgid)] = po.relative_to(copy).as_posix()
    assert len(marked) > 100
    for locale in LOCALES:
        known = {(e.msgctxt, e.msgid) for d in CATALOG_DIRS
                 for e in parse_po(d / locale / "LC_MESSAGES" / "django.po")}
        missing = sorted(k[1] for k in marked if k not in known)
        assert not missing, f"{locale}: not in any catalog: {missing}"
