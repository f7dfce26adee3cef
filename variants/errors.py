"""Narrow errors, all ValueError subclasses, each with a stable code and its parameters.

Every error carries ``code`` (a key of :data:`MESSAGES`, stable across releases),
``params`` (the values its message names: squares, move texts, counts, ruleset names) and,
when it wraps another error, ``cause``. Its text (``str(exc)``) is the English message
built from ``MESSAGES``: what the command line and the logs show. A site shows the error in
its visitor's language by translating ``code`` and filling in ``params`` itself: the engine
knows no language but English and nothing of Django.

    >>> from variants import get_variant
    >>> try:
    ...     get_variant("international").parse_fen("X:W31")
    ... except InvalidFEN as exc:
    ...     print(exc.code, exc.params["fen"])
    fen_no_turn X:W31

An error raised with a message of its own (``InvalidFEN("...")``, as a plugin ruleset may)
has its class's general code (``invalid_fen``) and no parameters.

Set-up position problems (``Variant.position_problems``) are :class:`Problem` values:
strings holding the English sentence, with a ``code`` and ``params`` of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

MESSAGES: Mapping[str, str] = MappingProxyType({
    # The general code of each class: an error raised with a message of its own.
    "error": "the rules engine refused the input",
    "unknown_ruleset": "unknown ruleset",
    "invalid_fen": "not a FEN of this ruleset",
    "invalid_square": "not a playable square",
    "invalid_position": "impossible position",
    "invalid_notation": "not a move",
    "illegal_move": "not a legal move here",
    "invalid_pdn": "not readable PDN",
    # Rulesets
    "ruleset_unknown_name": "unknown ruleset {name!r}; known: {known}",
    "ruleset_unknown_gametype": "no ruleset has PDN GameType {gametype!r}",
    # Squares
    "square_not_playable": "{text!r} is not a playable square in {ruleset}",
    "square_range_backwards": "range {range} runs backwards",
    # FEN
    "fen_no_turn": "{fen!r}: a FEN starts with the side to move, W or B",
    "fen_bad_list": "{fen!r}: each piece list starts with W or B, not {letter!r}",
    "fen_list_twice": "{fen!r}: the {letter} piece list appears twice",
    "fen_bad_square": "{fen!r}: {reason}",
    "fen_square_twice": "{fen!r}: square {square} is given twice",
    "fen_no_lists": "{fen!r}: no piece lists",
    # Set-up positions: the error, then each problem (Problem codes)
    "position_impossible": "impossible position in {ruleset}: {problems}",
    "off_board": "some pieces are not on the board's played squares",
    "square_twice": "a square holds two pieces",
    "side_no_pieces": "{side} has no pieces",
    "side_too_many_men": "{side} has {count} men: a side starts with {start}",
    "side_too_many_pieces": "{side} has {count} pieces: a side starts with {start}",
    "men_on_crowning_row": "{side} has men on its crowning row ({squares}): a man that "
                           "reaches it becomes a king",
    # Moves
    "not_a_move": "{text!r} is not a move (expected e.g. {example})",
    "move_bad_square": "{text!r}: {reason}",
    "move_illegal": "{move} is not a legal move here",
    "move_illegal_capture": "{move} is not a legal move here (a capture is mandatory: "
                            "{count} piece(s) must be taken)",
    "move_ambiguous": "{text} is ambiguous: it could be {candidates}; write the full capture "
                      "path",
    "move_no_piece": "no {side} piece on {square}",
    "move_in_game": "move {number} ({text}): {reason}",
    # PDN
    "pdn_too_large": "PDN input is too large ({size} characters; the limit is {limit})",
    "pdn_unterminated_comment": "line {line}: unterminated comment",
    "pdn_unexpected": "line {line}: unexpected {char!r}",
    "pdn_malformed_tag": "line {line}: malformed tag",
    "pdn_unopened_variation": "line {line}: ')' closes no variation",
    "pdn_unclosed_variation": "a variation '(' is never closed",
    "pdn_unknown_gametype": "game {game}: GameType {gametype!r} is not a ruleset known here",
    "pdn_no_ruleset": "game {game}: no GameType tag and no default ruleset given",
    "pdn_bad_fen": "game {game}: bad FEN tag: {reason}",
    "pdn_bad_move": "game {game}, move {number} ({text}): {reason}",
    "pdn_bad_result": "result {result!r} is not one of {results}",
    "pdn_bad_tag_name": "tag name {name!r} is not valid PDN",
})
"""Every error code and its English message (``str.format`` fields name the params; a
wrapping error's ``{reason}`` is its cause's message, ``{problems}`` the problems joined)."""


def describe(code: str, params: Mapping[str, Any], cause: BaseException | None = None) -> str:
    """The English message of ``code`` with ``params`` (and ``cause`` as ``{reason}``)."""
    values = dict(params)
    if cause is not None:
        values["reason"] = str(cause)
    problems = values.get("problems")
    if isinstance(problems, tuple | list):
        values["problems"] = "; ".join(str(p) for p in problems)
    try:
        return MESSAGES[code].format(**values)
    except (KeyError, IndexError, ValueError):  # an unknown code or a missing parameter
        return MESSAGES.get(code, code)


class Problem(str):
    """One reason a set-up position cannot occur: the English sentence, with ``code`` and
    ``params`` (see :data:`MESSAGES`) for a translation."""

    code: str
    params: Mapping[str, Any]

    def __new__(cls, code: str, **params: Any) -> Problem:
        self = super().__new__(cls, describe(code, params))
        self.code = code
        self.params = MappingProxyType(params)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return _problem, (self.code, dict(self.params))


def _problem(code: str, params: dict[str, Any]) -> Problem:
    return Problem(code, **params)


class VariantError(ValueError):
    """Base class of every error raised by the rules engine.

    ``VariantError(code="...", **params)`` builds the English message from
    :data:`MESSAGES`; ``VariantError("free text")`` keeps the text and the class's code.
    """

    default_code: ClassVar[str] = "error"
    code: str
    params: Mapping[str, Any]
    cause: VariantError | None

    def __init__(self, message: str | None = None, *, code: str | None = None,
                 cause: VariantError | None = None, **params: Any) -> None:
        self.code = code or self.default_code
        self.params = MappingProxyType(params)
        self.cause = cause
        super().__init__(describe(self.code, params, cause) if message is None else message)

    def __reduce__(self) -> tuple[Any, ...]:
        state = {**self.__dict__, "params": dict(self.params)}
        return _rebuild, (type(self), state, self.args)


def _rebuild(cls: type[VariantError], state: dict[str, Any],
             args: tuple[Any, ...]) -> VariantError:
    exc = cls.__new__(cls)
    exc.__dict__.update(state)
    exc.params = MappingProxyType(dict(state.get("params", {})))
    exc.args = args
    return exc


class UnknownVariant(VariantError, LookupError):
    default_code = "unknown_ruleset"


class InvalidFEN(VariantError):
    default_code = "invalid_fen"


class InvalidSquare(VariantError):
    default_code = "invalid_square"


class InvalidPosition(VariantError):
    """A well-formed position that cannot arise in a game of this ruleset (a side without
    pieces, more pieces than a side starts with, a man resting on its crowning row...).
    ``params["problems"]`` holds every :class:`Problem`."""

    default_code = "invalid_position"


class InvalidNotation(VariantError):
    """The text is not a move in this ruleset's notation at all."""

    default_code = "invalid_notation"


