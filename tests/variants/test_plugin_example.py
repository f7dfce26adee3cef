"""The example plugin (examples/kondavo-russian) loads through a ``kondavo.variants`` entry point.

Nothing is installed: the example's ``src`` goes on ``sys.path`` and the registry is handed a
fake entry point with the exact value its pyproject.toml declares.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import variants.registry as registry_module
from variants import GameRecord, Registry
from variants.conformance import check_perft_file, run_all
from variants.pdn import read_pdn, write_pdn
from variants.registry import BUILTINS, ENTRY_POINT_GROUP

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "kondavo-russian"


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Registry:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    declared = project["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert declared == {"russian": "kondavo_russian:RUSSIAN"}
    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    eps = [EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in declared.items()]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: eps)
    reg = Registry(BUILTINS)
    reg.load_entry_points()
    return reg


def test_plugin_is_registered(registry: Registry) -> None:
    russian = registry.get("russian")
    assert registry.get("shashki") is russian
    assert registry.by_gametype(25) is russian
    assert registry.keys()[-1] == "russian"


def test_plugin_passes_the_conformance_kit(registry: Registry) -> None:
    russian = registry.get("russian")
    import kondavo_russian

    perft = Path(kondavo_russian.__file__).parent / "russian.perft"
    assert check_perft_file(russian, perft, max_nodes=10_000) == 5
    assert run_all(russian, games=5, seed=3)["plies"] > 0


def test_plugin_games_round_trip_through_pdn(registry: Registry) -> None:
    russian = registry.get("russian")
    record = GameRecord.from_notation(russian, ["c3-d4", "f6-e5", "d4xf6", "g7xe5"])
    (game,) = read_pdn(write_pdn(record), registry=registry)
    assert game.variant is russian
    assert game.moves == ["c3-d4", "f6-e5", "d4xf6", "g7xe5"]
