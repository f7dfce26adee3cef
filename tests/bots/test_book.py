"""The opening books (bots.engine.book): the shipped books' moves are legal, level 8 plays
from them at the start and varies, lower levels do not use them, and a position out of the
book is searched."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.engine import book, search_level
from variants import GameRecord, get_variant, variant_keys

BUILT_IN = ("english", "international", "brazilian", "spanish", "turkish")


@pytest.fixture
def own_books(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Books read from ``tmp_path`` instead of the shipped ones (and not cached between)."""
    monkeypatch.setattr(book, "DATA_DIR", tmp_path)
    book._load.cache_clear()
    yield tmp_path
    book._load.cache_clear()


def write_book(directory: Path, key: str, positions: dict[str, list[list[object]]]) -> None:
    (directory / f"book-{key}.json").write_text(json.dumps(
        {"format": book.FORMAT, "ruleset": key, "positions": positions}), encoding="utf-8")


@pytest.mark.parametrize("key", BUILT_IN)
def test_every_shipped_book_move_is_legal(key: str) -> None:
    """Each ruleset ships a book; every entry is a position of that ruleset whose book moves
    are legal there, with a positive weight, and the start position is in it."""
    variant = get_variant(key)
    raw = json.loads(book.book_path(key).read_text(encoding="utf-8"))
    assert raw["format"] == book.FORMAT and raw["ruleset"] == key
    assert "python -m bots.engine.book build" in raw["command"]
    positions = raw["positions"]
    assert variant.format_fen(variant.initial_position()) in positions
    assert len(positions) >= 20
    for fen, moves in positions.items():
        position = variant.parse_fen(fen)
        legal = variant.legal_moves(position)
        texts = {variant.format_move(position, m, legal) for m in legal}
        assert moves, fen
        for notation, _score, weight in moves:
            assert notation in texts, (fen, notation)
            assert weight > 0
        assert len(book.entries(variant, position)) == len(moves)


@pytest.mark.parametrize("key", BUILT_IN)
def test_level_8_plays_from_the_book_at_the_start(key: str) -> None:
    variant = get_variant(key)
    start = variant.initial_position()
    allowed = {m for m, _b in book.entries(variant, start)}
    found = search_level(variant, GameRecord.new(variant), level=8, seed=3)
    assert found.from_book and found.nodes == 0 and found.move in allowed
    # Levels 1-7 search (their measured strength does not change), and so does level 8
    # when told not to use the book (the speed benchmarks).
    for level in (1, 4, 7):
        searched = search_level(variant, start, level=level, seed=3)
        assert not searched.from_book and searched.nodes > 0
    assert search_level(variant, start, level=8, seed=3, time_limit=0.05,
                        book=False).nodes > 0


def test_level_8_varies_its_openings() -> None:
    """Over seeds level 8 plays several first moves from the book, and follows it for more
    than one move: different seeds give different games."""
    variant = get_variant("english")
    assert len(book.entries(variant, variant.initial_position())) >= 2
    firsts = set()
    lines = set()
    for seed in range(30):
        record = GameRecord.new(variant)
        for _ in range(4):
            found = search_level(variant, record, level=8, seed=seed * 7 + record.ply)
            if not found.from_book and found.nodes:
                break
            assert found.move is not None
            record.push(found.move)
        firsts.add(record.notations[0])
        lines.add(tuple(record.notations))
    assert len(firsts) >= 2
    assert len(lines) >= 4


def test_choice_follows_the_weights(own_books: Path) -> None:
    variant = get_variant("english")
    start = variant.initial_position()
    write_book(own_books, "english", {variant.format_fen(start): [
        ["11-15", 4, 100], ["9-14", 2, 50], ["10-15", 0, 10]]})
    counts = Counter(variant.format_move(start, book.choose(variant, start,
                                                            random.Random(seed))[0])
                     for seed in range(1600))
    assert set(counts) == {"11-15", "9-14", "10-15"}
    assert counts["11-15"] > counts["9-14"] > counts["10-15"]
    assert 0.55 < counts["11-15"] / 1600 < 0.75  # 100 / 160 = 0.625


