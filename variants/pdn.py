"""PDN 3.0 (Portable Draughts Notation): write one game, read a file of games.

    >>> from variants import GameRecord, get_variant
    >>> from variants.pdn import read_pdn, write_pdn
    >>> record = GameRecord.from_notation(get_variant("international"), ["32-28", "19-23"])
    >>> text = write_pdn(record, {"White": "Ada", "Black": "Bob"})
    >>> read_pdn(text)[0].record.notations
    ['32-28', '19-23']

Reading skips comments (``{...}`` and ``; ...`` to the end of the line), variations
(``(...)``, nested), NAGs (``$3``), move strength marks (``!``, ``?``) and ``%`` escape
lines. The ``GameType`` tag picks the ruleset by its number; without it the ``variant``
argument is used. A ``FEN`` tag sets the start position. Every move is checked: an illegal,
ambiguous or unreadable move raises :class:`PDNMoveError` (both ``InvalidPDN`` and
``IllegalMove``) naming the game, the move number and the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from variants.base import Variant
from variants.errors import InvalidPDN, PDNMoveError, UnknownVariant, VariantError
from variants.game import GameRecord
from variants.registry import Registry, default_registry
from variants.types import Color

MAX_PDN_CHARS = 1 << 20
"""Input larger than this (1 MiB) is refused before any parsing."""

SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
             "Black": "?"}
RESULTS = ("2-0", "0-2", "1-1", "*")
# Other spellings found in the wild, read as their PDN 3.0 equivalent.
_RESULT_ALIASES = {"2-0": "2-0", "0-2": "0-2", "1-1": "1-1", "*": "*", "1-0": "2-0",
                   "0-1": "0-2", "1/2-1/2": "1-1", "0-0": "*"}

_WINNERS = {"2-0": Color.WHITE, "0-2": Color.BLACK, "1-1": None}

_WORD = r"[^\s\[\]{}();]"
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
  | (?P<comment>\{[^}]*\})
  | (?P<line_comment>;[^\n]*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<number>\d+\s*\.+)
  | (?P<result>(?:2-0|0-2|1-1|1-0|0-1|0-0|1/2-1/2|\*)(?!""" + _WORD + r"""))
  | (?P<word>""" + _WORD + r"""+)
    """,
    re.VERBOSE,
)
_ESCAPE_LINE = re.compile(r"(?m)^%[^\n]*$")


@dataclass
class PDNGame:
    """One game read from PDN: its tags, ruleset, the replayed record and the result token."""

    tags: dict[str, str]
    variant: Variant
    record: GameRecord
    result: str = "*"

    @property
    def moves(self) -> list[str]:
        return self.record.notations

    @property
    def start_fen(self) -> str:
        return self.variant.format_fen(self.record.start)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def write_pdn(record: GameRecord, tags: Mapping[str, str] | None = None,
              width: int = 79) -> str:
    """One game in PDN 3.0: the seven tag roster, GameType, FEN/SetUp when needed, movetext.

    ``Result`` defaults to the record's outcome (``2-0``, ``0-2``, ``1-1``) or ``*``.
    """
    variant = record.variant
    given = dict(tags or {})
    outcome = record.outcome()
    result = given.get("Result") or (outcome.result if outcome is not None else "*")
    result = _RESULT_ALIASES.get(result, result)
    if result not in RESULTS:
        raise InvalidPDN(code="pdn_bad_result", result=result, results=", ".join(RESULTS))
    if result != "*":  # written in the ruleset's own scoring (2-0 / 1-1, or 1-0 / 1/2-1/2)
        result = variant.result_text(_WINNERS[result])
    lines: list[str] = []
    for name in SEVEN_TAGS:
        value = result if name == "Result" else given.get(name, _DEFAULTS[name])
        lines.append(f"[{name} {_quote(value)}]")
    if variant.pdn_gametype:
        lines.append(f"[GameType {_quote(variant.pdn_gametype)}]")
    if record.start != variant.initial_position():
        lines.append(f"[SetUp {_quote('1')}]")
        lines.append(f"[FEN {_quote(variant.format_fen(record.start))}]")
    skip = {*SEVEN_TAGS, "GameType", "FEN", "SetUp"}
    for name, value in given.items():
        if name not in skip:
            if not re.fullmatch(r"[A-Za-z0-9_]+", name):
                raise InvalidPDN(code="pdn_bad_tag_name", name=name)
            lines.append(f"[{name} {_quote(value)}]")
    lines.append("")
    tokens: list[str] = []
    offset = 0 if record.start.turn is variant.first_to_move else 1
    for ply, notation in enumerate(record.notations):
        number = (ply + offset) // 2 + 1
        if (ply + offset) % 2 == 0:
            tokens.append(f"{number}.")
        elif ply == 0:
            tokens.append(f"{number}...")
        tokens.append(notation)
    tokens.append(result)
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines) + "\n"