class IllegalMove(VariantError):
    """Well-formed, but not a legal move in this position."""

    default_code = "illegal_move"


class AmbiguousMove(IllegalMove):
    """A short form that matches several legal moves; ``candidates`` lists them in full."""

    def __init__(self, text: str, candidates: Sequence[str]) -> None:
        self.text = text
        self.candidates = tuple(candidates)
        super().__init__(code="move_ambiguous", text=text,
                         candidates=", ".join(self.candidates))


class InvalidPDN(VariantError):
    default_code = "invalid_pdn"


def with_context(exc: VariantError, code: str, **params: Any) -> VariantError:
    """A copy of ``exc`` (same class and attributes) that wraps it: its ``code`` and
    ``params`` become the given ones, ``cause`` is ``exc`` and its message ends with
    ``exc``'s (``move 3 (32-28): ...``, code ``move_in_game``).

    Works for errors whose constructor takes other arguments than a message (AmbiguousMove).
    """
    cls = type(exc)
    copy = cls.__new__(cls)
    copy.__dict__.update(exc.__dict__)
    copy.code = code
    copy.params = MappingProxyType(params)
    copy.cause = exc
    copy.args = (describe(code, params, exc),)
    return copy


class PDNMoveError(InvalidPDN, IllegalMove):
    """A PDN game whose movetext holds an illegal, ambiguous or unreadable move.

    Both an ``InvalidPDN`` and an ``IllegalMove``; ``game`` and ``move_number`` locate it,
    ``text`` is the move as written and ``cause`` the underlying error.
    """

    def __init__(self, game: int, move_number: int, text: str, cause: VariantError) -> None:
        self.game = game
        self.move_number = move_number
        self.text = text
        super().__init__(code="pdn_bad_move", cause=cause, game=game, number=move_number,
                         text=text)


def error_codes(exc: BaseException) -> list[str]:
    """The codes of ``exc`` and of the errors it wraps, outermost first."""
    codes: list[str] = []
    current: BaseException | None = exc
    while isinstance(current, VariantError):
        codes.append(current.code)
        current = current.cause
    return codes
