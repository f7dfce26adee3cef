"""The engine on the Hub protocol (``python -m bots.engine.hub``): positions and moves in the
protocol's notation, the dialogue line by line, refusals that change nothing, a shot found
through the protocol, and a game driven by pydraughts' ``HubEngine`` (an independent client
and rules implementation) in which every move is legal by pydraughts' rules."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots.engine.hub import (
    HubEngine,
    HubError,
    move_from_hub,
    move_to_hub,
    position_from_hub,
    position_to_hub,
)
from bots.engine.native import native_available
from variants import GameRecord, get_variant, variant_keys

REPO = Path(__file__).resolve().parents[2]
INTERNATIONAL_START = "W" + "b" * 20 + "e" * 10 + "w" * 20
KING_ON_3 = "WeeWeeeeeeeebeeeeeeeeeeeeeeebeeebeeeeeeeeebeebeeeee"  # W:WK3:B12,28,32,42,45
# Black to move, 18-23 wins material (tests/bots/test_shots.py, from the puzzle collection).
SHOT = "Bbbebbebbbebbeebeebebeeewbeebwwweewewwwweeeewewweww"


def dialogue(*lines: str, ruleset: str = "international", level: int = 8) -> list[str]:
    """Feed ``lines`` to an engine on in-memory streams as a GUI does (after ``go``, the next
    line waits for ``done`` unless it is ``stop`` or ``ponder-hit``); its output lines."""
    out = io.StringIO()
    engine = HubEngine(get_variant(ruleset), level, out)
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        engine.handle(line)
        if (line.startswith("go") and after not in ("stop", "ponder-hit")) or \
                line in ("stop", "ponder-hit"):
            if engine.search_thread is not None:
                engine.search_thread.join(timeout=120)
    engine.finish()
    return out.getvalue().splitlines()


def test_positions_read_and_write_the_protocol_letters() -> None:
    v = get_variant("international")
    start = position_from_hub(v, INTERNATIONAL_START)
    assert start == v.initial_position()
    assert position_to_hub(v, start) == INTERNATIONAL_START
    king = position_from_hub(v, KING_ON_3)
    assert king == v.parse_fen("W:WK3:B12,28,32,42,45")
    english = get_variant("english")  # Black moves first, its men on 1-12
    assert position_to_hub(english, english.initial_position()) == \
        "B" + "b" * 12 + "e" * 8 + "w" * 12
    for bad in ("", "W", INTERNATIONAL_START[:-1], "X" + INTERNATIONAL_START[1:],
                INTERNATIONAL_START[:-1] + "k"):
        with pytest.raises(HubError):
            position_from_hub(v, bad)


def test_moves_name_origin_destination_and_the_captured_set() -> None:
    v = get_variant("international")
    legal = v.legal_moves(position_from_hub(v, KING_ON_3))
    assert sorted(move_to_hub(m) for m in legal) == ["3x47x12x28x42", "3x47x12x32x42"]
    chosen = move_from_hub(legal, "3x47x42x28x12")  # captured squares in any order
    assert [sq + 1 for sq in chosen.path] == [3, 17, 33, 47]
    assert move_from_hub(legal, "3x47x32x12x42").path[1] + 1 == 21
    for bad in ("3x47", "3x47x12x28", "3-47", "47x3x12x28x42", "3x47xx12", "three", "0-5"):
        with pytest.raises(HubError):
            move_from_hub(legal, bad)
    quiet = v.legal_moves(v.initial_position())
    assert sorted(move_to_hub(m) for m in quiet)[:3] == ["31-26", "31-27", "32-27"]


def test_the_dialogue_from_hub_to_done() -> None:
    out = dialogue("hub", "init", "ping", f"pos pos={SHOT}", "level nodes=20000", "go think")
    assert out[0].startswith("id name=Kondavo version=")
    keys = " ".join(sorted(variant_keys()))  # plugins too, when installed
    assert {"brazilian", "english", "international", "spanish", "turkish"} <= set(keys.split())
    assert out[1] == f'param name=variant value=international type=enum values="{keys}"'
    assert out[2:6] == ["param name=level value=8 type=int min=1 max=8", "wait", "ready", "pong"]
    infos = [line for line in out if line.startswith("info ")]
    assert infos and "nodes=" in infos[-1] and "score=" in infos[-1]
    assert out[-1].startswith("done move=18-23")


def test_a_game_given_as_moves_and_time_control() -> None:
    v = get_variant("international")
    out = dialogue('pos moves="32-28 19-23 28x19 14x23"', "level time=60 inc=1", "go think",
                   "set-param name=level value=2", "level move-time=0.05", "go think")
    done = [line for line in out if line.startswith("done ")]
    assert len(done) == 2
    record = GameRecord.from_notation(v, ["32-28", "19-23", "28x19", "14x23"])
    legal = {move_to_hub(m) for m in record.legal_moves()}
    for line in done:
        move = line.split()[1].removeprefix("move=")
        assert move in legal, (move, sorted(legal))


def test_a_clock_is_the_searchs_target_and_stretches_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``level time=T inc=I [moves=N]``: the clock's share (bots.engine.timing, over the N
    moves to go) is the search's target and three times it the limit, within a quarter of
    the time above the reserve; ``move-time`` is a plain limit."""
    import bots.engine.hub as hub

    asked: list[dict[str, object]] = []
    real = hub.search_level

    def spy(*args: object, **kwargs: object) -> object:
        asked.append(kwargs)
        return real(*args, **{**kwargs, "time_limit": 0.05, "target_time": None})

    monkeypatch.setattr(hub, "search_level", spy)
    out = dialogue("level time=30 inc=0", "go think", "level move-time=0.5", "go think",
                   "level moves=10 time=30 inc=0", "go think", "level moves=-1 time=30")
    assert sum(line.startswith("done ") for line in out) == 3
    assert out[-1].startswith("error ") and "moves" in out[-1]
    share = (30 - 3) / 30
    assert asked[0]["target_time"] == pytest.approx(share)
    assert asked[0]["time_limit"] == pytest.approx(3 * share)
    assert asked[1]["time_limit"] == 0.5 and asked[1].get("target_time") is None
    # Ten moves to go in the 30 s: a tenth of what is above the reserve, the limit a
    # quarter of it (below three times the share).
    assert asked[2]["target_time"] == pytest.approx(27 / 10)
    assert asked[2]["time_limit"] == pytest.approx(27 / 4)


