"""The compiled core on the rule fields for kings, orthogonal captures on a diagonal board and
capture by value: the same moves and perft as the reference, its own search on them, the
quick self-check a server runs on a ruleset that is not built in, and ``variants check``.
"""

from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bots.engine import core_check, native, search, uses_native
from bots.engine.native import (
    NativeEngine,
    core_reason,
    native_supported,
    rules_spec,
    unsupported_reason,
)
from variants import Position, Variant, get_variant
from variants.conformance import check_implementation, check_perft_file, random_playouts
from variants.toml_rulesets import load_ruleset_file

pytestmark = pytest.mark.skipif(os.environ.get("KONDAVO_ENGINE", "").lower() == "python",
                                reason="KONDAVO_ENGINE=python: the compiled core is off")

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FILES = [DATA / "frisian-like.toml", DATA / "short-landing.toml"]
BOARD = 'board = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W21-32:B1-12"\n'
EIGHT = BOARD + 'men_capture = "forward-and-backward"\nprecedence = "max_pieces"\n'
# Rulesets written here: each new field alone, and mixed with the older ones.
WRITTEN = {
    "far-moves-short-captures": EIGHT + "flying_kings = true\nflying_captures = false\n",
    "short-moves-far-captures": EIGHT + "flying_captures = true\n",
    "next-landing-turkish-removal": EIGHT + 'flying_kings = true\nking_landing = "next"\n'
                                            "immediate_removal = true\nno_reversal = true\n",
    "orthogonal-men-russian": BOARD + 'men_capture = "diagonal-and-orthogonal"\n'
    'flying_kings = true\nmid_capture_promotion = "continues_as_king"\n'
    'kings_capture = "diagonal-and-orthogonal"\n',
    "value-italian-men": BOARD + 'men_capture_kings = false\npiece_values = { man = 1, king = 3 }\n'
    'precedence = ["most_value", "with_king", "earliest_king"]\n',
    "queens-on-all-squares": 'board = "orthogonal"\nrows = 8\ncols = 8\nnotation = "algebraic"\n'
    'initial_fen = "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3'
    ':Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"\n'
    'kings_move = "diagonal-and-orthogonal"\nkings_capture = "orthogonal"\n'
    'flying_kings = true\nking_landing = "next"\nprecedence = "max_pieces"\n',
}


