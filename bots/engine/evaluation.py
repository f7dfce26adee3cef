"""The engine's evaluation, as the pure-Python search sees it, and the ruleset hook that
tunes the default one.

Every search evaluates with the fitted linear model of :mod:`bots.engine.features` (the
compiled core with its ``full`` model, the pure-Python search with the ``lite`` one, without
pattern tables, cheaper per node). A ruleset without fitted weights (a plugin) gets
:func:`bots.engine.features.default_model`: the terms below laid out on the same features.
Nothing here asks which ruleset it is.

A ruleset (built-in or plugin) can refine those default terms by declaring an optional
``eval_weights`` mapping (centi-men); unknown keys are refused so a typo does not go
unnoticed. Terms: ``man``, ``king`` (0: ``king_flying`` or ``king_short`` by the ruleset's
``flying_kings``), ``advance`` (per rank a man has made), ``back_rank`` (men guarding their
own first row while the opponent has men), ``centre``, ``mobility`` (empty squares the men
can step to), ``runaway`` (a man with a free path to promotion), ``tempo`` (having the move)
and ``trade`` (trading down when ahead).

The hand-set evaluation these terms first weighted is kept as a baseline in
:mod:`bots.training.handset`; it is not on the production path.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Protocol
from weakref import WeakKeyDictionary

from bots.engine.features import FittedEvaluator, default_evaluator, fitted_evaluator
from variants.base import Variant
from variants.types import Position


class Evaluator(Protocol):
    """What the search needs of an evaluation: the fitted linear model in production, the
    hand-set one (``bots.training.handset``) as the lab's baseline."""

    def evaluate(self, position: Position) -> int:
        """Score of ``position`` for the side to move, centi-men."""
        ...

    def can_move(self, position: Position) -> bool:
        """Whether the side to move has a non-capturing step."""
        ...

DEFAULT_WEIGHTS: Final[Mapping[str, int]] = MappingProxyType({
    "man": 100,
    "king": 0,  # 0 = derived from the ruleset: flying or short kings
    "king_flying": 300,
    "king_short": 150,
    "advance": 3,
    "back_rank": 6,
    "centre": 4,
    "mobility": 2,
    "runaway": 60,
    "tempo": 8,
    "trade": 40,
})


def weights_for(variant: Variant) -> dict[str, int]:
    """The default terms refined by the ruleset's optional ``eval_weights`` mapping."""
    weights = dict(DEFAULT_WEIGHTS)
    extra: Mapping[str, int] = getattr(variant, "eval_weights", None) or {}
    unknown = set(extra) - set(weights)
    if unknown:
        raise ValueError(f"{variant!r}.eval_weights has unknown terms: {sorted(unknown)}")
    weights.update(extra)
    if not weights["king"]:
        weights["king"] = weights["king_flying" if variant.flying_kings else "king_short"]
    return weights


_FITTED: WeakKeyDictionary[Variant, FittedEvaluator] = WeakKeyDictionary()


def evaluator_for(variant: Variant) -> FittedEvaluator:
    """The (cached) evaluator of ``variant`` for the pure-Python search: the fitted ``lite``
    model from ``bots/engine/data/eval-<key>.json`` when the ruleset has one, else the
    default model (:func:`bots.engine.features.default_model`)."""
    ev = _FITTED.get(variant)
    if ev is None:
        ev = _FITTED[variant] = fitted_evaluator(variant, lite=True) or default_evaluator(variant)
    return ev
