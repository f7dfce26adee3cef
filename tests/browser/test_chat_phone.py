"""The game chat on a phone-size page (360x640), in a real Chromium against a real Daphne:
the box is folded until tapped, a line goes from one player's page to the other's as text
(never HTML), the spectators' room is apart from the players', and the words are
translated (a French page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from kondavo.accounts.services import player_for_user
from kondavo.games import services as games

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL_PHONE = {"width": 360, "height": 640}


def logged_in(page: Any, base: str, name: str) -> Any:
    """An account, logged in in ``page``'s browser context (its Player)."""
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": base}])
    return player_for_user(user=user)


def open_game(page: Any, base: str, game_id: str) -> None:
    page.goto(f"{base}/game/{game_id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    page.wait_for_selector("#chat:not([hidden])")


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def test_chat_on_a_phone(daphne_server: str, new_page: Any, artifacts_dir: Path) -> None:
    alice_page = new_page(**SMALL_PHONE)
    bob_page = new_page(**SMALL_PHONE, locale="fr-FR")
    watcher_page = new_page(**SMALL_PHONE)
    for page in (alice_page, bob_page, watcher_page):
        page.goto(daphne_server + "/rules/")  # a page of the site, for the cookies' origin
    alice = logged_in(alice_page, daphne_server, "chat-alice")
    bob = logged_in(bob_page, daphne_server, "chat-bob")
    logged_in(watcher_page, daphne_server, "chat-watcher")
    game = games.game_create(creator=alice, opponent=bob, ruleset="international",
                             color="white", time_control="untimed")
    for page in (alice_page, bob_page, watcher_page):
        open_game(page, daphne_server, game.id)

    # Folded on a phone until tapped; then the field and its button fit the 360 px.
    assert alice_page.evaluate("document.getElementById('chat').open") is False
    alice_page.click("#chat > summary")
    alice_page.wait_for_selector("#chat-input", state="visible")
    box = alice_page.locator("#chat-form button").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 360
    no_sideways_scroll(alice_page)

    alice_page.fill("#chat-input", "good luck <b>bob</b> & have fun")
    alice_page.press("#chat-input", "Enter")

    # Bob's French page: folded, a mark says something new; the words are French.
    bob_page.wait_for_function(
        "document.getElementById('chat-count').textContent === '•'")
    assert "Discussion" in bob_page.locator("#chat > summary").inner_text()
    bob_page.click("#chat > summary")
    line = bob_page.locator("#chat-lines .chat-line").first
    line.wait_for()
    assert line.locator(".chat-text").inner_text().strip() == "good luck <b>bob</b> & have fun"
    assert bob_page.locator("#chat-lines b").count() == 0  # text, never HTML
    assert line.locator(".chat-action").first.inner_text() == "masquer"
    assert bob_page.get_attribute("#chat-input", "placeholder") == "Dites quelque chose…"
    no_sideways_scroll(bob_page)

    # The watcher reads the spectators' room only: the players' line never reaches it.
    watcher_page.click("#chat > summary")
    watcher_page.fill("#chat-input", "nice opening")
    watcher_page.press("#chat-input", "Enter")
    watcher_page.wait_for_function(
        "document.querySelector('#chat-lines .chat-text')?.textContent.includes('nice opening')")
    assert "good luck" not in watcher_page.locator("#chat-lines").inner_text()
    alice_page.wait_for_timeout(500)
    assert "nice opening" not in alice_page.locator("#chat-lines").inner_text()

    # A word of the filter: refused, with the reason, and nothing sent.
    bob_page.fill("#chat-input", "quel connard")
    bob_page.press("#chat-input", "Enter")
    bob_page.wait_for_function(
        "document.getElementById('toast').textContent.includes('interdit')")
    alice_page.wait_for_timeout(300)
    assert "connard" not in alice_page.locator("#chat-lines").inner_text()
    alice_page.screenshot(path=str(artifacts_dir / "chat-phone-alice.png"))
    bob_page.screenshot(path=str(artifacts_dir / "chat-phone-bob-fr.png"))
