"""Arena tournaments against the real database: pairing, scoring with streaks and
berserk, aborted games, pause and withdraw, the end and the podium, scheduled creation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from kondavo.games import services as games
from kondavo.games.models import Game
from kondavo.tournaments import services
from kondavo.tournaments.models import Entry, Pairing, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]


def _arena(creator: Any, **kw: Any) -> Tournament:
    args: dict[str, Any] = {"name": "Test Arena", "kind": "arena", "ruleset": "english",
                            "time_control": "3+2",
                            "starts_at": timezone.now() + timedelta(hours=1),
                            "duration_minutes": 30}
    args.update(kw)
    return services.tournament_create(creator=creator, **args)


def _open(t: Tournament) -> list[Pairing]:
    return list(Pairing.objects.filter(tournament=t, result="").select_related("game"))


def _finish(pairing: Pairing, winner: str | None) -> None:
    """End a tournament game: ``winner`` "white"/"black" (the loser resigns) or None (a
    draw by agreement)."""
    game = Game.objects.select_related("white", "black").get(pk=pairing.game_id)
    if winner is None:
        games.game_offer_draw(game_id=game.id, player=game.white)
        games.game_accept_draw(game_id=game.id, player=game.black)
    else:
        loser = game.black if winner == "white" else game.white
        games.game_resign(game_id=game.id, player=loser)


def _entry(t: Tournament, player: Any) -> Entry:
    return Entry.objects.get(tournament=t, player=player)


def test_arena_pairs_on_start_and_again_when_a_game_ends(accounts: Any, run_tasks: Any) -> None:
    a, b, c, d = (accounts(n) for n in ("ann", "bob", "cat", "dan"))
    t = _arena(a)
    for p in (a, b, c, d):
        services.tournament_join(tournament_id=t.pk, player=p)
    assert services.tournament_tick(tournament_id=t.pk, now=t.starts_at) == "started"
    pairings = _open(t)
    assert len(pairings) == 2
    for p in pairings:
        assert p.game.rated and p.game.ruleset == "english" and p.game.status == "active"
        assert p.game.time_control == "3+2"
    first = pairings[0]
    _finish(first, "white")
    first.refresh_from_db()
    assert first.result == "white" and (first.white_points, first.black_points) == (2, 0)
    # Both freed players are paired again: with each other only if nobody else is free.
    # The other game still goes on, so they meet again (nobody else is free).
    assert len(_open(t)) == 2
    assert ("tournament_result", (first.game_id,)) in run_tasks
    # Recording the same game again changes nothing (idempotent).
    assert services.tournament_record_result(game_id=first.game_id) is False
    assert _entry(t, first.white).score == 2


def test_no_immediate_rematch_when_others_are_free(accounts: Any, run_tasks: Any) -> None:
    a, b, c, d = (accounts(n) for n in ("eve", "fay", "gus", "hal"))
    t = _arena(a)
    for p in (a, b, c, d):
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    p1, p2 = _open(t)
    # Finish both games in one transaction's worth of time: the first freed pair waits for
    # nobody else (meets again), so pause pairing by finishing the second one first
    # within the same pairing run: record both results, then pair once.
    run_tasks_off = services._send_task
    services._send_task = lambda name, *args: None  # type: ignore[assignment]
    try:
        _finish(p1, "white")
        _finish(p2, "black")
        services.tournament_record_result(game_id=p1.game_id)
        services.tournament_record_result(game_id=p2.game_id)
    finally:
        services._send_task = run_tasks_off  # type: ignore[assignment]
    services.tournament_pair(tournament_id=t.pk)
    new = _open(t)
    assert len(new) == 2
    before = {frozenset((p1.white_id, p1.black_id)), frozenset((p2.white_id, p2.black_id))}
    for p in new:
        assert frozenset((p.white_id, p.black_id)) not in before


def test_streak_and_berserk_points(accounts: Any, run_tasks: Any) -> None:
    a, b = accounts("ida"), accounts("jon")
    t = _arena(a)
    for p in (a, b):
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    expected = [2, 4, 8, 13]  # 2, 2 (streak of two), then 4 on fire, then 4 + 1 berserk
    for i, total in enumerate(expected):
        (pairing,) = _open(t)
        winner_side = "white" if pairing.white_id == a.pk else "black"
        if i == 3:
            services.tournament_berserk(tournament_id=t.pk, player=a)
            game = Game.objects.get(pk=pairing.game_id)
            assert getattr(game, f"{winner_side}_ms") == 90_000  # half of 3 minutes
            services.tournament_berserk(tournament_id=t.pk, player=a)  # twice: a no-op
            game.refresh_from_db()
            assert getattr(game, f"{winner_side}_ms") == 90_000
        _finish(pairing, winner_side)
        assert _entry(t, a).score == total
    ea = _entry(t, a)
    assert [g["f"] for g in ea.sheet] == [False, False, True, True]
    assert ea.sheet[-1]["k"] is True and ea.streak == 4
    # A draw ends the streak: one point, then wins count 2 again.
    (pairing,) = _open(t)
    _finish(pairing, None)
    assert _entry(t, a).score == 14 and _entry(t, a).streak == 0


def test_berserk_only_before_the_first_move_and_not_untimed(accounts: Any,
                                                            run_tasks: Any) -> None:
    a, b = accounts("kim"), accounts("lea")
    t = _arena(a, time_control="untimed")
    assert t.berserk is False
    for p in (a, b):
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    with pytest.raises(games.GameError):
        services.tournament_berserk(tournament_id=t.pk, player=a)


def test_pause_withdraw_and_come_back(accounts: Any, run_tasks: Any) -> None:
    a, b, c = accounts("max"), accounts("ned"), accounts("oli")
    t = _arena(a)
    for p in (a, b, c):
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_pause(tournament_id=t.pk, player=c, paused=True)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    (pairing,) = _open(t)
    assert c.pk not in (pairing.white_id, pairing.black_id)
    services.tournament_withdraw(tournament_id=t.pk, player=a)
    _finish(pairing, "white")
    assert _open(t) == []  # a withdrew, c is paused: b waits
    services.tournament_pause(tournament_id=t.pk, player=c, paused=False)
    (again,) = _open(t)
    assert {again.white_id, again.black_id} == {b.pk, c.pk}
    services.tournament_join(tournament_id=t.pk, player=a)  # back in
    assert not _entry(t, a).withdrawn
    # Withdrawing before the start removes the entry.
    t2 = _arena(a, starts_at=timezone.now() + timedelta(hours=1))
    services.tournament_join(tournament_id=t2.pk, player=b)
    services.tournament_withdraw(tournament_id=t2.pk, player=b)
    assert not Entry.objects.filter(tournament=t2).exists()


def test_aborted_game_does_not_count_and_pauses_who_never_moved(accounts: Any,
                                                               run_tasks: Any) -> None:
    a, b = accounts("pam"), accounts("quin")
    t = _arena(a)
    for p in (a, b):
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    (pairing,) = _open(t)
    game = Game.objects.get(pk=pairing.game_id)
    later = timezone.now() + timedelta(minutes=5)
    Game.objects.filter(pk=game.pk).update(flag_at=timezone.now() - timedelta(seconds=1))
    assert games.game_flag_if_expired(game_id=game.id, now=later)
    pairing.refresh_from_db()
    assert pairing.result == "void"
    idle = _entry(t, pairing.white)  # white never moved
    assert idle.paused and idle.score == 0 and idle.games == 0


def test_private_tournament_needs_its_code_and_guests_cannot_join_rated(
        accounts: Any, run_tasks: Any) -> None:
    from kondavo.accounts.models import Player

    a, b = accounts("ray"), accounts("sam")
    t = _arena(a, private=True, entry_code="open-sesame",
               starts_at=timezone.now() + timedelta(hours=1))
    with pytest.raises(games.GameError):
        services.tournament_join(tournament_id=t.pk, player=b, code="wrong")
    services.tournament_join(tournament_id=t.pk, player=b, code="open-sesame")
    guest = Player.objects.create(kind=Player.Kind.GUEST, guest_key="g" * 32, name="Guest-X")
    with pytest.raises(games.GameError):
        services.tournament_join(tournament_id=t.pk, player=guest, code="open-sesame")
    with pytest.raises(games.GameError):  # guests create none
        _arena(guest)


def test_the_end_the_podium_and_late_games(accounts: Any, run_tasks: Any) -> None:
    a, b, c, d = (accounts(n) for n in ("tia", "uma", "vic", "wes"))
    t = _arena(a)
    for p in (a, b, c, d):
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    p1, p2 = _open(t)
    _finish(p1, "white")
    ongoing = [p for p in _open(t) if p.pk == p2.pk][0]
    end = t.ends_at + timedelta(seconds=1)
    assert services.tournament_tick(tournament_id=t.pk, now=end) == "finished"
    t.refresh_from_db()
    assert t.status == "finished"
    _finish(ongoing, "black")  # after the end: does not count
    ongoing.refresh_from_db()
    assert ongoing.result == "void"
    payload = services.standings_payload(t)
    podium = payload["podium"]
    assert [p["rank"] for p in podium] == [1, 2, 3]
    assert podium[0]["score"] >= podium[1]["score"] >= podium[2]["score"]
    assert Entry.objects.get(tournament=t, player_id=podium[0] and p1.white_id).rank == 1
    # Games on profiles link back to the tournament.
    assert services.tournaments_of_games([p1.game_id])[p1.game_id].pk == t.pk


def test_scheduled_creation_is_idempotent(settings: Any) -> None:
    settings.KONDAVO_TOURNAMENT_SCHEDULE = "english:3+2,spanish:1+0,turkish:5+3"
    now = timezone.now().replace(minute=20)
    assert services.schedule_upcoming(now=now, hours_ahead=2) == 6
    assert services.schedule_upcoming(now=now, hours_ahead=2) == 0
    rows = Tournament.objects.filter(schedule_key__startswith="hourly:")
    assert rows.count() == 6
    first = rows.order_by("starts_at").first()
    assert first is not None and first.starts_at.minute == 0 and first.rated
    assert first.ends_at - first.starts_at == timedelta(minutes=57)
    from kondavo.tournaments import tasks

    assert tasks.tournament_schedule() >= 0  # the beat's task runs the same, idempotently
