"""The fitted evaluation: features, committed weights, king endings, Python == C."""

from __future__ import annotations

import json
import random

import pytest

from bots.engine.features import (
    DRAW_SCALE,
    DRIVE,
    MAIN_ROAD_DRIVES,
    NATIVE_HEADER,
    NATIVE_MAX_BANDS,
    NATIVE_MAX_REGIONS,
    NATIVE_SCALAR_SLOTS,
    PHASES,
    REGION_STATES,
    REGION_WEIGHT_LIMIT,
    SCALARS,
    FittedEvaluator,
    default_model,
    fitted_evaluator,
    load_weights,
    native_params,
    native_params_len,
    space_for,
    weights_from_model,
    weights_path,
)
from variants import Color, Position, Variant, get_variant

RULESETS = ("international", "english", "brazilian", "spanish", "turkish")


def _flip(variant: Variant, position: Position) -> Position:
    """The same position with the colours swapped and the board turned round."""
    mirror = space_for(variant).canon[1]

    def turned(bb: int) -> int:
        out = 0
        for sq in range(variant.geometry.size):
            if (bb >> sq) & 1:
                out |= 1 << mirror[sq]
        return out

    return Position(turned(position.black_men), turned(position.black_kings),
                    turned(position.white_men), turned(position.white_kings),
                    position.turn.opponent)


def _random_positions(variant: Variant, rng: random.Random, games: int) -> list[Position]:
    """Positions from random games, plus sparse random placements (king endings)."""
    out: list[Position] = []
    for _ in range(games):
        pos = variant.initial_position()
        for _ply in range(rng.randint(0, 160)):
            moves = variant.legal_moves(pos)
            if not moves:
                break
            pos = variant.apply(pos, rng.choice(moves))
            out.append(pos)
    n = variant.geometry.size
    promo = variant.promotion_squares(Color.WHITE) | variant.promotion_squares(Color.BLACK)
    for _ in range(400):
        squares = rng.sample(range(n), rng.randint(2, 7))
        bbs = [0, 0, 0, 0]
        for sq in squares:
            kind = rng.randrange(4)
            if kind in (0, 2) and (promo >> sq) & 1:
                kind += 1  # no man on a promotion row
            bbs[kind] |= 1 << sq
        if (bbs[0] | bbs[1]) and (bbs[2] | bbs[3]):
            out.append(Position(bbs[0], bbs[1], bbs[2], bbs[3], Color(rng.randrange(2))))
    return out


@pytest.mark.parametrize("key", RULESETS)
def test_features_are_seen_from_the_mover_and_mirror(key: str) -> None:
    variant = get_variant(key)
    space = space_for(variant)
    # The start is symmetric: only the tempo term is left.
    assert space.features(variant.initial_position()) == {space.index["tempo"]: 1}
    rng = random.Random(key)
    ev = FittedEvaluator(variant, [rng.randint(-500, 500) for _ in range(space.nweights)])
    for pos in _random_positions(variant, rng, 5)[::7]:
        assert space.features(pos) == space.features(_flip(variant, pos))
        assert ev.evaluate(pos) == ev.evaluate(_flip(variant, pos))


def test_feature_values_on_a_literal_position() -> None:
    variant = get_variant("international")
    space = space_for(variant)
    # White: men 6 (one step from crowning on 1, a free path), 28, 33 and a king on 47;
    # Black: men 19 and 23 (23 faces 28). White to move.
    pos = variant.parse_fen("W:W6,28,33,K47:B19,23")
    f = space.features(pos)
    assert f[space.index["man"]] == 1 and f[space.index["king"]] == 1
    assert f[space.index["runaway"]] == 1  # 6 runs to 1; Black's men are far from crowning
    white = space.side_scalars(pos, 0)
    black = space.side_scalars(pos, 1)
    names = list(SCALARS)
    assert white[names.index("locked")] == black[names.index("locked")] == 0
    assert white[names.index("man_mobility")] == 3  # 6-1, 28-22 (23 is Black's), 33-29
    assert black[names.index("man_mobility")] == 2  # 19-24 (23 is Black's), 23-29
    assert white[names.index("outpost")] == black[names.index("outpost")] == 0
    assert f[space.index["man_mobility"]] == 1
    assert white[names.index("king_mobility")] > 0
    # White's king among Black's two men; Black has no king against White's three men.
    assert f[space.index["king_men"]] == 2
    assert space.features(variant.parse_fen("B:W6,28,33,K47:B19,23"))[
        space.index["king_men"]] == -2
    assert space.features(variant.parse_fen("W:W6,28,33,K47:B19,K23"))[
        space.index["king_men"]] == 1 * 1 - 1 * 3


