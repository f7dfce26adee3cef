"""Fit the evaluation weights of one ruleset by logistic regression, write them as data.

Reads the labelled positions of ``python -m bots.training.generate`` (every
``.training-data/<ruleset>-*.txt`` unless ``--data`` is given), keeps the quiet ones (no
capture for either side), computes the features of :mod:`bots.engine.features` from the
side to move's view and fits ``P(mover wins) = sigmoid(w . x)`` by L2-regularised
cross-entropy (L-BFGS). The target is the game's result from the mover's view (1, 0.5, 0);
where the data has a search score from a stronger engine (dame-rs for International), the
target mixes in ``sigmoid(score / s)`` with ``s`` fitted on the same data
(``--score-weight``). The L2 penalty pulls the weights towards a prior (expressed at the
material-only fit's scale), not towards 0, so thin data cannot produce extreme values:
``--prior committed`` (the default) the ruleset's committed weights, ``handset`` the
hand-set evaluation on these features, ``zero`` none; ``--prior-scale fitted`` puts the
prior at its own best scale on the training data instead. With strong L2 strengths on the
scalars and windows (``--reg-scalars 30 --reg 30``) the committed weights stay as they are
and only the region tables are learned, as a correction of the committed evaluation
towards the target.

Every feature has a middle-game and an ending weight (:mod:`bots.engine.features`): the
design matrix holds each feature twice, scaled by the phase's share ``p / P`` and by
``1 - p / P``, so the fit learns both sets at once (``--single-phase`` ties them, the model
before the phases). Two models are fitted: ``full`` (every feature, the compiled
evaluation's) and ``lite`` (no pattern features: the pure-Python search's, cheaper per
node). The region tables (3^8 states each, most of them rare) have an L2 strength of their
own, chosen on the held-out data after the windows' (``--reg-regions``; ``--no-regions``
fits the full model without them, ``--region-phases middle`` fits only the middle game's
and leaves the ending's at zero). Weights are converted to centi-men by making the mean of
a man's middle-game and ending values 100, and written with the command, the data (files,
sizes and the generation records of :mod:`bots.training.generate`'s chunks), date and fit
quality (cross-entropy on the held-out last 15% of the data, i.e. the latest games, against
material-only and the hand-set evaluation) to ``bots/engine/data/eval-<ruleset>.json``.

    python -m bots.training.fit --ruleset english --score-weight 0.5
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, sparse

from bots.engine.features import (
    PATTERN_STATES,
    PHASES,
    REGION_STATES,
    SCALARS,
    WEIGHT_UNIT,
    FeatureSpace,
    default_model,
    fitted_evaluator,
    load_weights,
    space_for,
    weights_from_model,
    weights_path,
)
from bots.training.generate import DATA_DIR, record_path
from bots.training.handset import handset_evaluator
from variants import Color, Position, Variant, get_variant

REG_SCALARS = 1e-6


def load_positions(variant: Variant, files: list[Path]) -> tuple[list[Position], np.ndarray,
                                                                  np.ndarray, int]:
    """Quiet positions, results from the mover's view, scores (NaN: none), lines read."""
    positions: list[Position] = []
    results: list[float] = []
    scores: list[float] = []
    lines = 0
    for path in files:
        with path.open(encoding="ascii") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) != 7:
                    continue
                lines += 1
                wm, wk, bm, bk = (int(x, 16) for x in parts[:4])
                turn = Color(int(parts[4]))
                pos = Position(wm, wk, bm, bk, turn)
                if variant.has_capture(pos):
                    continue
                if variant.has_capture(Position(wm, wk, bm, bk, turn.opponent)):
                    continue
                white = float(parts[5])
                positions.append(pos)
                results.append(white if turn is Color.WHITE else 1.0 - white)
                scores.append(float("nan") if parts[6] == "-" else float(parts[6]))
    return positions, np.array(results), np.array(scores), lines


