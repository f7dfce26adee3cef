"""The rules engine's errors in the visitor's language.

The engine (``variants``) knows no Django and writes its errors in English for the command
line and the logs; each error also carries a stable ``code``, its ``params`` and, when it
wraps another, its ``cause`` (``variants.errors``). Here every code has its sentence, marked
for translation, filled in with the params: the site shows ``engine_error_text(exc)``
wherever a FEN, a PDN, a move text or a set-up position is refused. A code without a
sentence here (a plugin ruleset's own) is shown with its class's general sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from variants import VariantError, get_variant
from variants.errors import Problem

__all__ = ["engine_error_text", "problem_text", "sentence_codes"]

MAX_PARAM_CHARS = 40
"""A text the visitor typed (a FEN, a move) is shown cut to this many characters."""


def _general() -> dict[str, str]:
    """The sentence of each error class: an error raised with an English text of its own."""
    return {
        "error": _("The rules engine refused this input."),
        "unknown_ruleset": _("This ruleset is not known here."),
        "invalid_fen": _("This is not a position (FEN) of this ruleset."),
        "invalid_square": _("That is not a playable square."),
        "invalid_position": _("This position cannot occur in a game."),
        "invalid_notation": _("That is not a move."),
        "illegal_move": _("That move is not legal here."),
        "invalid_pdn": _("This PDN cannot be read."),
    }


def _sentences() -> dict[str, str]:
    """Codes with parameters: ``%(name)s`` is a param, ``%(reason)s`` the wrapped error."""
    return {
        "ruleset_unknown_name": _("Unknown ruleset “%(name)s”."),
        "ruleset_unknown_gametype": _("No ruleset here has the PDN GameType %(gametype)s."),
        "square_not_playable": _("“%(text)s” is not a playable square in %(ruleset)s."),
        "square_range_backwards": _("The range %(range)s runs backwards."),
        "fen_no_turn": _("A FEN starts with the side to move: W or B."),
        "fen_bad_list": _("Each piece list of a FEN starts with W or B, not “%(letter)s”."),
        "fen_list_twice": _("The FEN gives the %(letter)s piece list twice."),
        "fen_bad_square": _("In the FEN: %(reason)s"),
        "fen_square_twice": _("The FEN gives square %(square)s twice."),
        "fen_no_lists": _("The FEN has no piece lists."),
        "position_impossible": _("This position cannot occur in %(ruleset)s: %(problems)s."),
        "off_board": _("some pieces are not on the board's playing squares"),
        "square_twice": _("a square holds two pieces"),
        "side_no_pieces": _("%(side)s: no pieces"),
        "men_on_crowning_row": _(
            "%(side)s: men on the crowning row (%(squares)s), where a man becomes a king"),
        "not_a_move": _("“%(text)s” is not a move (write it like %(example)s)."),
        "move_bad_square": "%(reason)s",
        "move_illegal": _("%(move)s is not a legal move here."),
        "move_ambiguous": _(
            "%(text)s is ambiguous: it could be %(candidates)s. Write the full capture path."),
        "move_no_piece": _("%(side)s: no piece on %(square)s."),
        "move_in_game": _("Move %(number)s (%(text)s): %(reason)s"),
        "pdn_too_large": _("The PDN is too large (%(size)s characters; the limit is %(limit)s)."),
        "pdn_unterminated_comment": _("Line %(line)s: a comment that opens with { never ends."),
        "pdn_unexpected": _("Line %(line)s: unexpected “%(char)s”."),
        "pdn_malformed_tag": _("Line %(line)s: a tag in [ ] is malformed."),
        "pdn_unopened_variation": _("Line %(line)s: a “)” closes no variation."),
        "pdn_unclosed_variation": _("A variation opened with “(” is never closed."),
        "pdn_unknown_gametype": _(
            "Game %(game)s: the GameType %(gametype)s is not a ruleset known here."),
        "pdn_no_ruleset": _("Game %(game)s: no GameType tag, and no ruleset chosen."),
        "pdn_bad_fen": _("Game %(game)s: the FEN tag is wrong. %(reason)s"),
        "pdn_bad_move": _("Game %(game)s, move %(number)s (%(text)s): %(reason)s"),
        "pdn_bad_result": _("The result “%(result)s” is not one of %(results)s."),
        "pdn_bad_tag_name": _("The tag name “%(name)s” is not valid PDN."),
    }


def _counted(code: str, count: int) -> str | None:
    """The codes whose sentence depends on a number (plural forms differ per language)."""
    if code == "side_too_many_men":
        return ngettext("%(side)s: %(count)s man, but a side starts with %(start)s",
                        "%(side)s: %(count)s men, but a side starts with %(start)s", count)
    if code == "side_too_many_pieces":
        return ngettext("%(side)s: %(count)s piece, but a side starts with %(start)s",
                        "%(side)s: %(count)s pieces, but a side starts with %(start)s", count)
    if code == "move_illegal_capture":
        return ngettext(
            "%(move)s is not a legal move here: a capture is mandatory, and it must take "
            "%(count)s piece.",
            "%(move)s is not a legal move here: a capture is mandatory, and it must take "
            "%(count)s pieces.", count)
    return None


COUNTED = ("side_too_many_men", "side_too_many_pieces", "move_illegal_capture")


def sentence_codes() -> set[str]:
    """Every code this module has a sentence for (tests compare it with the engine's)."""
    return {*_general(), *_sentences(), *COUNTED}


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_PARAM_CHARS:
        return value[:MAX_PARAM_CHARS - 1] + "…"
    return value


def _side(value: Any) -> str:
    """A side as the engine names it: the usual two in the visitor's language, a ruleset's
    own side names as it writes them."""
    words: Mapping[str, Callable[[], str]] = {"White": lambda: _("White"),
                                              "Black": lambda: _("Black")}
    word = words.get(str(value))
    return word() if word else str(value)


def _ruleset(params: Mapping[str, Any]) -> str:
    key = params.get("ruleset_key")
    if key:
        try:
            variant = get_variant(str(key))
        except VariantError:
            return str(params.get("ruleset", key))
        localized = getattr(variant, "localized_name", None)
        name = localized(get_language() or "en") if callable(localized) else None
        return str(name or variant.name)
    return str(params.get("ruleset", ""))


def _fill(code: str, params: Mapping[str, Any], reason: str | None) -> str | None:
    values: dict[str, Any] = {name: _short(value) for name, value in params.items()}
    if "side" in values:
        values["side"] = _side(values["side"])
    if "ruleset" in values or "ruleset_key" in values:
        values["ruleset"] = _ruleset(params)
    problems = params.get("problems")
    if isinstance(problems, tuple | list):
        values["problems"] = pgettext("between two problems of a position", "; ").join(
            problem_text(p) for p in problems)
    if reason is not None:
        values["reason"] = reason
    count = values.get("count")
    template = (_counted(code, int(count)) if isinstance(count, int) else None) \
        or _sentences().get(code)
    if template is None:
        return None
    try:
        return template % values
    except (KeyError, TypeError, ValueError):  # the params do not fit: fall back
        return None


def problem_text(problem: str) -> str:
    """One set-up position problem (``variants.errors.Problem``) in the current language."""
    if isinstance(problem, Problem):
        text = _fill(problem.code, problem.params, None)
        if text is not None:
            return text
    return str(problem)


def engine_error_text(exc: VariantError) -> str:
    """``exc`` (and what it wraps) in the current language, for a player to read."""
    cause = getattr(exc, "cause", None)
    reason = engine_error_text(cause) if isinstance(cause, VariantError) else None
    code = getattr(exc, "code", "error")
    text = _fill(code, getattr(exc, "params", {}), reason)
    if text is not None:
        return text
    general = _general()
    for cls in type(exc).__mro__:  # the nearest class with a general sentence
        default = getattr(cls, "default_code", None)
        if default in general:
            return general[default]
    return general["error"]

