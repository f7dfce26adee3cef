"""The compiled core (bots/native) against the pure-Python reference, and its search.

Move generation must agree with ``variants`` bit for bit: the perft tables of every ruleset
(the example Russian plugin included) and the exact legal moves, with the positions they
lead to, of thousands of positions from random games per ruleset.
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.engine import MATE, choose_move, native_supported, search, uses_native
from bots.engine.features import reference_evaluator
from bots.engine.native import (
    SELECTIVITY,
    NativeEngine,
    core_module,
    native_available,
    native_engine,
    search_profile,
    unsupported_reason,
)
from bots.engine.search import MATE_BOUND
from variants import GameRecord, Move, Position, Variant, get_variant, variant_keys
from variants.conformance import (
    ConformanceError,
    check_implementation,
    check_perft_file,
    random_playouts,
)
from variants.rulesets.international import International
from variants.rulesets.turkish import Turkish

# Skipped only when the pure-Python engine is asked for; a missing build fails loudly.
pytestmark = pytest.mark.skipif(os.environ.get("KONDAVO_ENGINE", "").lower() == "python",
                                reason="KONDAVO_ENGINE=python: the compiled core is off")

ROOT = Path(__file__).resolve().parents[2]
PERFT = ROOT / "variants" / "perft"
RULESETS = ["international", "english", "brazilian", "spanish", "turkish"]
# The example plugins (examples/<name>/src/<package>), each a package exporting its ruleset.
PLUGIN_SOURCES = sorted(ROOT.glob("examples/*/src"))
PLUGINS = [pkg.name for src in PLUGIN_SOURCES for pkg in src.iterdir()
           if (pkg / "__init__.py").is_file()]
ALL = [*RULESETS, *PLUGINS]


@pytest.fixture(scope="module")
def plugins() -> Iterator[dict[str, Variant]]:
    """The example plugin rulesets, imported from their source trees (nothing installed).

    The site's registry is loaded first, so it never sees these source trees (a plugin
    built in place leaves entry-point metadata there)."""
    variant_keys()
    added = [str(src) for src in PLUGIN_SOURCES if str(src) not in sys.path]
    sys.path[:0] = added
    found: dict[str, Variant] = {}
    for name in PLUGINS:
        module = importlib.import_module(name)
        found[name] = next(v for v in vars(module).values() if isinstance(v, Variant))
    yield found
    for src in added:
        sys.path.remove(src)


def ruleset(key: str, request: pytest.FixtureRequest) -> Variant:
    if key in PLUGINS:
        return request.getfixturevalue("plugins")[key]  # type: ignore[no-any-return]
    return get_variant(key)


def perft_file(key: str, variant: Variant) -> Path:
    if key in PLUGINS:
        return next(Path(sys.modules[key].__file__ or "").parent.glob("*.perft"))
    return PERFT / f"{key}.perft"


# --- move generation: the reference and the core agree ------------------------------------

def test_the_core_is_built() -> None:
    assert native_available(), "bots.native._kdcore is not built: pip install -e . with gcc"


@pytest.mark.parametrize("key", ALL)
def test_every_ruleset_runs_on_the_core(key: str, request: pytest.FixtureRequest) -> None:
    variant = ruleset(key, request)
    assert unsupported_reason(variant) is None
    assert native_supported(variant)


@pytest.mark.parametrize("key", ALL)
def test_perft_tables(key: str, request: pytest.FixtureRequest) -> None:
    variant = ruleset(key, request)
    ran = check_perft_file(variant, perft_file(key, variant), max_nodes=20_000_000,
                           implementation=native_engine(variant))
    assert ran >= 6


@pytest.mark.parametrize("key", ALL)
def test_exact_moves_in_thousands_of_random_positions(key: str,
                                                      request: pytest.FixtureRequest) -> None:
    variant = ruleset(key, request)
    summary = check_implementation(variant, native_engine(variant), games=60, seed=7,
                                   max_plies=220, perft_every=12)
    assert summary["positions"] >= 2000
    assert summary["perft_checks"] >= 150


@pytest.mark.parametrize("key", ALL)
def test_same_capture_paths_as_the_reference(key: str, request: pytest.FixtureRequest) -> None:
    """Beyond the unique-move key: the same landing path and capture order (notation)."""
    variant = ruleset(key, request)
    engine = native_engine(variant)
    stats = random_playouts(variant, games=8, seed=3, max_plies=200, keep_positions=1500)
    captures = 0
    for position in stats.positions:
        mine = {m.key: (m.path, m.captured, m.promotes) for m in engine.legal_moves(position)}
        ref = {m.key: (m.path, m.captured, m.promotes) for m in variant.legal_moves(position)}
        assert mine == ref, variant.format_fen(position)
        captures += sum(1 for m in ref.values() if m[1])
    assert captures > 50


class Big12(International):
    """International rules on a 12x12 board: 72 squares, beyond one 64-bit word."""

    key = "test-12x12"
    rows = cols = 12
    initial_fen = "W:W43-72:B1-30"


class Orthogonal10(Turkish):
    """Turkish rules on a 10x10 board: 100 squares."""

    key = "test-orthogonal-10x10"
    rows = cols = 10
    initial_fen = ("W:Wa2,b2,c2,d2,e2,f2,g2,h2,i2,j2,a3,b3,c3,d3,e3,f3,g3,h3,i3,j3"
                   ":Ba7,b7,c7,d7,e7,f7,g7,h7,i7,j7,a8,b8,c8,d8,e8,f8,g8,h8,i8,j8")


@pytest.mark.parametrize("kind", [Big12, Orthogonal10])
def test_boards_beyond_64_squares(kind: type[Variant]) -> None:
    variant = kind()
    assert variant.squares > 64 and native_supported(variant)
    engine = NativeEngine(variant, tt_mb=1)
    assert engine._module.MAX_SQUARES == 128  # the 128-bit build
    start = variant.initial_position()
    assert [engine.perft(start, d) for d in range(1, 5)] == \
        [variant.perft(start, d) for d in range(1, 5)]
    summary = check_implementation(variant, engine, games=6, seed=1, max_plies=300)
    assert summary["positions"] >= 600
    result = engine.search(start, time_limit=0.2)
    assert result.move in variant.legal_moves(start)


def test_a_board_of_at_most_64_squares_gets_the_64_bit_build() -> None:
    """Every built-in ruleset plays on _kdcore64; a board beyond 64 squares on _kdcore, and
    the 64-bit build refuses it (and a bitboard beyond its 64 bits) with a clear error."""
    import bots.native._kdcore as wide
    import bots.native._kdcore64 as narrow

    assert (narrow.MAX_SQUARES, wide.MAX_SQUARES) == (64, 128)
    for key in RULESETS:
        variant = get_variant(key)
        assert core_module(variant) is narrow
        assert NativeEngine(variant, tt_mb=1)._module is narrow
    big = Big12()
    assert core_module(big) is wide
    with pytest.raises(ValueError, match="at most 64 squares"):
        NativeEngine(big, module=narrow, tt_mb=1)
    core = NativeEngine(get_variant("turkish"), tt_mb=1).core
    with pytest.raises(ValueError, match="off the board"):
        core.perft(1 << 64, 0, 0, 0, 0, 1)


@pytest.mark.parametrize("key", RULESETS)
def test_the_64_and_128_bit_builds_search_the_same_tree(key: str) -> None:
    """The two builds of the same sources agree on everything: legal moves and perft in
    random games, the evaluation, a search node for node, and the endgame tables' bytes."""
    import bots.native._kdcore as wide_module

    variant = get_variant(key)
    narrow = NativeEngine(variant, tt_mb=4)
    wide = NativeEngine(variant, module=wide_module, tt_mb=4)
    assert narrow._module is not wide._module
    summary = check_implementation(variant, wide, games=4, seed=8, max_plies=200)
    assert summary["positions"] >= 100
    stats = random_playouts(variant, games=3, seed=9, max_plies=120, keep_positions=60)
    positions = [variant.initial_position(), *stats.positions[10::10]]
    assert len(positions) >= 5
    for position in positions:
        assert narrow.evaluate(position) == wide.evaluate(position)
        assert narrow.perft(position, 3) == wide.perft(position, 3)
        a = narrow.search(position, max_depth=7, seed=1, reuse_table=False)
        b = wide.search(position, max_depth=7, seed=1, reuse_table=False)
        assert (a.move, a.score, a.nodes, a.depth) == (b.move, b.score, b.nodes, b.depth)
    assert narrow.core.build_tables(3) == wide.core.build_tables(3)