def test_refused_lines_answer_error_and_change_nothing() -> None:
    engine = HubEngine(get_variant("international"), 8, io.StringIO())
    engine.run(io.StringIO('pos moves="32-28"\n'))
    before = engine.session.record
    assert before is not None and before.ply == 1
    out = io.StringIO()
    engine.out = out
    engine.run(io.StringIO("\n".join([
        "pos pos=Wxyz",
        'pos moves="32-28 99-1"',
        'pos moves="32-28 19-24 28-21"',  # 21 is not next to 28
        "pos moves=\"32-28",  # unbalanced quote
        "set-param name=variant value=checkers-of-mars",
        "set-param name=level value=9",
        "set-param name=hash value=64",
        "level depth=deep",
        "go sideways",
        "fly",
        "x" * (70 * 1024),
    ]) + "\n"))
    errors = out.getvalue().splitlines()
    assert len(errors) == 11 and all(line.startswith('error message="') for line in errors)
    assert "move 2" in errors[1] and "move 3" in errors[2]
    assert engine.session.record is before and engine.session.level == 8
    assert engine.session.variant.key == "international"


def test_a_finished_game_has_no_search() -> None:
    v = get_variant("english")
    lost = "W" + "b" * 3 + "e" * 29  # White to move without a piece
    assert not v.legal_moves(position_from_hub(v, lost))
    out = dialogue("set-param name=variant value=english", f"pos pos={lost}", "go think")
    assert out == ['error message="the game is over: no legal move"']


def test_ponder_and_analyze_wait_for_ponder_hit_or_stop() -> None:
    out = dialogue("pos", "level nodes=2000", "go ponder", "stop",
                   "pos", "level nodes=2000", "go ponder", "ponder-hit",
                   "pos", "go analyze", "stop")
    v = get_variant("international")
    legal = {move_to_hub(m) for m in v.legal_moves(v.initial_position())}
    done = [line for line in out if line.startswith("done ")]
    assert len(done) == 3 and all(line.split()[1][5:] in legal for line in done)
    assert not any(line.startswith("error") for line in out)


@pytest.fixture(scope="module")
def pydraughts_path() -> str:
    where = os.environ.get("KONDAVO_PYDRAUGHTS") or str(REPO / ".venv/test-peers/pydraughts")
    if not Path(where, "pydraughts-0.6.7.dist-info").exists():
        pytest.skip("pydraughts 0.6.7 is not installed (make test-peers)")
    return where


@pytest.mark.skipif(not native_available(), reason="the compiled core is not built")
def test_pydraughts_plays_a_game_with_the_hub_engine(pydraughts_path: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([pydraughts_path, str(REPO)])}
    run = subprocess.run([sys.executable, str(REPO / "tests/bots/hub_peer.py"),
                          "international", "40", "3000"], capture_output=True, text=True,
                         env=env, cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["illegal"] == []
    assert len(report["moves"]) == 40
    assert report["id"]["name"] == "Kondavo" and "international" in report["variants"]
    assert report["returncode"] == 0  # quit ends the engine
    # Both sides of the board agree on where the game stands.
    v = get_variant("international")
    record = GameRecord.new(v)
    for text in report["moves"]:
        record.push(move_from_hub(record.legal_moves(), text))
    assert position_to_hub(v, record.position) == report["fen"]


def test_a_gui_answering_at_once_is_never_refused() -> None:
    """The next ``pos`` follows ``done`` at once, thirty times, over real pipes."""
    proc = subprocess.Popen([sys.executable, "-m", "bots.engine.hub", "--ruleset", "english"],
                            cwd=REPO, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    record = GameRecord.new(get_variant("english"))
    try:
        for _ in range(30):
            moves = " ".join(move_to_hub(m.move) for m in record.moves)
            proc.stdin.write(f'pos moves="{moves}"\nlevel nodes=300\ngo think\n')
            proc.stdin.flush()
            line = ""
            while not line.startswith(("done", "error")):
                line = proc.stdout.readline()
                assert line, "the engine ended"
            assert line.startswith("done move="), line
            record.push(move_from_hub(record.legal_moves(), line.split()[1][5:]))
            if record.outcome() is not None:
                break
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    assert record.ply >= 20
