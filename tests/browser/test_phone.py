"""Phone first (issue 20): on 360x640, 390x844 and 1280x800 no page scrolls sideways, the
home page's first action is on the first screen, a seek can be accepted on a phone, the
analysis board's load and editor controls are reachable, and resigning asks in the page.
Screenshots go to $KONDAVO_SHOTS_DIR (default tests/artifacts/phone/)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from frontend_helpers import player_of

from kondavo.accounts.services import player_get_or_create_guest
from kondavo.games import services as games

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = [(360, 640), (390, 844), (1280, 800)]


@pytest.fixture
def shots(artifacts_dir: Path) -> Path:
    path = Path(os.environ.get("KONDAVO_SHOTS_DIR") or artifacts_dir / "phone")
    path.mkdir(parents=True, exist_ok=True)
    return path


def overflow(page: Any) -> int:
    """How many CSS pixels the page is wider than the window (0: no sideways scrolling)."""
    return int(page.evaluate("document.scrollingElement.scrollWidth - innerWidth"))


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not displayed"
    return found  # type: ignore[no-any-return]


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_no_page_scrolls_sideways(daphne_server: str, new_page: Any, width: int, height: int,
                                  shots: Path) -> None:
    host = player_get_or_create_guest(request_session={})
    guest = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=host, ruleset="international", color="white")
    games.game_join(game_id=game.id, player=guest)
    games.seek_create(player=host, ruleset="english", time_control="5+3")
    pages = {"home": "/", "lobby": "/lobby/", "rules-index": "/rules/",
             "rules": "/rules/turkish/", "watch": "/watch/", "leaderboards": "/leaderboards/",
             "profile": f"/profile/{host.name}/", "analysis": "/analysis/",
             "game": f"/game/{game.id}/"}
    page = new_page(width=width, height=height)
    wide = {}
    for name, path in pages.items():
        page.goto(daphne_server + path)
        page.wait_for_load_state("load")
        if name == "lobby":
            page.wait_for_selector("#seeks tr[data-seek] button.primary")
        elif name == "game":
            page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
        page.wait_for_timeout(150)
        page.screenshot(path=str(shots / f"{name}-{width}x{height}.png"))
        if overflow(page) > 0:
            wide[name] = overflow(page)
        if name == "home":
            # The first actions (a ruleset is already chosen) are on the first screen:
            # play the computer, play a person (a friend link).
            for action in ("computer", "friend"):
                play = box(page, f"button[data-action={action}]")
                assert play["y"] + play["height"] <= height, (action, play)
                assert play["x"] >= 0 and play["x"] + play["width"] <= width
        elif name == "lobby":
            join = box(page, "#seeks tr[data-seek] button.primary")
            assert join["x"] >= 0 and join["x"] + join["width"] <= width, join
        elif name == "analysis":
            # The load form and the position editor are reachable, inside the width.
            page.locator("#btn-load").scroll_into_view_if_needed()
            load = box(page, "#btn-load")
            assert load["x"] + load["width"] <= width
            page.click("#btn-editor")
            page.locator("#editor-done").scroll_into_view_if_needed()
            done = box(page, "#editor-done")
            assert done["x"] + done["width"] <= width
            assert page.locator("#editor").is_visible()
            wide_editor = overflow(page)
            page.screenshot(path=str(shots / f"analysis-editor-{width}x{height}.png"))
            if wide_editor > 0:
                wide["analysis-editor"] = wide_editor
    assert wide == {}, f"pages wider than {width} px: {wide}"


@pytest.mark.parametrize(("width", "height"), [(360, 640), (1280, 800)])
def test_resign_asks_in_the_page(daphne_server: str, new_page: Any, width: int, height: int,
                                 shots: Path) -> None:
    page = new_page(width=width, height=height)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(daphne_server + "/")
    page.locator("label:has(input[name=color][value=white])").click()
    page.select_option("#time-control", "untimed")
    page.select_option("#level", "1")
    page.click("button[data-action=computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state &&"
                           " window.kondavoGame.state.status === 'active'")
    page.click("#controls button[data-action=resign]")
    strip = page.locator("#controls .confirm-strip")
    strip.wait_for()
    assert strip.get_attribute("role") == "alertdialog"
    assert "Resign this game?" in strip.inner_text()
    assert page.evaluate("document.activeElement.dataset.confirm") == "no"
    page.screenshot(path=str(shots / f"resign-confirm-{width}x{height}.png"))
    # Cancel (here with Escape): nothing is sent, the buttons come back.
    page.keyboard.press("Escape")
    page.locator("#controls button[data-action=resign]").wait_for()
    assert page.evaluate("window.kondavoGame.state.status") == "active"
    page.click("#controls button[data-action=resign]")
    page.click("#controls button[data-confirm=yes]")
    page.wait_for_function("window.kondavoGame.state.status === 'finished'")
    page.locator("#overlay").wait_for(state="visible")
    assert page.locator("#overlay-title").inner_text() == "You lose"
    assert dialogs == []
    assert overflow(page) == 0


def test_no_browser_dialogs_in_the_scripts() -> None:
    """Destructive actions ask in the page: no confirm()/alert()/prompt() in the site's JS."""
    root = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend"
    for script in root.glob("*.js"):
        text = script.read_text(encoding="utf-8")
        assert not re.search(r"\b(window\.)?(confirm|alert|prompt)\s*\(", text), script.name


def test_a_phone_player_accepts_a_seek(daphne_server: str, new_page: Any, shots: Path) -> None:
    seeker, phone = new_page(), new_page(width=360, height=640)
    seeker.goto(daphne_server + "/lobby/")
    phone.goto(daphne_server + "/lobby/")
    seeker.click("#seek-form button[type=submit]")
    join = phone.locator("#seeks tr[data-seek] button.primary")
    join.wait_for()
    phone.screenshot(path=str(shots / "lobby-seek-360x640.png"))
    found = join.bounding_box()
    assert found is not None and found["x"] + found["width"] <= 360
    join.click()
    for page in (seeker, phone):
        page.wait_for_url(re.compile(r"/game/\w+/$"))
        page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    assert player_of(phone).name in {p["name"] for p in
                                     phone.evaluate("Object.values(window.kondavoGame.state.players)")}
