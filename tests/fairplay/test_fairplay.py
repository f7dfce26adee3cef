"""Fair play against the real database, with literal scenarios: Elo farming between two
accounts, the daily limit of rated games per pair, provisional accounts, abort griefing and
lost games left (cool-downs), the engine-use signal and the staff's flags."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from kondavo.accounts.models import Player
from kondavo.accounts.services import player_claim_guest
from kondavo.fairplay import services, tasks
from kondavo.fairplay.models import CasualNote, Cooldown, EngineFlag, EngineSignal, Offence
from kondavo.games import wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.services import (
    game_abort,
    game_create,
    game_create_friend,
    game_create_vs_computer,
    game_join,
    game_play_move,
    game_resign,
    seek_create,
)
from rating.models import Rating

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]


@pytest.fixture(autouse=True)
def _no_bot_or_flag_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    import bots.seam
    from kondavo.games.services import clocks

    monkeypatch.setattr(bots.seam, "request_bot_move", lambda game_id, ply: None)
    monkeypatch.setattr(clocks, "schedule_flag_check", lambda game_id, delay: None)


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(f"{name}{secrets.token_hex(3)}",
                                                password=f"pw-{name}-Xy9!")
    guest = Player.objects.create(kind=Player.Kind.GUEST, guest_key=secrets.token_hex(16),
                                  name=f"Guest-F{secrets.token_hex(4)}")
    return player_claim_guest(guest=guest, user=user)


def rating(player: Player, ruleset: str = "international") -> int:
    row = Rating.objects.filter(player=player, ruleset=ruleset).first()
    return row.rating if row is not None else 1500


def farm(farmer: Player, feeder: Player, games: int = 10) -> list[Game]:
    """The issue's scenario: rated games, the feeder resigning after two plies."""
    out = []
    for _ in range(games):
        game = game_create(creator=farmer, opponent=feeder, ruleset="international",
                           color="white", rated=True)
        game_play_move(game_id=game.id, player=farmer, ply=0, move_text="32-28")
        game_play_move(game_id=game.id, player=feeder, ply=1, move_text="19-23")
        game_resign(game_id=game.id, player=feeder)
        out.append(Game.objects.get(pk=game.id))
    return out


# --------------------------------------------------------------------------- ratings

def test_elo_farming_without_the_rules_reproduces_the_issue(settings: Any) -> None:
    """Plain Elo (the rules off): the issue's figures, 1628 and 1372."""
    settings.KONDAVO_FAIRPLAY_RATING_RULES = False
    farmer, feeder = account("farmer"), account("feeder")
    games = farm(farmer, feeder)
    assert all(g.rated for g in games)
    assert (rating(farmer), rating(feeder)) == (1628, 1372)


def test_elo_farming_no_longer_moves_ratings_much() -> None:
    """10 rated games farmer vs feeder, the feeder resigning after two plies: both are new
    (provisional) accounts, so each moves the other at a quarter, and the k-th game of the
    pair in a day counts 1/k: the farmer gains 15 points instead of 128."""
    farmer, feeder = account("farmer"), account("feeder")
    games = farm(farmer, feeder)
    assert all(g.rated for g in games)  # the 10 fit in the daily limit
    assert rating(farmer) - 1500 <= 20
    assert 1500 - rating(feeder) <= 20
    assert (rating(farmer), rating(feeder)) == (1515, 1485)


def test_the_eleventh_rated_game_of_a_pair_in_a_day_is_casual_and_they_are_told() -> None:
    farmer, feeder = account("farmer"), account("feeder")
    farm(farmer, feeder)
    eleventh = game_create(creator=feeder, opponent=farmer, ruleset="international",
                           color="white", rated=True)
    assert not eleventh.rated
    assert CasualNote.objects.get(game=eleventh).limit == 10
    state = wire.game_state(Game.objects.get(pk=eleventh.id), farmer)
    assert state["rated"] is False
    assert "10 rated games" in state["fair_play"]["message"]
    assert wire.game_state(Game.objects.get(pk=eleventh.id), None)["fair_play"] is None
    # The same through a friend link and its Join button.
    link = game_create_friend(player=farmer, ruleset="international", rated=True)
    assert link.rated
    joined = game_join(game_id=link.id, player=feeder)
    assert not joined.rated and CasualNote.objects.filter(game=joined).exists()
    # Another opponent is not concerned.
    other = game_create(creator=farmer, opponent=account("other"), ruleset="international",
                        rated=True)
    assert other.rated