def written(tmp_path: Path, key: str) -> Variant:
    path = tmp_path / f"{key}.toml"
    path.write_text(f'key = "{key}"\nname = "{key}"\n{WRITTEN[key]}', encoding="utf-8")
    return load_ruleset_file(path)


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Self-check results go to a fresh cache directory and are forgotten after each test."""
    monkeypatch.setenv(core_check.DIR_ENV, str(tmp_path / "cache"))
    core_check.forget_self_checks()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_data_rulesets_play_on_the_core(path: Path) -> None:
    variant = load_ruleset_file(path)
    assert unsupported_reason(variant) is None
    assert native_supported(variant) and uses_native(variant)
    engine = NativeEngine(variant, tt_mb=1)
    assert check_perft_file(variant, path.with_suffix(".perft"), max_nodes=5_000_000,
                            implementation=engine) >= 8
    summary = check_implementation(variant, engine, games=25, seed=7, max_plies=200,
                                   perft_every=12)
    assert summary["positions"] >= 800 and summary["perft_checks"] >= 60


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_same_capture_paths_as_the_reference(path: Path) -> None:
    variant = load_ruleset_file(path)
    engine = NativeEngine(variant, tt_mb=1)
    stats = random_playouts(variant, games=10, seed=3, max_plies=200, keep_positions=1500)
    captures = 0
    for position in stats.positions:
        mine = {m.key: (m.path, m.captured, m.promotes) for m in engine.legal_moves(position)}
        ref = {m.key: (m.path, m.captured, m.promotes) for m in variant.legal_moves(position)}
        assert mine == ref, variant.format_fen(position)
        captures += sum(1 for m in ref.values() if m[1])
    assert captures > 50


@pytest.mark.parametrize("key", sorted(WRITTEN))
def test_each_field_alone_and_mixed(tmp_path: Path, key: str) -> None:
    variant = written(tmp_path, key)
    assert unsupported_reason(variant) is None
    engine = NativeEngine(variant, tt_mb=1)
    start = variant.initial_position()
    assert [engine.perft(start, d) for d in range(1, 6)] == \
        [variant.perft(start, d) for d in range(1, 6)]
    summary = check_implementation(variant, engine, games=12, seed=11, max_plies=200,
                                   perft_every=10)
    assert summary["positions"] >= 400


@pytest.mark.parametrize(("key", "fen", "expected"), [
    ("far-moves-short-captures", "W:WK29:B22", ["29-25"]),
    ("far-moves-short-captures", "W:WK29:B25", ["29x22"]),
    ("short-moves-far-captures", "W:WK29:B15", ["29x11", "29x4", "29x8"]),
    ("queens-on-all-squares", "W:WKa1:Bc3", ["a1-a2", "a1-a3", "a1-a4", "a1-a5", "a1-a6",
                                             "a1-a7", "a1-a8", "a1-b1", "a1-b2", "a1-c1",
                                             "a1-d1", "a1-e1", "a1-f1", "a1-g1", "a1-h1"]),
    ("queens-on-all-squares", "W:WKa1:Bd1", ["a1xe1"]),
])
def test_literal_positions_on_the_core(tmp_path: Path, key: str, fen: str,
                                       expected: list[str]) -> None:
    variant = written(tmp_path, key)
    position = variant.parse_fen(fen)
    core = NativeEngine(variant, tt_mb=1).legal_moves(position)
    assert sorted(variant.format_move(position, m, core) for m in core) == expected
    assert {m.key for m in core} == {m.key for m in variant.legal_moves(position)}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_core_search_plays_only_legal_moves(path: Path) -> None:
    """The raw core's choice and line, before the wrapper maps them onto reference moves."""
    variant = load_ruleset_file(path)
    engine = NativeEngine(variant, tt_mb=4)
    stats = random_playouts(variant, games=6, seed=5, max_plies=160, keep_positions=600)
    rng = random.Random(path.stem)
    checked = 0
    for position in rng.sample(stats.positions, 80):
        legal = {m.key for m in variant.legal_moves(position)}
        if not legal:
            continue
        raw = engine.core.search(position.white_men, position.white_kings,
                                 position.black_men, position.black_kings, int(position.turn),
                                 6, 0.0, 400, 0, rng.getrandbits(32), 0, [], True)
        best, _score, depth, _nodes, _stopped, pv = raw
        assert tuple(best) in legal and depth >= 1
        pos = position
        for key in pv:
            moves = {m.key: m for m in variant.legal_moves(pos)}
            assert tuple(key) in moves
            pos = variant.apply(pos, moves[tuple(key)])
        checked += 1
    assert checked >= 60
    result = search(variant, variant.initial_position(), max_depth=6, engine="native")
    assert result.move in variant.legal_moves(variant.initial_position())


def test_the_tables_are_not_shared_across_rules(tmp_path: Path) -> None:
    from bots.engine.tables import cache_path

    short = load_ruleset_file(DATA / "short-landing.toml")
    text = (DATA / "short-landing.toml").read_text(encoding="utf-8")
    (tmp_path / "short-landing.toml").write_text(text.replace('"next"', '"any"'),
                                                  encoding="utf-8")
    anywhere = load_ruleset_file(tmp_path / "short-landing.toml")
    assert short.key == anywhere.key
    a, b = NativeEngine(short, tt_mb=1), NativeEngine(anywhere, tt_mb=1)
    assert cache_path(a, 3) != cache_path(b, 3)
    assert rules_spec(short)["king_landing_next"] == 1
    assert rules_spec(anywhere)["king_landing_next"] == 0


# --- the quick self-check on first use ----------------------------------------------------

