"""Let the tests run from a source checkout too, and find pydraughts for the cross-check.

pydraughts (PyPI ``pydraughts``, an independent implementation with Italian rules) is a
test-only peer. Its top-level package is named ``draughts``, like py-draughts', so it is
installed into a directory of its own (``make test`` does:
``pip install --target .venv/test-peers/pydraughts pydraughts==0.6.7``) and found through
``KONDAVO_PYDRAUGHTS`` or that default path. Without it, the cross-check tests are skipped.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def pydraughts() -> ModuleType:
    where = os.environ.get("KONDAVO_PYDRAUGHTS") or str(REPO / ".venv/test-peers/pydraughts")
    if Path(where).is_dir() and where not in sys.path:
        sys.path.append(where)
    module = pytest.importorskip("draughts", reason="pydraughts is not installed")
    if not hasattr(module, "Board") or not Path(where, "pydraughts-0.6.7.dist-info").exists():
        pytest.skip("the `draughts` package found is not pydraughts 0.6.7")
    return module