def test_conformance_reports_a_wrong_implementation() -> None:
    """The kit's check fails loudly on an implementation that drops a move."""
    variant = get_variant("international")

    class Broken:
        def legal_moves(self, position: Position) -> list[Move]:
            return variant.legal_moves(position)[1:]

        def perft(self, position: Position, depth: int) -> int:
            return variant.perft(position, depth)

    with pytest.raises(ConformanceError, match="legal moves differ"):
        check_implementation(variant, Broken(), games=1, seed=0, max_plies=5)


@pytest.mark.parametrize("key", ALL)
def test_evaluation_equals_the_python_evaluation(key: str,
                                                 request: pytest.FixtureRequest) -> None:
    variant = ruleset(key, request)
    engine = native_engine(variant)
    evaluator = reference_evaluator(variant)
    stats = random_playouts(variant, games=6, seed=5, max_plies=200, keep_positions=800)
    for position in stats.positions:
        assert engine.evaluate(position) == evaluator.evaluate(position), \
            variant.format_fen(position)


# --- search -----------------------------------------------------------------------------

SHOTS = [
    ("international", "W:W12,16,25,29,42:B14,15,19,40", "29-24"),
    ("english", "B:W6,13,24,25,27:B3,11,15,18,26", "18-23"),
    ("brazilian", "W:Wg5,h4,b2,c1:Ba7,b4,d4", "b2-c3"),
    ("spanish", "W:W4,7,11:B17,18,20,32", "11-15"),
    ("turkish", "W:Wb2,f2,g2,g3,f7,g7:Ba4,b6,d6,d7,e7", "g7-g8"),
]


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize(("key", "fen", "shot"), SHOTS, ids=[s[0] for s in SHOTS])
def test_both_engines_find_the_shot(key: str, fen: str, shot: str, engine: str) -> None:
    variant = get_variant(key)
    position = variant.parse_fen(fen)
    result = search(variant, position, max_depth=5, seed=0, engine=engine)
    assert result.move is not None
    assert variant.format_move(position, result.move) == shot