def test_a_new_ruleset_is_self_checked_once(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    variant = written(tmp_path, "far-moves-short-captures")
    runs: list[str] = []
    real = core_check.run_self_check

    def counted(v: Variant) -> str | None:
        runs.append(v.key)
        return real(v)

    monkeypatch.setattr(core_check, "run_self_check", counted)
    assert core_reason(variant) is None
    assert core_reason(variant) is None
    assert runs == ["far-moves-short-captures"]
    markers = list((tmp_path / "cache").glob("*.json"))
    assert len(markers) == 1
    core_check.forget_self_checks()  # another process: the marker on disk answers
    assert core_check.self_check(written(tmp_path, "far-moves-short-captures")) is None
    assert runs == ["far-moves-short-captures"]
    builtin = get_variant("english")  # the project's tests check the built-ins
    assert core_reason(builtin) is None and runs == ["far-moves-short-captures"]


def test_a_core_that_disagrees_falls_back_to_python(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    variant = written(tmp_path, "far-moves-short-captures")
    real = native.rules_spec

    def wrong(v: Variant) -> dict[str, object]:
        spec = real(v)
        spec["flying_captures"] = 1  # a core built with other rules than the reference's
        return spec

    monkeypatch.setattr(native, "rules_spec", wrong)
    with caplog.at_level(logging.WARNING, logger="bots.engine.core_check"):
        reason = core_reason(variant)
    assert reason is not None and "self-check" in reason
    # found by the random games ("legal moves differ") or by a perft, whichever runs first
    assert "legal moves differ" in reason or "perft" in reason
    assert any("pure-Python engine" in r.getMessage() and variant.key in r.getMessage()
               for r in caplog.records)
    assert not native_supported(variant) and not uses_native(variant)
    position = variant.parse_fen("W:WK29,21:B15,1")
    result = search(variant, position, max_depth=3)
    assert result.move in variant.legal_moves(position)


# --- python -m variants check ---------------------------------------------------------

def test_variants_check_compares_the_core(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "variants", "check",
                          str(DATA / "short-landing.toml"), "--games", "3"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = dict(line.strip().split(": ", 1) for line in out.stdout.splitlines()
                 if line.startswith("  "))
    assert lines["core"] == "used"
    assert int(lines["core_perft_cases"]) >= 8 and int(lines["core_positions"]) >= 100
    assert int(lines["core_start_perft_depth"]) >= 5
    assert float(lines["core_speed_ratio"]) > 1


def test_men_stepping_off_the_board_lines_stay_in_python(tmp_path: Path) -> None:
    """Men moving diagonally on an orthogonal board (Armenian style): the generators know
    it, the core's evaluation does not, so the ruleset says so and is played in Python."""
    path = tmp_path / "diagonal-steps.toml"
    path.write_text('key = "diagonal-steps"\nname = "Diagonal steps"\nboard = "orthogonal"\n'
                    'rows = 8\ncols = 8\nnotation = "algebraic"\n'
                    'initial_fen = "W:Wa2,b2,c2,d2,e2,f2,g2,h2:Ba7,b7,c7,d7,e7,f7,g7,h7"\n'
                    "men_move = [[1, 0], [0, -1], [0, 1], [1, -1], [1, 1]]\n", encoding="utf-8")
    variant = load_ruleset_file(path)
    position = variant.parse_fen("W:Wd4:Ba8")
    assert sorted(variant.format_move(position, m) for m in variant.legal_moves(position)) \
        == ["d4-c4", "d4-c5", "d4-d5", "d4-e4", "d4-e5"]
    reason = unsupported_reason(variant)
    assert reason is not None and "men step along [1, -1]" in reason
    assert core_check.check_core(variant, games=1) == {"core": f"not used: {reason}"}
    assert not uses_native(variant)


def test_a_ruleset_the_core_does_not_play_says_why() -> None:
    base = get_variant("international")

    class Custom(type(base)):  # type: ignore[misc]
        key = "custom-captures"

        def captures(self, position: Position) -> list:  # type: ignore[type-arg]
            return super().captures(position)

    summary = core_check.check_core(Custom(), games=1)
    assert summary == {"core": "not used: Custom overrides captures (move generation in "
                               "Python)"}
