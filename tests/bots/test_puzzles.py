"""The puzzle generator (bots.puzzles): proofs on literal positions and the shipped data.

Each shot below was built by hand and its moves checked with ``variant.legal_moves``: the
solver has several moves, the sacrifice leaves the opponent one legal move (the capture),
and the solver's answer is then its only legal move, a capture of three.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from bots.engine.native import native_supported
from bots.puzzles import THEMES, Prover, Settings, puzzles_from_game
from bots.puzzles.prover import WON_MARGIN, precedence_forced
from bots.puzzles.verify import VERIFY_PLIES, reprove
from variants import get_variant, variant_keys
from variants.types import Color

DATA = Path(__file__).resolve().parents[2] / "bots" / "puzzles" / "data"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUILT_IN = ("english", "international", "brazilian", "spanish", "turkish")
FORMAT_KEYS = {"id", "ruleset", "fen", "solution", "solver", "themes", "rating", "source",
               "proof"}

# ruleset: (position, the solver's legal moves, the solution, what the last move captures)
SHOTS = {
    # 22-18 gives a man: 15x22 is forced, then 25x2 takes 22, 14 and 6 and crowns.
    "english": ("W:W22,23,25,29,30:B6,8,12,14,15",
                {"22-17", "22-18", "23-18", "23-19", "25-21", "30-26"},
                ["22-18", "15x22", "25x2"], ["22", "14", "6"]),
    # The same shot on 10x10: 37-32, 28x37 forced, 41x12 takes three (no crown yet).
    "international": ("W:W37,38,41,46,47:B17,19,24,27,28",
                      {"37-31", "37-32", "38-32", "38-33", "41-36", "47-42"},
                      ["37-32", "28x37", "41x12"], ["37", "27", "17"]),
    "brazilian": ("W:Wc3,e3,b2,a1,c1:Bc7,g7,h6,c5,e5",
                  {"b2-a3", "c1-d2", "c3-b4", "c3-d4", "e3-d4", "e3-f4"},
                  ["c3-d4", "e5xc3", "b2xd4xb6xd8"], ["c3", "c5", "c7"]),
    # Spanish numbers the board from the other corner: the same shot, mirrored.
    "spanish": ("W:W1,2,5,10,11:B18,19,24,26,28",
                {"10-13", "10-14", "11-14", "11-15", "2-6", "5-9"},
                ["10-14", "19x10", "5x30"], ["10", "18", "26"]),
    # Orthogonal: d4-d5, d6xd4 forced, d3 takes d4, e5 and f6 (up, sideways, up).
    "turkish": ("W:Wd2,g2,d3,d4,c5:Be5,d6,f6,a7,b7,h7",
                {"c5-b5", "c5-c6", "c5-d5", "d2-c2", "d2-e2", "d3-c3", "d3-e3", "d4-c4",
                 "d4-d5", "d4-e4", "g2-f2", "g2-g3", "g2-h2"},
                ["d4-d5", "d6xd4", "d3xd5xf5xf7"], ["d4", "e5", "f6"]),
}

_PROVERS: dict[str, Prover] = {}


def prover_for(key: str) -> Prover:
    """English with its endgame tables (solved once on a machine, then read from the
    cache), the others without (the suite runs with KONDAVO_ENGINE_TABLES=off). The English
    tables are solved here when the cache lacks them: a process with Redis configured
    solves none in the background (``bots.apps.tables_solved_off_requests``), so without
    this the tests would depend on another test having left the file behind."""
    if key == "english" and key not in _PROVERS and native_supported(get_variant(key)):
        from bots.engine import tables
        from bots.engine.native import NativeEngine

        engine = NativeEngine(get_variant(key), tt_mb=1)
        tables.load_or_solve(engine, tables.pieces_for(engine))
    if key not in _PROVERS:
        _PROVERS[key] = Prover(get_variant(key), Settings(), tt_mb=4,
                               tables="wait" if key == "english" else None)
    return _PROVERS[key]


@pytest.mark.parametrize("key", sorted(SHOTS))
def test_a_shot_is_found_with_its_exact_line(key: str) -> None:
    fen, legal, line, taken = SHOTS[key]
    variant = get_variant(key)
    position = variant.parse_fen(fen)
    # the position as built by hand, move by move
    assert {variant.format_move(position, m) for m in variant.legal_moves(position)} == legal
    walk = position
    for i, text in enumerate(line):
        move = variant.parse_move(walk, text)
        if i:  # the reply and the answer are each the only legal move
            assert [variant.format_move(walk, m) for m in variant.legal_moves(walk)] == [text]
        walk = variant.apply(walk, move)
    assert [variant.square_label(s) for s in move.captured] == taken

    prover = prover_for(key)
    proof = prover.prove(position)
    assert proof is not None, prover.reason
    assert [variant.format_move(p, m) for p, m in zip(proof.positions, proof.moves,
                                                      strict=True)] == line
    assert proof.depth > proof.found_depth  # proven deeper than it was found
    assert proof.margin >= prover.settings.margin
    from bots.puzzles.prover import to_dict

    puzzle = to_dict(prover, proof, {"kind": "selfplay", "seed": 0, "ply": 0})
    assert puzzle["solution"] == line
    assert puzzle["solver"] == "white"
    assert {"sacrifice", "shot"} <= set(puzzle["themes"])  # type: ignore[arg-type]
    assert puzzle["fen"] == variant.format_fen(position)
    digest = hashlib.sha1((puzzle["fen"] + " " + " ".join(line)).encode()).hexdigest()
    assert puzzle["id"] == f"{key}-{digest[:10]}"


def test_a_second_winning_move_rejects_the_position() -> None:
    """English, four pieces (in the endgame tables): 13-9 and 31-26 both win, 31-27
    draws."""
    variant = get_variant("english")
    position = variant.parse_fen("W:W13,K31:B24")
    prover = prover_for("english")
    scores = {variant.format_move(position, m): -prover.value(variant.apply(position, m), 1)
              for m in variant.legal_moves(position)}
    assert set(scores) == {"13-9", "31-26", "31-27"}
    assert scores["13-9"] >= prover.settings.win and scores["31-26"] >= prover.settings.win
    assert scores["31-27"] == 0
    assert prover.prove(position) is None
    assert prover.reason == "not unique"


def test_an_only_winning_move_in_the_tables_is_an_ending_puzzle() -> None:
    """English: White's king 4-8 is the only win (the man's moves draw). Black's longest
    defence is 7-11 (7-10 loses at once), then 15-10 is again the only win (8-3, 8-4, 8-12
    draw); after Black's reply two moves win, so the line ends there."""
    variant = get_variant("english")
    position = variant.parse_fen("W:WK4,15:B7")
    assert {variant.format_move(position, m) for m in variant.legal_moves(position)} == \
        {"4-8", "15-10", "15-11"}
    prover = prover_for("english")
    proof = prover.prove(position)
    assert proof is not None, prover.reason
    assert proof.table
    assert [variant.format_move(p, m) for p, m in zip(proof.positions, proof.moves,
                                                      strict=True)] == ["4-8", "7-11", "15-10"]
    from bots.puzzles.prover import to_dict

    puzzle = to_dict(prover, proof, {"kind": "selfplay", "seed": 0, "ply": 0})
    assert "ending" in puzzle["themes"]  # type: ignore[operator]
    assert puzzle["proof"]["margin"] == WON_MARGIN  # type: ignore[index]


