"""A plugin ruleset (the Russian example) shows up on the site with no edit to shared code."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from variants import registry as registry_module
from variants.registry import BUILTINS, Registry

pytestmark = pytest.mark.django_db

EXAMPLE_SRC = Path(__file__).resolve().parents[2] / "examples" / "kondavo-russian" / "src"


@pytest.fixture
def with_russian(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(EXAMPLE_SRC))
    from kondavo_russian import RUSSIAN

    monkeypatch.setattr(registry_module, "_default", Registry([*BUILTINS, RUSSIAN]))
    yield
    sys.modules.pop("kondavo_russian", None)


def test_plugin_ruleset_is_playable_against_the_computer(client: Client,
                                                          with_russian: None) -> None:
    home = client.get("/").content.decode()
    assert 'value="russian"' in home

    response = client.post("/games/new/computer", {"ruleset": "russian", "level": "1",
                                                   "color": "white", "time_control": "untimed"},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 201
    game_id = response.json()["id"]
    assert client.get(f"/game/{game_id}/").status_code == 200

    state = client.get(f"/games/{game_id}/state.json").json()
    data = state.get("d", state)
    assert data["variant"] == "russian"
    assert data["fen"].startswith("W:")
    # Russian opens like Brazilian: 7 legal moves, in algebraic notation.
    assert sorted(m["notation"] for m in data["legal"]) == [
        "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]


def test_plugin_ruleset_has_a_leaderboard(client: Client, with_russian: None) -> None:
    assert client.get("/leaderboards/russian/").status_code == 200
    assert client.get("/leaderboards/russian.json").status_code == 200
    assert client.get("/leaderboards/nosuchrules/").status_code == 404
