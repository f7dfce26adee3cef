"""The finished-game task: a real game that missed a shot gives a puzzle, linked to the
game, with the move played there; running it again stores nothing new. The game's end asks
for it after the commit (never an aborted or a short game)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from kondavo.accounts.models import Player
from kondavo.games import services as games
from kondavo.games.models import Game
from kondavo.puzzles import services, tasks
from kondavo.puzzles.models import GameScan, Puzzle

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]

# Black to move takes 18x25, winning material by force (the generator's proof: every other
# move is more than four men worse); the game played 15x24 instead. The shot is clear-cut
# on purpose: the task is under test here, not the evaluation's judgement of a near miss.
START = "B:W16,19,20,21,22,26,27,28,31:B2,3,7,9,10,11,13,15,18"


def finished_game(*, moves: list[str], start: str = START,
                  names: tuple[str, str] = ("pz-alice", "pz-bob")) -> tuple[Game, Player, Player]:
    alice = Player.objects.create(kind=Player.Kind.USER, name=names[0])
    bob = Player.objects.create(kind=Player.Kind.USER, name=names[1])
    game = games.game_create(creator=alice, opponent=bob, ruleset="english", color="white",
                             start_fen=start)
    for ply, text in enumerate(moves):
        mover = bob if (ply % 2 == 0) == start.startswith("B") else alice
        games.game_play_move(game_id=game.id, player=mover, ply=ply, move_text=text)
    games.game_resign(game_id=game.id, player=alice)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game, alice, bob


def test_a_finished_game_gives_its_missed_shot_once() -> None:
    pytest.importorskip("bots.puzzles")
    game, alice, bob = finished_game(moves=["15x24"])
    found = tasks.puzzles_from_game(game.id)  # the task body, as a worker runs it
    assert found >= 1
    puzzle = Puzzle.objects.get(source_game=game, source_ply=0)
    assert (puzzle.fen, puzzle.solution, puzzle.solver) == (START, ["18x25"], "black")
    assert (puzzle.played, puzzle.source_kind) == ("15x24", "game")
    assert GameScan.objects.get(game=game).found == found
    # Idempotent: a second delivery finds the scan and stores nothing.
    assert tasks.puzzles_from_game(game.id) == found
    assert Puzzle.objects.filter(source_game=game).count() == found
    # "From my games": Bob had Black and missed it; Alice did not play that side.
    assert list(services.puzzles_of_player(player=bob)) == [puzzle]
    assert not services.puzzles_of_player(player=alice).exists()
    services.puzzle_line(puzzle)  # it replays


def test_a_game_not_finished_or_without_the_generator_is_left_alone(monkeypatch: Any) -> None:
    alice = Player.objects.create(kind=Player.Kind.USER, name="pz-carol")
    bob = Player.objects.create(kind=Player.Kind.USER, name="pz-dave")
    game = games.game_create(creator=alice, opponent=bob, ruleset="english", color="white",
                             start_fen=START)
    assert services.game_puzzles_store(game_id=game.id) == 0
    assert services.game_puzzles_store(game_id="nosuchgame") == 0
    games.game_resign(game_id=game.id, player=alice)
    monkeypatch.setattr(services, "_generator", lambda: None)
    assert services.game_puzzles_store(game_id=game.id) == 0
    assert not GameScan.objects.exists()  # searched later, once the generator is there


def test_the_end_of_a_long_game_asks_for_its_puzzles_after_the_commit(
        settings: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any) -> None:
    settings.KONDAVO_PUZZLES_FROM_GAMES = True
    settings.KONDAVO_PUZZLES_MIN_PLIES = 1
    asked: list[str] = []
    monkeypatch.setattr(services, "schedule_game_puzzles", asked.append)
    with django_capture_on_commit_callbacks(execute=True):
        game, _alice, _bob = finished_game(moves=["15x24"])
    assert asked == [game.id]
    settings.KONDAVO_PUZZLES_MIN_PLIES = 12  # a short game: not searched
    with django_capture_on_commit_callbacks(execute=True):
        finished_game(moves=["15x24"], names=("pz-erin", "pz-frank"))
    assert asked == [game.id]


def test_the_task_goes_to_the_analysis_queue(settings: Any) -> None:
    assert tasks.puzzles_from_game.name == "kondavo.puzzles.tasks.puzzles_from_game"
    assert settings.CELERY_TASK_ROUTES["kondavo.puzzles.tasks.*"] == {"queue": "analysis"}


@pytest.mark.django_db(transaction=True)
def test_without_a_worker_the_search_runs_in_its_own_thread(settings: Any,
                                                            monkeypatch: Any) -> None:
    pytest.importorskip("bots.puzzles")
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the embedded mode
    # The search's budget is wall time and its thread has the lowest priority: on a busy
    # machine it gets little CPU, so the test gives it time enough.
    settings.KONDAVO_PUZZLES_GAME_SECONDS = 150.0
    # Another position than the tests above search: White takes 25x18; 26x17 was played.
    game, alice, _bob = finished_game(moves=["26x17"], start="W:W8,21,24,25,26:B6,13,16,22",
                                      names=("pz-gina", "pz-hugo"))
    services.schedule_game_puzzles(game.id)
    deadline = time.monotonic() + 180
    while not GameScan.objects.filter(game=game).exists():
        assert time.monotonic() < deadline, "the search did not run"
        time.sleep(0.2)
    assert list(services.puzzles_of_player(player=alice).values_list(
        "solution", "played")) == [(["25x18"], "26x17")]
    monkeypatch.setattr(services, "EMBEDDED_QUEUE", 0)  # the queue is full: not searched
    assert services._embedded_submit(game.id) is False