def test_games_older_than_a_day_do_not_count() -> None:
    farmer, feeder = account("farmer"), account("feeder")
    games = farm(farmer, feeder)
    Game.objects.filter(pk__in=[g.pk for g in games]).update(
        created=timezone.now() - timedelta(hours=25),
        finished=timezone.now() - timedelta(hours=25))
    assert game_create(creator=farmer, opponent=feeder, ruleset="international",
                       rated=True).rated


def test_a_provisional_account_hardly_moves_an_established_rating() -> None:
    """Established (30 games, 1500) beats a new account: +3 instead of +10 (K 20 x 0.5
    x 0.25 = 2.5, rounded away from zero); the new account loses its full -20 (K 40)."""
    established, newcomer = account("old"), account("new")
    Rating.objects.create(player=established, ruleset="international", rating=1500, games=30,
                          wins=15, losses=15)
    game = game_create(creator=established, opponent=newcomer, ruleset="international",
                       color="white", rated=True)
    game_resign(game_id=game.id, player=newcomer)
    assert rating(established) == 1503
    assert rating(newcomer) == 1480
    # And the other way round: the newcomer's win costs the established player little.
    game = game_create(creator=established, opponent=newcomer, ruleset="international",
                       color="white", rated=True)
    game_resign(game_id=game.id, player=established)
    assert rating(newcomer) == 1480 + 11  # 40 x (1 - E(1480 vs 1503)) / 2 (second game)
    assert rating(established) == 1503 - 1  # 20 x -0.53 x 0.25 / 2


# --------------------------------------------------------------------------- cool-downs

def griefed_game(griefer: Player, victim: Player) -> Game:
    """The issue's abort griefing: the victim makes the first move, the griefer aborts."""
    game = game_create(creator=victim, opponent=griefer, ruleset="international",
                       color="white", rated=True)
    game_play_move(game_id=game.id, player=victim, ply=0, move_text="32-28")
    return game_abort(game_id=game.id, player=griefer)


def test_abort_griefing_puts_the_griefer_in_an_escalating_cool_down() -> None:
    griefer, victim = account("griefer"), account("victim")
    for _ in range(2):
        griefed_game(griefer, victim)
    assert not Cooldown.objects.filter(player=griefer).exists()
    griefed_game(griefer, victim)  # the third in an hour
    cool = Cooldown.objects.get(player=griefer)
    assert 299 <= (cool.until - cool.starts).total_seconds() <= 300
    assert Offence.objects.filter(player=griefer, kind="abort").count() == 3
    assert not Offence.objects.filter(player=victim).exists()

    with pytest.raises(GameError) as refused:
        game_create(creator=griefer, opponent=victim, ruleset="international")
    assert refused.value.code == "not_allowed"
    assert "5 minutes" in refused.value.message
    for attempt in (lambda: game_create_friend(player=griefer, ruleset="international"),
                    lambda: seek_create(player=griefer, ruleset="international",
                                        time_control="5+3")):
        with pytest.raises(GameError):
            attempt()
    link = game_create_friend(player=victim, ruleset="international")
    with pytest.raises(GameError):
        game_join(game_id=link.id, player=griefer)
    # The victim is told why when they challenge the griefer.
    with pytest.raises(GameError) as theirs:
        game_create(creator=victim, opponent=griefer, ruleset="international")
    assert griefer.name in theirs.value.message
    # The computer is always there.
    assert game_create_vs_computer(player=griefer, ruleset="international", level=1)

    # After it, three more aborts: twice as long.
    Cooldown.objects.filter(player=griefer).update(until=timezone.now() - timedelta(seconds=1))
    for _ in range(3):
        griefed_game(griefer, victim)
    second = Cooldown.objects.filter(player=griefer).order_by("-starts").first()
    assert second is not None and second.level == 2
    assert 599 <= (second.until - second.starts).total_seconds() <= 600


def test_aborting_a_waiting_game_or_against_the_computer_is_no_offence() -> None:
    player = account("quitter")
    for _ in range(4):
        link = game_create_friend(player=player, ruleset="international")
        game_abort(game_id=link.id, player=player)
        bot_game = game_create_vs_computer(player=player, ruleset="international", level=1,
                                           color="white")
        game_abort(game_id=bot_game.id, player=player)
    assert not Offence.objects.exists()
    assert not Cooldown.objects.exists()