@pytest.mark.parametrize(("key", "count"), [("international", 16), ("english", 9),
                                          ("brazilian", 9), ("spanish", 9), ("turkish", 12)])
def test_regions_are_blocks_of_eight_squares_over_the_whole_board(key: str, count: int) -> None:
    """Blocks of four rows (four columns wide on diagonal boards, two on orthogonal ones) at
    every second row and column: every square is in one, and the colour mirror maps the
    regions onto themselves (so a region's weights serve both colours)."""
    variant = get_variant(key)
    space = space_for(variant)
    assert space.nregions == len(space.regions) == count
    coords = variant.geometry.coords
    width = 4 if space.diagonal else 2
    covered: set[int] = set()
    for region in space.regions:
        assert len(set(region)) == 8 and list(region) == sorted(region)
        rows = {coords[q][0] for q in region}
        cols = {coords[q][1] for q in region}
        assert max(rows) - min(rows) == 3 and max(cols) - min(cols) == width - 1
        covered |= set(region)
    assert covered == set(range(space.size))
    as_sets = {frozenset(r) for r in space.regions}
    assert {frozenset(r) for r in space.real_regions[1]} == as_sets


def test_a_region_weight_on_a_literal_position() -> None:
    """International region 0 is the block a1-d4 (squares 31, 32, 36, 37, 41, 42, 46, 47,
    lowest digit first); Black's region 0 is the same block from Black's side (20, 19,
    15, 14, 10, 9, 5, 4)."""
    variant = get_variant("international")
    space = space_for(variant)
    label = [variant.square_label(q) for q in space.regions[0]]
    assert label == ["31", "32", "36", "37", "41", "42", "46", "47"]
    assert [variant.square_label(q) for q in space.real_regions[1][0]] == [
        "20", "19", "15", "14", "10", "9", "5", "4"]
    pos = variant.parse_fen("W:W31,36,37,41,46,47,15:B20,5")
    white_state = 1 + 9 + 27 + 81 + 729 + 2187  # own men on 31, 36, 37, 41, 46, 47
    black_state = 1 + 2 * 9 + 729  # own men on 20 and 5, White's man on 15
    assert space.region_states(pos, 0)[0] == white_state
    assert space.region_states(pos, 1)[0] == black_state
    only = {"regions": [{str(white_state): 50.0}] + [{}] * (space.nregions - 1)}
    weights = weights_from_model(space, only)
    assert weights[space.reg_base + white_state] == 50 * 64
    ev = FittedEvaluator(variant, weights)
    assert ev.use_regions and not ev.use_patterns
    assert ev.evaluate(pos) == 50
    assert ev.evaluate(Position(pos.white_men, 0, pos.black_men, 0, Color.BLACK)) == -50
    theirs = {"regions": [{str(black_state): 30.0}] + [{}] * (space.nregions - 1)}
    assert FittedEvaluator(variant, weights_from_model(space, theirs)).evaluate(pos) == -30
    native = pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import rules_spec

    params = native_params(variant, weights)
    assert len(params) == native_params_len(space.size, space.nregions)
    core = native.Core(rules_spec(variant), params, 1)
    assert core.evaluate(pos.white_men, 0, pos.black_men, 0, 0) == 50
    assert core.evaluate(pos.white_men, 0, pos.black_men, 0, 1) == -50


