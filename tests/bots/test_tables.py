"""Endgame tables (bots/native/tables.c, bots.engine.tables): exact against the reference
rules, literal endings with known results, the search's use of them and the cache."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from bots.engine import tables
from bots.engine.native import NativeEngine, native_available
from bots.engine.search import MATE
from variants import Color, Outcome, Position, Reason, Variant, get_variant

pytestmark = pytest.mark.skipif(not native_available() or
                                os.environ.get("KONDAVO_ENGINE", "").lower() == "python",
                                reason="the tables are solved by the compiled core")

_SOLVED: dict[tuple[str, int], bytes] = {}


def engine_with_tables(key: str, pieces: int) -> NativeEngine:
    engine = NativeEngine(get_variant(key), tt_mb=1)
    if (key, pieces) not in _SOLVED:
        _SOLVED[key, pieces] = engine.core.build_tables(pieces)
    engine.set_tables(pieces, _SOLVED[key, pieces])
    return engine


def random_position(variant: Variant, rng: random.Random, pieces: int) -> Position:
    """``pieces`` pieces, each side at least one, no man on its own promotion row."""
    size = variant.geometry.size
    while True:
        squares = rng.sample(range(size), pieces)
        colours = [Color.WHITE, Color.BLACK] + [rng.choice(list(Color))
                                                for _ in range(pieces - 2)]
        groups = {(c, k): 0 for c in Color for k in (False, True)}
        ok = True
        for sq, colour in zip(squares, colours, strict=True):
            king = rng.random() < 0.5
            if not king and variant.promotion_squares(colour) >> sq & 1:
                ok = False
            groups[colour, king] |= 1 << sq
        if ok:
            return Position(groups[Color.WHITE, False], groups[Color.WHITE, True],
                            groups[Color.BLACK, False], groups[Color.BLACK, True],
                            rng.choice(list(Color)))


def child_byte(engine: NativeEngine, child: Position) -> int:
    if not child.pieces(child.turn):
        return 1  # the side to move has no piece left: lost, distance 0
    return engine.probe(child)


def special_byte(variant: Variant, position: Position) -> int | None:
    """The byte of a position the ruleset's ``special_outcome`` ends (None: it does not): a
    win of the side to move counts one ply (2), a loss none (1), a draw 0."""
    outcome = variant.special_outcome(position)
    if outcome is None:
        return None
    return 0 if outcome.winner is None else 2 if outcome.winner is position.turn else 1


@pytest.mark.parametrize("key", ["brazilian", "english", "spanish", "international",
                                 "turkish"])
def test_every_table_byte_follows_from_the_reference_moves(key: str) -> None:
    """Retrograde consistency with ``variants``' own moves: a win in d plies has a reply
    lost in d - 1 and none shorter, a loss in d has only replies that win, the longest in
    d - 1, a draw has no losing reply and a drawn one; a position the ruleset's special
    outcome ends (Turkish: a king against a lone man) has its result at once. Over every
    position this is exactly "the tables are right"; here over random ones of every size."""
    engine = engine_with_tables(key, 3)
    variant = engine.variant
    rng = random.Random(key)
    seen = {"win": 0, "loss": 0, "draw": 0}
    for i in range(1500):
        position = random_position(variant, rng, 2 + i % 2)
        byte = engine.probe(position)
        assert byte >= 0, variant.format_fen(position)
        special = special_byte(variant, position)
        if special is not None:
            assert byte == special, variant.format_fen(position)
            continue
        replies = [child_byte(engine, variant.apply(position, m))
                   for m in variant.legal_moves(position)]
        assert all(b >= 0 for b in replies)
        losses = [b - 1 for b in replies if b and (b - 1) % 2 == 0]
        wins = [b - 1 for b in replies if b and (b - 1) % 2 == 1]
        fen = variant.format_fen(position)
        if not replies:
            assert byte == 1, fen
            seen["loss"] += 1
        elif byte == 0:
            assert not losses and len(wins) < len(replies), fen
            seen["draw"] += 1
        elif (byte - 1) % 2 == 1:
            assert min(losses) == byte - 2, fen
            seen["win"] += 1
        else:
            assert not losses and len(wins) == len(replies) and max(wins) == byte - 2, fen
            seen["loss"] += 1
    assert min(seen.values()) > 50, seen


@pytest.mark.parametrize("key", ["brazilian", "english"])
def test_four_piece_bytes_follow_from_the_reference_moves(key: str) -> None:
    """The same check on four pieces (flying kings and short ones): the solver finds the
    positions a quiet move comes from by undoing moves, so this checks those too."""
    engine = engine_with_tables(key, 4)
    check_positions(engine, random.Random(key), 4, 600)


def check_positions(engine: NativeEngine, rng: random.Random, pieces: int, count: int) -> None:
    variant = engine.variant
    seen = {"win": 0, "loss": 0, "draw": 0}
    for _ in range(count):
        position = random_position(variant, rng, pieces)
        byte = engine.probe(position)
        fen = variant.format_fen(position)
        assert byte >= 0, fen
        special = special_byte(variant, position)
        if special is not None:  # the game is over: no move counts
            assert byte == special, fen
            seen["draw" if not byte else "win" if (byte - 1) % 2 else "loss"] += 1
            continue
        replies = [child_byte(engine, variant.apply(position, m))
                   for m in variant.legal_moves(position)]
        losses = [b - 1 for b in replies if b and (b - 1) % 2 == 0]
        wins = [b - 1 for b in replies if b and (b - 1) % 2 == 1]
        if not replies:
            assert byte == 1, fen
        elif byte == 0:
            assert not losses and len(wins) < len(replies), fen
        elif (byte - 1) % 2 == 1:
            assert min(losses) == byte - 2, fen
        else:
            assert len(wins) == len(replies) and max(wins) == byte - 2, fen
        seen["draw" if not byte else "win" if (byte - 1) % 2 else "loss"] += 1
    assert min(seen.values()) > count // 50, seen


def fen_byte(engine: NativeEngine, fen: str) -> int:
    return engine.probe(engine.variant.parse_fen(fen))


def test_known_brazilian_endings() -> None:
    engine = engine_with_tables("brazilian", 4)
    # King against king, two kings against one: draws with flying kings on 8x8.
    assert fen_byte(engine, "W:WKc1:BKh8") == 0
    assert fen_byte(engine, "W:WKc1,Ke1:BKb8") == 0
    # Three kings against a king holding the main road (a1-h8): a draw...
    assert fen_byte(engine, "W:WKc1,Ke1,Kg1:BKa1") == 0
    assert fen_byte(engine, "B:WKc1,Ke1,Kg1:BKa1") == 0
    # ...and a win in 21 plies when the strong side holds it instead (the lone king, to
    # move, lasts 22).
    assert fen_byte(engine, "W:WKa1,Kc1,Ke1:BKh2") == 1 + 21
    assert fen_byte(engine, "B:WKa1,Kc1,Ke1:BKh2") == 1 + 22
    # A king and two men against a king in the h8 corner: won, but 55 plies away.
    assert fen_byte(engine, "W:WKc1,b2,d2:BKh8") == 1 + 55
    # Not in the tables: five pieces.
    assert fen_byte(engine, "W:WKa1,Kc1,Ke1,g1:BKh2") == -1


@pytest.mark.parametrize("key, road", [("brazilian", ("a1", "h8")), ("spanish", ("1", "32"))])
def test_flying_king_draws_on_8x8(key: str, road: tuple[str, str]) -> None:
    """Flying kings on 8x8: two kings cannot beat one; three cannot either while the lone
    king holds the main road (it is on the long diagonal, none of the strong side's kings
    is), and win when the strong side holds it and the lone king is off it."""
    engine = engine_with_tables(key, 4)
    variant = engine.variant
    ends = {variant.square_label(s) for s in (min(main_road(variant)), max(main_road(variant)))}
    assert ends == set(road)
    literal = {
        "brazilian": {"draw": ["B:WKb4,Ke1:BKe5", "W:WKd6,Kg5:BKa1", "B:WKe7,Kd6,Kh4:BKc3",
                               "W:WKd8,Ka7,Kc7:BKb2"],
                      "win": ["B:WKa7,Kg7,Ke1:BKc7"]},
        "spanish": {"draw": ["B:WK3,K9:BK32", "W:WK25,K27:BK32", "B:WK17,K21,K31:BK19",
                             "W:WK3,K12,K25:BK32"],
                    "win": ["B:WK9,K12,K32:BK17"]},
    }[key]
    for fen in literal["draw"]:
        assert fen_byte(engine, fen) == 0, fen
    for fen in literal["win"]:  # Black (the lone king) to move loses in 22 plies
        assert fen_byte(engine, fen) == 1 + 22, fen
    # Over every quiet position of three kings against one with the lone king to move.
    counts = three_kings_against_one(engine)
    assert counts["holds"] == (counts["holds"][0], 0)  # never lost
    drawn, won = counts["held"]
    assert won > 0.99 * (drawn + won)


def main_road(variant: Variant) -> set[int]:
    """The squares of the longest diagonal."""
    g = variant.geometry
    return set(max(([sq, *rays[sq]] for rays in g.rays for sq in range(g.size)), key=len))


def three_kings_against_one(engine: NativeEngine) -> dict[str, tuple[int, int]]:
    """(draws, wins) of White's three kings against Black's lone king, Black to move and
    no capture on the board: ``holds`` when the lone king is on the main road and no White
    king is, ``held`` when a White king is on it and the lone king is not."""
    variant = engine.variant
    road = main_road(variant)
    n = variant.geometry.size
    counts = {"holds": [0, 0], "held": [0, 0]}
    rng = random.Random(24)
    for _ in range(6000):
        *whites, black = rng.sample(range(n), 4)
        on_road = [sq in road for sq in whites]
        if black in road and not any(on_road):
            kind = "holds"
        elif black not in road and any(on_road):
            kind = "held"
        else:
            continue
        position = Position(0, sum(1 << sq for sq in whites), 0, 1 << black, Color.BLACK)
        if any(m.captured for m in variant.legal_moves(position)):
            continue
        counts[kind][engine.probe(position) != 0] += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}


@pytest.mark.slow
def test_flying_king_draws_on_10x10() -> None:
    """International (four-piece tables, 94 MB): two kings against one and three against a
    lone king on the main diagonal (5-46) are draws; here three kings rarely win at all
    (about 2% of the quiet positions with the lone king off the diagonal)."""
    engine = engine_with_tables("international", 4)
    check_positions(engine, random.Random("international-4"), 4, 400)
    for fen in ("B:WK13,K15:BK46", "W:WK8,K16:BK37", "B:WK1,K16,K50:BK19",
                "W:WK3,K18,K22:BK10", "B:WK13,K28,K50:BK29"):
        assert fen_byte(engine, fen) == 0, fen
    assert fen_byte(engine, "W:WK34,K35,K44:BK32") == 1 + 3
    counts = three_kings_against_one(engine)
    assert counts["holds"][1] == 0 and counts["holds"][0] > 100
    assert counts["held"][1] < 0.05 * sum(counts["held"])


@pytest.mark.slow
def test_five_piece_tables() -> None:
    """Five pieces on 8x8 (English, short kings: 374 MB, minutes of CPU): every byte
    checked follows from the reference's moves; three kings beat two."""
    engine = engine_with_tables("english", 5)
    check_positions(engine, random.Random("english-5"), 5, 400)
    byte = fen_byte(engine, "W:WK1,K2,K3:BK31,K32")
    assert byte > 0 and (byte - 1) % 2 == 1