def design(space: FeatureSpace, positions: list[Position], *,
           phased: bool = True) -> sparse.csr_matrix:
    """Rows of features, each twice (:attr:`FeatureSpace.nweights` columns): scaled by the
    middle game's share of the phase, then by the ending's (``phased=False``: both
    halves unscaled, for a fit whose two sets are tied)."""
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    share: list[float] = []
    for r, pos in enumerate(positions):
        for i, v in space.features(pos).items():
            rows.append(r)
            cols.append(i)
            vals.append(float(v))
        share.append(space.phase(pos) / space.start_pieces if phased else 1.0)
    x = sparse.csr_matrix((vals, (rows, cols)), shape=(len(positions), space.nfeatures))
    mid = sparse.diags(np.array(share)) @ x
    end = x - mid if phased else x
    return sparse.hstack([mid, end], format="csr")


def region_ties(space: FeatureSpace, how: str, phases: int) -> sparse.csr_matrix | None:
    """The tie matrix ``T`` (weights x weights) of ``--tie-regions``: ``x @ T`` moves every
    region's columns onto its group's first region, so the group learns one table from all
    its members' data (the others' columns are left empty), and ``T @ w`` copies that table
    back to every member. ``rows``: the regions over the same rows of the board share a
    table (as the pattern windows of one rank do); ``all``: one table for every region.
    The regions' squares are in ascending order with the same shape in every region, so a
    state means the same formation wherever it stands. None for ``none`` or no regions."""
    if how == "none" or not space.nregions:
        return None
    nf = space.nfeatures
    first_rank = [min(space.rel_rank[0][q] for q in reg) for reg in space.regions]
    leader: dict[int, int] = {}
    rep = [leader.setdefault(first_rank[r] if how == "rows" else 0, r)
           for r in range(space.nregions)]
    n = nf * phases
    target = np.arange(n)
    for k in range(phases):
        for r, g in enumerate(rep):
            base = k * nf + space.reg_base
            target[base + r * REGION_STATES:base + (r + 1) * REGION_STATES] = (
                np.arange(REGION_STATES) + base + g * REGION_STATES)
    return sparse.csr_matrix((np.ones(n), (np.arange(n), target)), shape=(n, n))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def cross_entropy(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def logistic_fit(x: sparse.csr_matrix, y: np.ndarray, reg: np.ndarray,
                 prior: np.ndarray | None = None, *, max_iter: int = 2000) -> np.ndarray:
    """Cross-entropy of ``sigmoid(x @ w)`` against ``y`` plus ``reg/2 * (w - prior)^2``."""
    n = x.shape[0]
    xt = x.T.tocsr()
    w0 = np.zeros(x.shape[1]) if prior is None else prior

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        p = _sigmoid(z)
        pc = np.clip(p, 1e-12, 1 - 1e-12)
        d = w - w0
        value = -np.mean(y * np.log(pc) + (1 - y) * np.log(1 - pc)) + 0.5 * np.sum(reg * d * d)
        grad = xt @ (p - y) / n + reg * d
        return float(value), grad

    res = optimize.minimize(loss, w0.copy(), jac=True, method="L-BFGS-B",
                            options={"maxiter": max_iter})
    return np.asarray(res.x)


def prior_vector(space: FeatureSpace, variant: Variant, kind: str, *,
                 lite: bool = False) -> np.ndarray:
    """The fit's prior, both phases (centi-men): the committed weights (``full`` or
    ``lite`` model; the hand-set ones if none), the hand-set evaluation, or zeros."""
    if kind == "zero":
        return np.zeros(space.nweights)
    weights = load_weights(variant, lite=lite) if kind == "committed" else None
    if weights is None:
        weights = weights_from_model(space, default_model(variant))
    return np.array(weights, dtype=float) / WEIGHT_UNIT


def generation_records(files: list[Path]) -> list[dict[str, Any]]:
    """The generation records of the data files that have one (chunks)."""
    out = []
    for f in files:
        path = record_path(f)
        if path.exists():
            out.append({"file": f.name, **json.loads(path.read_text(encoding="ascii"))})
    return out


def fit_score_scale(scores: np.ndarray, results: np.ndarray) -> float:
    """``s`` of ``P(win) = sigmoid(score / s)`` fitted on positions with a score."""
    best, best_s = math.inf, 100.0
    for s in np.geomspace(20, 2000, 60):
        ce = cross_entropy(_sigmoid(scores / s), results)
        if ce < best:
            best, best_s = ce, float(s)
    return best_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", required=True)
    parser.add_argument("--data", nargs="*", default=None,
                        help=f"data files (default: {DATA_DIR}/<ruleset>-*.txt)")
    parser.add_argument("--score-weight", type=float, default=0.0,
                        help="share of the score target where a score exists")
    parser.add_argument("--reg", default="1e-4,3e-4,1e-3,3e-3",
                        help="L2 strengths to try on the held-out data (tables only)")
    parser.add_argument("--reg-regions", default="1e-3,3e-3,1e-2",
                        help="L2 strengths of the region tables to try on the held-out data")
    parser.add_argument("--no-regions", action="store_true",
                        help="fit the full model without the region tables")
    parser.add_argument("--region-phases", choices=("both", "middle"), default="both",
                        help="the phases whose region tables are fitted (middle: the "
                             "ending's stay zero)")
    parser.add_argument("--tie-regions", choices=("none", "rows", "all"), default="none",
                        help="regions that share one table: none, those over the same "
                             "rows, or all (more data per weight for the same tables)")
    parser.add_argument("--max-iter", type=int, default=2000,
                        help="L-BFGS iterations per fit")
    parser.add_argument("--reg-scalars", type=float, default=1e-3,
                        help="L2 strength of the scalar features (towards the prior)")
    parser.add_argument("--prior", choices=("committed", "handset", "zero"),
                        default="committed", help="what the L2 penalty pulls towards")
    parser.add_argument("--prior-scale", choices=("material", "fitted"), default="material",
                        help="the prior's scale in logits: the material-only fit's, or its "
                        "own best scale on the training data")
    parser.add_argument("--single-phase", action="store_true",
                        help="one weight set for both phases (the model before the phases)")
    parser.add_argument("--max-positions", type=int, default=400_000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    variant = get_variant(args.ruleset)
    space = space_for(variant)
    files = ([Path(f) for f in args.data] if args.data
             else sorted(DATA_DIR.glob(f"{variant.key}-*.txt")))
    if not files:
        print(f"no data for {variant.key}: run python -m bots.training.generate first",
              file=sys.stderr)
        return 1
    positions, results, scores, lines = load_positions(variant, files)
    if len(positions) > args.max_positions:
        step = len(positions) / args.max_positions
        keep = [int(i * step) for i in range(args.max_positions)]
        positions = [positions[i] for i in keep]
        results, scores = results[keep], scores[keep]
    n = len(positions)
    print(f"{variant.key}: {lines} positions read, {n} quiet", flush=True)
    has_score = ~np.isnan(scores)
    target = results.copy()
    score_scale = None
    if has_score.any() and args.score_weight > 0:
        score_scale = fit_score_scale(scores[has_score], results[has_score])
        target[has_score] = ((1 - args.score_weight) * results[has_score]
                             + args.score_weight * _sigmoid(scores[has_score] / score_scale))
    nf = space.nfeatures
    phased = not args.single_phase
    x = design(space, positions, phased=phased)
    if not phased:
        x = x[:, :nf]  # one set; written to both phases below
    ties = None if args.no_regions else region_ties(space, args.tie_regions,
                                                     len(PHASES) if phased else 1)
    if ties is not None:
        x = (x @ ties).tocsr()
    split = int(n * 0.85)
    x_tr, x_va = x[:split], x[split:]
    y_tr, y_va = target[:split], target[split:]
    r_va = results[split:]
    nw = x.shape[1]
    feature = np.arange(nw) % nf  # the feature of each weight column
    is_table = feature >= len(SCALARS)
    is_region = feature >= space.reg_base
    lite_cols = np.flatnonzero(feature < space.pat_base)
    ending_region = is_region & (np.arange(nw) >= nf)  # the ending set's tables
    full_cols = (np.flatnonzero(feature < space.reg_base) if args.no_regions
                 else np.flatnonzero(~ending_region) if args.region_phases == "middle"
                 else np.arange(nw))
    models = (("full", full_cols), ("lite", lite_cols))  # each model's weight columns
    region_grid = ([float(v) for v in args.reg_regions.split(",")]
                   if space.nregions and not args.no_regions else [0.0])

    # Material only, one set (the halves of a column summed give the unphased feature).
    material_cols = np.array([space.index["tempo"], space.index["man"], space.index["king"]])
    x_mat = x[:, material_cols] + (x[:, material_cols + nf] if phased else 0)
    w_mat = logistic_fit(x_mat[:split], y_tr, np.full(3, REG_SCALARS))
    ce_mat = cross_entropy(_sigmoid(x_mat[split:] @ w_mat), y_va)
    # Prior: in logits at the material-only fit's scale. Every weight is pulled towards it
    # (not towards 0): with little data the fit stays close to a sane evaluation instead of
    # inventing extreme values.
    logit = w_mat[1] / 100.0
    priors = {name: prior_vector(space, variant, args.prior, lite=name == "lite")[:nw] * logit
              for name in ("full", "lite")}
    if ties is not None:  # a shared table's prior: the mean of its members' priors
        members = np.asarray(ties.sum(axis=0)).ravel()
        for name in priors:
            priors[name] = (ties.T @ priors[name]) / np.maximum(members, 1)
    if args.prior_scale == "fitted":
        # The prior at its own best scale: one logistic multiplier of the prior's score,
        # fitted on the training positions. A fit that keeps the prior's weights (a strong
        # L2) and learns only the region tables needs this: at the material-only scale the
        # regions would spend themselves correcting the scale of the whole evaluation.
        for name, cols in models:
            prior_score = x_tr[:, cols] @ priors[name][cols]
            alpha = logistic_fit(sparse.csr_matrix(prior_score[:, None]), y_tr,
                                 np.full(1, REG_SCALARS), np.ones(1))
            priors[name] = priors[name] * float(alpha[0])

    def fit_model(name: str, cols: np.ndarray, lam: tuple[float, float],
                  xs: sparse.csr_matrix, y: np.ndarray) -> np.ndarray:
        reg = np.where(is_region[cols], lam[1], np.where(is_table[cols], lam[0],
                                                         args.reg_scalars))
        return logistic_fit(xs[:, cols], y, reg, priors[name][cols], max_iter=args.max_iter)

    quality: dict[str, Any] = {}
    best: dict[str, tuple[float, tuple[float, float], np.ndarray]] = {}

    def try_fit(name: str, cols: np.ndarray, lam: tuple[float, float]) -> None:
        w = fit_model(name, cols, lam, x_tr, y_tr)
        ce = cross_entropy(_sigmoid(x_va[:, cols] @ w), y_va)
        print(f"  {name} lambda={lam[0]:g} regions={lam[1]:g}: validation cross-entropy "
              f"{ce:.4f}", flush=True)
        if name not in best or ce < best[name][0]:
            best[name] = (ce, lam, w)

    # The windows' strength first (regions at the middle of their grid), then the regions'.
    for name, cols in models:
        middle = region_grid[len(region_grid) // 2]
        for lam in (float(v) for v in args.reg.split(",")):
            try_fit(name, cols, (lam, middle))
        if name == "full":
            chosen = best[name][1][0]
            for lam_r in region_grid:
                if lam_r != middle:
                    try_fit(name, cols, (chosen, lam_r))
    legacy = handset_evaluator(variant)
    legacy_scores = np.array([legacy.evaluate(p) for p in positions], dtype=float)
    s_leg = fit_score_scale(legacy_scores[:split], y_tr)
    ce_leg = cross_entropy(_sigmoid(legacy_scores[split:] / s_leg), y_va)
    # The weights committed before this fit, on the same held-out positions.
    committed = fitted_evaluator(variant)
    ce_old = None
    if committed is not None:
        old_scores = np.array([committed.evaluate(p) for p in positions], dtype=float)
        s_old = fit_score_scale(old_scores[:split], y_tr)
        ce_old = round(cross_entropy(_sigmoid(old_scores[split:] / s_old), y_va), 4)
    quality["validation_cross_entropy"] = {
        "full": round(best["full"][0], 4), "lite": round(best["lite"][0], 4),
        "committed_before": ce_old,
        "material_only": round(ce_mat, 4), "hand_set": round(ce_leg, 4),
        "constant": round(cross_entropy(np.full(len(y_va), y_tr.mean()), y_va), 4),
    }
    full_p = _sigmoid(x_va[:, full_cols] @ best["full"][2])
    decided = r_va != 0.5
    if decided.any():
        quality["validation_decided_games_accuracy_full"] = round(
            float(np.mean((full_p[decided] > 0.5) == (r_va[decided] > 0.5))), 3)
    quality["lambda"] = {"full": best["full"][1][0], "lite": best["lite"][1][0],
                         "regions": None if args.no_regions else best["full"][1][1],
                         "region_phases": args.region_phases,
                         "tie_regions": args.tie_regions,
                         "scalars": args.reg_scalars, "prior": args.prior,
                         "prior_scale": args.prior_scale}
    # Refit both on all the data with the chosen strengths, then scale to centi-men.
    out: dict[str, Any] = {}
    man = space.index["man"]
    for name, cols in models:
        w = fit_model(name, cols, best[name][1], x, target)
        wc = np.zeros(nw)
        wc[cols] = w
        if ties is not None:
            wc = ties @ wc  # every member of a group gets the group's table
        men = [wc[man]] if not phased else [wc[man], wc[man + nf]]
        if min(men) <= 0:
            print(f"{name}: a man has no positive value; refusing these weights",
                  file=sys.stderr)
            return 1
        scale = 100.0 / float(np.mean(men))  # centi-men per logit
        wc *= scale
        sets = ([_weight_set_model(space, wc[k * nf:(k + 1) * nf], name == "full")
                 for k in range(len(PHASES))] if phased
                else [_weight_set_model(space, wc, name == "full")])
        model: dict[str, Any] = (dict(zip(PHASES, sets, strict=True)) if phased
                                 else dict(sets[0]))
        model["logistic_scale"] = round(scale, 2)
        out[name] = model
    command = "python -m bots.training.fit " + " ".join(argv if argv is not None
                                                        else sys.argv[1:])
    doc = {
        "ruleset": variant.key,
        "command": command,
        "date": dt.date.today().isoformat(),
        "data": {"files": [f.name for f in files], "positions": lines, "quiet_positions": n,
                 "score_scale": score_scale, "score_weight": (args.score_weight
                                                               if score_scale else 0.0),
                 "generated_by": generation_records(files)},
        "fit": quality,
        # A king is worth king_value men plus king_value_per_enemy_man for each enemy man
        # (in the middle game's weights; ending_* in the ending's).
        **_king_values(out["full"]),
        "units": "centi-men from the side to move's view; P(win) = sigmoid(score / "
                 "logistic_scale)",
        **out,
    }
    path = Path(args.out) if args.out else weights_path(variant.key)
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(quality), f"king={doc['king_value']}", f"-> {path}")
    return 0


def _weight_set_model(space: FeatureSpace, wc: np.ndarray, patterns: bool) -> dict[str, Any]:
    """One phase's weights (centi-men, nfeatures long) as a model mapping."""
    model: dict[str, Any] = {
        "scalars": {s: round(float(wc[space.index[s]]), 2) for s in SCALARS},
        "man_sq": [round(float(v), 2) for v in wc[space.psq_base:space.pat_base]],
    }
    if patterns:
        model["patterns"] = [
            [round(float(v), 2) for v in wc[space.pat_base + b * PATTERN_STATES:
                                            space.pat_base + (b + 1) * PATTERN_STATES]]
            for b in range(space.nbands)]
        regions: list[dict[str, float] | int] = []
        for r in range(space.nregions):
            base = space.reg_base + r * REGION_STATES
            table = {str(s): round(float(v), 2)
                     for s, v in enumerate(wc[base:base + REGION_STATES]) if abs(v) >= 0.005}
            # A table written before (a tied region's) is stored once: later regions name it.
            same = next((k for k, t in enumerate(regions) if table and t == table), None)
            regions.append(table if same is None else same)
        if any(regions):
            model["regions"] = regions
    return model


def _king_values(model: dict[str, Any]) -> dict[str, float]:
    out = {}
    for prefix, name in (("", PHASES[0]), ("ending_", PHASES[1])):
        scalars = (model[name] if name in model else model)["scalars"]
        out[f"{prefix}king_value"] = round(scalars["king"] / scalars["man"], 2)
        out[f"{prefix}king_value_per_enemy_man"] = round(scalars["king_men"] / scalars["man"],
                                                         3)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