def test_region_models_and_their_refusals() -> None:
    variant = get_variant("brazilian")
    space = space_for(variant)
    with pytest.raises(ValueError):
        weights_from_model(space, {"regions": [{}] * (space.nregions + 1)})
    with pytest.raises(ValueError):
        weights_from_model(space, {"regions": [{str(REGION_STATES): 1.0}]
                                   + [{}] * (space.nregions - 1)})
    # A region may name an earlier region whose table it shares (a tied fit's file).
    rest = [{}] * (space.nregions - 3)
    shared = weights_from_model(space, {"regions": [{"5": 1.0}, {"7": -2.0}, 0] + rest})
    copied = weights_from_model(space, {"regions": [{"5": 1.0}, {"7": -2.0}, {"5": 1.0}]
                                        + rest})
    assert shared == copied and shared[space.reg_base + 2 * REGION_STATES + 5] == 64
    for bad in ([2, {}, {}], [{}, {}, 2], [{}, {}, -1], [{}, 0, 1], [{}, {}, True],
                [{}, {}, "0"], [{}, {}, 1.0]):
        with pytest.raises(ValueError):
            weights_from_model(space, {"regions": bad + rest})
    # Without region weights the array has no regions: the core spends nothing on them.
    weights = weights_from_model(space, default_model(variant))
    plain = native_params(variant, weights)
    assert plain[30] == 0 and len(plain) == native_params_len(space.size)
    weights[space.reg_base + 7] = REGION_WEIGHT_LIMIT  # one past the bound
    with pytest.raises(ValueError):
        native_params(variant, weights)
    native = pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import rules_spec

    weights[space.reg_base + 7] = REGION_WEIGHT_LIMIT - 1
    params = native_params(variant, weights)
    core = native.Core(rules_spec(variant), params, 1)  # at the bound: taken
    ref = FittedEvaluator(variant, weights)
    for pos in _random_positions(variant, random.Random("bound"), 2)[::5]:
        assert core.evaluate(pos.white_men, pos.white_kings, pos.black_men, pos.black_kings,
                             int(pos.turn)) == ref.evaluate(pos)
    spec = rules_spec(variant)
    over = list(params)
    over[-1] = REGION_WEIGHT_LIMIT
    for bad in (over, params[:-1], params + [0]):
        with pytest.raises(ValueError):
            native.Core(spec, bad, 1)
    claims_more = list(params)
    claims_more[30] = space.nregions + 1  # the header's region count, not the array's
    with pytest.raises(ValueError):
        native.Core(spec, claims_more, 1)
    claims_more[30] = NATIVE_MAX_REGIONS + 1
    with pytest.raises(ValueError):
        native.Core(spec, claims_more, 1)


def test_a_region_weight_steers_the_compiled_search() -> None:
    """The search evaluates with the region tables of its own engine (a copy of the
    core's): a large weight for the shape one first move makes is what a depth-1 search
    plays, in the first thread and in a temporary engine."""
    pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import NativeEngine

    variant = get_variant("english")
    space = space_for(variant)
    start = variant.initial_position()
    moves = variant.legal_moves(start)
    mover = int(start.turn)
    seen = {m: space.region_states(variant.apply(start, m), mover) for m in moves}
    for target in moves:
        unique = [r for r in range(space.nregions)
                  if all(seen[m][r] != seen[target][r] for m in moves if m != target)]
        if unique:
            break
    region = unique[0]
    model = default_model(variant)
    table = [{} for _ in range(space.nregions)]
    table[region] = {str(seen[target][region]): 500.0}
    model["regions"] = table
    engine = NativeEngine(variant, params=native_params(variant, weights_from_model(space,
                                                                                  model)))
    found = engine.search(start, max_depth=1, seed=0, tables=False)
    assert found.move == target
    temporary = engine._new_core(1)  # what a second thread searching at once gets
    assert temporary.evaluate(*(getattr(variant.apply(start, target), f) for f in (
        "white_men", "white_kings", "black_men", "black_kings")), 1 - mover) < -400