@pytest.mark.parametrize("key", RULESETS)
def test_never_an_illegal_move_from_many_positions(key: str) -> None:
    """The raw core's choice (before the wrapper maps it onto a reference move) is legal."""
    variant = get_variant(key)
    engine = native_engine(variant)
    stats = random_playouts(variant, games=10, seed=13, max_plies=200, keep_positions=2000)
    rng = random.Random(key)
    checked = 0
    for position in rng.sample(stats.positions, 150):
        legal = {m.key for m in variant.legal_moves(position)}
        if not legal:
            continue
        raw = engine.core.search(position.white_men, position.white_kings,
                                 position.black_men, position.black_kings, int(position.turn),
                                 6, 0.0, 400, 0, rng.getrandbits(32), 0, [], True)
        best, _score, depth, _nodes, _stopped, pv = raw
        assert tuple(best) in legal and depth >= 1
        pos = position
        for key_ in pv:  # the principal variation is a legal line
            moves = {m.key: m for m in variant.legal_moves(pos)}
            assert tuple(key_) in moves
            pos = variant.apply(pos, moves[tuple(key_)])
        checked += 1
    assert checked >= 100


@pytest.mark.timing
@pytest.mark.parametrize("key", RULESETS)
def test_respects_its_deadline(key: str) -> None:
    variant = get_variant(key)
    stats = random_playouts(variant, games=1, seed=2, max_plies=20, keep_positions=20)
    position = stats.positions[-1]
    started = time.perf_counter()
    result = search(variant, position, time_limit=0.2, seed=0, engine="native")
    elapsed = time.perf_counter() - started
    assert 0.1 < elapsed < 0.2 + 0.3
    assert result.move in variant.legal_moves(position)
    assert result.stopped and result.depth >= 4


