"""Issue 20's touches in a real Chromium against a real Daphne: a takeback offer between two
people, the rating change of a rated game, a refused move that puts the board back, the
analysis review (graph, summary) and a refused "continue from here" that keeps the position;
and the layout leftovers (the Polish home page's chips, the lobby's name field, the desktop
game screen's bottom row). Screenshots go to the artifacts directory (and
``KONDAVO_TOUCHES_SHOTS`` when set)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from frontend_helpers import join_game, play_path, wait_my_turn

from kondavo.accounts.services import player_for_user, player_get_or_create_guest
from kondavo.games import services as games
from kondavo.games.models import Game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL_PHONE = {"width": 360, "height": 640}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def shot(page: Any, artifacts_dir: Path, name: str) -> None:
    page.screenshot(path=str(artifacts_dir / f"touches-{name}.png"))
    extra = os.environ.get("KONDAVO_TOUCHES_SHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(extra) / f"{name}.png"))


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def logged_in(page: Any, base: str, name: str) -> Any:
    """An account, logged in in ``page``'s browser context (its Player)."""
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": base}])
    return player_for_user(user=user)


def test_takeback_offer_accepted_in_the_page(daphne_server: str, new_page: Any,
                                             artifacts_dir: Path) -> None:
    white_page, black_page = new_page(**SMALL_PHONE), new_page(**PHONE)
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="international", color="black",
                                    time_control="untimed")
    for page in (white_page, black_page):
        page.goto(f"{daphne_server}/game/{game.id}/")
        page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    join_game(white_page)
    # The creator's seat (Black) is taken over by the second page's visitor.
    from frontend_helpers import player_of
    black = player_of(black_page)
    Game.objects.filter(pk=game.id).update(black=black, creator=black)
    black_page.reload()
    black_page.wait_for_function("window.kondavoGame && window.kondavoGame.state && "
                                 "window.kondavoGame.state.you === 'black'")
    state = wait_my_turn(white_page)
    play_path(white_page, state["legal"][0]["path"])
    black_page.wait_for_function("window.kondavoGame.state.ply === 1")
    offer = white_page.locator("#controls button[data-action=takeback_offer]")
    offer.click()
    white_page.locator("#takeback-offer").wait_for(state="visible")
    black_page.locator("#takeback-offer button[data-action=takeback_accept]").wait_for()
    assert "asks to take back" in black_page.inner_text("#takeback-offer")
    shot(black_page, artifacts_dir, "takeback-offer-390x844")
    shot(white_page, artifacts_dir, "takeback-offered-360x640")
    no_sideways_scroll(black_page)
    black_page.click("#takeback-offer button[data-action=takeback_accept]")
    for page in (white_page, black_page):
        page.wait_for_function("window.kondavoGame.state.ply === 0 && "
                               "window.kondavoGame.state.moves.length === 0")
        assert page.locator("#takeback-offer").is_hidden()
    assert Game.objects.get(pk=game.id).ply == 0
    wait_my_turn(white_page)  # White plays again


def test_rating_change_on_the_end_screen_and_the_player_rows(daphne_server: str,
                                                             new_page: Any,
                                                             artifacts_dir: Path) -> None:
    alice_page, watcher = new_page(**DESKTOP), new_page(**SMALL_PHONE)
    alice_page.goto(daphne_server + "/")
    alice = logged_in(alice_page, daphne_server, "touch-alice")
    bob_user = get_user_model().objects.create_user("touch-bob", password="pw-touch-bob-Xy9!")
    bob = player_for_user(user=bob_user)
    game = games.game_create(creator=alice, opponent=bob, ruleset="international",
                             color="white", time_control="5+3", rated=True)
    games.game_play_move(game_id=game.id, player=alice, ply=0, move_text="32-28")
    games.game_play_move(game_id=game.id, player=bob, ply=1, move_text="19-23")
    for page in (alice_page, watcher):
        page.goto(f"{daphne_server}/game/{game.id}/")
        page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    alice_page.click("#controls button[data-action=resign]")
    alice_page.click("#controls button[data-confirm=yes]")
    for page in (alice_page, watcher):
        page.locator("#overlay-ratings").wait_for(state="visible")
    change = Game.objects.get(pk=game.id).rating_changes.get(player=alice)
    words = f"{change.before} → {change.after} (−{abs(change.delta)})"
    assert change.delta < 0
    assert words in alice_page.inner_text("#overlay-ratings")
    assert words in watcher.inner_text("#overlay-ratings")
    assert words in alice_page.inner_text("#player-bottom")  # Alice plays White, at the bottom
    assert words in alice_page.inner_text("#result")
    shot(alice_page, artifacts_dir, "rating-change-1280x800")
    shot(watcher, artifacts_dir, "rating-change-360x640")
    no_sideways_scroll(watcher)
    watcher.reload()  # a reloaded page sees it too
    watcher.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    watcher.locator("#overlay-ratings").wait_for(state="visible")
    assert words in watcher.inner_text("#overlay-ratings")