@pytest.mark.slow
def test_turkish_four_piece_tables() -> None:
    """Turkish (64 squares, flying kings; 240 MB, about two minutes of one core): every
    byte checked follows from the reference's moves and the king-against-man rule; a king
    and a man beat a lone man, one king against one is a draw."""
    engine = engine_with_tables("turkish", 4)
    check_positions(engine, random.Random("turkish-4"), 4, 400)
    assert fen_byte(engine, "W:WKa1,b2:Bh7") == 1 + 13
    assert fen_byte(engine, "W:WKa1:BKh8") == 0


def test_turkish_table_lines_end_at_the_king_against_man_rule() -> None:
    """Level 8 wins a Turkish ending the tables know, and its principal variation stops
    where the game does: at the capture that leaves a king against a lone man. The tables
    count that win one ply long (13); the search's score is the line's own 12 plies."""
    engine = engine_with_tables("turkish", 3)
    variant = engine.variant
    position = variant.parse_fen("W:WKa1,b2:Bh7")
    assert engine.probe(position) == 1 + 13
    result = engine.search(position, time_limit=0.3, seed=1)
    assert result.score == MATE - 12
    for move in result.pv:
        assert variant.special_outcome(position) is None  # no move after the game ended
        assert move in variant.legal_moves(position)
        position = variant.apply(position, move)
    assert variant.special_outcome(position) == Outcome(Color.WHITE, Reason.KING_VS_MAN)
    assert len(result.pv) == 12


