"""The rules engine is standalone: no Django import, typed (mypy --strict), ships its data."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import variants

REPO = Path(__file__).resolve().parents[2]


def test_importing_variants_does_not_import_django() -> None:
    code = ("import sys\n"
            "import variants, variants.pdn, variants.conformance, variants.__main__\n"
            "variants.get_variant('international')\n"
            "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
            "assert not bad, bad\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_package_ships_py_typed_and_perft_data() -> None:
    root = Path(variants.__file__).parent
    assert (root / "py.typed").exists()
    assert sorted(p.stem for p in (root / "perft").glob("*.perft")) == [
        "brazilian", "english", "international", "spanish", "turkish"]


def test_mypy_strict() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "variants"], cwd=REPO,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
