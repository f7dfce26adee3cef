"""Display preferences, the language menu and premoves in a real Chromium (issue 20).

- The settings menu (every page): colours (like the system, light, dark), board theme and
  coordinates, kept in localStorage across reloads and applied before the first paint.
- Coordinates: at least 10 px, and at least 4.5:1 against their background.
- The language menu: an arrow key changes the choice, not the page; Enter applies it.
- Premove: during the opponent's turn a player picks a move; it is played as soon as the
  turn comes if it is legal then, else dropped (its highlight cleared).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from frontend_helpers import game_state, join_game, play_path, player_of, wait_my_turn

from kondavo.games import services as games

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rgb(text: str) -> tuple[float, ...]:
    """'rgb(1, 2, 3)' or 'rgba(1, 2, 3, 0.5)' -> (1, 2, 3[, 0.5])."""
    return tuple(float(x) for x in re.findall(r"[\d.]+", text))


def luminance(colour: tuple[float, ...]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over(top: tuple[float, ...], under: tuple[float, ...]) -> tuple[float, ...]:
    """``top`` (maybe translucent) drawn over the opaque ``under``."""
    alpha = top[3] if len(top) > 3 else 1.0
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top[:3], under[:3], strict=True))


def open_settings(page: Any) -> None:
    page.click("#settings > summary")
    page.locator("#settings-form").wait_for()


def test_settings_persist_across_reloads(daphne_server: str, new_page: Any) -> None:
    page = new_page(width=390, height=844)
    page.goto(daphne_server + "/rules/international/")
    # The preferences are applied by a classic script in <head>, before the body is drawn.
    assert page.evaluate("(() => { const s = document.querySelector("
                         "'head script[src*=\"prefs.js\"]');"
                         " return !!s && !s.type && !s.defer && !s.async; })()")
    root = page.locator("html")
    assert root.get_attribute("data-scheme") == "auto"
    assert root.get_attribute("data-color") == "light"
    assert page.locator("#rules-board .kb-num").first.is_visible()
    light_bg = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")

    open_settings(page)
    page.check("#settings-form input[name=scheme][value=dark]")
    page.check("#settings-form input[name=board][value=green]")
    page.uncheck("#settings-form input[name=coords]")
    assert root.get_attribute("data-color") == "dark"
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") != light_bg
    assert page.locator("#rules-board .kb-num").first.is_hidden()
    dark_square = ("getComputedStyle(document.querySelector('#rules-board .kb-dark'))"
                   ".backgroundColor")
    assert rgb(page.evaluate(dark_square)) == (111, 143, 78)  # the green theme's #6f8f4e
    page.keyboard.press("Escape")
    assert page.locator("#settings").get_attribute("open") is None

    for path in ("/rules/international/", "/analysis/"):
        page.goto(daphne_server + path)
        assert root.get_attribute("data-scheme") == "dark"
        assert root.get_attribute("data-color") == "dark"
        assert root.get_attribute("data-board") == "green"
        assert root.get_attribute("data-coords") == "off"
    page.wait_for_selector("#board .kb-dark")
    assert rgb(page.evaluate(dark_square.replace("#rules-board", "#board"))) == (111, 143, 78)
    assert page.locator("#board .kb-num").first.is_hidden()
    open_settings(page)
    assert page.is_checked("#settings-form input[name=scheme][value=dark]")
    assert page.is_checked("#settings-form input[name=board][value=green]")
    assert not page.is_checked("#settings-form input[name=coords]")
    # Back to the system's colours and the wood board.
    page.check("#settings-form input[name=scheme][value=auto]")
    page.check("#settings-form input[name=board][value=wood]")
    page.check("#settings-form input[name=coords]")
    page.reload()
    assert root.get_attribute("data-color") == "light"
    assert rgb(page.evaluate(dark_square.replace("#rules-board", "#board"))) == (176, 125, 82)
    assert page.locator("#board .kb-num").first.is_visible()


def test_dark_mode_follows_the_system(daphne_server: str, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 640}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(daphne_server + "/")
        assert page.locator("html").get_attribute("data-color") == "dark"
        text = rgb(page.evaluate("getComputedStyle(document.documentElement).color"))
        bg = rgb(page.evaluate(
            "getComputedStyle(document.querySelector('fieldset')).backgroundColor"))
        assert contrast(text, bg) >= 7
        open_settings(page)
        page.check("#settings-form input[name=scheme][value=light]")  # the visitor's choice wins
        assert page.locator("html").get_attribute("data-color") == "light"
        page.reload()
        assert page.locator("html").get_attribute("data-color") == "light"
    finally:
        context.close()


@pytest.mark.parametrize("theme", ["wood", "green", "blue"])
@pytest.mark.parametrize("ruleset", ["international", "english", "turkish"])
def test_coordinates_are_readable(daphne_server: str, new_page: Any, theme: str,
                                  ruleset: str) -> None:
    page = new_page(width=360, height=640)
    page.goto(daphne_server + "/")
    page.evaluate(f"localStorage.setItem('kondavo.board', '{theme}')")
    page.goto(f"{daphne_server}/rules/{ruleset}/")
    page.wait_for_selector("#rules-board [data-square]")
    assert page.locator("html").get_attribute("data-board") == theme
    found = page.evaluate(
        """() => [...document.querySelectorAll('#rules-board .kb-num, #rules-board .kb-coord')]
           .map((el) => {
             const cs = getComputedStyle(el);
             const square = getComputedStyle(el.closest('.kb-cell')).backgroundColor;
             return {size: parseFloat(cs.fontSize), color: cs.color, chip: cs.backgroundColor,
                     square};
           })""")
    assert found
    for label in found:
        assert label["size"] >= 10, label
        chip = over(rgb(label["chip"]), rgb(label["square"]))
        # the worst case: the chip over a white piece's highlight
        assert contrast(rgb(label["color"]), chip) >= 4.5, label
        assert contrast(rgb(label["color"]), over(rgb(label["chip"]), (255, 255, 255))) >= 4.5


def test_language_menu_is_keyboard_safe(daphne_server: str, new_page: Any) -> None:
    page = new_page()
    page.goto(daphne_server + "/rules/international/")
    open_settings(page)  # the language is the settings menu's first choice
    select = page.locator("#lang-select")
    assert page.locator(".lang-form button[type=submit]").is_visible()
    select.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(600)
    assert page.evaluate("document.documentElement.lang") == "en"
    assert "/rules/international/" in page.url
    chosen = select.input_value()
    assert chosen != "en"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_function(f"document.documentElement.lang === '{chosen}'")
    # A pointer's choice (here: select_option, no key pressed) is applied at once.
    open_settings(page)
    with page.expect_navigation():
        page.select_option("#lang-select", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")


def premove_squares(page: Any) -> list[str]:
    return page.evaluate(  # type: ignore[no-any-return]
        "[...document.querySelectorAll('#board .kb-premove')].map((e) => e.dataset.square)")


def test_premove_is_played_when_the_turn_comes(daphne_server: str, new_page: Any,
                                               artifacts_dir: Path) -> None:
    alice, bob = new_page(width=390, height=844), new_page()
    alice.goto(daphne_server + "/")
    game = games.game_create_friend(player=player_of(alice), ruleset="international",
                                    color="white")
    alice.goto(f"{daphne_server}/game/{game.id}/")
    bob.goto(f"{daphne_server}/game/{game.id}/")
    join_game(bob)
    wait_my_turn(alice)
    play_path(alice, ["31", "26"])
    alice.wait_for_function("window.kondavoGame.state.ply === 1")

    # Bob's turn. A tap on Alice's own piece no longer flashes red: it starts a premove.
    alice.click("#board [data-square='36']")
    assert "kb-preselect" in (alice.locator("#board [data-square='36']")
                              .get_attribute("class") or "")
    assert alice.locator("#board .kb-reject").count() == 0
    alice.click("#board [data-square='31']")
    assert sorted(premove_squares(alice)) == ["31", "36"]
    # A tap elsewhere cancels it; a new one is made.
    alice.click("#board [data-square='23']")
    assert premove_squares(alice) == []
    alice.click("#board [data-square='36']")
    alice.click("#board [data-square='31']")
    assert sorted(premove_squares(alice)) == ["31", "36"]
    shots = Path(os.environ.get("KONDAVO_SHOTS_DIR") or artifacts_dir / "phone")
    shots.mkdir(parents=True, exist_ok=True)
    alice.screenshot(path=str(shots / "premove-390x844.png"))

    state = wait_my_turn(bob)
    assert ["20", "24"] in [m["path"] for m in state["legal"]]
    play_path(bob, ["20", "24"])
    # Alice's premove goes as soon as the turn is hers.
    alice.wait_for_function("window.kondavoGame.state.ply === 3")
    assert game_state(alice)["last_move"]["path"] == ["36", "31"]
    assert premove_squares(alice) == []

    # A premove that is not legal when the turn comes is dropped, without a word.
    state = wait_my_turn(bob)
    alice.click("#board [data-square='37']")
    alice.click("#board [data-square='22']")
    assert sorted(premove_squares(alice)) == ["22", "37"]
    move = next((m["path"] for m in state["legal"] if m["path"] == ["15", "20"]),
                state["legal"][0]["path"])
    play_path(bob, move)
    wait_my_turn(alice)
    alice.wait_for_timeout(300)
    assert premove_squares(alice) == []
    after = game_state(alice)
    assert after["ply"] == 4 and after["turn"] == "white"
    assert alice.locator("#toast").inner_text() == "" or \
        alice.locator("#toast").get_attribute("data-kind") == "info"