@pytest.mark.parametrize("key", BUILT_IN)
def test_no_decisive_move_gives_no_puzzle(key: str) -> None:
    variant = get_variant(key)
    prover = prover_for(key)
    assert prover.scan(variant.initial_position()) is None
    assert prover.prove(variant.initial_position()) is None


def test_precedence_forced_capture() -> None:
    """33x11 takes two, 35x24 one: under the majority rule only 33x11 is legal, so the
    capture is forced by the precedence rule; English lets any capture be played."""
    international = get_variant("international")
    position = international.parse_fen("W:W33,35:B17,28,30,1")
    assert [international.format_move(position, m)
            for m in international.legal_moves(position)] == ["33x11"]
    assert precedence_forced(international, position)
    english = get_variant("english")
    position = english.parse_fen("W:W19,20:B3,6,15,16")  # 19x1 takes two, the others one
    assert {english.format_move(position, m) for m in english.legal_moves(position)} == \
        {"19x1", "19x12", "20x11"}
    assert not precedence_forced(english, position)


def test_puzzles_from_a_game_name_the_move_played() -> None:
    """White missed the English shot (played 30-26): the game gives that puzzle, with the
    move played."""
    fen = SHOTS["english"][0]
    puzzles = puzzles_from_game("english", fen, ["30-26", "12-16"], seconds=20)
    assert puzzles, "the missed shot is a puzzle"
    first = puzzles[0]
    assert first["source"] == {"kind": "game", "ply": 0}
    assert first["played"] == "30-26"
    assert first["solution"] == SHOTS["english"][2]
    assert first["solver"] == "white"
    assert set(first) == FORMAT_KEYS | {"played"}


