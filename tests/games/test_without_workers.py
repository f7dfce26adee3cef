"""``hooks.runs_without_workers``: the one answer to "does a Celery worker serve this
server?", read by the apps built on games (tournaments, puzzles, fair play) to choose
between sending a task and doing the work in this process."""

from __future__ import annotations

from typing import Any

import pytest

import bots.analysis
from kondavo.fairplay import services as fairplay
from kondavo.fairplay import tasks as fairplay_tasks
from kondavo.games import hooks
from kondavo.puzzles import services as puzzles
from kondavo.puzzles import tasks as puzzle_tasks
from kondavo.tournaments import services as tournaments
from kondavo.tournaments import tasks as tournament_tasks

pytestmark = pytest.mark.embedded

# (eager Celery, KONDAVO_BOT_INPROCESS) -> without workers
MODES = [((True, True), True), ((True, False), True), ((False, True), True),
         ((False, False), False)]


def _mode(settings: Any, eager: bool, inprocess: bool) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = eager
    settings.KONDAVO_BOT_INPROCESS = inprocess


@pytest.mark.parametrize(("mode", "without"), MODES, ids=str)
def test_the_predicate(settings: Any, mode: tuple[bool, bool], without: bool) -> None:
    _mode(settings, *mode)
    assert hooks.runs_without_workers() is without


class _Pool:
    def __init__(self) -> None:
        self.jobs: list[tuple[Any, ...]] = []

    def submit(self, fn: Any, *args: Any) -> None:
        self.jobs.append((fn, *args))


@pytest.mark.parametrize(("mode", "without"), MODES, ids=str)
def test_every_app_follows_it(settings: Any, monkeypatch: pytest.MonkeyPatch,
                              mode: tuple[bool, bool], without: bool) -> None:
    _mode(settings, *mode)
    sent: list[tuple[str, tuple[Any, ...]]] = []
    for name, task in (("standings", tournament_tasks.tournament_standings),
                       ("puzzles", puzzle_tasks.puzzles_from_game),
                       ("signal", fairplay_tasks.engine_signal)):
        monkeypatch.setattr(task, "delay",
                            lambda *args, _name=name: sent.append((_name, args)))
    here: list[tuple[str, Any]] = []
    monkeypatch.setattr(tournaments, "publish_standings",
                        lambda tid: here.append(("standings", tid)))
    monkeypatch.setattr(puzzles, "_embedded_submit",
                        lambda gid: here.append(("puzzles", gid)) or True)
    pool = _Pool()
    monkeypatch.setattr(bots.analysis, "background_pool", lambda: pool)
    monkeypatch.setattr(tournaments, "_standings_seconds", lambda: 0)

    tournaments.request_standings(7)
    puzzles.schedule_game_puzzles("g1")
    fairplay.schedule_engine_signal("g2")
    here += [("signal", args[-1]) for args in pool.jobs]

    if without:  # everything in this process, nothing for a worker
        assert (here, sent) == ([("standings", 7), ("puzzles", "g1"), ("signal", "g2")], [])
    else:
        assert (here, sent) == ([], [("standings", (7,)), ("puzzles", ("g1",)),
                                     ("signal", ("g2",))])
