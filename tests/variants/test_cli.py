"""The command line contract of ``python -m variants`` (tools outside the team depend on it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "variants", *args], cwd=REPO, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_list() -> None:
    result = run("list")
    assert result.returncode == 0
    assert result.stdout.splitlines()[:5] == [
        "international", "english", "brazilian", "spanish", "turkish"]


def test_perft_last_line_is_the_node_count() -> None:
    result = run("perft", "international", "3")
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "658"


def test_perft_divide_and_fen() -> None:
    result = run("perft", "english", "3", "--divide")
    lines = result.stdout.splitlines()
    assert lines[-1] == "302"
    assert sum(int(line.split()[1]) for line in lines[:-1]) == 302
    assert len(lines) == 8
    result = run("perft", "turkish", "1", "--fen", "W:Wa1,Kd4:Bd6,d2,h8")
    assert result.stdout.splitlines()[-1] == "3"


def test_moves_with_fen() -> None:
    result = run("moves", "international", "--fen", "W:W31-50:B1-20")
    assert result.returncode == 0
    assert result.stdout == "31-26 31-27 32-27 32-28 33-28 33-29 34-29 34-30 35-30\n"


def test_moves_json_numeric_and_algebraic() -> None:
    result = run("moves", "english", "--fen", "B:W26,27:B22", "--json")
    assert json.loads(result.stdout) == [{"notation": "22x31", "path": [22, 31],
                                          "captured": [26]}]
    result = run("moves", "turkish", "--fen", "W:Wb6:Bb7,c8,b4,h5", "--json")
    assert json.loads(result.stdout) == [{"notation": "b6xb8xd8", "path": ["b6", "b8", "d8"],
                                          "captured": ["b7", "c8"]}]


def test_moves_json_lists_each_move_once_with_its_path() -> None:
    result = run("moves", "international", "--fen", "W:WK2:B7,8,17,18", "--json")
    (move,) = json.loads(result.stdout)
    assert move["notation"] == "2x2"
    assert len(move["path"]) == 5 and move["path"][0] == move["path"][-1] == 2
    assert sorted(move["captured"]) == [7, 8, 17, 18]


def test_moves_from_stdin_one_line_per_fen_and_errors_keep_the_lines() -> None:
    stdin = "W:W31-50:B1-20\nnot a fen\nW:WK46:B28\n"
    result = run("moves", "international", stdin=stdin)
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("31-26 ")
    assert lines[1].startswith("error: line 2")
    assert lines[2] == "46x10 46x14 46x19 46x23 46x5"
    assert result.returncode == 2
    assert "line 2" in result.stderr
    result = run("moves", "international", "--json", stdin=stdin)
    lines = result.stdout.splitlines()
    assert len(json.loads(lines[0])) == 9
    assert "error" in json.loads(lines[1])
    assert result.returncode == 2


def test_errors_exit_2_with_a_message() -> None:
    for args in (("moves", "chess", "--fen", "W:W1:B2"),
                 ("moves", "international", "--fen", "W:W99:B1"),
                 ("perft", "nope", "2"),
                 ("perft", "international", "two")):
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stderr.strip(), args
        assert result.stdout == "", args


def test_check_runs_the_conformance_kit_against_the_declared_perft(tmp_path: Path) -> None:
    result = run("check", "english", "--games", "3", "--max-nodes", "50000")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "ok"
    assert any(line.startswith("reference perft:") and line.endswith(
        "english.perft (cases up to 50000 nodes)") for line in lines)
    cases = [line for line in lines if line.strip().startswith("perft_cases:")]
    assert cases and int(cases[0].split(":")[1]) > 0


def test_check_fails_on_a_wrong_reference_figure(tmp_path: Path) -> None:
    suite = tmp_path / "wrong.perft"
    suite.write_text("id start\nfen B:W21-32:B1-12\nperft 1 7\nperft 2 50\n")
    result = run("check", "english", "--perft", str(suite), "--games", "1")
    assert result.returncode == 1
    assert "FAILED: english perft start depth 2: expected 50, got 49" in result.stdout
    missing = run("check", "english", "--perft", str(tmp_path / "missing.perft"))
    assert missing.returncode == 2 and "missing.perft" in missing.stderr
    unknown = run("check", "no-such-ruleset")
    assert unknown.returncode == 2 and "unknown ruleset" in unknown.stderr