def test_a_plugin_ruleset_gets_puzzles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example plugin (Russian draughts, not installed: its source on sys.path)."""
    monkeypatch.syspath_prepend(str(EXAMPLES / "kondavo-russian" / "src"))
    import kondavo_russian

    russian = kondavo_russian.RUSSIAN
    position = russian.parse_fen("W:Wc3,e3,b2,a1,c1:Bc7,g7,h6,c5,e5")
    proof = Prover(russian, Settings(), tt_mb=4).prove(position)
    assert proof is not None
    # Russian men crown during a capture and go on as kings: b2 takes three and crowns
    assert [russian.format_move(p, m) for p, m in zip(proof.positions, proof.moves,
                                                      strict=True)] == \
        ["c3-d4", "e5xc3", "b2xd8"]
    sys.modules.pop("kondavo_russian", None)


@pytest.mark.slow
def test_the_pure_python_engine_proves_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KONDAVO_ENGINE", "python")
    variant = get_variant("english")
    assert not native_supported(variant)
    prover = Prover(variant, Settings(scan_nodes=3_000, min_depth=6), tables="wait")
    assert prover.engine is None
    proof = prover.prove(variant.parse_fen(SHOTS["english"][0]))
    assert proof is not None
    assert [variant.format_move(p, m) for p, m in zip(proof.positions, proof.moves,
                                                      strict=True)] == SHOTS["english"][2]


@pytest.mark.parametrize("key", ["english", "turkish"])
def test_a_reproof_does_not_depend_on_what_was_searched_before(key: str) -> None:
    """``verify`` of a whole file and the generator's check give every puzzle the same
    verdict: each re-proof starts from an empty table and history."""
    fen, _legal, line, _taken = SHOTS[key]
    puzzle = {"ruleset": key, "fen": fen, "solution": line, "proof": {"depth": 6}}
    prover = Prover(get_variant(key), Settings().deeper(VERIFY_PLIES), tt_mb=4)
    if prover.engine is None:
        pytest.skip("the compiled core is not built here")
    first = reprove(prover, puzzle)
    prover.search(get_variant(key).parse_fen(fen), 9, None)  # a warm table, a history
    again = reprove(prover, puzzle)
    assert first[0] is None and again[0] is None
    assert first[1] is not None and again[1] is not None
    assert again[1].nodes == first[1].nodes > 0


# --- the shipped data ---------------------------------------------------------------------
def shipped(key: str) -> list[dict[str, object]]:
    path = DATA / f"{key}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("key", BUILT_IN)
def test_shipped_puzzles_are_well_formed_and_legal(key: str) -> None:
    assert key in variant_keys()
    variant = get_variant(key)
    puzzles = shipped(key)
    assert len(puzzles) >= 500
    ids = [p["id"] for p in puzzles]
    assert len(set(ids)) == len(ids)
    assert len({p["fen"] for p in puzzles}) == len(puzzles)
    for puzzle in puzzles:
        assert set(puzzle) == FORMAT_KEYS, puzzle["id"]
        assert puzzle["ruleset"] == key
        fen = str(puzzle["fen"])
        position = variant.parse_fen(fen)
        assert variant.format_fen(position) == fen
        solution: list[str] = puzzle["solution"]  # type: ignore[assignment]
        assert len(solution) % 2 == 1
        digest = hashlib.sha1((fen + " " + " ".join(solution)).encode()).hexdigest()
        assert puzzle["id"] == f"{key}-{digest[:10]}"
        assert puzzle["solver"] == ("white" if position.turn is Color.WHITE else "black")
        themes: list[str] = puzzle["themes"]  # type: ignore[assignment]
        assert themes and set(themes) <= set(THEMES) and themes == sorted(themes)
        assert isinstance(puzzle["rating"], int)
        assert puzzle["source"]["kind"] == "selfplay"  # type: ignore[index]
        proof: dict[str, int] = puzzle["proof"]  # type: ignore[assignment]
        assert set(proof) == {"depth", "margin", "nodes", "verified"}
        assert proof["margin"] >= Settings().margin and proof["depth"] >= 6
        assert proof["verified"] >= proof["depth"] + VERIFY_PLIES  # proven again, deeper
        for text in solution:
            legal = variant.legal_moves(position)
            move = variant.parse_move(position, text, legal)
            assert variant.format_move(position, move, legal) == text
            position = variant.apply(position, move)


@pytest.mark.slow
@pytest.mark.parametrize("key", BUILT_IN)
def test_a_sample_of_shipped_puzzles_holds_two_plies_deeper(key: str) -> None:
    prover = Prover(get_variant(key), Settings().deeper(VERIFY_PLIES), tables="wait")
    puzzles = shipped(key)
    for puzzle in puzzles[:: max(1, len(puzzles) // 8)]:
        why, _proof = reprove(prover, puzzle, plies=VERIFY_PLIES)
        assert why is None, puzzle["id"]