def test_the_analysis_board_counts_a_turkish_win_to_the_end_of_its_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables count the king-against-man end one ply long; the analysis reports the
    line's own length when the line ends there: White wins in 12 plies (six moves of
    White's, then Black's capture leaves the lone man against the king)."""
    from bots.analysis import analyse

    monkeypatch.setenv(tables.MODE_ENV, "wait")
    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "5")  # three pieces in Turkish (3.5 MB)
    monkeypatch.setattr(tables, "_solver", tables.in_thread)  # a worker, not a web process
    monkeypatch.setattr(tables, "_solver_pieces", tables.MAX_PIECES)
    monkeypatch.setattr(tables, "_solver_mb", None)
    variant = type(get_variant("turkish"))()  # a new ruleset object: a new engine
    white = analyse(variant, variant.parse_fen("W:WKa1,b2:Bh7"), time_limit=0.3)
    assert white.mate_in == 12 == len(white.pv)
    black = analyse(variant, variant.parse_fen("B:WKa1,b2:Bh7"), time_limit=0.3)
    assert black.mate_in is not None and black.mate_in > 0  # still White's win


def test_known_english_endings() -> None:
    engine = engine_with_tables("english", 4)
    # Two kings beat one in English checkers (short kings), from anywhere quiet.
    byte = fen_byte(engine, "W:WK1,K2:BK32")
    assert byte > 0 and (byte - 1) % 2 == 1
    # One king each: a draw.
    assert fen_byte(engine, "W:WK1:BK32") == 0


def test_level_8_search_plays_the_tables() -> None:
    engine = engine_with_tables("brazilian", 4)
    variant = engine.variant
    won = variant.parse_fen("W:WKa1,Kc1,Ke1:BKh2")
    distance = engine.probe(won) - 1
    result = engine.search(won, time_limit=0.5)
    assert result.score == MATE - distance
    child = variant.apply(won, result.move)
    assert engine.probe(child) - 1 == distance - 1
    # The line goes on through the tables to the end: each move keeps the win, by the
    # shortest route for White and the longest for Black.
    assert len(result.pv) == distance
    position = won
    for ply, move in enumerate(result.pv):
        position = variant.apply(position, move)
        if ply < distance - 1:
            assert engine.probe(position) - 1 == distance - 1 - ply
    assert not variant.legal_moves(position) or not position.pieces(position.turn)
    drawn = variant.parse_fen("W:WKc1,Ke1,Kg1:BKa1")
    result = engine.search(drawn, time_limit=0.3)
    assert abs(result.score) < 100
    # A search that finds the engine busy (another thread) runs on a temporary core: it
    # reads the same tables.
    with engine._lock:
        assert engine.search(won, time_limit=0.3).score == MATE - distance
    # Node-bounded searches (levels 1-7) do not read the tables.
    bounded = engine.search(won, node_limit=2000)
    assert bounded.score != MATE - distance


def test_tables_are_cached_and_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "1")  # three pieces on 8x8 (0.4 MB), not four
    monkeypatch.setattr(tables, "_solver", tables.in_thread)  # a tool's process, not a web's
    variant = get_variant("english")
    first = NativeEngine(variant, tt_mb=1)
    thread = tables.attach(first, "auto")
    assert thread is not None
    thread.join(60)
    assert first.table_pieces == 3
    files = list(tmp_path.glob("english-3p-*.kdtb"))
    assert len(files) == 1
    second = NativeEngine(variant, tt_mb=1)
    assert tables.attach(second, "auto") is None  # read from the file, nothing to solve
    position = variant.parse_fen("W:WK1,K2:BK32")
    assert second.probe(position) == first.probe(position) > 0
    # The file is mapped, not read into this process's memory.
    assert isinstance(second._tables, memoryview) and second._tables.readonly
    # A damaged file (the right length, other bytes: its CRC-32 does not match) or a
    # truncated one is solved again rather than believed.
    # (Replaced, as the cache's writer does: the engines above map the old file, and a
    # file changed in place under a mapping would change their tables too.)
    expected = first.probe(position)
    raw = files[0].read_bytes()
    damaged = tmp_path / "damaged"
    damaged.write_bytes(raw[:tables.HEADER] + b"\1" * (len(raw) - tables.HEADER))
    damaged.replace(files[0])
    third = NativeEngine(variant, tt_mb=1)
    assert tables.attach(third, "wait") is None
    assert third.probe(position) == expected
    damaged.write_bytes(raw[:1000])
    damaged.replace(files[0])
    fourth = NativeEngine(variant, tt_mb=1)
    assert tables.attach(fourth, "wait") is None
    assert fourth.probe(position) == expected == first.probe(position)
    assert files[0].read_bytes() == raw
    # Turkish's own outcome rule (a king against a lone man) is one piece a side, which the
    # tables know: it gets them, in a file of its own.
    assert tables.tables_supported(get_variant("turkish"))
    turkish = NativeEngine(get_variant("turkish"), tt_mb=1)
    assert turkish.special
    assert tables.attach(turkish, "wait") is None
    assert turkish.table_pieces >= 2
    assert turkish.probe(turkish.variant.parse_fen("W:WKa1:Bh6")) == 2  # the king wins
    assert turkish.probe(turkish.variant.parse_fen("B:WKa1:Bh6")) == 1


def test_the_process_engine_gets_its_tables(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``native_engine`` (the bots' and the analysis board's engine) attaches the tables
    on creation; with ``wait`` they are there before its first search."""
    from bots.engine.native import native_engine

    monkeypatch.setenv(tables.MODE_ENV, "wait")
    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "1")
    monkeypatch.setattr(tables, "_solver", tables.in_thread)  # a tool's process, not a web's
    variant = type(get_variant("brazilian"))()  # a new ruleset object: a new engine
    engine = native_engine(variant)
    assert engine.table_pieces == 3
    assert engine.probe(variant.parse_fen("W:WKc1,Ke1:BKb8")) == 0
    assert len(list(tmp_path.glob("brazilian-3p-*.kdtb"))) == 1
    monkeypatch.setenv(tables.MODE_ENV, "off")
    assert native_engine(type(variant)()).table_pieces == 0