def test_a_clock_target_alone_ends_the_search() -> None:
    # No limit but a clock's target: the search ends after an iteration on its own (one
    # that never stopped would run to 64 plies, for minutes).
    variant = get_variant("english")
    engine = NativeEngine(variant, tt_mb=8)
    result = engine.search(variant.initial_position(), seed=1, target_time=0.02)
    assert result.stopped and 4 <= result.depth < 64
    assert result.move in variant.legal_moves(variant.initial_position())


def test_respects_its_node_limit_and_is_deterministic() -> None:
    variant = get_variant("international")
    position = variant.initial_position()
    first = search(variant, position, node_limit=5000, seed=4, noise=20, engine="native")
    assert first.stopped and 5000 <= first.nodes < 5000 + 1024
    search(variant, variant.parse_fen("W:W31-48:B1-18"), max_depth=6, engine="native")
    again = search(variant, position, node_limit=5000, seed=4, noise=20, engine="native")
    assert (again.move, again.score, again.nodes) == (first.move, first.score, first.nodes)


def test_transposition_table_persists_between_searches() -> None:
    variant = get_variant("english")
    engine = NativeEngine(variant, tt_mb=8)
    position = variant.parse_fen("W:W21-29,31:B1-10,12")
    cold = engine.search(position, max_depth=9, reuse_table=True)
    warm = engine.search(position, max_depth=9, reuse_table=True)
    assert warm.nodes < cold.nodes // 2
    engine.clear()
    cleared = engine.search(position, max_depth=9, reuse_table=True)
    assert cleared.nodes > warm.nodes


def test_a_search_larger_than_its_table_keeps_its_deep_results() -> None:
    """A 1 MB table (32,768 entries) under searches of 50-150 times more nodes: the deep
    entries of the first search outlive the leaves the second writes, so the same search
    again costs a fraction of the nodes at every depth (5-13x fewer in December 2026). When
    an earlier search's entry was always replaced first, the saving came at some depths
    only (at 16, 17 and 19 plies the second search cost 70-120% of the first)."""
    variant = get_variant("english")
    position = variant.initial_position()
    for depth in (16, 18, 20):
        engine = NativeEngine(variant, tt_mb=1)
        first = engine.search(position, max_depth=depth, seed=0, reuse_table=False,
                              tables=False)
        assert first.nodes > 30 * 32_768
        again = engine.search(position, max_depth=depth, seed=0, reuse_table=True,
                              tables=False)
        assert again.move == first.move and again.score == first.score, depth
        assert again.nodes < first.nodes // 3, (depth, first.nodes, again.nodes)


def _huge_kb() -> int:
    with open("/proc/self/smaps_rollup") as rollup:
        return next(int(line.split()[1]) for line in rollup if line.startswith("AnonHugePages:"))


def _transparent_huge_pages() -> str:
    try:
        return Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return ""


@pytest.mark.skipif("[madvise]" not in _transparent_huge_pages(),
                    reason="huge pages are advised only where the kernel waits for advice")
def test_the_table_sits_on_huge_pages() -> None:
    """The core maps its table 2 MB aligned and advises huge pages: on a kernel that
    gives them only when advised, a search's table is then on huge pages (without the
    advice, on none)."""
    variant = get_variant("english")
    before = _huge_kb()
    engine = NativeEngine(variant, tt_mb=16)
    engine.search(variant.initial_position(), max_depth=13, seed=0, tables=False)
    assert _huge_kb() - before >= 2 * 1024