@pytest.mark.parametrize("key", RULESETS)
def test_committed_weights_load_and_know_who_is_winning(key: str) -> None:
    variant = get_variant(key)
    doc = json.loads(weights_path(key).read_text(encoding="utf-8"))
    assert doc["command"].startswith("python -m bots.training.fit")
    assert doc["data"]["quiet_positions"] > 1000
    fit = doc["fit"]["validation_cross_entropy"]
    assert fit["full"] < fit["constant"] and fit["lite"] < fit["constant"]
    # A king is worth more than a man (in each phase's weights, with the king_men term:
    # a king's value grows with the enemy men; here against a single one).
    for prefix in ("", "ending_"):
        value = doc.get(f"{prefix}king_value", doc["king_value"])
        per_man = doc.get(f"{prefix}king_value_per_enemy_man",
                          doc.get("king_value_per_enemy_man", 0.0))
        assert value + per_man > 1.0
    for lite in (False, True):
        weights = load_weights(variant, lite=lite)
        assert weights is not None and len(weights) == space_for(variant).nweights
        ev = fitted_evaluator(variant, lite=lite)
        assert ev is not None
        # A man about to crown unopposed, against a man on its own back row: equal
        # material, but the side to move (Black) is lost. Material alone says nothing.
        g = variant.geometry
        rows, cols = variant.rows, variant.cols
        white_sq = next(sq for sq, (r, c) in enumerate(g.coords) if r == rows - 2 and c <= 1)
        black_sq = max(sq for sq, (r, c) in enumerate(g.coords) if r == rows - 1
                       and c >= cols - 2)
        runner = Position(1 << white_sq, 0, 1 << black_sq, 0, Color.BLACK)
        assert ev.evaluate(runner) < 0, variant.format_fen(runner)
        assert ev.evaluate(_flip(variant, runner)) < 0
        # Two men up from the start: winning for the side with them, whoever moves.
        start = variant.initial_position()
        up = Position(start.white_men, 0, start.black_men & (start.black_men - 1) & (
            (start.black_men & (start.black_men - 1)) - 1), 0, Color.BLACK)
        assert ev.evaluate(up) < -100
        assert ev.evaluate(Position(up.white_men, 0, up.black_men, 0, Color.WHITE)) > 100


def _raw_centi(ev: FittedEvaluator, pos: Position) -> int:
    raw = ev.raw(pos)
    return raw // 64 if raw >= 0 else -((-raw) // 64)


def test_king_endings_with_flying_kings() -> None:
    variant = get_variant("international")
    ev = fitted_evaluator(variant)
    assert ev is not None
    cases = {
        "W:WK46:BK5": True,          # one king each: drawn
        "W:WK46,K47:BK5": True,      # two kings cannot beat one with flying kings
        "W:WK1,K2,K3:BK28": True,    # three against one on the main diagonal: drawn
        "W:WK46,K36:BK3": True,      # king and king (not a man) vs lone king: drawn
        "W:WK46,36:BK3": True,       # king and man vs lone king: drawn
        "W:WK1,K2,K3,K4:BK28": False,  # four kings win
        "W:WK1,K2,K3:BK27": False,   # three kings, lone king off the main diagonal: win
    }
    for fen, drawn in cases.items():
        pos = variant.parse_fen(fen)
        raw = _raw_centi(ev, pos)
        if drawn:
            assert abs(ev.evaluate(pos)) <= abs(raw) // DRAW_SCALE + 1, fen
        else:
            assert ev.evaluate(pos) > raw > 0, fen  # plus the drive towards the lone king
    # Driving: the same kings closer to the lone king score more.
    far = ev.evaluate(variant.parse_fen("W:WK1,K2,K3,K4:BK45"))
    near = ev.evaluate(variant.parse_fen("W:WK40,K39,K44,K34:BK45"))
    assert near > far


def test_flying_king_endings_with_men_left() -> None:
    """Brazilian (flying kings, 8x8; main diagonal a1-h8): White is ahead on material in
    every case; the endings the side with a king holds are scaled, the others are not."""
    variant = get_variant("brazilian")
    ev = fitted_evaluator(variant)
    assert ev is not None
    cases = {
        "W:WKc1,e3:BKb8": True,            # king and man against a lone king
        "W:WKc1,e3,g3:BKb8,h6": True,      # three against king and man
        "W:WKc1,Ke3,g3:BKb8,Kh6": True,    # three against two kings
        "W:WKc1,e3,g3:BKd4": True,         # three against a lone king on the main diagonal
        "W:Wa3,e3,g3:BKg7": True,          # three men against it (g7 is on a1-h8) as well
        "W:WKc1,e3,g3:BKb6": False,        # the lone king off the main diagonal: winnable
        "W:WKc1,a3,e3,g3:BKd4": False,     # four pieces against the lone king
        "W:WKc1,Ka3,e3,g3:BKb8,h6": False,  # four against two
        "W:WKc1,e3,g3:Bb6,h6": False,      # Black has no king
    }
    for fen, drawn in cases.items():
        pos = variant.parse_fen(fen)
        raw = _raw_centi(ev, pos)
        assert raw > 0, fen
        if drawn:
            assert abs(ev.evaluate(pos)) <= raw // DRAW_SCALE + 1, fen
        else:
            assert ev.evaluate(pos) == raw, fen
    # Winnable against a lone king: a king of the strong side on the main road counts.
    road = variant.parse_fen("W:WKa1,e3,g3:BKb6")
    assert ev.evaluate(road) == _raw_centi(ev, road) + MAIN_ROAD_DRIVES * DRIVE
    black_to_move = variant.parse_fen("B:WKa1,e3,g3:BKb6")
    assert ev.evaluate(black_to_move) == _raw_centi(ev, black_to_move) - MAIN_ROAD_DRIVES * DRIVE


