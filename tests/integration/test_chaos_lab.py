"""The short fault and fuzz lab (bench/chaos.py --short) on its own production-like stack:
moves acknowledged are stored exactly once and presence never leaks across a killed Daphne,
and 1,000 fuzzed frames cause no traceback, no 1011 close and no illegitimate change.

The short attack lab (bench/chaos.py --attacks all --short, stack mode: production settings,
two Daphnes, Redis, PostgreSQL, the compose file's Celery workers) runs once for the module;
each attack runs a few seconds while the 20-game probe plays, and each test reads its figures:
every probe move sent during the attack arrives, the flooding socket is closed by the server,
and forged X-Forwarded-For headers get nothing past the per-address limits (set low here).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kondavo.games.discipline import CLOSE_FLOOD

REPO = Path(__file__).resolve().parents[2]
ATTACKS = ["flood", "crowd", "reconnect", "forged", "analysis", "redis-restart",
           "postgres-restart"]
# Low per-address limits for the lab's Daphnes, so the forged attack's short run exceeds them
LOW_LIMITS = {"KONDAVO_GUEST_RATE": "5/h", "KONDAVO_SIGNUP_RATE": "3/h",
              "KONDAVO_CREATE_RATE_IP": "5/m"}


def test_short_chaos_lab(artifacts_dir: Path) -> None:
    logs = artifacts_dir / "chaos"
    proc = subprocess.run(
        [sys.executable, "bench/chaos.py", "--short", "--friend-games", "4", "--bot-games",
         "1", "--keep-logs", str(logs)],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    (artifacts_dir / "chaos.out").write_text(out)
    rows = {m[0]: [int(x) for x in m[1:]] for m in re.findall(
        r"^(baseline|daphne_kill)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", out, re.M)}
    assert set(rows) == {"baseline", "daphne_kill"}, out
    for name, (sent, acked, stored, lost, duplicated, leaked) in rows.items():
        assert acked > 10 and sent >= stored >= acked, (name, out)
        assert (lost, duplicated, leaked) == (0, 0, 0), (name, out)
    fuzz = re.search(r"^fuzz: (\d+) frames  tracebacks: (\d+)  1011 closes: (\d+)  "
                     r"illegitimate state changes: (\d+)", out, re.M)
    assert fuzz is not None, out
    assert int(fuzz[1]) >= 1000 and fuzz.groups()[1:] == ("0", "0", "0"), out
    assert proc.returncode == 0, out


@pytest.fixture(scope="module")
def attack_lab(artifacts_dir: Path) -> dict[str, dict[str, Any]]:
    out_json = artifacts_dir / "chaos-attacks.json"
    out_json.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "bench/chaos.py", "--mode", "stack", "--attacks", "all", "--short",
         "--json", str(out_json), "--keep-logs", str(artifacts_dir / "chaos-attacks")],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env={**os.environ, **LOW_LIMITS})
    out = proc.stdout + proc.stderr
    (artifacts_dir / "chaos-attacks.out").write_text(out)
    assert out_json.exists(), out
    runs = {r["attack"]: r for r in json.loads(out_json.read_text())["attacks"]}
    assert set(runs) == set(ATTACKS), out
    return runs


@pytest.mark.services
@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_every_probe_move_arrives(attack_lab: dict[str, dict[str, Any]],
                                         attack: str) -> None:
    run = attack_lab[attack]
    assert "skipped" not in run and not run.get("error"), run
    quiet, probe = run["quiet"], run["probe"]
    assert quiet["sent"] > 0 and probe["sent"] > 0, run  # the probe played in both phases
    assert run["lost"] == 0, run  # sent from the quiet phase to the settle's end


@pytest.mark.services
def test_flooding_socket_is_closed_by_the_server(attack_lab: dict[str, dict[str, Any]]
                                                 ) -> None:
    from django.conf import settings

    run = attack_lab["flood"]
    codes = [int(code) for code in run["closes"]]
    # A flood: a socket sent more frames than its budget (the burst, then the refused frames
    # that make it a flood). Not a total over the five sockets: once one floods, its owner
    # cools down and the others are closed with 4029 before they have sent much.
    budget = settings.KONDAVO_WS_BURST + settings.KONDAVO_WS_FLOOD_FRAMES
    assert run["most_frames_one_socket"] > budget, run
    assert CLOSE_FLOOD in codes, run  # closed as a flood (docs/protocol.md)


@pytest.mark.services
def test_forged_forwarded_for_gets_nothing_past_the_limits(
        attack_lab: dict[str, dict[str, Any]]) -> None:
    run = attack_lab["forged"]
    got, tried = run["got"], run["tried"]
    assert tried.get("guest", 0) > 5 and tried.get("game", 0) > 5, run  # over the limits
    # one address (the attacker's real one): at most the limit, however many headers it forged
    assert got.get("guest", 0) <= 5 and got.get("game", 0) <= 5, run
    assert got.get("signup", 0) <= 3, run
