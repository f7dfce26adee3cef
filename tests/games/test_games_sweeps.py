"""Loss on time and lost bot moves without per-move countdown tasks: the beat sweeps
(``games.tasks``), ``bot_turn_since``, and the settings that depend on them."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from django.db import connection

from bots.tasks import TIME_LIMIT, bot_move_play
from kondavo.games import background, services, tasks
from kondavo.games.models import Game
from kondavo.games.services import (
    clocks,
    game_create,
    game_create_vs_computer,
    game_flag_if_expired,
    game_play_move,
    game_resign,
)
from kondavo.games.tasks import bot_move_sweep, game_flag_sweep

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture(autouse=True)
def _fast_bots(settings: Any) -> None:
    settings.KONDAVO_BOT_MOVE_TIME = 0.05
    settings.KONDAVO_BOT_STALL_SECONDS = 30


def timed_game(guest_factory: Any, tc: str = "1+0") -> Game:
    """A game after each side's first move: White's clock runs."""
    game = game_create(creator=guest_factory(), opponent=guest_factory(),
                       ruleset="international", color="white", time_control=tc)
    game_play_move(game_id=game.id, player=game.white, ply=0, move_text="31-27")
    game_play_move(game_id=game.id, player=game.black, ply=1, move_text="20-24")
    return Game.objects.select_related("white", "black").get(pk=game.id)


def bot_starts(guest_factory: Any, **kwargs: Any) -> tuple[Any, Game]:
    """A game where the bot (level 2, White) is to move first."""
    human = guest_factory()
    game = game_create_vs_computer(player=human, ruleset="international", level=2,
                                   color="black", **kwargs)
    game.refresh_from_db()
    return human, game


# --------------------------------------------------------------------------- flag checks

def test_no_countdown_task_with_a_worker(settings: Any, monkeypatch: pytest.MonkeyPatch,
                                         recorded_side_effects: dict[str, Any]) -> None:
    """With Celery workers nothing is scheduled per move (a worker holds an ETA task unacked
    until it runs, which would force the visibility timeout above the longest clock)."""
    sent: list[Any] = []
    monkeypatch.setattr(tasks.game_flag_check, "apply_async", lambda *a, **k: sent.append(a))
    monkeypatch.setattr(background, "run_later", lambda *a, **k: sent.append(a))
    settings.CELERY_TASK_ALWAYS_EAGER = False
    recorded_side_effects["real_flag"][0]("abcdefgh", 60.0)
    assert sent == []


def test_in_process_timer_in_the_embedded_mode(settings: Any, monkeypatch: pytest.MonkeyPatch,
                                               recorded_side_effects: dict[str, Any]) -> None:
    timers: list[tuple[Any, ...]] = []
    monkeypatch.setattr(background, "run_later",
                        lambda func, *args, delay: timers.append((func, args, delay)))
    settings.CELERY_TASK_ALWAYS_EAGER = True
    recorded_side_effects["real_flag"][0]("abcdefgh", 60.0)
    assert timers == [(clocks.flag_check, ("abcdefgh",), pytest.approx(60.05))]


def test_flag_sweep_is_one_indexed_query_when_nothing_expired(
        guest_factory: Any, fake_clock: Any, django_assert_num_queries: Any) -> None:
    games = [timed_game(guest_factory) for _ in range(3)]
    assert Game._meta.get_field("flag_at").db_index
    fake_clock.advance(seconds=59)
    with django_assert_num_queries(1):
        assert game_flag_sweep() == 0
    # White moves in the first game with 1 s left: now Black's clock runs there.
    game_play_move(game_id=games[0].id, player=games[0].white, ply=2, move_text="36-31")
    fake_clock.advance(seconds=1)
    assert game_flag_sweep() == 2
    statuses = {g.id: (g.status, g.reason) for g in Game.objects.filter(
        pk__in=[g.id for g in games])}
    assert statuses[games[0].id] == ("active", "")
    assert statuses[games[1].id] == statuses[games[2].id] == ("finished", "timeout")


def test_flag_at_is_cleared_whenever_no_clock_runs(guest_factory: Any) -> None:
    game = timed_game(guest_factory, "3+2")
    assert game.flag_at is not None
    game_resign(game_id=game.id, player=game.white)
    game.refresh_from_db()
    assert game.flag_at is None  # finished games never reach the sweep's query
    untimed = game_create(creator=guest_factory(), opponent=guest_factory(),
                          ruleset="international", color="white")
    assert untimed.flag_at is not None  # the first-move deadline
    game_play_move(game_id=untimed.id, player=untimed.white, ply=0, move_text="31-27")
    game_play_move(game_id=untimed.id, player=untimed.black, ply=1, move_text="20-24")
    untimed.refresh_from_db()
    assert untimed.flag_at is None


# --------------------------------------------------------------------------- bot turn

def test_bot_turn_since_follows_the_turn(guest_factory: Any, fake_clock: Any) -> None:
    human, game = bot_starts(guest_factory)
    assert game.bot_turn_since == fake_clock.current
    fake_clock.advance(seconds=2)
    assert bot_move_play(game.id, 0) is True
    game.refresh_from_db()
    assert game.ply == 1 and game.bot_turn_since is None  # the human's turn
    fake_clock.advance(seconds=3)
    game_play_move(game_id=game.id, player=human, ply=1, move_text=_first_legal(game))
    game.refresh_from_db()
    assert game.bot_turn_since == fake_clock.current
    fake_clock.advance(seconds=1)
    game_resign(game_id=game.id, player=human)
    game.refresh_from_db()
    assert game.bot_turn_since is None


def _first_legal(game: Game) -> str:
    from kondavo.games.wire import game_state

    return str(game_state(game, None)["legal"][0]["notation"])


def test_a_draw_offer_does_not_restart_the_bot_turn(guest_factory: Any, fake_clock: Any) -> None:
    human, game = bot_starts(guest_factory)
    started = game.bot_turn_since
    fake_clock.advance(seconds=10)
    services.game_offer_draw(game_id=game.id, player=human)
    game.refresh_from_db()
    assert game.bot_turn_since == started


def test_human_games_never_have_a_bot_turn(guest_factory: Any) -> None:
    game = timed_game(guest_factory)
    assert game.bot_turn_since is None


# --------------------------------------------------------------------------- bot sweep

def test_bot_sweep_asks_again_for_an_overdue_move_once_per_stall(
        guest_factory: Any, fake_clock: Any, recorded_side_effects: dict[str, Any],
        django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        _, game = bot_starts(guest_factory)
    assert recorded_side_effects["bot"] == [(game.id, 0)]  # the original request
    recorded_side_effects["bot"].clear()
    fake_clock.advance(seconds=29)
    assert bot_move_sweep() == 0
    fake_clock.advance(seconds=2)
    assert bot_move_sweep() == 1
    assert recorded_side_effects["bot"] == [(game.id, 0)]
    assert bot_move_sweep() == 0  # claimed: not again before another stall period
    fake_clock.advance(seconds=31)
    assert bot_move_sweep() == 1
    assert recorded_side_effects["bot"] == [(game.id, 0), (game.id, 0)]


def test_bot_sweep_ignores_games_where_no_bot_is_to_move(
        guest_factory: Any, fake_clock: Any, recorded_side_effects: dict[str, Any]) -> None:
    timed_game(guest_factory, "15+10")  # two humans
    human, played = bot_starts(guest_factory)
    bot_move_play(played.id, 0)  # now the human's turn
    _, ended = bot_starts(guest_factory)
    game_resign(game_id=ended.id, player=ended.black)
    recorded_side_effects["bot"].clear()
    fake_clock.advance(seconds=3600)
    assert bot_move_sweep() == 0
    assert recorded_side_effects["bot"] == []


def test_two_sweeps_and_the_original_task_play_exactly_one_bot_move(
        guest_factory: Any, fake_clock: Any, recorded_side_effects: dict[str, Any],
        django_capture_on_commit_callbacks: Any) -> None:
    """The original message (a worker died with it) and two sweeps' requests all reach a
    worker: exactly one bot move is played."""
    with django_capture_on_commit_callbacks(execute=True):
        _, game = bot_starts(guest_factory)
    fake_clock.advance(seconds=31)
    bot_move_sweep()
    fake_clock.advance(seconds=31)
    bot_move_sweep()
    requests = list(recorded_side_effects["bot"])
    assert requests == [(game.id, 0)] * 3
    results = [bot_move_play(game_id, ply) for game_id, ply in reversed(requests)]
    assert results == [True, False, False]
    game.refresh_from_db()
    assert game.ply == 1 and len(game.moves) == 1 and game.bot_turn_since is None
    assert bot_move_sweep() == 0


@pytest.mark.django_db(transaction=True)
def test_concurrent_bot_requests_play_exactly_one_move(guest_factory: Any) -> None:
    """Three deliveries of the same bot request at once (the original and two sweeps'),
    on PostgreSQL row locks: one move."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (SQLite serialises whole transactions)")
    _, game = bot_starts(guest_factory)
    barrier = threading.Barrier(3)
    results: list[bool] = []
    lock = threading.Lock()

    def deliver() -> None:
        from django.db import connection as conn

        try:
            barrier.wait()
            result = bot_move_play(game.id, 0)
            with lock:
                results.append(result)
        finally:
            conn.close()

    threads = [threading.Thread(target=deliver) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert Counter(results) == {True: 1, False: 2}
    game.refresh_from_db()
    assert game.ply == 1 and len(game.moves) == 1


# --------------------------------------------------------------------------- settings

def test_celery_defaults_fit_the_sweeps(monkeypatch: pytest.MonkeyPatch) -> None:
    from kondavo.settings import base

    for name in ("CELERY_VISIBILITY_TIMEOUT", "KONDAVO_FLAG_SWEEP_SECONDS",
                 "KONDAVO_BOT_SWEEP_SECONDS", "DB_CONN_MAX_AGE", "DB_POOL"):
        monkeypatch.delenv(name, raising=False)
    visibility = base.redis_broker_transport_options()["visibility_timeout"]
    assert TIME_LIMIT < visibility <= 2 * TIME_LIMIT  # just above the longest bot search
    schedule = base.celery_beat_schedule()
    assert schedule["games-flag-sweep"]["task"] == "games.tasks.game_flag_sweep"
    assert schedule["games-flag-sweep"]["schedule"] == 2.0
    assert schedule["games-bot-move-sweep"]["task"] == "games.tasks.bot_move_sweep"
    assert schedule["games-bot-move-sweep"]["schedule"] == 5.0
    assert schedule["games-seek-expire-sweep"]["task"] == "games.tasks.seek_expire_sweep"
    db = base.parse_database_url("postgres://u:p@db:5432/kondavo")  # pooled by default
    assert db["CONN_MAX_AGE"] == 0 and db["OPTIONS"]["pool"]["max_size"] >= 1
    monkeypatch.setenv("DB_POOL", "false")
    db = base.parse_database_url("postgres://u:p@db:5432/kondavo")
    assert db["CONN_MAX_AGE"] == 60 and db["CONN_HEALTH_CHECKS"] is True
    monkeypatch.setenv("DB_CONN_MAX_AGE", "0")
    assert base.parse_database_url("postgres://u:p@db:5432/kondavo")["CONN_MAX_AGE"] == 0


def test_bad_sweep_period_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from kondavo.settings import base

    monkeypatch.setenv("KONDAVO_FLAG_SWEEP_SECONDS", "0")
    with pytest.raises(ImproperlyConfigured):
        base.celery_beat_schedule()


def test_flag_if_expired_is_cheap_for_a_running_clock(guest_factory: Any,
                                                      django_assert_num_queries: Any) -> None:
    game = timed_game(guest_factory)
    with django_assert_num_queries(1):  # one read of flag_at, no lock
        assert game_flag_if_expired(game_id=game.id) is False