def test_leaving_lost_games_counts_against_the_leaver() -> None:
    leaver, winner = account("leaver"), account("winner")
    for i in range(2):
        game = game_create(creator=winner, opponent=leaver, ruleset="international",
                           color="white")
        Game.objects.filter(pk=game.pk).update(status="finished", winner="white",
                                               reason="abandoned",
                                               finished=timezone.now())
        game.refresh_from_db()
        services.on_game_finished(game=game, frames=())
        assert Offence.objects.filter(player=leaver, kind="left").count() == i + 1
    assert Cooldown.objects.filter(player=leaver, reason="left").exists()
    assert not Offence.objects.filter(player=winner).exists()
    with pytest.raises(GameError):
        game_create(creator=leaver, opponent=winner, ruleset="international")


# --------------------------------------------------------------------------- engine use

def engine_game(settings: Any) -> tuple[Player, Player, Game]:
    """A rated game where one player plays the engine's move at the signal's depth every
    time and the other the first legal move."""
    from bots.analysis import analyse
    from variants import get_variant

    engine, human = account("engine"), account("human")
    game = game_create(creator=engine, opponent=human, ruleset="english", color="black",
                       rated=True)  # in English draughts Black moves first
    variant = get_variant("english")
    depth = services.engine_depth()
    position = variant.initial_position()
    for ply in range(30):
        legal = variant.legal_moves(position)
        if not legal:
            break
        mover = engine if ply % 2 == 0 else human
        move = analyse(variant, position, depth=depth, time_limit=1.0).best \
            if mover is engine else legal[0]
        assert move is not None
        path = [variant.square_label(s) for s in move.path]
        game_play_move(game_id=game.id, player=mover, ply=ply, path=path)
        position = variant.apply(position, move)
    game_resign(game_id=game.id, player=human)
    return engine, human, Game.objects.get(pk=game.id)


@pytest.mark.timing  # both searches stop at 1 s when the depth takes longer
def test_engine_signal_is_stored_idempotently_and_flags_for_staff(settings: Any) -> None:
    settings.KONDAVO_FAIRPLAY_ENGINE_SKIP_PLIES = 0
    settings.KONDAVO_FAIRPLAY_ENGINE_GAMES = 1
    settings.KONDAVO_FAIRPLAY_ENGINE_MIN_MOVES = 5
    settings.KONDAVO_FAIRPLAY_ENGINE_THRESHOLD = 0.5
    engine, human, game = engine_game(settings)
    assert game.status == "finished" and game.rated
    assert tasks.engine_signal(game.id) == 2
    assert tasks.engine_signal(game.id) == 2  # a redelivered task changes nothing
    mine = EngineSignal.objects.get(game=game, player=engine)
    theirs = EngineSignal.objects.get(game=game, player=human)
    # Among equally good moves the engine's choice may differ from one search to the next
    # (its tables are warm the second time): most, not all, match.
    assert mine.considered >= 5 and mine.matches / mine.considered >= 0.5
    assert theirs.matches / theirs.considered < mine.matches / mine.considered
    assert EngineSignal.objects.count() == 2
    flag = EngineFlag.objects.get(player=engine)  # flagged for the staff, nothing more
    assert not flag.reviewed
    assert not EngineFlag.objects.filter(player=human).exists()
    assert not Player.objects.get(pk=engine.pk).banned


def test_no_flag_below_the_number_of_games(settings: Any) -> None:
    settings.KONDAVO_FAIRPLAY_ENGINE_SKIP_PLIES = 0
    engine, _human, game = engine_game(settings)  # KONDAVO_FAIRPLAY_ENGINE_GAMES = 5
    tasks.engine_signal(game.id)
    assert not EngineFlag.objects.exists()


def test_a_first_move_not_made_in_time_counts_against_the_player_to_move() -> None:
    from kondavo.games.services import game_flag_if_expired

    sleeper, other = account("sleeper"), account("other")
    game = game_create(creator=sleeper, opponent=other, ruleset="international",
                       color="white", time_control="5+3")
    assert game_flag_if_expired(game_id=game.id, now=timezone.now() + timedelta(seconds=60))
    assert Game.objects.get(pk=game.id).reason == "no_first_move"
    assert list(Offence.objects.values_list("player_id", "kind")) == [(sleeper.pk, "no_move")]


def test_the_engine_signal_runs_on_the_analysis_queue() -> None:
    from kondavo.settings.base import celery_settings_for

    routes = celery_settings_for("redis://127.0.0.1:6379/0")["CELERY_TASK_ROUTES"]
    assert routes["kondavo.fairplay.tasks.*"] == {"queue": "analysis"}
    assert tasks.engine_signal.name == "kondavo.fairplay.tasks.engine_signal"
