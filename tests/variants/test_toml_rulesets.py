"""Rulesets as data: TOML files, validated with errors naming the file and the field."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from variants import Color, Criterion, Registry, get_variant
from variants.conformance import run_all
from variants.registry import BUILTINS
from variants.toml_rulesets import RulesetFileError, load_ruleset_dir, load_ruleset_file

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
POOL = DATA / "pool-lite.toml"


def test_a_data_only_ruleset_loads_and_passes_the_conformance_kit() -> None:
    pool = load_ruleset_file(POOL)
    assert (pool.key, pool.name, pool.aliases, pool.scoring) == (
        "pool-lite", "Pool (lite)", ("pool-l",), "1-0")
    assert pool.perft_suite_path() == (DATA / "pool-lite.perft").resolve()
    summary = run_all(pool, pool.perft_suite_path(), games=4, seed=1)
    assert summary["perft_cases"] == 4 and summary["reference_generator_checks"] > 50
    brazilian = get_variant("brazilian")
    position = brazilian.parse_fen("W:Wc3,e3:Bd4,f4,d6")
    assert pool.perft(position, 3) == brazilian.perft(position, 3)


def test_its_words_come_from_the_file() -> None:
    pool = load_ruleset_file(POOL)
    assert pool.localized_name("fr") == "Pool (allégé)"
    assert pool.summary_text("fr").startswith("Les règles brésiliennes")
    assert pool.capture_rule_text("en") == "Capture is mandatory: take the most pieces " \
                                           "(pool-lite)."
    page, lang = pool.rules_page("it") or ({}, "")
    assert lang == "en" and page["title"] == "Pool (lite) rules"
    assert page["sections"][1] == ("Captures", ["The longest capture is mandatory."])
    assert pool.board.as_dict()["playing_squares"] == "dark"
    assert pool.result_text(Color.WHITE) == "1-0"


def test_criteria_lists_and_orthogonal_boards(tmp_path: Path) -> None:
    path = tmp_path / "mini.toml"
    path.write_text('key = "mini-dama"\nname = "Mini dama"\nboard = "orthogonal"\n'
                    'rows = 6\ncols = 6\ninitial_fen = "W:Wa2,b2,c2,d2,e2,f2:Ba5,b5,c5,d5,e5,f5"\n'
                    'precedence = ["most_pieces", "with_king"]\nimmediate_removal = true\n'
                    'no_reversal = true\nflying_kings = true\nnotation = "algebraic"\n')
    mini = load_ruleset_file(path)
    assert mini.capture_criteria == (Criterion.MOST_PIECES, Criterion.WITH_KING)
    assert mini.board.all_squares
    assert run_all(mini, games=4, seed=2)["reference_generator_checks"] > 20


@pytest.mark.parametrize(("text", "field", "message"), [
    ('name = "x"\n', "key", "missing"),
    ('key = "x"\nname = "X"\nboard = "hexagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W1:B2"\n',
     "board", "must be \"diagonal\" or \"orthogonal\""),
    ('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W1:B2"\n'
     'flying_kings = "yes"\n', "flying_kings", "true or false"),
    ('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W1:B2"\n'
     'precedence = ["longest"]\n', "precedence", "most_pieces"),
    ('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W1:B2"\n'
     'flyng_kings = true\n', "flyng_kings", "unknown field"),
    ('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W99:B2"\n',
     "initial_fen", "99"),
    ('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W1:B2"\n'
     '[rules.en]\ntitle = "T"\n', "rules.en.summary", "non-empty string"),
    ('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\ninitial_fen = "W:W1:B2"\n'
     'men_capture = "sideways"\n', "men_capture", "forward-and-backward"),
])
def test_errors_name_the_file_and_the_field(tmp_path: Path, text: str, field: str,
                                            message: str) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(text)
    with pytest.raises(RulesetFileError) as caught:
        load_ruleset_file(path)
    assert caught.value.field == field
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_invalid_toml_is_reported_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("key = \n")
    with pytest.raises(RulesetFileError, match="bad.toml: is not valid TOML"):
        load_ruleset_file(path)


def test_a_broken_file_is_logged_and_skipped(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    shutil.copy(POOL, tmp_path / "a-pool.toml")
    shutil.copy(DATA / "pool-lite.perft", tmp_path / "pool-lite.perft")
    (tmp_path / "b-broken.toml").write_text('key = "broken"\n')
    (tmp_path / "c-clash.toml").write_text(
        POOL.read_text().replace('key = "pool-lite"', 'key = "international"'))
    with caplog.at_level(logging.ERROR):
        registry = Registry(BUILTINS)
        assert registry.load_directory(tmp_path) == ["pool-lite"]
    assert "b-broken.toml: field 'name': missing" in caplog.text
    assert "'international' is already taken" in caplog.text
    assert registry.get("pool-l").key == "pool-lite"
    assert [v.key for v in load_ruleset_dir(tmp_path / "missing")] == []


def test_the_command_line_sees_rulesets_from_the_configured_directory(tmp_path: Path) -> None:
    shutil.copy(POOL, tmp_path / "pool-lite.toml")
    shutil.copy(DATA / "pool-lite.perft", tmp_path / "pool-lite.perft")
    (tmp_path / "broken.toml").write_text("not toml [")
    env = {**os.environ, "KONDAVO_RULESET_DIRS": str(tmp_path)}
    listed = subprocess.run([sys.executable, "-m", "variants", "list"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "pool-lite" in listed.stdout.split()
    assert "broken.toml: is not valid TOML" in listed.stderr
    check = subprocess.run([sys.executable, "-m", "variants", "check", "pool-lite",
                            "--games", "2"], cwd=REPO, env=env, capture_output=True,
                           text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "perft_cases: 4" in check.stdout


def test_check_a_file_before_installing_it(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "variants", "check", str(POOL), "--games",
                             "2"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "checking pool-lite (Pool (lite))" in result.stdout and "perft_cases: 4" in result.stdout
    broken = tmp_path / "broken.toml"
    broken.write_text('key = "x"\nname = "X"\nboard = "diagonal"\nrows = 8\ncols = 8\n'
                      'initial_fen = "W:W1:B2"\nflying_kings = "yes"\n')
    result = subprocess.run([sys.executable, "-m", "variants", "check", str(broken)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "broken.toml: field 'flying_kings': must be true or false" in result.stderr
