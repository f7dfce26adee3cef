"""A ruleset as a data-only ruleset file: the way back from a ruleset to TOML.

``python -m variants export KEY`` prints the file :func:`ruleset_to_toml` writes: every
rule of ``Variant.spec``, the notation and the words, in the fields
:mod:`variants.toml_rulesets` reads, so that loading it gives the same
:class:`~variants.spec.RulesSpec` (the round trip is tested for every built-in). It is the
quickest start for a ruleset close to an existing one: export it, change the key, the name
and the rules that differ. What a file cannot hold (a Python hook, a perft suite path
relative to a module) is listed in a comment at the top.
"""

from __future__ import annotations

from typing import Any

import tomli_w

from variants.base import Variant
from variants.geometry import DIAGONAL, ORTHOGONAL
from variants.notation import Notation
from variants.spec import Precedence, RulesSpec
from variants.types import Color
from variants.words import RulesPage

_DARK_ORTHOGONAL = ((2, 0), (-2, 0), (0, -2), (0, 2))
_NAMED_STEPS = {
    "diagonal": {((1, -1), (1, 1)): "forward", DIAGONAL: "forward-and-backward",
                 _DARK_ORTHOGONAL: "orthogonal",
                 DIAGONAL + _DARK_ORTHOGONAL: "diagonal-and-orthogonal"},
    "orthogonal": {((1, 0),): "forward", ((1, 0), (0, -1), (0, 1)): "forward-and-sideways",
                   ORTHOGONAL: "all", DIAGONAL: "diagonal",
                   ORTHOGONAL + DIAGONAL: "diagonal-and-orthogonal"},
}
_KING_NAMES = {"forward-and-backward": "diagonal", "all": "orthogonal"}
_OUTCOME_HOOKS = ("special_outcome", "draw_outcome", "position_problems")


def _steps(board: str, vectors: tuple[tuple[int, int], ...]) -> str | list[list[int]]:
    name = _NAMED_STEPS[board].get(tuple(vectors))
    return name if name else [[a, b] for a, b in vectors]


def rules_to_toml(spec: RulesSpec) -> dict[str, Any]:
    """The rule fields of a ruleset file for ``spec`` (defaults left out, except the board,
    its size, the start and the men's directions, which a reader wants to see)."""
    default = RulesSpec()
    out: dict[str, Any] = {"board": spec.board, "rows": spec.rows, "cols": spec.cols}
    if spec.board == "diagonal":
        if spec.playable_parity:
            out["playable_parity"] = spec.playable_parity
        if spec.number_from_bottom_right:
            out["number_from_bottom_right"] = True
    out["initial_fen"] = spec.initial_fen
    if spec.first_to_move is not Color.WHITE:
        out["first_to_move"] = "black"
    out["men_move"] = _steps(spec.board, spec.man_move_vectors)
    out["men_capture"] = _steps(spec.board, spec.man_capture_vectors)
    if not spec.men_capture_kings:
        out["men_capture_kings"] = False
    for field, vectors in (("kings_move", spec.king_move_vectors),
                           ("kings_capture", spec.king_capture_vectors)):
        if vectors is not None:
            steps = _steps(spec.board, vectors)
            out[field] = _KING_NAMES.get(steps, steps) if isinstance(steps, str) else steps
    out["flying_kings"] = spec.flying_kings
    if spec.flying_captures is not None:
        out["flying_captures"] = spec.flying_captures
    if spec.king_landing != default.king_landing:
        out["king_landing"] = spec.king_landing
    named = [p for p in Precedence if p.criteria == spec.precedence]
    out["precedence"] = named[0].value if named else [c.value for c in spec.precedence]
    if spec.piece_values != default.piece_values:
        out["piece_values"] = {"man": spec.piece_values[0], "king": spec.piece_values[1]}
    for name in ("immediate_removal", "no_reversal"):
        if getattr(spec, name):
            out[name] = True
    if spec.mid_capture_promotion is not default.mid_capture_promotion:
        out["mid_capture_promotion"] = spec.mid_capture_promotion.value
    for name in ("draw_plies", "repetitions", "max_king_moves_with_men"):
        if getattr(spec, name) != getattr(default, name):
            out[name] = getattr(spec, name)
    return out


def _page(page: RulesPage) -> dict[str, Any]:
    return {"title": page["title"], "summary": page["summary"],
            "sections": [{"heading": heading, "paragraphs": list(paragraphs)}
                         for heading, paragraphs in page["sections"]]}


def ruleset_to_mapping(variant: Variant) -> dict[str, Any]:
    """The whole ruleset file for ``variant``: identity, notation, rules, words."""
    out: dict[str, Any] = {"key": variant.key, "name": variant.name}
    if variant.own_aliases:
        out["aliases"] = list(variant.own_aliases)
    if variant.pdn_gametype:
        out["pdn_gametype"] = variant.pdn_gametype
    out.update(rules_to_toml(variant.spec))
    if variant.notation is not Notation.NUMERIC:
        out["notation"] = variant.notation.value
    if not variant.playing_squares_dark:
        out["playing_squares"] = "light"
    if tuple(variant.side_names) != ("White", "Black"):
        out["side_names"] = list(variant.side_names)
    for name in ("full_capture_path", "accepts_numeric_input"):
        if getattr(variant, name):
            out[name] = True
    if variant.scoring != "2-0":
        out["scoring"] = variant.scoring
    for name in ("display_names", "summary", "capture_explanation"):
        value = variant._own_words(name)
        if value:
            out[name] = value if isinstance(value, str) else dict(value)  # type: ignore[call-overload]
    pages = variant._own_words("rules_pages")
    if pages:
        out["rules"] = {lang: _page(page)
                        for lang, page in pages.items()}  # type: ignore[attr-defined]
    return out


def not_exported(variant: Variant) -> list[str]:
    """What of ``variant`` a ruleset file cannot hold, in words."""
    from variants.spec import overridden_hooks

    kind = type(variant)
    hooks = list(overridden_hooks(variant))
    for name in _OUTCOME_HOOKS:
        if getattr(kind, name) is not getattr(Variant, name):
            hooks.append(name)
    notes = [f"the Python hook {name}" for name in hooks]
    if variant.perft_suite:
        notes.append(f"perft_suite ({variant.perft_suite}, relative to its Python module)")
    if variant.outcome_reasons:
        notes.append("outcome_reasons (they come with a Python hook)")
    return notes


def ruleset_to_toml(variant: Variant) -> str:
    """``variant`` as the text of a data-only ruleset file (see the module's docstring)."""
    header = [f"# {variant.name} ({variant.key}), exported by `python -m variants export`."]
    missing = not_exported(variant)
    if missing:
        header.append("# Not in this file (a ruleset file cannot hold them): "
                      + "; ".join(missing) + ".")
    return "\n".join(header) + "\n\n" + tomli_w.dumps(ruleset_to_mapping(variant))


__all__ = ["not_exported", "rules_to_toml", "ruleset_to_mapping", "ruleset_to_toml"]
