"""The issue's acceptance, run here: an outside program written from docs/protocol.md alone
(examples/tournament_client.py: the standard library and ``websockets``) runs a Swiss and
an arena with many players against a real Daphne, over HTTP and the sockets only. The
Daphne is the single-process embedded server (no worker: pairing and results in-process,
timers for the start) on the test database, with the per-address limits off (every player
of the program comes from 127.0.0.1)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daphne_process import running_daphne

pytestmark = [pytest.mark.django_db(transaction=True)]

CLIENT = Path(__file__).resolve().parents[2] / "examples" / "tournament_client.py"


@pytest.fixture
def site(artifacts_dir: Path) -> Iterator[str]:
    from django.db import connection

    with running_daphne(connection.settings_dict, artifacts_dir / "daphne-outside.log",
                        REDIS_URL="", CHANNEL_REDIS_URLS="", CACHE_REDIS_URL="",
                        CELERY_BROKER_URL="", KONDAVO_GUEST_RATE="",
                        KONDAVO_SIGNUP_RATE="", KONDAVO_CREATE_RATE_IP="",
                        KONDAVO_CREATE_RATE_PLAYER="", KONDAVO_TOURNAMENT_SCHEDULE="",
                        KONDAVO_BOT_INPROCESS="true") as (_proc, base):
        yield base


def run_client(base: str, *args: str, timeout: float) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(CLIENT), "--url", base, *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert not summary["failures"], summary
    return summary


def test_an_outside_program_runs_a_swiss(site: str) -> None:
    from kondavo.tournaments.models import Entry, Pairing

    s = run_client(site, "--kind", "swiss", "--players", "10", "--rounds", "3",
                   "--ruleset", "english", "--lead", "4", timeout=480)
    assert (s["status"], s["round"], s["players"]) == ("finished", 3, 10)
    assert sorted(s["games_played"].values()) == [3] * 10  # an even field: no byes
    assert len(s["podium"]) == 3
    pairings = list(Pairing.objects.filter(tournament_id=s["tournament"]))
    assert len(pairings) == 15 and all(p.result in ("white", "black", "draw")
                                       for p in pairings)
    met = [frozenset((p.white_id, p.black_id)) for p in pairings]
    assert len(set(met)) == 15  # nobody met anyone twice
    # Every game gave out one point (two half points): the scores add up.
    assert sum(Entry.objects.filter(tournament_id=s["tournament"])
               .values_list("score", flat=True)) == 2 * 15


def test_an_outside_program_runs_an_arena(site: str) -> None:
    from kondavo.tournaments.models import Entry, Pairing

    s = run_client(site, "--kind", "arena", "--players", "12", "--minutes", "5",
                   "--play-seconds", "25", "--ruleset", "international", "--lead", "4",
                   timeout=300)
    assert s["status"] == "started" and s["players"] == 12
    finished = Pairing.objects.filter(tournament_id=s["tournament"],
                                      result__in=["white", "black", "draw"])
    assert finished.count() >= 6  # every player finished at least one game
    assert all(n >= 1 for n in s["games_played"].values())
    entries = Entry.objects.filter(tournament_id=s["tournament"])
    assert sum(e.games for e in entries) == 2 * finished.count()