@pytest.mark.parametrize("key", ["turkish", "international"])
def test_the_calm_schemes_are_less_selective(key: str) -> None:
    """Keeping the selectivity to nodes where neither side can capture (``scan-calm``,
    ``calm``) costs more nodes to the same depth than Scan's scheme everywhere, and every
    scheme finds a legal move with a score in the same range."""
    variant = get_variant(key)
    engine = NativeEngine(variant, tt_mb=8)
    legal = set(variant.legal_moves(variant.initial_position()))
    nodes = {}
    for code, name in enumerate(SELECTIVITY):
        engine.core.set_profile(code)
        engine.clear()
        result = engine.search(variant.initial_position(), max_depth=10, seed=0,
                               reuse_table=False, tables=False)
        assert result.depth == 10 and result.move in legal and abs(result.score) < 100
        nodes[name] = result.nodes
    assert nodes["scan-calm"] > nodes["scan"] * 1.2, nodes
    assert nodes["calm"] > nodes["scan"] * 1.2, nodes


def test_the_core_refuses_an_unknown_scheme() -> None:
    engine = NativeEngine(get_variant("english"), tt_mb=1)
    for bad in (-1, len(SELECTIVITY)):
        with pytest.raises(ValueError, match="selectivity"):
            engine.core.set_profile(bad)


def test_every_ruleset_has_a_search_profile() -> None:
    profiles = {key: search_profile(get_variant(key)) for key in variant_keys()}
    assert profiles["international"] == {"selectivity": "scan"}
    assert profiles["turkish"] == {"selectivity": "calm"}  # adopted by matches (docs/engine.md)
    assert all(p["selectivity"] in SELECTIVITY for p in profiles.values())
    for key, profile in profiles.items():
        if native_supported(get_variant(key)):
            assert native_engine(get_variant(key)).profile == profile


def test_concurrent_searches_of_one_ruleset() -> None:
    """Bot moves of two games in two threads (the embedded mode): the GIL is released, the
    second search does not wait for the shared engine, both moves are legal."""
    variant = get_variant("international")
    positions = [variant.initial_position(), variant.parse_fen("W:W31-45,47:B1-16,18")]
    results: dict[int, Move | None] = {}

    def run(i: int) -> None:
        results[i] = search(variant, positions[i], time_limit=0.3, engine="native").move

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert all(results[i] in variant.legal_moves(positions[i]) for i in range(2))


@pytest.mark.parametrize("engine", ["native", "python"])
def test_repeated_positions_score_as_draws(engine: str) -> None:
    """Every move of the lone king leads back to a position of the game: a draw, not the
    king-against-two loss the evaluation sees without the history."""
    variant = get_variant("english")
    position = variant.parse_fen("W:WK18:BK1,K3")
    children = [variant.apply(position, m) for m in variant.legal_moves(position)]
    filler = variant.parse_fen("B:WK10:BK1,K3")
    history: list[Position] = []
    for child in children:  # a child sits an even number of plies before its own ply
        history += [child, filler]
    history.append(filler)
    plain = search(variant, position, max_depth=1, engine=engine)
    record = GameRecord.resume(variant, position, quiet_plies=len(history), history=history)
    repeated = search(variant, record, max_depth=1, engine=engine)
    assert plain.score < -100
    assert repeated.score == 0


@pytest.mark.parametrize("engine", ["native", "python"])
def test_draw_counter_limit_scores_as_a_draw(engine: str) -> None:
    variant = get_variant("international")
    position = variant.parse_fen("W:WK28,K33:BK5")
    plain = search(variant, position, max_depth=2, engine=engine)
    near_limit = GameRecord.resume(variant, position, quiet_plies=variant.draw_plies - 1)
    limited = search(variant, near_limit, max_depth=2, engine=engine)
    assert plain.score > 100
    assert limited.score == 0