def test_king_endings_with_short_kings() -> None:
    variant = get_variant("english")
    ev = fitted_evaluator(variant)
    assert ev is not None
    one_each = variant.parse_fen("W:WK14:BK19")
    assert abs(ev.evaluate(one_each)) <= abs(_raw_centi(ev, one_each)) // DRAW_SCALE + 1
    two_one = variant.parse_fen("W:WK14,K15:BK28")
    assert ev.evaluate(two_one) > _raw_centi(ev, two_one) > 0  # short kings: 2 beat 1
    black_to_move = variant.parse_fen("B:WK14,K15:BK28")
    assert ev.evaluate(black_to_move) < 0


@pytest.mark.parametrize("key", RULESETS)
def test_compiled_evaluation_equals_the_python_reference(key: str) -> None:
    native = pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import rules_spec

    variant = get_variant(key)
    space = space_for(variant)
    rng = random.Random(f"c-eval:{key}")
    positions = _random_positions(variant, rng, 30)
    assert len(positions) > 1500
    # Every phase from the start to a few pieces is there.
    assert {space.phase(p) for p in positions} >= set(range(4, space.start_pieces + 1))
    models = [native_params(variant)]  # the committed weights
    # Every table non-zero, the middle-game and ending sets different.
    weights = [rng.randint(-4000, 4000) for _ in range(space.nweights)]
    models.append(native_params(variant, weights))
    references = [FittedEvaluator(variant, load_weights(variant) or []),
                  FittedEvaluator(variant, weights)]
    assert space.nregions > 0
    committed = load_weights(variant) or []
    counts = (space.nregions if any(committed[space.reg_base:space.nfeatures])
              or any(committed[space.nfeatures + space.reg_base:]) else 0, space.nregions)
    for params, ref, nregions in zip(models, references, counts, strict=True):
        assert len(params) == native_params_len(space.size, nregions)
        core = native.Core(rules_spec(variant), params, 1)
        for pos in positions:
            got = core.evaluate(pos.white_men, pos.white_kings, pos.black_men,
                                pos.black_kings, int(pos.turn))
            assert got == ref.evaluate(pos), variant.format_fen(pos)


def _core_scores_as_reference(variant: Variant, weights: list[int],
                              positions: list[Position]) -> FittedEvaluator:
    """Asserts the compiled evaluation of ``weights`` scores every position as the Python
    reference does; returns the reference."""
    native = pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import rules_spec

    reference = FittedEvaluator(variant, weights)
    core = native.Core(rules_spec(variant), native_params(variant, weights), 1)
    for pos in positions:
        got = core.evaluate(pos.white_men, pos.white_kings, pos.black_men, pos.black_kings,
                            int(pos.turn))
        assert got == reference.evaluate(pos), variant.format_fen(pos)
    return reference


@pytest.mark.parametrize("key", RULESETS)
def test_tied_region_tables_score_as_the_reference(key: str) -> None:
    """Tied regions (one table for every region, the ending's another) merge into tables
    the core keeps once (regions whose merged tables are equal share one): the scores stay
    the reference's, on every board."""
    variant = get_variant(key)
    space = space_for(variant)
    rng = random.Random(f"tied:{key}")
    weights = [0] * space.nweights
    for base in (space.reg_base, space.nfeatures + space.reg_base):  # both phases
        table = [rng.randint(-3000, 3000) for _ in range(REGION_STATES)]
        for r in range(space.nregions):
            start = base + r * REGION_STATES
            weights[start:start + REGION_STATES] = table
    positions = _random_positions(variant, rng, 12)
    reference = _core_scores_as_reference(variant, weights, positions)
    assert len({reference.evaluate(p) for p in positions}) > 100


