"""``bots.tasks.bot_move_play`` against the database: idempotent, one move, engine-chosen."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from bots.engine import choose_move
from bots.tasks import bot_move_play, engine_config
from kondavo.accounts.models import Player
from kondavo.accounts.services import player_for_user
from kondavo.games.models import Game
from kondavo.games.selectors import game_record
from kondavo.games.services import game_create_vs_computer, game_play_move, game_resign

pytestmark = pytest.mark.django_db

LEVEL = 3  # depth-bounded: fast and deterministic


@pytest.fixture(autouse=True)
def _fast_bots(settings: object) -> None:
    settings.KONDAVO_BOT_MOVE_TIME = 0.05  # type: ignore[attr-defined]


@pytest.fixture
def human() -> Player:
    user = User.objects.create_user("alice", password="pw-alice-Xy9!")
    return player_for_user(user=user)


@pytest.fixture
def bot_to_move(human: Player) -> Callable[..., Game]:
    """An active game where the bot has the first move (on-commit hooks do not run here)."""

    def make(ruleset: str = "international") -> Game:
        # In every built-in but English White starts; the human takes the other side.
        color = "white" if ruleset == "english" else "black"
        game = game_create_vs_computer(player=human, ruleset=ruleset, level=LEVEL, color=color)
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE and game.ply == 0
        return game

    return make


@pytest.mark.parametrize("ruleset", ["international", "english", "turkish"])
def test_plays_exactly_one_engine_move(bot_to_move: Callable[..., Game], ruleset: str) -> None:
    game = bot_to_move(ruleset)
    record = game_record(game)
    bot = game.black if ruleset == "english" else game.white
    assert bot is not None and bot.bot_level == LEVEL
    assert bot_move_play(str(game.pk), 0) is True
    game.refresh_from_db()
    assert game.ply == 1 and len(game.moves) == 1
    # The move is the engine's, seeded from (game id, ply): the same every time.
    import zlib

    seed = zlib.crc32(f"{game.pk}:0".encode())
    expected = choose_move(record.variant, record, level=LEVEL, seed=seed,
                           config=engine_config())
    assert game.moves[0] == record.variant.format_move(record.position, expected)


def test_a_second_delivery_does_nothing(bot_to_move: Callable[..., Game]) -> None:
    game = bot_to_move()
    assert bot_move_play(str(game.pk), 0) is True
    assert bot_move_play(str(game.pk), 0) is False  # redelivered task: the game moved on
    game.refresh_from_db()
    assert game.ply == 1


@pytest.mark.parametrize("expected_ply", [1, 5])
def test_stale_expected_ply_plays_nothing(bot_to_move: Callable[..., Game],
                                          expected_ply: int) -> None:
    game = bot_to_move()
    assert bot_move_play(str(game.pk), expected_ply) is False
    game.refresh_from_db()
    assert game.ply == 0 and game.moves == []


def test_ended_game_plays_nothing(bot_to_move: Callable[..., Game], human: Player) -> None:
    game = bot_to_move()
    game_resign(game_id=str(game.pk), player=human)
    assert bot_move_play(str(game.pk), 0) is False
    game.refresh_from_db()
    assert game.ply == 0 and game.status == Game.Status.FINISHED


def test_not_the_bots_turn_plays_nothing(bot_to_move: Callable[..., Game],
                                         human: Player) -> None:
    game = bot_to_move()
    assert bot_move_play(str(game.pk), 0) is True
    game.refresh_from_db()
    assert bot_move_play(str(game.pk), 1) is False  # the human is to move at ply 1
    record = game_record(game)
    move = record.legal_moves()[0]
    game_play_move(game_id=str(game.pk), player=human, ply=1,
                   move_text=record.variant.format_move(record.position, move))
    assert bot_move_play(str(game.pk), 2) is True
    game.refresh_from_db()
    assert game.ply == 3


def test_unknown_game_plays_nothing() -> None:
    import uuid

    assert bot_move_play(str(uuid.uuid4()), 0) is False


def test_task_options() -> None:
    assert bot_move_play.acks_late is True
    assert bot_move_play.reject_on_worker_lost is True
    # routed to the dedicated queue by the CELERY_TASK_ROUTES setting
    route = bot_move_play.app.amqp.router.route({}, bot_move_play.name)
    assert route["queue"].name == "bots"
    assert bot_move_play.soft_time_limit > engine_config().move_time
    assert bot_move_play.time_limit > bot_move_play.soft_time_limit


def test_the_bot_gets_its_clock_in_a_timed_game(human: Player) -> None:
    from bots.tasks import bot_clock

    untimed = game_create_vs_computer(player=human, ruleset="english", level=LEVEL,
                                      color="white")
    assert bot_clock(untimed, "black") is None
    timed = game_create_vs_computer(player=human, ruleset="english", level=LEVEL,
                                    color="white", time_control="5+3")
    timed.refresh_from_db()
    clock = bot_clock(timed, "black")
    assert clock is not None
    assert clock.increment == 3.0
    assert 0 < clock.remaining <= 300.0
    # In English Black starts: the bot of the timed game plays its move through the task.
    assert bot_move_play(str(timed.pk), 0) is True
    timed.refresh_from_db()
    assert timed.ply == 1
