"""The site in a real Chromium: a new visitor plays every ruleset against the computer,
chooses between two captures, finishes a friend game, meets a seek in the lobby, reads the
rules in three languages. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from frontend_helpers import (
    become_guest,
    game_state,
    join_game,
    play_path,
    player_of,
    wait_my_turn,
)

from kondavo.accounts.services import player_get_or_create_guest
from kondavo.games import services as games

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RULESETS = ["international", "english", "brazilian", "spanish", "turkish"]
BOT_ANSWERS = 3


def start_computer_game(page: Any, base: str, ruleset: str) -> None:
    page.goto(base + "/")
    page.check(f"input[name=ruleset][value={ruleset}]")
    page.locator("label:has(input[name=color][value=white])").click()
    page.select_option("#time-control", "untimed")
    page.select_option("#level", "1")
    page.click("button[data-action=computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_new_visitor_plays_the_computer(daphne_server: str, new_page: Any, ruleset: str,
                                        artifacts_dir: Path) -> None:
    page = new_page()
    if ruleset == "international":
        page.goto(daphne_server + "/")
        page.screenshot(path=str(artifacts_dir / "home.png"), full_page=True)
        page.set_viewport_size({"width": 360, "height": 760})
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.screenshot(path=str(artifacts_dir / "home-360px.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
    start_computer_game(page, daphne_server, ruleset)
    state = game_state(page)
    assert state["variant"] == ruleset and state["you"] == "white"
    squares = page.locator("#board [data-square]")
    assert squares.count() == len(state["board"]["squares"])
    assert page.locator("#board [data-piece='white-man']").count() > 0
    assert page.locator("#board [data-piece='black-man']").count() > 0

    my_moves = 0
    while True:
        state = wait_my_turn(page)
        bot_moves = len(state["moves"]) - my_moves
        if bot_moves >= BOT_ANSWERS:
            break
        legal = state["legal"]
        assert legal, "my turn but no legal moves"
        if any(m["captured"] for m in legal):
            banner = page.locator("#capture-banner")
            assert banner.is_visible()
            assert banner.inner_text().startswith("Capture is mandatory")
        # The pieces that can move are marked on the board.
        origin = legal[0]["path"][0]
        assert "kb-movable" in (page.locator(f"#board [data-square='{origin}']")
                                .get_attribute("class") or "")
        play_path(page, legal[0]["path"])
        my_moves += 1
    page.wait_for_timeout(800)  # let the last move's animation finish for the screenshot
    moves_text = page.locator("#moves").inner_text()
    assert state["moves"][0] in moves_text
    page.screenshot(path=str(artifacts_dir / f"game-{ruleset}.png"), full_page=True)
    if ruleset in ("international", "turkish"):
        page.set_viewport_size({"width": 360, "height": 760})
        page.wait_for_timeout(200)
        width = page.evaluate("document.getElementById('board').getBoundingClientRect().width")
        assert 300 <= width <= 360
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.screenshot(path=str(artifacts_dir / f"game-{ruleset}-360px.png"), full_page=True)


def test_choosing_between_two_captures_to_the_same_square(daphne_server: str,
                                                          new_page: Any) -> None:
    # White king on 3 can take three pieces two ways, both ending on 47:
    # 3x17x33x47 (12, 28, 42) or 3x21x38x47 (12, 32, 42).
    creator = player_get_or_create_guest(request_session={})  # someone else holds black
    game = games.game_create_friend(player=creator, ruleset="international", color="black",
                                    start_fen="W:WK3:B12,28,32,42,45")
    page = new_page()
    page.goto(f"{daphne_server}/game/{game.id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    assert game_state(page)["you"] is None  # opening the link takes no seat
    join_game(page)
    state = wait_my_turn(page)
    assert state["you"] == "white"
    assert sorted(m["notation"] for m in state["legal"]) == ["3x17x33x47", "3x21x38x47"]
    assert page.locator("#capture-banner").is_visible()

    page.click("#board [data-square='3']")
    page.click("#board [data-square='47']")  # ambiguous: nothing is played yet
    page.wait_for_timeout(300)
    assert game_state(page)["ply"] == 0
    for label in ("17", "21"):
        cls = page.locator(f"#board [data-square='{label}']").get_attribute("class") or ""
        assert "kb-next" in cls, (label, cls)
    page.click("#board [data-square='21']")
    page.wait_for_function("window.kondavoGame.state.ply === 1")
    state = game_state(page)
    assert state["moves"] == ["3x21x38x47"]
    assert sorted(state["last_move"]["captured"], key=int) == ["12", "32", "42"]
    assert page.locator("#board [data-square='47'] [data-piece='white-king']").count() == 1
    assert page.locator("#board [data-square='28'] [data-piece='black-man']").count() == 1

    # Stepping one landing square at a time works too (and a dragged move is one gesture).
    game2 = games.game_create_friend(player=creator, ruleset="international", color="black",
                                     start_fen="W:WK3:B12,28,32,42,45")
    page.goto(f"{daphne_server}/game/{game2.id}/")
    join_game(page)
    wait_my_turn(page)
    page.drag_and_drop("#board [data-square='3']", "#board [data-square='17']")
    page.wait_for_function("window.kondavoGame.state.ply === 1")
    assert game_state(page)["moves"] == ["3x17x33x47"]


def test_two_visitors_finish_a_friend_game(daphne_server: str, new_page: Any,
                                           artifacts_dir: Path) -> None:
    alice, bob, carol = new_page(), new_page(), new_page(width=360, height=760)
    alice.goto(daphne_server + "/")
    become_guest(alice)
    # White 30, Black 25: 30-24 25-30 24x35 and White has taken every black piece.
    game = games.game_create_friend(player=player_of(alice), ruleset="international",
                                    color="white", start_fen="W:W30:B25",
                                    time_control="5+3")
    url = f"{daphne_server}/game/{game.id}/"
    alice.goto(url)
    alice.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    assert alice.locator("#share").is_visible()
    assert alice.locator("#share-url").input_value().endswith(f"/game/{game.id}/")

    bob.goto(url)
    bob.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    assert game_state(bob)["you"] is None and bob.locator("#btn-join").is_visible()
    join_game(bob)
    assert game_state(bob)["you"] == "black"
    alice.wait_for_function("window.kondavoGame.state.status === 'active'")
    assert not alice.locator("#share").is_visible()

    carol.goto(url)  # a third visitor only watches
    carol.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    assert game_state(carol)["you"] is None
    assert carol.locator("#controls button").count() == 0
    assert "watching" in carol.locator("#status").inner_text()

    play_path(alice, wait_my_turn(alice)["legal"][0]["path"])
    play_path(bob, wait_my_turn(bob)["legal"][0]["path"])
    state = wait_my_turn(alice)
    assert [m["notation"] for m in state["legal"]] == ["24x35"]
    assert alice.locator("#capture-banner").inner_text() == (
        "Capture is mandatory: the longest capture is mandatory.")
    play_path(alice, state["legal"][0]["path"])

    for page, words in ((alice, "You win!"), (bob, "You lose"), (carol, "White wins")):
        page.wait_for_function("window.kondavoGame.state.status === 'finished'")
        result = page.locator("#result").inner_text()
        assert words in result and "no pieces left" in result, result
    assert alice.locator("#moves").inner_text().split() == ["1.", "30-24", "25-30",
                                                            "2.", "24x35"]
    assert alice.locator("button[data-action=rematch]").is_visible()
    assert bob.locator("button[data-action=rematch]").is_visible()
    alice.wait_for_timeout(600)
    alice.screenshot(path=str(artifacts_dir / "friend-game-finished.png"), full_page=True)
    carol.screenshot(path=str(artifacts_dir / "friend-game-spectator-360px.png"),
                     full_page=True)

    # Rematch: both ask, both land on the new game.
    alice.click("button[data-action=rematch]")
    bob.wait_for_function("window.kondavoGame.state.rematch && "
                          "window.kondavoGame.state.rematch.offered_by === 'white'")
    bob.click("button[data-action=rematch]")
    for page in (alice, bob):
        page.wait_for_url(lambda u: f"/game/{game.id}/" not in u)


def test_lobby_shows_a_seek_from_another_visitor(daphne_server: str, new_page: Any,
                                                 artifacts_dir: Path) -> None:
    seeker, other = new_page(), new_page()
    other.goto(daphne_server + "/lobby/")
    seeker.goto(daphne_server + "/lobby/")
    other.wait_for_selector("#seeks td.empty-state")
    seeker.select_option("#seek-ruleset", "brazilian")
    seeker.select_option("#seek-tc", "3+2")
    seeker.select_option("#seek-color", "black")
    seeker.click("#seek-form button[type=submit]")
    row = other.locator("#seeks tr[data-seek]")
    row.wait_for()
    assert "Brazilian" in row.inner_text() and "3+2" in row.inner_text()
    assert "Casual" in row.inner_text()
    assert row.locator("td[data-color]").inner_text() == "Black"
    seeker.locator("#seeks tr.mine").wait_for()
    other.screenshot(path=str(artifacts_dir / "lobby.png"), full_page=True)
    row.locator("button").click()
    for page in (seeker, other):
        page.wait_for_url(re.compile(r"/game/\w+/$"))
        page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
        assert game_state(page)["variant"] == "brazilian"
    assert game_state(seeker)["you"] == "black" and game_state(other)["you"] == "white"


@pytest.mark.parametrize(("lang", "heading", "word"), [
    ("en", "International draughts", "Start position"),
    ("fr", "Dames internationales", "Position de départ"),
    ("it", "Dama internazionale", "Posizione iniziale"),
])
def test_rules_pages_in_three_languages(daphne_server: str, new_page: Any, lang: str,
                                        heading: str, word: str, artifacts_dir: Path) -> None:
    page = new_page()
    page.goto(daphne_server + "/rules/international/")
    if lang != "en":  # switch with the settings menu's language form (posts to set_language)
        page.click("#settings > summary")
        page.select_option("#lang-select", lang)
        page.wait_for_load_state("load")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    assert page.locator("h1").inner_text() == heading
    assert word in page.locator("figcaption").inner_text()
    assert page.locator("#rules-board [data-square]").count() == 50
    assert page.locator("#rules-board [data-piece='white-man']").count() == 20
    for key, count in (("english", 32), ("spanish", 32), ("turkish", 64)):
        page.goto(f"{daphne_server}/rules/{key}/")
        assert page.evaluate("document.documentElement.lang") == lang
        assert page.locator("#rules-board [data-square]").count() == count
    page.screenshot(path=str(artifacts_dir / f"rules-turkish-{lang}.png"), full_page=True)


def test_friendly_404_and_leaderboard(daphne_server: str, new_page: Any, console: Any,
                                      artifacts_dir: Path) -> None:
    console.allowed.append("404")
    page = new_page()
    response = page.goto(daphne_server + "/game/nosuchgame/")
    assert response is not None and response.status == 404
    assert page.locator("a.button.primary").get_attribute("href") == "/"
    response = page.goto(daphne_server + "/leaderboards/")
    if response is not None and response.status == 200:
        page.screenshot(path=str(artifacts_dir / "leaderboard.png"), full_page=True)


def test_keyboard_plays_a_move(daphne_server: str, new_page: Any) -> None:
    page = new_page()
    start_computer_game(page, daphne_server, "turkish")
    state = wait_my_turn(page)
    page.focus("#board")
    page.keyboard.press("ArrowRight")
    assert page.locator("#board .kb-focus").count() == 1
    # Walk the focus ring to a movable piece, select it, then to its destination.
    move = next(m for m in state["legal"] if m["path"] == ["a3", "a4"])
    for target in move["path"]:
        for _ in range(20):
            focused = page.locator("#board .kb-focus").get_attribute("data-square")
            if focused == target:
                break
            fr, ff = int(focused[1]), ord(focused[0])
            tr, tf = int(target[1]), ord(target[0])
            key = ("ArrowUp" if tr > fr else "ArrowDown") if tr != fr else (
                "ArrowRight" if tf > ff else "ArrowLeft")
            page.keyboard.press(key)
        page.keyboard.press("Enter")
    page.wait_for_function("window.kondavoGame.state.ply >= 1")
    assert game_state(page)["moves"][0] == "a3-a4"