def test_a_refused_move_puts_the_board_back_and_keeps_the_moves(daphne_server: str,
                                                                new_page: Any) -> None:
    page = new_page(**PHONE)
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="international", color="black",
                                    time_control="untimed")
    page.goto(f"{daphne_server}/game/{game.id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    join_game(page)
    play_path(page, wait_my_turn(page)["legal"][0]["path"])
    games.game_play_move(game_id=game.id, player=creator, ply=1, move_text="19-23")
    state = wait_my_turn(page)
    assert len(state["moves"]) == 2
    pieces_before = page.evaluate("[...window.kondavoGame.board.pieces.entries()].sort()")
    # The next move goes out naming a ply the server is not at: it is refused (stale_ply).
    page.evaluate("""() => {
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
            const f = JSON.parse(data);
            if (f.t === 'move') { f.d.ply = 0; data = JSON.stringify(f); }
            return send.call(this, data);
        };
    }""")
    move = state["legal"][0]["path"]
    for label in move:
        page.click(f"#board [data-square='{label}']")
    page.wait_for_function("document.getElementById('toast').textContent.length > 0")
    page.wait_for_function("window.kondavoGame.board.movable === window.kondavoGame.state.you")
    assert page.evaluate("[...window.kondavoGame.board.pieces.entries()].sort()") == \
        pieces_before
    assert page.evaluate("window.kondavoGame.state.moves") == state["moves"]
    assert page.locator("#moves button").count() >= 2
    assert Game.objects.get(pk=game.id).ply == 2


def test_analysis_review_graph_summary_and_a_refused_continue(daphne_server: str,
                                                              new_page: Any, console: Any,
                                                              artifacts_dir: Path) -> None:
    console.allowed.append("status of 400")  # the refused position's answer
    pdn = ('[GameType "20"]\n1. 32-28 19-23 2. 28x19 14x23 3. 37-32 10-14 4. 41-37 5-10 '
           '5. 31-27 23-29 *')
    for size, name in ((SMALL_PHONE, "360x640"), (PHONE, "390x844"), (DESKTOP, "1280x800")):
        page = new_page(**size)
        page.goto(daphne_server + "/analysis/")
        page.fill("#an-pdn", pdn)
        page.click("#btn-load")
        page.wait_for_function("window.kondavoAnalysis.plies.length === 11")
        if name != "390x844":
            review(page, artifacts_dir, name)
        if name != "360x640":
            page.wait_for_function("window.kondavoAnalysis.view === 10")
            continue_refused(page, artifacts_dir, name)


def review(page: Any, artifacts_dir: Path, name: str) -> None:
    """The whole game reviewed: a progress bar while it runs, then the graph (a click goes to
    a move) and the per-side summary; the page then goes back to the last move."""
    page.click("#btn-review")
    page.locator("#review-progress").wait_for(state="visible")
    page.wait_for_function("document.getElementById('review-status').textContent"
                           ".startsWith('Review done')", timeout=60_000)
    assert page.locator("#review-progress").is_hidden()
    assert page.locator("#eval-graph svg").count() == 1
    assert page.get_attribute("#eval-graph", "data-points") == "11"
    rows = page.locator("#review-summary tbody tr")
    assert rows.count() == 3 and page.locator("#review-summary").is_visible()
    marks = page.evaluate("window.kondavoAnalysis.marks")
    counted = page.evaluate("""() => [...document.querySelectorAll(
        '#review-summary td')].reduce((n, td) => n + Number(td.textContent), 0)""")
    assert counted == len(marks)
    # A click on the graph's left edge goes to the start, on its middle to the middle.
    graph = page.locator("#eval-graph")
    box = graph.bounding_box()
    graph.click(position={"x": 2, "y": box["height"] / 2})
    page.wait_for_function("window.kondavoAnalysis.view === 0")
    box = graph.bounding_box()
    graph.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    page.wait_for_function("window.kondavoAnalysis.view === 5")
    page.locator("#review-summary").scroll_into_view_if_needed()
    shot(page, artifacts_dir, f"analysis-review-{name}")
    no_sideways_scroll(page)
    page.keyboard.press("End")
    page.wait_for_function("window.kondavoAnalysis.view === 10")


def continue_refused(page: Any, artifacts_dir: Path, name: str) -> None:
    """"Continue from here" with a position the server refuses: the page stays, says why,
    and keeps the game and the position shown."""
    url = page.url
    page.locator("#continue summary").click()
    page.evaluate("document.getElementById('continue-fen').value = 'W:W99:B1'")
    page.click("button[data-action=continue-computer]")
    page.locator("#continue-error").wait_for(state="visible")
    page.wait_for_function("document.getElementById('continue-error').textContent.length > 0")
    assert page.url == url
    assert page.evaluate("window.kondavoAnalysis.plies.length") == 11
    assert page.evaluate("window.kondavoAnalysis.view") == 10
    assert page.is_enabled("button[data-action=continue-computer]")
    page.locator("#continue-error").scroll_into_view_if_needed()
    shot(page, artifacts_dir, f"analysis-continue-refused-{name}")
    no_sideways_scroll(page)


def test_layout_leftovers(daphne_server: str, new_page: Any, artifacts_dir: Path) -> None:
    # Polish home page at 390 px: every ruleset's name stays inside its chip.
    page = new_page(**PHONE, locale="pl")
    page.goto(daphne_server + "/")
    page.context.add_cookies([{"name": "django_language", "value": "pl", "url": daphne_server}])
    page.goto(daphne_server + "/")
    assert page.evaluate("document.documentElement.lang").startswith("pl")
    # Whole words: without breaking inside a word, no name is wider than its place.
    overflow = page.evaluate("""() => [...document.querySelectorAll('.ruleset-name')]
        .filter((name) => {
            name.style.overflowWrap = 'normal';
            const over = name.scrollWidth > name.clientWidth ||
                name.getBoundingClientRect().right >
                name.closest('.ruleset-option').getBoundingClientRect().right;
            name.style.overflowWrap = '';
            return over;
        }).map((name) => name.textContent.trim())""")
    assert overflow == []
    shot(page, artifacts_dir, "home-pl-390x844")

    # The lobby's "Player name" field looks like the other fields.
    page = new_page(**DESKTOP)
    page.goto(daphne_server + "/lobby/")
    name_field = page.evaluate("""() => {
        const s = getComputedStyle(document.getElementById('challenge-name'));
        const r = getComputedStyle(document.querySelector('#challenge-form select'));
        return [s.borderRadius === r.borderRadius, s.paddingLeft === r.paddingLeft,
                s.borderTopColor === r.borderTopColor];
    }""")
    assert name_field == [True, True, True]
    shot(page, artifacts_dir, "lobby-1280x800")

    # A player's desktop game screen (with the notification bell): the header keeps its
    # height and the bottom player row ends with a margin above the window's edge.
    page = new_page(**DESKTOP)
    page.goto(daphne_server + "/")
    logged_in(page, daphne_server, "touch-layout")
    page.goto(daphne_server + "/")
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="international", color="black",
                                    time_control="5+3")
    page.goto(f"{daphne_server}/game/{game.id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    join_game(page)
    assert page.locator(".notify-bell").count() == 1
    header = page.evaluate("document.querySelector('.site-header').getBoundingClientRect()"
                           ".height")
    assert header <= 56
    bottom = page.evaluate("document.getElementById('player-bottom')"
                           ".getBoundingClientRect().bottom")
    assert bottom <= 800 - 12, bottom
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight + 1") or \
        bottom <= 800 - 12
    shot(page, artifacts_dir, "game-1280x800")