@pytest.mark.parametrize("key", ["english", "turkish"])
def test_merged_pattern_tables_are_exact_at_the_weights_limits(key: str) -> None:
    """The core merges White's and Black's windows on the same squares into one table of
    White's weight minus Black's. With pattern weights of +-2^30 in the first and last bands
    (a window's own rank from White's side and from Black's) that difference reaches 2^31,
    one past a 32-bit integer: the core still scores every position as the reference."""
    variant = get_variant(key)
    space = space_for(variant)
    rng = random.Random(f"merged:{key}")
    weights = [0] * space.nweights
    for base in (space.pat_base, space.nfeatures + space.pat_base):  # both phases
        for band in (0, space.nbands - 1):
            for state in range(81):
                weights[base + band * 81 + state] = rng.choice((-1, 1)) << 30
    positions = _random_positions(variant, rng, 6)
    reference = _core_scores_as_reference(variant, weights, positions)
    assert any(abs(reference.evaluate(p)) > 1 << 24 for p in positions)


def test_malformed_native_params_are_refused() -> None:
    native = pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import rules_spec

    variant = get_variant("english")
    params = native_params(variant)
    with pytest.raises(ValueError):
        native.Core(rules_spec(variant), params[:-1], 1)
    bad = list(params)
    bad[23] = 0  # weight unit (header slot KD_H_UNIT)
    with pytest.raises(ValueError):
        native.Core(rules_spec(variant), bad, 1)
    bad = list(params)
    bad[29] = 1  # one weight set (header slot KD_H_PHASES) where the core blends two
    with pytest.raises(ValueError):
        native.Core(rules_spec(variant), bad, 1)


def test_phase_blend_on_a_literal_position() -> None:
    """A man worth 100 centi-men in the middle game and 300 in the ending: with 5 of 24
    pieces left (English), (100 * 5 + 300 * 19) / 24 = 258.3 centi-men a man, truncated
    (and so in the compiled core)."""
    variant = get_variant("english")
    space = space_for(variant)
    model = {"middle": {"scalars": {"man": 100}}, "ending": {"scalars": {"man": 300}}}
    weights = weights_from_model(space, model)
    assert len(weights) == space.nweights == 2 * space.nfeatures
    ev = FittedEvaluator(variant, weights)
    pos = variant.parse_fen("W:W21,22,23:B5,6")  # White a man up, men only
    assert space.phase(pos) == 5
    assert ev.evaluate(pos) == 258
    assert ev.evaluate(Position(pos.white_men, 0, pos.black_men, 0, Color.BLACK)) == -258
    start = variant.initial_position()
    one_down = Position(start.white_men, 0, start.black_men & (start.black_men - 1), 0,
                        Color.WHITE)
    assert ev.evaluate(one_down) == 108  # 23 pieces: (100 * 23 + 300 * 1) / 24 = 108.3
    native = pytest.importorskip("bots.native._kdcore")
    from bots.engine.native import rules_spec

    core = native.Core(rules_spec(variant), native_params(variant, weights), 1)
    for p in (pos, one_down):
        assert core.evaluate(p.white_men, p.white_kings, p.black_men, p.black_kings,
                             int(p.turn)) == ev.evaluate(p)


def test_a_single_set_model_scores_as_before() -> None:
    """An unphased model (the default model, older files) is used for both phases: the
    blend gives back its own sum exactly."""
    variant = get_variant("brazilian")
    space = space_for(variant)
    single = default_model(variant)
    weights = weights_from_model(space, single)
    assert weights[:space.nfeatures] == weights[space.nfeatures:]
    phased = weights_from_model(space, {"middle": single, "ending": single})
    assert phased == weights
    with pytest.raises(ValueError):
        weights_from_model(space, {"middle": single})


def test_native_layout_constants_match_the_core() -> None:
    native = pytest.importorskip("bots.native._kdcore")
    assert native.EVAL_HEADER == NATIVE_HEADER
    assert native.EVAL_SCALAR_SLOTS == NATIVE_SCALAR_SLOTS
    assert native.EVAL_PHASES == len(PHASES)
    assert native.EVAL_MAX_BANDS == NATIVE_MAX_BANDS
    assert native.EVAL_MAX_REGIONS == NATIVE_MAX_REGIONS
    assert native.EVAL_REGION_LIMIT == REGION_WEIGHT_LIMIT
