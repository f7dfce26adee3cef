"""Rulesets as data: a ruleset that only declares rules can be a TOML file.

A file declares the same class attributes a Python ruleset would (see docs/adding-a-ruleset.md
for every field)::

    key = "frisian-lite"
    name = "Frisian (lite)"
    board = "diagonal"            # or "orthogonal"
    rows = 10
    cols = 10
    initial_fen = "W:W31-50:B1-20"
    men_capture = "forward-and-backward"
    flying_kings = true
    precedence = ["most_pieces", "most_kings"]

    [summary]
    en = "10x10, flying kings, the most kings among the longest captures."

:func:`load_ruleset_file` reads one file and raises :class:`RulesetFileError` naming the file
and the field at fault; :func:`load_ruleset_dir` reads every ``*.toml`` of a directory and
logs and skips a broken file, so that one bad file never stops a site.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from variants.base import (
    Criterion,
    DiagonalVariant,
    Notation,
    OrthogonalVariant,
    Precedence,
    PromotionRule,
    RulesPage,
    Variant,
)
from variants.errors import VariantError
from variants.geometry import DIAGONAL, ORTHOGONAL
from variants.movegen import check_vector
from variants.spec import KING_LANDINGS
from variants.types import Color

log = logging.getLogger(__name__)

# Orthogonal lines over the dark squares of a diagonal board: the next square of the same
# colour along a row or a file is two squares away (Frisian captures).
_DARK_ORTHOGONAL = ((2, 0), (-2, 0), (0, -2), (0, 2))
_DIRECTIONS = {
    "diagonal": {"forward": ((1, -1), (1, 1)),
                 "forward-and-backward": DIAGONAL,
                 "diagonal": DIAGONAL,
                 "orthogonal": _DARK_ORTHOGONAL,
                 "diagonal-and-orthogonal": DIAGONAL + _DARK_ORTHOGONAL},
    "orthogonal": {"forward": ((1, 0),),
                   "forward-and-sideways": ((1, 0), (0, -1), (0, 1)),
                   "all": ORTHOGONAL,
                   "orthogonal": ORTHOGONAL,
                   "diagonal": DIAGONAL,
                   "diagonal-and-orthogonal": ORTHOGONAL + DIAGONAL},
}
# Direction fields: TOML name -> class attribute.
_VECTOR_FIELDS = (("men_move", "man_move_vectors"), ("men_capture", "man_capture_vectors"),
                  ("kings_move", "king_move_vectors"), ("kings_capture", "king_capture_vectors"))


class RulesetFileError(VariantError):
    """A ruleset file that cannot be loaded: ``path``, ``field`` and what is wrong."""

    def __init__(self, path: Path, field: str, message: str) -> None:
        self.path = path
        self.field = field
        where = f"{path}: field {field!r}" if field else str(path)
        super().__init__(f"{where}: {message}")


def _text(value: object) -> bool:
    return isinstance(value, str) or (
        isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                        for k, v in value.items()))


def _vectors(board: str) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        if isinstance(value, str):
            return value in _DIRECTIONS[board]
        return isinstance(value, list) and bool(value) and all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(n, int) for n in v)
            for v in value)
    return check


_SIMPLE: dict[str, tuple[Callable[[object], bool], str]] = {
    "key": (lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string"),
    "name": (lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string"),
    "aliases": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
                "a list of strings"),
    "pdn_gametype": (lambda v: isinstance(v, str), "a string such as \"20,W,10,10,N2,0\""),
    "board": (lambda v: v in _DIRECTIONS, "\"diagonal\" or \"orthogonal\""),
    "rows": (lambda v: isinstance(v, int) and 4 <= v <= 16, "an integer from 4 to 16"),
    "cols": (lambda v: isinstance(v, int) and 4 <= v <= 16, "an integer from 4 to 16"),
    "initial_fen": (lambda v: isinstance(v, str) and bool(v), "a FEN string"),
    "notation": (lambda v: v in ("numeric", "algebraic"), "\"numeric\" or \"algebraic\""),
    "playable_parity": (lambda v: v in (0, 1), "0 (a1 is played on) or 1"),
    "number_from_bottom_right": (lambda v: isinstance(v, bool), "true or false"),
    "playing_squares": (lambda v: v in ("dark", "light"), "\"dark\" or \"light\""),
    "first_to_move": (lambda v: v in ("white", "black"), "\"white\" or \"black\""),
    "side_names": (lambda v: isinstance(v, list) and len(v) == 2
                   and all(isinstance(s, str) for s in v), "two strings"),
    "men_capture_kings": (lambda v: isinstance(v, bool), "true or false"),
    "flying_kings": (lambda v: isinstance(v, bool), "true or false"),
    "flying_captures": (lambda v: isinstance(v, bool), "true or false"),
    "king_landing": (lambda v: v in KING_LANDINGS,
                     " or ".join(f'"{v}"' for v in KING_LANDINGS)),
    "piece_values": (lambda v: isinstance(v, dict) and set(v) == {"man", "king"}
                     and all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                             for n in v.values()),
                     "a table of two positive integers, { man = 2, king = 3 }"),
    "immediate_removal": (lambda v: isinstance(v, bool), "true or false"),
    "no_reversal": (lambda v: isinstance(v, bool), "true or false"),
    "full_capture_path": (lambda v: isinstance(v, bool), "true or false"),
    "accepts_numeric_input": (lambda v: isinstance(v, bool), "true or false"),
    "mid_capture_promotion": (lambda v: v in {p.value for p in PromotionRule},
                              " or ".join(f'"{p.value}"' for p in PromotionRule)),
    "precedence": (lambda v: (isinstance(v, str) and v in {p.value for p in Precedence})
                   or (isinstance(v, list)
                       and all(c in {x.value for x in Criterion} for c in v)),
                   "one of " + ", ".join(f'"{p.value}"' for p in Precedence)
                   + ", or a list of criteria from "
                   + ", ".join(f'"{c.value}"' for c in Criterion)),
    "draw_plies": (lambda v: isinstance(v, int) and v > 0, "a positive integer"),
    "repetitions": (lambda v: isinstance(v, int) and v > 1, "an integer above 1"),
    "max_king_moves_with_men": (lambda v: isinstance(v, int) and not isinstance(v, bool)
                                and v >= 0, "0 (no limit) or a positive integer"),
    "scoring": (lambda v: v in ("2-0", "1-0"), "\"2-0\" or \"1-0\""),
    "perft_suite": (lambda v: isinstance(v, str), "a file name, relative to this file"),
    "summary": (_text, "a string or a table of language = string"),
    "capture_explanation": (_text, "a string or a table of language = string"),
    "display_names": (lambda v: isinstance(v, dict) and _text(v),
                      "a table of language = string"),
}
_REQUIRED = ("key", "name", "board", "rows", "cols", "initial_fen")


def _rules_pages(path: Path, value: object) -> dict[str, RulesPage]:
    if not isinstance(value, dict):
        raise RulesetFileError(path, "rules", "a table of languages, e.g. [rules.en]")
    pages: dict[str, RulesPage] = {}
    for lang, page in value.items():
        field = f"rules.{lang}"
        if not isinstance(page, dict):
            raise RulesetFileError(path, field, "a table with title, summary and sections")
        for name in ("title", "summary"):
            if not isinstance(page.get(name), str) or not page[name]:
                raise RulesetFileError(path, f"{field}.{name}", "a non-empty string")
        sections: list[tuple[str, list[str]]] = []
        for i, section in enumerate(page.get("sections") or []):
            where = f"{field}.sections[{i}]"
            if (not isinstance(section, dict) or not isinstance(section.get("heading"), str)
                    or not isinstance(section.get("paragraphs"), list)
                    or not all(isinstance(p, str) for p in section["paragraphs"])):
                raise RulesetFileError(path, where,
                                       "a table with heading (string) and paragraphs "
                                       "(list of strings)")
            sections.append((section["heading"], list(section["paragraphs"])))
        extra = set(page) - {"title", "summary", "sections"}
        if extra:
            raise RulesetFileError(path, f"{field}.{sorted(extra)[0]}", "unknown field")
        pages[lang] = {"title": page["title"], "summary": page["summary"],
                       "sections": sections}
    return pages


def ruleset_from_mapping(data: Mapping[str, Any], path: Path) -> Variant:
    """Build and check the ruleset a parsed file declares (``path`` is for messages)."""
    known = {*_SIMPLE, *(field for field, _attr in _VECTOR_FIELDS), "rules"}
    for field in data:
        if field not in known:
            raise RulesetFileError(path, field, "unknown field (see docs/adding-a-ruleset.md)")
    for field in _REQUIRED:
        if field not in data:
            raise RulesetFileError(path, field, "missing (required)")
    for field, (ok, expected) in _SIMPLE.items():
        if field in data and not ok(data[field]):
            raise RulesetFileError(path, field, f"must be {expected}, not {data[field]!r}")
    board = data["board"]
    attrs: dict[str, Any] = {}
    for field in ("key", "name", "pdn_gametype", "rows", "cols", "initial_fen",
                  "playable_parity", "number_from_bottom_right", "men_capture_kings",
                  "flying_kings", "flying_captures", "king_landing", "immediate_removal",
                  "no_reversal", "full_capture_path", "accepts_numeric_input", "draw_plies",
                  "repetitions", "max_king_moves_with_men", "scoring",
                  "perft_suite", "summary", "capture_explanation", "display_names"):
        if field in data:
            attrs[field] = data[field]
    attrs["key"] = data["key"].strip().lower()
    if "aliases" in data:
        attrs["aliases"] = tuple(data["aliases"])
    if "side_names" in data:
        attrs["side_names"] = tuple(data["side_names"])
    if "notation" in data:
        attrs["notation"] = Notation(data["notation"])
    if "playing_squares" in data:
        attrs["playing_squares_dark"] = data["playing_squares"] == "dark"
    if "first_to_move" in data:
        attrs["first_to_move"] = Color.WHITE if data["first_to_move"] == "white" else Color.BLACK
    if "mid_capture_promotion" in data:
        attrs["mid_capture_promotion"] = PromotionRule(data["mid_capture_promotion"])
    if "precedence" in data:
        value = data["precedence"]
        attrs["precedence"] = (Precedence(value) if isinstance(value, str)
                               else tuple(Criterion(c) for c in value))
    if "piece_values" in data:
        attrs["piece_values"] = (data["piece_values"]["man"], data["piece_values"]["king"])
    for field, attr in _VECTOR_FIELDS:
        if field in data:
            value = data[field]
            if not _vectors(board)(value):
                raise RulesetFileError(path, field, "must be one of " + ", ".join(
                    f'"{k}"' for k in _DIRECTIONS[board]) + " or a list of [rank, file] steps")
            vectors = (_DIRECTIONS[board][value] if isinstance(value, str)
                       else tuple((int(a), int(b)) for a, b in value))
            for vector in vectors:
                try:
                    check_vector(field, vector, DIAGONAL if board == "diagonal" else ORTHOGONAL)
                except ValueError as exc:
                    message = str(exc).split(": ", 1)[1]
                    raise RulesetFileError(path, field, message) from None
            attrs[attr] = vectors
        elif board == "orthogonal" and attr.startswith("man_"):
            attrs[attr] = _DIRECTIONS[board]["forward-and-sideways"]
    if "rules" in data:
        attrs["rules_pages"] = _rules_pages(path, data["rules"])
    base: type[Variant] = DiagonalVariant if board == "diagonal" else OrthogonalVariant
    kind: type[Variant] = type(f"TomlRuleset_{attrs['key']}", (base,), attrs)
    kind._defined_in = path.resolve().parent  # perft_suite is relative to the file
    try:
        return kind()
    except VariantError as exc:
        raise RulesetFileError(path, "initial_fen", str(exc)) from None
    except (ValueError, IndexError, KeyError) as exc:
        attr, _, message = str(exc).partition(": ")
        fields = {a: f for f, a in _VECTOR_FIELDS}
        if attr in fields or attr in data:  # a message about one declared rule: name it
            raise RulesetFileError(path, fields.get(attr, attr), message) from None
        raise RulesetFileError(path, "", f"the declared board or rules do not fit: {exc}") \
            from None


def load_ruleset_file(path: str | Path) -> Variant:
    """The ruleset one TOML file declares; :class:`RulesetFileError` if it cannot be used."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulesetFileError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RulesetFileError(path, "", "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesetFileError(path, "", f"is not valid TOML: {exc}") from None
    return ruleset_from_mapping(data, path)


def scan_ruleset_dir(directory: str | Path) -> tuple[list[Variant], list[RulesetFileError]]:
    """The rulesets of ``directory``'s ``*.toml`` files, by file name, and the errors of
    the files that cannot be used (``python -m variants list`` reports them)."""
    directory = Path(directory)
    if not directory.is_dir():
        return [], [RulesetFileError(directory, "", "is not a directory")]
    out: list[Variant] = []
    errors: list[RulesetFileError] = []
    for path in sorted(directory.glob("*.toml")):
        try:
            out.append(load_ruleset_file(path))
        except RulesetFileError as exc:
            errors.append(exc)
    return out, errors


def load_ruleset_dir(directory: str | Path) -> list[Variant]:
    """Every ruleset of ``directory``'s ``*.toml`` files, by file name; broken files are
    logged and skipped."""
    out, errors = scan_ruleset_dir(directory)
    for exc in errors:
        log.error("skipping ruleset file: %s", exc)
    return out


__all__ = ["RulesetFileError", "load_ruleset_dir", "load_ruleset_file",
           "ruleset_from_mapping", "scan_ruleset_dir"]
