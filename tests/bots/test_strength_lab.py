"""The strength lab's balanced openings (``bench.strength --balanced``)."""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from pathlib import Path

import pytest

from bench.strength import (
    GameClocks,
    Meter,
    build_player,
    core_build,
    match,
    material_balance_check,
    random_opening,
    takes_target,
)
from bots.engine.native import native_available
from variants import Color, GameRecord, Move, Variant, get_variant

pytestmark = pytest.mark.skipif(not native_available(),
                                reason="the balance check searches on the compiled core")


def record_of(moves: list[str]) -> GameRecord:
    record = GameRecord.new(get_variant("brazilian"))
    for text in moves:
        record.push_notation(text)
    return record


def test_an_opening_that_hangs_a_man_is_rejected() -> None:
    check = material_balance_check(get_variant("brazilian"))
    # 1. e3-f4 h6-g5: White takes f4xh6 and the man on h6 cannot be taken back.
    assert not check(record_of(["e3-f4", "h6-g5"]))
    # 1. a3-b4 f6-g5 2. e3-f4: Black's g5xe3 is forced (no search at a one-move root),
    # then White loses a man whichever way it takes back (2... b6-c5 after f2xd4).
    assert not check(record_of(["a3-b4", "f6-g5", "e3-f4"]))
    # 1. c3-d4 f6-g5: nothing hangs.
    assert check(record_of(["c3-d4", "f6-g5"]))
    # A man for a man (1. c3-d4 f6-e5 2. d4xf6 g7xe5) is balanced too.
    assert check(record_of(["c3-d4", "f6-e5", "d4xf6", "g7xe5"]))


def test_balanced_openings_are_redrawn_until_accepted() -> None:
    variant = get_variant("brazilian")
    check = material_balance_check(variant)
    rng = random.Random(3)
    seen = []
    for _ in range(30):
        moves = random_opening(variant, rng, check)
        record = GameRecord.new(variant)
        for move in moves:
            record.push(move)
        assert 2 <= len(moves) <= 4
        assert check(record)
        seen.append(tuple(moves))
    assert len(set(seen)) > 20
    # Without the check the same generator gives openings that hang a man.
    rng = random.Random(3)
    unchecked = [random_opening(variant, rng) for _ in range(100)]
    rejected = 0
    for moves in unchecked:
        record = GameRecord.new(variant)
        for move in moves:
            record.push(move)
        rejected += not check(record)
    assert rejected >= 5


def test_another_build_of_the_core_plays_next_to_this_one(tmp_path: Path) -> None:
    """``--against-build``: a copy of the extension loads as a module of its own and its
    level 8 plays legal moves, with this build's engine untouched."""
    import bots.native._kdcore as this_build

    copy = tmp_path / Path(this_build.__file__ or "").name
    shutil.copyfile(this_build.__file__ or "", copy)
    other = core_build(str(copy))
    assert other is not this_build and other.__file__ == str(copy)
    variant = get_variant("english")
    meter = Meter()
    play = build_player(variant, other, 0.05, meter)
    record = GameRecord.new(variant)
    for _ in range(4):
        move = play(variant, record, random.Random(1))
        assert move in record.legal_moves()
        record.push(move)
    assert meter.searches >= 3 and meter.nodes > 0 and meter.depth >= 1
    assert sys.modules["bots.native._kdcore"] is this_build


