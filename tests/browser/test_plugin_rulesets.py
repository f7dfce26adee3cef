"""The shipped ruleset plugins (examples/) on the site, in a real Chromium.

A Daphne of its own runs with the four example plugins installed the way pip would leave
them (their sources on PYTHONPATH and a distribution whose entry points name them), so the
site finds them through the ``kondavo.variants`` entry points like any operator's plugin.
For each: the board is drawn on the right squares and colours, the forced-capture banner
says the ruleset's own rule, the bot answers, the rules link is there only when the ruleset
has a rules page, and the leaderboard exists.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daphne_process import running_daphne
from frontend_helpers import play_path, player_of, wait_my_turn

from kondavo.games import services as games
from variants import registry as registry_module
from variants.registry import BUILTINS, Registry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
PLUGINS = {"russian": "RUSSIAN", "italian": "ITALIAN", "czech": "CZECH",
           "canadian": "CANADIAN"}
SOURCES = [REPO / "examples" / f"kondavo-{key}" / "src" for key in PLUGINS]
# A position with a forced capture for White, per ruleset, and the banner's first words.
CAPTURES = {
    "italian": ("W:W22,K28:B18,23,1", "Capture is mandatory: take the most pieces"),
    "czech": ("W:Wc3,Kh4:Bd4,f6,g3,a7", "Capture is mandatory: a king must capture"),
    "russian": ("W:Wc3:Bd4,a7", "Capture is mandatory: you may choose any capture"),
    "canadian": ("W:W44:B38,50,49,1", "Capture is mandatory: the longest capture"),
}


@pytest.fixture(scope="module")
def plugin_site(django_db_setup: None, artifacts_dir: Path,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from django.db import connection

    dist = tmp_path_factory.mktemp("plugins") / "kondavo_examples-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kondavo-examples\n"
                                   "Version: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[kondavo.variants]\n" + "".join(
        f"{key} = kondavo_{key}:{name}\n" for key, name in PLUGINS.items()))
    path = os.pathsep.join([str(dist.parent), *map(str, SOURCES),
                            os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    with running_daphne(connection.settings_dict, artifacts_dir / "daphne-plugins.log",
                        KONDAVO_SERVE_STATIC="true", KONDAVO_BOT_INPROCESS="true",
                        PYTHONPATH=path) as (_proc, base_url):
        yield base_url


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    """The same rulesets in this process (the game services check the ruleset key)."""
    for src in SOURCES:
        monkeypatch.syspath_prepend(str(src))
    modules = [__import__(f"kondavo_{key}") for key in PLUGINS]
    reg = Registry([*BUILTINS, *(getattr(m, n) for m, n in zip(modules, PLUGINS.values(),
                                                                strict=True))])
    monkeypatch.setattr(registry_module, "_default", reg)
    yield reg
    for key in PLUGINS:
        sys.modules.pop(f"kondavo_{key}", None)


@pytest.mark.parametrize("key", list(PLUGINS))
def test_a_shipped_plugin_is_played_on_the_site(plugin_site: str, registry: Registry,
                                                new_page: Any, console: Any, key: str,
                                                artifacts_dir: Path) -> None:
    console.allowed.append("404")  # the rules page of a ruleset without one
    variant = registry.get(key)
    page = new_page()
    page.goto(plugin_site + "/")
    label = page.locator(f"label:has(input[name=ruleset][value={key}])")
    assert variant.name in label.inner_text()
    has_rules = variant.rules_page() is not None
    page.check(f"input[name=ruleset][value={key}]")
    assert page.locator("#rules-link").is_visible() == has_rules
    assert variant.name in page.locator(".site-footer").inner_text()

    # A game from a position with a forced capture: the ruleset's own banner.
    fen, banner = CAPTURES[key]
    me = player_of(page)
    game = games.game_create_vs_computer(player=me, ruleset=key, level=1, color="white",
                                         start_fen=fen)
    page.goto(f"{plugin_site}/game/{game.id}/")
    state = wait_my_turn(page)
    assert page.locator("#capture-banner").inner_text().startswith(banner)
    # The board: one cell per square, the played squares in the ruleset's colour.
    board = variant.board
    assert page.locator("#board .kb-cell").count() == board.rows * board.cols
    played = page.locator("#board [data-square]")
    assert played.count() == len(board.squares)
    colour = "kb-dark" if board.playing_squares_dark else "kb-light"
    classes = played.evaluate_all("els => els.map(e => e.className)")
    assert all(colour in c for c in classes)
    assert page.locator(f"#board .kb-cell:not([data-square]).{colour}").count() == 0
    rules_links = page.locator(f"a[href='/rules/{key}/']")
    assert (rules_links.count() > 0) == has_rules
    page.screenshot(path=str(artifacts_dir / f"plugin-{key}.png"), full_page=True)

    # A full game from the start: the bot answers.
    page.goto(plugin_site + "/")
    page.check(f"input[name=ruleset][value={key}]")
    page.locator("label:has(input[name=color][value=white])").click()
    page.select_option("#time-control", "untimed")
    page.select_option("#level", "1")
    page.click("button[data-action=computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    for _ in range(2):
        state = wait_my_turn(page)
        play_path(page, state["legal"][0]["path"])
    state = wait_my_turn(page)
    assert len(state["moves"]) == 4 and state["variant"] == key

    if has_rules:
        page.goto(f"{plugin_site}/rules/{key}/")
        assert page.locator("h1").inner_text() == variant.rules_page("en")[0]["title"]
    else:
        response = page.goto(f"{plugin_site}/rules/{key}/")
        assert response is not None and response.status == 404
    response = page.goto(f"{plugin_site}/leaderboards/{key}/")
    assert response is not None and response.status == 200


def test_italian_rules_page_in_italian(plugin_site: str, registry: Registry,
                                       new_page: Any) -> None:
    page = new_page(locale="it-IT")
    page.goto(plugin_site + "/rules/italian/")
    assert page.locator("h1").inner_text() == "Dama italiana"
    assert "Una pedina non può mai prendere una dama." in page.locator("article").inner_text()
    page.goto(plugin_site + "/")
    assert "Dama italiana" in page.locator(".site-footer").inner_text()