@pytest.mark.parametrize("engine", ["native", "python"])
def test_mate_scores_use_the_python_scale(engine: str) -> None:
    variant = get_variant("english")
    # Black's capture takes White's last piece: a win in one ply.
    won = search(variant, variant.parse_fen("B:W22:B18"), max_depth=4, engine=engine)
    assert won.score == MATE - 1
    # White's last man is blocked: no legal move, the game is lost.
    lost = search(variant, variant.parse_fen("W:W29:B25,K22"), max_depth=4, engine=engine)
    assert lost.move is None and lost.score == -MATE


@pytest.mark.parametrize("engine", ["native", "python"])
def test_special_outcomes_are_searched(engine: str) -> None:
    """Turkish: a king against a lone man wins at once, so reaching it is a forced win."""
    variant = get_variant("turkish")
    position = variant.parse_fen("W:WKa1:Ba5,a6")
    result = search(variant, position, max_depth=4, engine=engine)
    assert result.score == MATE - 3  # White moves, Black's forced reply, the capture
    # A ruleset without that rule sees no forced win (four pieces: beyond International's
    # three-piece endgame tables, which know K46 against 1 and 6 is won in 15 plies).
    without = search(get_variant("international"), get_variant("international").parse_fen(
        "W:WK46:B1,2,6"), max_depth=4, engine=engine)
    assert without.score < MATE_BOUND


# --- fallback ---------------------------------------------------------------------------

def test_a_ruleset_overriding_move_generation_falls_back() -> None:
    base = get_variant("international")

    class Custom(type(base)):  # type: ignore[misc]
        def captures(self, position: Position) -> list[Move]:
            return super().captures(position)

    custom = Custom()
    assert not native_supported(custom)
    assert "overrides captures" in (unsupported_reason(custom) or "")
    assert not uses_native(custom)
    with pytest.raises(ValueError):
        uses_native(custom, "native")
    move = choose_move(custom, custom.initial_position(), level=3, seed=1)
    assert move in custom.legal_moves(custom.initial_position())


def test_an_unknown_declared_rule_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Variant, "men_capture_kings_test_rule", True, raising=False)
    base = get_variant("english")

    class Different(type(base)):  # type: ignore[misc]
        men_capture_kings_test_rule = False

    assert "men_capture_kings_test_rule" in (unsupported_reason(Different()) or "")


def test_environment_forces_the_python_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    variant = get_variant("english")
    monkeypatch.setenv("KONDAVO_ENGINE", "python")
    assert not native_supported(variant)
    assert not uses_native(variant)
    result = search(variant, variant.initial_position(), max_depth=3)
    assert result.move in variant.legal_moves(variant.initial_position())


def test_without_the_extension_everything_runs_in_python() -> None:
    script = textwrap.dedent("""
        import sys
        sys.modules["bots.native._kdcore"] = None  # the extension cannot be imported
        from bots.engine import choose_move, native_supported, search
        from bots.analysis import analyse
        from variants import get_variant
        v = get_variant("international")
        p = v.initial_position()
        assert not native_supported(v)
        assert choose_move(v, p, level=8, seed=1, time_limit=0.2) in v.legal_moves(p)
        a = analyse(v, p, depth=3)
        assert a.depth == 3 and a.best in v.legal_moves(p)
        print("python-only ok")
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "python-only ok" in out.stdout


# --- analysis ---------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ["native", "python"])
def test_analysis_runs_on_either_engine(engine: str) -> None:
    from bots.analysis import analyse

    variant = get_variant("english")
    # Black to move takes White's last piece: a win for Black in one ply.
    position = variant.parse_fen("B:W22:B18")
    report = analyse(variant, position, depth=4, engine=engine)
    assert report.mate_in == -1 and report.score == -(MATE - 1)
    assert report.best is not None and variant.format_move(position, report.best) == "18x25"
    start = variant.initial_position()
    deep = analyse(variant, start, time_limit=0.3, engine=engine)
    assert deep.depth >= 3 and deep.pv and deep.pv[0] == deep.best
    notation = deep.as_dict(variant, start)["pv"]
    assert isinstance(notation, list) and len(notation) == len(deep.pv)
