"""The short fault and fuzz lab (bench/chaos.py --short) on its own production-like stack:
moves acknowledged are stored exactly once and presence never leaks across a killed Daphne,
and 1,000 fuzzed frames cause no traceback, no 1011 close and no illegitimate change."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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