def test_the_book_is_keyed_by_position_not_move_order(own_books: Path) -> None:
    variant = get_variant("english")
    one = GameRecord.from_notation(variant, ["11-15", "23-19", "9-14"])
    other = GameRecord.from_notation(variant, ["9-14", "23-19", "11-15"])
    assert one.position == other.position
    write_book(own_books, "english", {variant.format_fen(one.position): [["27-23", 0, 1]]})
    assert [variant.format_move(other.position, m) for m, _b in
            book.entries(variant, other.position)] == ["27-23"]
    played = search_level(variant, other, level=8, seed=1)
    assert played.from_book and variant.format_move(other.position, played.move) == "27-23"


def test_illegal_or_foreign_entries_are_ignored(own_books: Path) -> None:
    """A book move that is not legal in its position is never played: the position is
    searched instead; a file of another ruleset or format is not read."""
    variant = get_variant("english")
    start = variant.initial_position()
    write_book(own_books, "english", {variant.format_fen(start): [["21-17", 0, 100],
                                                                  ["1-5", 0, 100]]})
    assert book.choose(variant, start, random.Random(1)) is None
    found = search_level(variant, start, level=8, seed=1, time_limit=0.05)
    assert not found.from_book and found.nodes > 0 and found.move in variant.legal_moves(start)
    book._load.cache_clear()
    write_book(own_books, "english", {variant.format_fen(start): [["11-15", 0, 100]]})
    raw = json.loads((own_books / "book-english.json").read_text())
    raw["ruleset"] = "spanish"
    (own_books / "book-english.json").write_text(json.dumps(raw))
    assert book.entries(variant, start) == []


def test_out_of_book_falls_back_to_search() -> None:
    """A position the book does not know (a game that left the opening lines) is searched."""
    variant = get_variant("international")
    record = GameRecord.from_notation(variant, ["35-30", "16-21", "30-25", "21-26"])
    assert book.entries(variant, record.position) == []
    found = search_level(variant, record, level=8, seed=1, time_limit=0.05)
    assert not found.from_book and found.nodes > 0 and found.depth > 0


def test_build_writes_a_book_of_legal_moves(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The build command on a tiny budget: the start position's near-best moves, each legal,
    the best first with the largest weight, and the theory's first moves analysed."""
    monkeypatch.setenv("KONDAVO_ENGINE_TABLES", "off")
    out = tmp_path / "book-english.json"
    assert book.main(["build", "--ruleset", "english", "--seconds", "0.02", "--plies", "1",
                      "--budget", "60", "--out", str(out)]) == 0
    raw = json.loads(out.read_text(encoding="utf-8"))
    variant = get_variant("english")
    start = variant.initial_position()
    moves = raw["positions"][variant.format_fen(start)]
    legal = {variant.format_move(start, m) for m in variant.legal_moves(start)}
    assert moves and all(n in legal for n, _s, _w in moves)
    assert moves[0][2] == max(w for _n, _s, w in moves)
    assert all(moves[0][1] - s <= book.THEORY_MARGIN for _n, s, _w in moves)
    assert "--ruleset english --seconds 0.02 --plies 1" in raw["command"]
    with pytest.raises(SystemExit):
        book.main(["build", "--ruleset", "chess"])


def test_theory_lines_are_legal() -> None:
    """The tournament openings listed in the module are legal move sequences."""
    for key, lines in book.THEORY.items():
        assert key in variant_keys()
        for line in lines:
            GameRecord.from_notation(get_variant(key), line)  # raises if one is not legal


def test_the_book_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """KONDAVO_ENGINE_BOOK=off: no book move, level 8 searches from the first move."""
    variant = get_variant("english")
    start = variant.initial_position()
    assert book.choose(variant, start, random.Random(1)) is not None
    monkeypatch.setenv(book.BOOK_ENV, "off")
    assert book.choose(variant, start, random.Random(1)) is None
