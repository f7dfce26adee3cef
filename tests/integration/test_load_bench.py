"""bench/load.py on its own throwaway PostgreSQL and Redis, two Daphnes and the channel layer
sharded over two Redis servers: a few short games played by real websocket clients, every
move confirmed to its mover and delivered to the opponent, and the server CPU measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.services
def test_load_bench_small_run(artifacts_dir: Path) -> None:
    out_json = artifacts_dir / "load-bench.json"
    out_json.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}  # its own services
    proc = subprocess.run(
        [sys.executable, "bench/load.py", "--games", "6", "--think", "0.2", "--plies", "8",
         "--daphnes", "2", "--redis-shards", "2", "--pacing", "exponential", "--json",
         str(out_json)], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    (artifacts_dir / "load-bench.out").write_text(out)
    assert proc.returncode == 0, out
    assert "bus on 2 Redis shards" in out, out
    f = json.loads(out_json.read_text())
    assert f["sent"] == f["confirmed"] == 6 * 8, out  # 8 plies, then the side to move resigns
    assert f["lost"] == 0 and f["failures"] == 0 and f["errors"] == {}, out
    assert f["finished"] == 6, out
    assert f["server_cpu_s"] > 0 and f["moves_per_cpu_s"] > 0, out
    assert set(f["server_cpu_by_role"]) <= {"daphne", "postgres", "redis"}, out
    assert f["server_cpu_by_role"]["daphne"] > 0, out
    assert 0 < f["opponent_ms"]["p50"] <= f["opponent_ms"]["p99"] <= f["opponent_ms"]["max"], out