@dataclass
class _Pending:
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str | None = None

    @property
    def empty(self) -> bool:
        return not self.tags and not self.moves and self.result is None


def read_pdn(text: str, variant: Variant | None = None,
             registry: Registry | None = None) -> list[PDNGame]:
    """Every game of a PDN text, replayed and checked. Raises InvalidPDN or PDNMoveError."""
    if len(text) > MAX_PDN_CHARS:
        raise InvalidPDN(code="pdn_too_large", size=len(text), limit=MAX_PDN_CHARS)
    registry = default_registry() if registry is None else registry
    text = _ESCAPE_LINE.sub("", text.lstrip("\ufeff"))
    games: list[PDNGame] = []
    pending = _Pending()
    depth = 0  # variation nesting
    pos = 0
    size = len(text)

    def finish() -> None:
        nonlocal pending
        if not pending.empty:
            games.append(_build(pending, len(games) + 1, variant, registry))
        pending = _Pending()

    while pos < size:
        m = _TOKEN.match(text, pos)
        if m is None:
            line = text.count("\n", 0, pos) + 1
            if text[pos] == "[":
                raise InvalidPDN(code="pdn_malformed_tag", line=line)
            if text[pos] == "{":
                raise InvalidPDN(code="pdn_unterminated_comment", line=line)
            raise InvalidPDN(code="pdn_unexpected", line=line, char=text[pos])
        kind = m.lastgroup
        pos = m.end()
        if kind in ("space", "comment", "line_comment", "nag", "number"):
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                line = text.count("\n", 0, pos) + 1
                raise InvalidPDN(code="pdn_unopened_variation", line=line)
            depth -= 1
            continue
        if depth:
            continue
        if kind == "tag":
            if pending.moves or pending.result is not None:
                finish()
            pending.tags[m.group("name")] = _unquote(m.group("value"))
        elif kind == "result":
            pending.result = _RESULT_ALIASES[m.group("result")]
            finish()
        else:
            word = m.group("word").rstrip("!?")
            if word:
                pending.moves.append(word)
    if depth:
        raise InvalidPDN(code="pdn_unclosed_variation")
    finish()
    return games


def _build(pending: _Pending, number: int, default: Variant | None,
           registry: Registry) -> PDNGame:
    tags = pending.tags
    variant = default
    gametype = tags.get("GameType", "").strip()
    if gametype:
        try:
            variant = registry.by_gametype(gametype)
        except UnknownVariant:
            if default is None:
                raise InvalidPDN(code="pdn_unknown_gametype", game=number,
                                 gametype=gametype) from None
    if variant is None:
        raise InvalidPDN(code="pdn_no_ruleset", game=number)
    fen = tags.get("FEN", "").strip()
    try:
        start = variant.parse_fen(fen) if fen else variant.initial_position()
    except VariantError as exc:
        raise InvalidPDN(code="pdn_bad_fen", cause=exc, game=number) from None
    record = GameRecord.new(variant, start)
    offset = 0 if start.turn is variant.first_to_move else 1
    for ply, move in enumerate(pending.moves):
        try:
            record.push_notation(move)
        except VariantError as exc:
            raise PDNMoveError(number, (ply + offset) // 2 + 1, move, exc) from exc
    result = pending.result
    if result is None:
        result = _RESULT_ALIASES.get(tags.get("Result", "*").strip(), "*")
    return PDNGame(tags, variant, record, result)


__all__ = ["MAX_PDN_CHARS", "PDNGame", "RESULTS", "read_pdn", "write_pdn"]
