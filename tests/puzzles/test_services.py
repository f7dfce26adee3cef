"""Puzzle services against the real database: loading, judging moves, ratings (Glicko-2),
hints and solutions, guests' sessions, streaks, the daily puzzle, refused input."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore

from kondavo.accounts.models import Player
from kondavo.puzzles import glicko, services
from kondavo.puzzles.apps import _load_shipped
from kondavo.puzzles.errors import PuzzleDataError, PuzzleError
from kondavo.puzzles.models import DailyPuzzle, Puzzle, PuzzleAttempt, PuzzleFile, PuzzleRating

from .shots import SHOTS, shot

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


def account(name: str = "solver") -> services.AccountProgress:
    return services.AccountProgress(Player.objects.create(kind=Player.Kind.USER, name=name))


def stored(ruleset: str = "english", **kw: Any) -> Puzzle:
    result = services.puzzles_store([shot(ruleset, **kw)])
    assert (result.created, result.skipped, result.errors) == (1, 0, [])
    return Puzzle.objects.get(pk=kw.get("pid") or f"{ruleset}-00000000aa")


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


# --------------------------------------------------------------------------- Glicko-2

def test_glicko_matches_glickmans_worked_example() -> None:
    after = glicko.update(glicko.Rating(1500, 200, 0.06),
                          [(glicko.Rating(1400, 30), 1.0), (glicko.Rating(1550, 100), 0.0),
                           (glicko.Rating(1700, 300), 0.0)], bounded=False)
    assert round(after.rating, 2) == 1464.05
    assert round(after.deviation, 2) == 151.52
    assert abs(after.volatility - 0.05999) < 1e-5  # the paper: 0.05999


def test_glicko_attempt_moves_both_ratings_opposite_ways() -> None:
    player, puzzle = glicko.rate_attempt(glicko.Rating(), glicko.Rating(), 1.0)
    assert round(player.rating, 1) == 1662.3 and round(puzzle.rating, 1) == 1337.7
    assert round(player.deviation, 1) == 290.3
    helped, _p = glicko.rate_attempt(glicko.Rating(), glicko.Rating(), 0.5)
    assert round(helped.rating, 6) == 1500.0  # a draw between equals moves nothing


# --------------------------------------------------------------------------- loading

def test_every_literal_shot_replays() -> None:
    for ruleset, data in SHOTS.items():
        line = services.line_replay(ruleset=ruleset, **data)
        assert len(line.moves) == 3
        # The reply is forced: the only legal move, a capture.
        assert [len(line.variant.legal_moves(p)) for p in line.positions[1:3]] == [1, 1]
        assert line.moves[1].captured


@pytest.mark.parametrize(("change", "why"), [
    ({"ruleset": "nosuch"}, "unknown ruleset"),
    ({"fen": "W:W99:B1"}, "bad FEN"),
    ({"solver": "black"}, "not the side to move"),
    ({"solution": ["23-18", "10x19"]}, "odd number"),
    ({"solution": ["23-27", "10x19", "32x16"]}, "move 1"),
    ({"solution": ["23-18", "9-13", "32x16"]}, "move 2"),
])
def test_a_puzzle_that_does_not_replay_is_refused(change: dict[str, Any], why: str) -> None:
    with pytest.raises(PuzzleDataError, match=why):
        services.puzzle_fields({**shot("english"), **change})


def test_loader_upserts_idempotently_and_keeps_ratings(tmp_path: Path) -> None:
    rows: list[Any] = [shot(k, pid=f"{k}-0000000001") for k in SHOTS]
    rows += [shot("english", pid="english-bad", solution=["23-19", "10x19", "32x16"]),
             "{not json", shot("nosuch-ruleset" if False else "english", pid="x" * 200)]
    path = write_jsonl(tmp_path / "mixed.jsonl", rows)
    report = services.puzzles_load(paths=[path])
    assert (report.created, report.updated, report.skipped) == (5, 0, 3)
    assert Puzzle.objects.count() == 5
    assert PuzzleFile.objects.get(name="mixed.jsonl").loaded == 5

    again = services.puzzles_load(paths=[path])
    assert (again.unchanged, again.created, again.updated) == (1, 0, 0)

    # The site's ratings and the staff's choice survive a new version of the file.
    Puzzle.objects.filter(pk="english-0000000001").update(rating=1234.0, plays=7, enabled=False)
    rows[1] = shot("english", pid="english-0000000001", themes=["ending"])
    write_jsonl(path, rows)
    third = services.puzzles_load(paths=[path])
    assert (third.created, third.updated) == (0, 1)
    puzzle = Puzzle.objects.get(pk="english-0000000001")
    assert (puzzle.themes, puzzle.theme_tags) == (["ending"], ",ending,")
    assert (puzzle.rating, puzzle.plays, puzzle.enabled) == (1234.0, 7, False)
    assert services.puzzles_load(paths=[path], force=True).updated == 0


def test_a_puzzle_its_file_drops_is_retired_and_keeps_its_history(tmp_path: Path) -> None:
    ids = [f"english-00000000{i:02x}" for i in range(3)]
    path = write_jsonl(tmp_path / "english.jsonl", [shot("english", pid=p) for p in ids])
    assert services.puzzles_load(paths=[path]).created == 3
    other = write_jsonl(tmp_path / "extra.jsonl", [shot("english", pid="english-00000000ff")])
    services.puzzles_load(paths=[other])
    progress = account()
    assert services.puzzle_move(puzzle_id=ids[1], ply=0, move="23-18",
                                progress=progress).correct
    Puzzle.objects.filter(pk=ids[2]).update(enabled=False)  # the staff's choice

    # The verifier dropped ids[1] and ids[2] from the file: both are kept, neither served.
    write_jsonl(path, [shot("english", pid=ids[0])])
    report = services.puzzles_load(paths=[path])
    assert (report.created, report.updated, report.retired) == (0, 0, 2)
    assert set(Puzzle.objects.filter(retired=True).values_list("pk", flat=True)) == set(ids[1:])
    assert set(services.served_puzzles(ruleset="english").values_list("pk", flat=True)) == {
        ids[0], "english-00000000ff"}  # another file's puzzle is not this file's to retire
    assert PuzzleAttempt.objects.filter(puzzle_id=ids[1]).count() == 1
    with pytest.raises(PuzzleError, match="no such puzzle"):
        services.puzzle_move(puzzle_id=ids[1], ply=0, move="23-18", progress=progress)
    for _ in range(20):
        found = services.puzzle_next(ruleset="english", progress=account(f"p{_}"))
        assert found is not None and not found.retired

    # A puzzle that comes back is served again; the staff's "enabled" is untouched.
    write_jsonl(path, [shot("english", pid=p) for p in ids])
    again = services.puzzles_load(paths=[path])
    assert (again.created, again.updated, again.retired) == (0, 2, 0)
    assert not Puzzle.objects.filter(retired=True).exists()
    assert Puzzle.objects.get(pk=ids[2]).enabled is False
    assert services.puzzle_get(puzzle_id=ids[1]).pk == ids[1]


def test_the_migration_gives_loaded_puzzles_their_shipped_file() -> None:
    from importlib import import_module

    from django.apps import apps

    stored("english")
    stored("turkish")
    PuzzleFile.objects.create(name="english.jsonl", digest="0" * 64)
    Puzzle.objects.update(file="")
    import_module("kondavo.puzzles.migrations.0002_retired").fill(apps, None)
    assert dict(Puzzle.objects.values_list("ruleset", "file")) == {
        "english": "english.jsonl", "turkish": ""}


def test_migrate_loads_the_shipped_files_but_a_flush_does_not(tmp_path: Path,
                                                                settings: Any) -> None:
    write_jsonl(tmp_path / "english.jsonl", [shot("english")])
    settings.KONDAVO_PUZZLE_DIRS = [str(tmp_path)]
    settings.KONDAVO_PUZZLES_AUTOLOAD = True
    _load_shipped(None, plan=None)  # a test's flush: nothing
    assert not Puzzle.objects.exists()
    _load_shipped(None, plan=[])  # migrate, even with nothing to apply
    assert Puzzle.objects.count() == 1
    settings.KONDAVO_PUZZLES_AUTOLOAD = False
    Puzzle.objects.all().delete()
    PuzzleFile.objects.all().delete()
    _load_shipped(None, plan=[])
    assert not Puzzle.objects.exists()


# --------------------------------------------------------------------------- solving

def test_solving_at_the_first_try_moves_both_ratings_once() -> None:
    puzzle = stored("english")
    progress = account()
    first = services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="23-18", progress=progress)
    assert first.correct and not first.done and first.rating is None
    assert first.reply == {"notation": "10x19", "path": ["10", "19"], "captured": ["15"]}
    assert first.forced
    assert first.fen == "W:W11,18,25,32:B6,9,19,27"
    assert [m["notation"] for m in first.legal] == ["32x16"]
    done = services.puzzle_move(puzzle_id=puzzle.id, ply=2, move=["32", "23", "16"],
                                progress=progress)
    assert done.correct and done.done and done.result == "solved"
    assert done.rating == {"before": 1500, "after": 1662, "delta": 162, "puzzle": 1338}
    row = PuzzleRating.objects.get(player=progress.player, ruleset="english")
    assert (round(row.rating, 1), round(row.deviation, 1), row.attempts, row.wins) == (
        1662.3, 290.3, 1, 1)
    puzzle.refresh_from_db()
    assert (round(puzzle.rating, 1), puzzle.plays, puzzle.wins) == (1337.7, 1, 1)
    attempt = PuzzleAttempt.objects.get(player=progress.player, puzzle=puzzle)
    assert (attempt.result, attempt.ply) == ("solved", 3)

    # Solving it again is practice: nothing moves.
    services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="23-18", progress=progress)
    again = services.puzzle_move(puzzle_id=puzzle.id, ply=2, move="32x16", progress=progress)
    assert again.done and again.result == "practice" and again.rating is None
    puzzle.refresh_from_db()
    assert puzzle.plays == 1
    assert PuzzleRating.objects.get(player=progress.player).attempts == 1


def test_a_wrong_move_fails_the_first_attempt_and_nothing_is_played() -> None:
    puzzle = stored("english")
    progress = account()
    wrong = services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="25-22", progress=progress)
    assert not wrong.correct and not wrong.done and wrong.reply is None and wrong.legal == []
    assert wrong.result == "failed"
    assert wrong.rating == {"before": 1500, "after": 1338, "delta": -162, "puzzle": 1662}
    puzzle.refresh_from_db()
    assert (puzzle.plays, puzzle.wins) == (1, 0)
    # The retry is judged, never rated.
    retry = services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="23-18", progress=progress)
    assert retry.correct and retry.rating is None
    end = services.puzzle_move(puzzle_id=puzzle.id, ply=2, move="32x16", progress=progress)
    assert end.done and end.result == "practice" and end.rating is None
    assert PuzzleAttempt.objects.get(player=progress.player).result == "failed"


def test_a_hint_halves_the_credit() -> None:
    puzzle = stored("english")
    progress = account()
    assert services.puzzle_hint(puzzle_id=puzzle.id, ply=0, progress=progress) == {
        "square": "23"}
    services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="23-18", progress=progress)
    assert services.puzzle_hint(puzzle_id=puzzle.id, ply=2, progress=progress) == {
        "square": "32"}
    done = services.puzzle_move(puzzle_id=puzzle.id, ply=2, move="32x16", progress=progress)
    assert done.result == "helped"
    assert done.rating == {"before": 1500, "after": 1500, "delta": 0, "puzzle": 1500}
    assert PuzzleRating.objects.get(player=progress.player).wins == 0


def test_the_solution_ends_the_first_attempt_as_missed() -> None:
    puzzle = stored("brazilian")
    progress = account()
    out = services.puzzle_solution(puzzle_id=puzzle.id, progress=progress)
    assert [s["notation"] for s in out["line"]] == ["e3-d4", "d6xf4", "g1xe3xg5"]
    assert out["line"][-1]["fen"] == "B:Wf6,g5,d4,b2:Bc7,b6"
    assert out["line"][2]["path"] == ["g1", "e3", "g5"]
    assert out["rating"]["delta"] == -162
    assert services.puzzle_solution(puzzle_id=puzzle.id, progress=progress)["rating"] is None
    assert PuzzleAttempt.objects.get(player=progress.player).result == "failed"


@pytest.mark.parametrize(("puzzle_id", "ply", "move", "code"), [
    ("english-nosuch", 0, "23-18", "not_found"),
    ("", 0, "23-18", "not_found"),
    (None, 0, "23-18", "not_found"),
    ("english-00000000aa", 1, "10x19", "bad_request"),
    ("english-00000000aa", 4, "23-18", "bad_request"),
    ("english-00000000aa", "0", "23-18", "bad_request"),
    ("english-00000000aa", True, "23-18", "bad_request"),
    ("english-00000000aa", 0, "23-17", "illegal_move"),
    ("english-00000000aa", 0, "99-98", "illegal_move"),
    ("english-00000000aa", 0, "hello", "illegal_move"),
    ("english-00000000aa", 0, "", "bad_request"),
    ("english-00000000aa", 0, "2" * 300, "bad_request"),
    ("english-00000000aa", 0, ["23"], "bad_request"),
    ("english-00000000aa", 0, {"from": 23}, "bad_request"),
])
def test_bad_input_is_refused_and_changes_nothing(puzzle_id: Any, ply: Any, move: Any,
                                                  code: str) -> None:
    puzzle = stored("english")
    progress = account()
    with pytest.raises(PuzzleError) as caught:
        services.puzzle_move(puzzle_id=puzzle_id, ply=ply, move=move, progress=progress)
    assert caught.value.code == code
    puzzle.refresh_from_db()
    assert puzzle.plays == 0 and puzzle.rating == 1500
    assert not PuzzleAttempt.objects.exists() and not PuzzleRating.objects.exists()


def test_a_disabled_puzzle_is_not_served() -> None:
    puzzle = stored("english")
    Puzzle.objects.filter(pk=puzzle.pk).update(enabled=False)
    with pytest.raises(PuzzleError, match="no such puzzle"):
        services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="23-18", progress=account())


# --------------------------------------------------------------------------- guests

def test_a_guest_keeps_progress_in_the_session_and_brings_it_to_an_account() -> None:
    puzzle = stored("spanish")
    session = SessionStore()
    guest = services.SessionProgress(session)
    services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="28-23", progress=guest)
    done = services.puzzle_move(puzzle_id=puzzle.id, ply=2, move="23x7", progress=guest)
    assert done.rating == {"before": 1500, "after": 1662, "delta": 162, "puzzle": 1338}
    session.save()
    again = SessionStore(session_key=session.session_key)  # the next request
    rating, attempts = services.SessionProgress(again).rating("spanish")
    assert (round(rating.rating, 1), attempts) == (1662.3, 1)
    assert services.SessionProgress(again).attempt(puzzle.id) == ("solved", False, 3)
    assert not PuzzleRating.objects.exists()  # nothing of a guest in the database

    player = Player.objects.create(kind=Player.Kind.USER, name="was-guest")
    # A streak started on the account made it a rating row, with no rated attempt yet.
    services.AccountProgress(player).best_streak("spanish", 0)
    assert services.session_progress_claim(session=again, player=player) == 1
    row = PuzzleRating.objects.get(player=player, ruleset="spanish")
    assert (round(row.rating, 1), row.attempts, row.wins) == (1662.3, 1, 1)
    assert PuzzleAttempt.objects.get(player=player).result == "solved"
    assert services.SESSION_KEY not in again
    # The account does not get the puzzle's rating moved twice.
    after = services.puzzle_move(puzzle_id=puzzle.id, ply=0, move="28-23",
                                 progress=services.AccountProgress(player))
    assert after.rating is None


def test_a_guests_next_puzzle_is_one_not_tried_near_their_rating() -> None:
    for i, rating in enumerate((1000, 1480, 1550, 2400)):
        stored("english", pid=f"english-000000000{i}", rating=rating)
    session = SessionStore()
    guest = services.SessionProgress(session)
    seen = set()
    for _ in range(2):
        found = services.puzzle_next(ruleset="english", progress=guest)
        assert found is not None and found.id in {"english-0000000001", "english-0000000002"}
        guest.attempt_save(found, "failed", False, 0)
        seen.add(found.id)
    assert seen == {"english-0000000001", "english-0000000002"}
    third = services.puzzle_next(ruleset="english", progress=guest)
    assert third is not None and third.id in {"english-0000000000", "english-0000000003"}
    assert services.puzzle_next(ruleset="english", theme="ending", progress=guest) is None


# --------------------------------------------------------------------------- streak

def test_a_streak_rises_until_the_first_miss() -> None:
    for i, rating in enumerate((700, 900, 1000, 1100, 1200, 1300, 1400)):
        stored("english", pid=f"english-100000000{i}", rating=rating)
    session = SessionStore()
    progress = account("streaker")
    state = services.streak_start(session=session, ruleset="english", progress=progress)
    assert state == {"ruleset": "english", "count": 0, "alive": True, "best": 0}
    first, _s = services.streak_next(session=session)
    assert first is not None and first.rating >= services.STREAK_START
    assert services.streak_next(session=session)[0] == first  # the same until played
    services.puzzle_move(puzzle_id=first.id, ply=0, move="23-18", progress=progress,
                         session=session, streak=True)
    done = services.puzzle_move(puzzle_id=first.id, ply=2, move="32x16", progress=progress,
                                session=session, streak=True)
    assert done.streak == {"ruleset": "english", "count": 1, "alive": True, "best": 1}
    assert done.rating is None  # streak puzzles are not rated
    assert not PuzzleAttempt.objects.exists()
    second, _s = services.streak_next(session=session)
    assert second is not None and second != first
    assert second.rating >= services.STREAK_START + services.STREAK_STEP
    miss = services.puzzle_move(puzzle_id=second.id, ply=0, move="25-22", progress=progress,
                                session=session, streak=True)
    assert miss.streak == {"ruleset": "english", "count": 1, "alive": False, "best": 1}
    with pytest.raises(PuzzleError, match="no streak"):
        services.streak_next(session=session)
    assert PuzzleRating.objects.get(player=progress.player).best_streak == 1


# --------------------------------------------------------------------------- daily

def test_the_daily_puzzle_is_chosen_once_a_day() -> None:
    for i, rating in enumerate((1000, 1300, 1500, 1700, 2200)):
        stored("turkish", pid=f"turkish-000000000{i}", rating=rating)
    day = date(2026, 12, 1)
    first = services.puzzle_daily(ruleset="turkish", day=day)
    assert first is not None and 1200 <= first.rating <= 1900
    assert services.puzzle_daily(ruleset="turkish", day=day) == first
    assert DailyPuzzle.objects.get(day=day, ruleset="turkish").puzzle == first
    assert services.puzzle_daily(ruleset="international", day=day) is None