def test_search_speed_compares_two_builds_node_for_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench.search_speed --against-build OLD --new-build NEW``: copies of the 128-bit and
    the 64-bit build, under any file name, search the same positions to the same depth, so
    the bench reports the same node count for both and says the tree is the same."""
    import bots.native._kdcore as wide
    import bots.native._kdcore64 as narrow
    from bench.search_speed import main

    old, new = tmp_path / "old" / "core.so", tmp_path / "new" / "core.so"
    for copy, build in ((old, wide), (new, narrow)):
        copy.parent.mkdir()
        shutil.copyfile(build.__file__ or "", copy)
    args = ["--rulesets", "english", "--positions", "2", "--rounds", "1", "--depth", "6",
            "--against-build", str(old), "--new-build", str(new)]
    assert main(args) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("| english"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "6" and cells[2] == "2"
    assert cells[3] == cells[6] and int(cells[3].replace(",", "")) > 0  # nodes new = old
    assert cells[-1] == "yes"


def test_search_speed_searches_a_node_budget_per_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--nodes N``: every position is searched for N nodes (the core checks its budget
    every 1,024 nodes), one after the other on the same table, and two copies of one build
    still search the same tree."""
    import bots.native._kdcore as this_build
    from bench.search_speed import main

    old = tmp_path / "old.so"
    shutil.copyfile(this_build.__file__ or "", old)
    assert main(["--rulesets", "spanish", "--positions", "3", "--rounds", "2", "--nodes",
                 "20000", "--against-build", str(old)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("| spanish"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "20,000 nodes" and cells[2] == "3"
    nodes = int(cells[3].replace(",", ""))
    assert 3 * 20_000 <= nodes < 3 * (20_000 + 1024)
    assert cells[3] == cells[6] and cells[-1] == "yes"


def test_search_speed_compares_two_evaluations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench.search_speed --weights NEW --against-weights OLD``: one build, two evaluation
    files. The same file twice gives the same tree; a file whose evaluation differs (every
    man worth more, so other cut-offs) gives another."""
    from bench.search_speed import main
    from bots.engine.features import weights_path

    committed = json.loads(weights_path("english").read_text(encoding="utf-8"))
    same, other = tmp_path / "same.json", tmp_path / "other.json"
    same.write_text(json.dumps(committed), encoding="utf-8")
    committed["full"]["middle"]["scalars"]["man"] *= 3
    other.write_text(json.dumps(committed), encoding="utf-8")

    def row(new: Path) -> list[str]:
        assert main(["--rulesets", "english", "--positions", "3", "--rounds", "1",
                     "--depth", "7", "--weights", str(new),
                     "--against-weights", str(weights_path("english"))]) == 0
        line = next(line for line in capsys.readouterr().out.splitlines()
                    if line.startswith("| english"))
        return [c.strip() for c in line.strip("|").split("|")]

    cells = row(same)
    assert len(cells) == 11 and cells[3] == cells[6] and cells[-1] == "yes"
    assert float(cells[9]) > 0
    assert row(other)[-1] == "no"
    # Another ruleset's file is refused with a clear message, not searched.
    with pytest.raises(SystemExit):
        main(["--rulesets", "turkish", "--weights", str(same)])
    assert "holds 'english' weights, not 'turkish'" in capsys.readouterr().err


def test_an_evaluation_plays_at_equal_time(tmp_path: Path) -> None:
    """``--eval-ab --ab-time``: the player searches by time, not nodes, and a forced move
    is played at once (no search: the same for both evaluations)."""
    from bench.strength import native_player
    from bots.engine.features import native_params

    variant = get_variant("english")
    play = native_player(variant, native_params(variant), nodes=1, seconds=0.05)
    record = GameRecord.new(variant)
    for _ in range(4):
        move = play(variant, record, random.Random(2))
        assert move in record.legal_moves()
        record.push(move)
    forced = GameRecord.new(variant, variant.parse_fen("W:W22:B18"))
    (only,) = forced.legal_moves()
    assert play(variant, forced, random.Random(3)) == only


def test_endings_plays_table_positions_with_and_without_the_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench.endings``: the sampled positions are what the tables say (wins of the side
    to move at the depth asked, or draws with unequal material and the weaker side
    measured), and level 8 with the tables converts every win against the longest
    resistance and holds every draw."""
    from bench.endings import main, material, sample_positions
    from bots.engine import tables
    from bots.engine.native import NativeEngine

    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "5")  # three pieces in Turkish (3.5 MB)
    # a tool's process (the suite may have set up a web process's: no solving)
    monkeypatch.setattr(tables, "_solver", tables.in_thread)
    monkeypatch.setattr(tables, "_solver_pieces", tables.MAX_PIECES)
    monkeypatch.setattr(tables, "_solver_mb", None)
    engine = NativeEngine(get_variant("turkish"), tt_mb=1)
    tables.attach(engine, "wait")
    assert engine.table_pieces == 3
    for position, side in sample_positions(engine, 3, 10, 9, False, random.Random(1)):
        byte = engine.probe(position)
        assert side is position.turn and (byte - 1) % 2 == 1 and byte - 1 >= 9
    for position, side in sample_positions(engine, 3, 10, 0, True, random.Random(2)):
        assert engine.probe(position) == 0
        assert material(position, side) < material(position, side.opponent)

    for extra in ([], ["--draws"]):
        assert main(["--rulesets", "turkish", "--pieces", "3", "--positions", "3", "--time",
                     "0.02", "--min-plies", "9", *extra]) == 0
        rows = [line for line in capsys.readouterr().out.splitlines()
                if line.startswith("| turkish")]
        assert [row.split("|")[4].strip() for row in rows] == ["with", "without"]
        assert rows[0].split("|")[5].strip() == "3 of 3"


def test_clocked_games_charge_each_move_and_a_flag_loses(tmp_path: Path) -> None:
    """``--clock BASE+INC``: every move is charged to its side's clock, the increment comes
    back after it, and a side whose time runs out loses the game, whatever the board says."""
    clocks = GameClocks.parse("0.5+0.1")
    assert (clocks.base, clocks.increment) == (0.5, 0.1)
    for bad in ("0+1", "5+-1", "five"):
        with pytest.raises(ValueError):
            GameClocks.parse(bad)
    clocks.reset()
    clocks.charge(Color.WHITE, 0.2)
    assert clocks.left[Color.WHITE] == pytest.approx(0.4) and clocks.flagged is None
    assert clocks.clock(Color.BLACK).remaining == 0.5

    def first(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        return record.legal_moves()[0]

    def slow(variant: Variant, record: GameRecord, rng: random.Random) -> Move:
        time.sleep(0.3)  # thinking, as the match's clock sees it
        return record.legal_moves()[0]

    # The slow side spends 0.3 s a move on a 0.5 s clock with 0.1 s back: it flags on its
    # third move in every game, with either colour, long before the board decides.
    result = match("english", "fast", first, "slow", slow, pairs=1, seed=1, max_plies=200,
                   clocks=clocks)
    assert (result.wins, result.draws, result.losses) == (2, 0, 0)
    assert result.time_losses == [0, 2]


def test_this_build_takes_a_clock_target_and_plays_on_its_clock(tmp_path: Path) -> None:
    import bots.native._kdcore64 as this_build

    assert takes_target(None) and takes_target(this_build)
    variant = get_variant("english")
    clocks = GameClocks.parse("2+0.02")
    clocks.reset()
    meter = Meter()
    play = build_player(variant, None, 1.0, meter, clocks)
    record = GameRecord.new(variant)
    for _ in range(3):
        move = play(variant, record, random.Random(1))
        assert move in record.legal_moves()
        record.push(move)
    # The clock's share of 2 s is about 0.08 s (stretched to 0.24 at most), far from the
    # 1 s a move the player was given for unclocked games.
    assert meter.searches >= 2 and meter.per_search < 0.5