def test_a_process_solves_only_the_tables_its_ceiling_allows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded mode's ceiling is in pieces and in MB (``bots.apps``): Turkish's
    four-piece tables (240 MB, minutes to solve) are beyond 100 MB, so such a process solves
    its three-piece ones (3.5 MB) and leaves the four-piece ones to a worker or the command;
    once their file is on disk it takes them."""
    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "400")
    jobs: list[tables.Job] = []
    monkeypatch.setattr(tables, "_solver", jobs.append)
    monkeypatch.setattr(tables, "_solver_pieces", 4)
    monkeypatch.setattr(tables, "_solver_mb", 100.0)
    engine = NativeEngine(get_variant("turkish"), tt_mb=1)
    assert tables.pieces_for(engine) == 4  # what the budget allows...
    assert tables.attach(engine, "wait") is None  # ...but it solves three pieces at most
    assert engine.table_pieces == 3 and not jobs
    assert [p.name.split("-")[1] for p in tmp_path.glob("turkish-*.kdtb")] == ["3p"]
    # two kings beat one in Turkish draughts: a win in 9 plies from a1, b1 against h8
    assert engine.probe(engine.variant.parse_fen("W:WKa1,Kb1:BKh8")) == 1 + 9
    assert engine.probe(engine.variant.parse_fen("W:WKa1:BKh8")) == 0  # one against one

    # A ceiling below every table solves nothing, but the files on disk are still used.
    monkeypatch.setattr(tables, "_solver_mb", 0.01)  # not even two pieces (0.03 MB)
    assert tables._solvable(engine, 4) == 0
    other = NativeEngine(get_variant("turkish"), tt_mb=1)
    assert tables.attach(other, "wait") is None
    assert other.table_pieces == 3 and not jobs


def test_a_build_that_cannot_solve_special_outcomes_gets_no_tables_for_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build of the core from before the tables knew special outcomes (the lab's
    ``--against-build``) would solve Turkish's without the king-against-man rule: it gets
    none, and writes nothing; other rulesets' tables are the same with either build."""
    import types

    from bots.native import _kdcore

    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "1")
    older = types.ModuleType("older_kdcore")
    older.Core = _kdcore.Core  # type: ignore[attr-defined]
    older.MAX_SQUARES = _kdcore.MAX_SQUARES  # type: ignore[attr-defined]
    turkish = NativeEngine(get_variant("turkish"), tt_mb=1, module=older)
    assert not turkish.tables_exact
    assert tables.attach(turkish, "wait") is None
    assert turkish.table_pieces == 0 and not list(tmp_path.iterdir())
    assert NativeEngine(get_variant("turkish"), tt_mb=1).tables_exact
    assert NativeEngine(get_variant("english"), tt_mb=1, module=older).tables_exact


def test_the_analysis_board_reports_a_table_win(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis service runs on the process engine: a won four-piece ending shows its
    exact distance (plies, from White's side: negative when Black wins)."""
    from bots.analysis import analyse

    monkeypatch.setenv(tables.MODE_ENV, "wait")
    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "20")  # four pieces on 8x8 (15 MB), not five
    monkeypatch.setattr(tables, "_solver", tables.in_thread)  # a worker, not a web process
    variant = type(get_variant("brazilian"))()
    assert analyse(variant, variant.parse_fen("W:WKa1,Kc1,Ke1:BKh2"),
                   time_limit=0.3).mate_in == 21
    assert analyse(variant, variant.parse_fen("B:WKa1,Kc1,Ke1:BKh2"),
                   time_limit=0.3).mate_in == 22
    drawn = analyse(variant, variant.parse_fen("W:WKc1,Ke1,Kg1:BKa1"), time_limit=0.3)
    assert drawn.mate_in is None and abs(drawn.score) < 100
