"""Rulesets added from outside the code appear site-wide, with their own words.

Two rulesets come from temporary directories: a data-only TOML file (with a rules page and
translations) and a Python plugin module with a capture hook and no rules page, loaded
through a ``kondavo.variants`` entry point exactly as an installed package would be.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import textwrap
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from django.test import Client
from django.test.utils import override_settings

from frontend.models import RulesetChoice
from variants import registry as registry_module
from variants.registry import BUILTINS, ENTRY_POINT_GROUP, Registry

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data"

HOOKED_MODULE = '''
from variants import Move, Position, Precedence
from variants.rulesets.brazilian import Brazilian


class Hooked(Brazilian):
    """Brazilian moves, but only captures from the lowest-numbered square are legal."""

    key = "hooked"
    name = "Hooked draughts"
    summary = "Brazilian moves; capture from the lowest square."
    capture_explanation = {
        "en": "Capture is mandatory: capture from the lowest square.",
        "fr": "La prise est obligatoire : prenez depuis la case la plus basse.",
    }
    precedence = Precedence.FREE

    def rank_captures(self, position: Position, moves: list[Move]) -> list[Move]:
        low = min(m.origin for m in moves)
        return [m for m in moves if m.origin == low]


HOOKED = Hooked()
'''


@pytest.fixture
def added(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    rules_dir = tmp_path / "rulesets"
    rules_dir.mkdir()
    shutil.copy(DATA / "pool-lite.toml", rules_dir)
    shutil.copy(DATA / "pool-lite.perft", rules_dir)
    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir()
    (plugin_dir / "kondavo_hooked_test.py").write_text(textwrap.dedent(HOOKED_MODULE))
    monkeypatch.syspath_prepend(str(plugin_dir))
    eps = [EntryPoint("hooked", "kondavo_hooked_test:HOOKED", ENTRY_POINT_GROUP)]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: eps)
    registry = Registry(BUILTINS)
    registry.load_entry_points()
    assert registry.load_directory(rules_dir) == ["pool-lite"]
    monkeypatch.setattr(registry_module, "_default", registry)
    yield registry
    sys.modules.pop("kondavo_hooked_test", None)


def _page(client: Client, url: str, lang: str = "en") -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200, url
    return response.content.decode()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_home_menus_and_footer_list_them_with_their_summaries(client: Client,
                                                              added: Registry) -> None:
    html = _page(client, "/")
    text = _text(html)
    for name, summary in (("Pool (lite)", "Brazilian rules under another name, from a TOML"),
                          ("Hooked draughts", "Brazilian moves; capture from the lowest")):
        assert name in text and summary in text
    footer = _text(html.split('class="site-footer"')[1])
    assert "Pool (lite)" in footer and "Hooked draughts" in footer and "International" in footer
    # A rules link only where there is a rules page.
    assert 'value="pool-lite" data-rules="/rules/pool-lite/"' in html
    assert 'value="hooked" data-rules=""' in html
    lobby = _page(client, "/lobby/")
    assert '<option value="pool-lite">Pool (lite)</option>' in lobby
    assert '<option value="hooked">Hooked draughts</option>' in lobby


def test_names_and_summaries_in_the_visitors_language(client: Client, added: Registry) -> None:
    text = _text(_page(client, "/", "fr"))
    assert "Pool (allégé)" in text and "Les règles brésiliennes sous un autre nom" in text
    assert "Hooked draughts" in text  # no French name given: shown as written


def test_rules_pages_come_from_the_ruleset(client: Client, added: Registry) -> None:
    text = _text(_page(client, "/rules/pool-lite/"))
    assert "Pool (lite) rules" in text and "The longest capture is mandatory." in text
    french = _page(client, "/rules/pool-lite/", "fr")
    assert 'lang="en"' in french  # the page falls back to English and says so
    assert client.get("/rules/hooked/").status_code == 404
    index = _page(client, "/rules/")
    assert '<a href="/rules/pool-lite/">Pool (lite) rules</a>' in index
    assert "Hooked draughts" in index and 'href="/rules/hooked/"' not in index


def test_a_game_shows_the_rulesets_banner_and_no_broken_rules_link(client: Client,
                                                                  added: Registry) -> None:
    response = client.post("/games/new/computer", {"ruleset": "hooked", "level": "1",
                                                   "color": "white", "time_control": "untimed"},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 201
    game_id = response.json()["id"]
    html = _page(client, f"/game/{game_id}/", "fr")
    assert "/rules/hooked/" not in html
    config = json.loads(re.search(r'<script id="kondavo-game" type="application/json">(.*?)'
                                  r"</script>", html, re.S).group(1))
    state = client.get(f"/games/{game_id}/state.json").json()
    data = state.get("d", state)
    assert data["capture_rule"] == "Capture is mandatory: capture from the lowest square."
    assert config["i18n"]["captureRules"][data["capture_rule"]] == (
        "La prise est obligatoire : prenez depuis la case la plus basse.")
    assert client.get("/leaderboards/hooked/").status_code == 200
    assert client.get("/leaderboards/pool-lite/").status_code == 200


def test_the_hook_decides_the_legal_captures_on_the_site(client: Client,
                                                         added: Registry) -> None:
    hooked = added.get("hooked")
    position = hooked.parse_fen("W:Wc3,g3:Bd4,f4")
    legal = hooked.legal_moves(position)
    assert len(legal) == 1 and hooked.perft(position, 1) == 1


def test_the_operator_chooses_and_orders_the_rulesets(client: Client, added: Registry) -> None:
    with override_settings(KONDAVO_RULESETS=["pool-lite", "international", "nosuch"]):
        html = _page(client, "/")
        assert re.findall(r'name="ruleset" value="([^"]+)"', html) == ["pool-lite",
                                                                       "international"]
    RulesetChoice.objects.create(key="international", position=-1)
    RulesetChoice.objects.create(key="english", enabled=False)
    keys = re.findall(r'name="ruleset" value="([^"]+)"', _page(client, "/"))
    assert keys[0] == "international" and "english" not in keys
    assert "pool-lite" in keys and "hooked" in keys


def test_no_new_games_in_a_ruleset_the_site_does_not_offer(client: Client,
                                                           added: Registry) -> None:
    response = client.post("/games/new/computer", {"ruleset": "english", "level": "1",
                                                   "color": "white", "time_control": "untimed"},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 201
    game_id = response.json()["id"]
    RulesetChoice.objects.create(key="english", enabled=False)
    refused = client.post("/games/new/computer", {"ruleset": "english", "level": "1",
                                                  "color": "white", "time_control": "untimed"},
                          HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and "not offered" in refused.content.decode()
    assert client.get(f"/game/{game_id}/").status_code == 200  # older games still open
