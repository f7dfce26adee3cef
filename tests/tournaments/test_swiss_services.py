"""Swiss and round-robin tournaments against the real database: rounds one after the
other, a bye once per player, tie-breaks, the Berger schedule, and the pages."""

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


def _play_round(t: Tournament) -> None:
    """Every open game of the current round: white wins."""
    for p in Pairing.objects.filter(tournament=t, round=t.current_round, result=""):
        game = Game.objects.select_related("black").get(pk=p.game_id)
        games.game_resign(game_id=game.id, player=game.black)


def test_swiss_rounds_byes_and_tiebreaks(accounts: Any, run_tasks: Any) -> None:
    players = [accounts(n) for n in ("s1", "s2", "s3", "s4", "s5")]
    t = services.tournament_create(creator=players[0], name="Club Swiss", kind="swiss",
                                   ruleset="spanish", time_control="5+3",
                                   starts_at=timezone.now() + timedelta(hours=1), rounds=3)
    for p in players:
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    for round_no in (1, 2, 3):
        t.refresh_from_db()
        assert t.current_round == round_no
        rows = list(Pairing.objects.filter(tournament=t, round=round_no))
        assert len(rows) == 3 and sum(1 for r in rows if r.result == "bye") == 1
        _play_round(t)
    t.refresh_from_db()
    assert t.status == "finished"
    byes = [p.white_id for p in Pairing.objects.filter(tournament=t, result="bye")]
    assert len(byes) == len(set(byes)) == 3  # never twice to the same player
    met = [frozenset((p.white_id, p.black_id)) for p in
           Pairing.objects.filter(tournament=t, black__isnull=False)]
    assert len(met) == len(set(met))  # no repeats
    entries = list(Entry.objects.filter(tournament=t).order_by("rank"))
    assert [e.rank for e in entries] == [1, 2, 3, 4, 5]
    assert sum(e.score for e in entries) == 2 * 3 * 3  # two half points per board and bye
    assert all(e.tiebreak1 >= 0 for e in entries)
    podium = services.standings_payload(t)["podium"]
    assert podium[0]["score"] == entries[0].score / 2


def test_round_robin_follows_the_berger_table(accounts: Any, run_tasks: Any) -> None:
    players = [accounts(n) for n in ("r1", "r2", "r3", "r4")]
    t = services.tournament_create(creator=players[0], name="Club RR", kind="roundrobin",
                                   ruleset="turkish", time_control="10+5",
                                   starts_at=timezone.now() + timedelta(hours=1))
    for p in players:
        services.tournament_join(tournament_id=t.pk, player=p)
    services.tournament_tick(tournament_id=t.pk, now=t.starts_at)
    t.refresh_from_db()
    assert t.rounds == 3
    seeds = t.seeds
    first = {(p.white_id, p.black_id) for p in Pairing.objects.filter(tournament=t, round=1)}
    assert first == {(seeds[0], seeds[3]), (seeds[1], seeds[2])}
    for _ in range(3):
        _play_round(t)
        t.refresh_from_db()
    assert t.status == "finished"
    met = {frozenset((p.white_id, p.black_id)) for p in Pairing.objects.filter(tournament=t)}
    assert len(met) == 6


def test_pages_render(accounts: Any, client: Any, run_tasks: Any) -> None:
    a = accounts("page")
    t = services.tournament_create(creator=a, name="Page Arena", kind="arena",
                                   ruleset="english", time_control="3+2",
                                   starts_at=timezone.now() + timedelta(minutes=5))
    assert client.get("/tournaments/").status_code == 200
    page = client.get(f"/tournaments/{t.pk}/")
    assert page.status_code == 200 and b"Page Arena" in page.content
    assert client.get(f"/tournaments/{t.pk}/standings.json").json()["players"] == 0
    client.login(username="page", password="pw-page-Xy9!")
    assert client.get("/tournaments/new/").status_code == 200
    response = client.post(f"/tournaments/{t.pk}/join/")
    assert response.status_code == 302
    assert Entry.objects.filter(tournament=t, player=a).exists()
    created = client.post("/tournaments/new/", {"name": "Mine", "kind": "swiss",
                                                "ruleset": "english", "time_control": "5+3",
                                                "starts_in": "10", "rounds": "4",
                                                "minutes": "60", "rated": "on"})
    assert created.status_code == 302
    assert Tournament.objects.filter(name="Mine", created_by=a, rounds=4).exists()
