"""The game page as lichess / lidraughts players expect it, in a real Chromium, at phone and
desktop sizes: a whole game on a phone without scrolling, the end-of-game overlay, feedback
on illegal clicks, draw offers in their own line, move navigation, the watch page.
Screenshots go to tests/artifacts/."""

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

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}


def in_viewport(page: Any, selector: str) -> bool:
    """The element is entirely inside the viewport as it is now (no scrolling)."""
    return bool(page.evaluate(
        """(sel) => { const el = document.querySelector(sel); if (!el) return false;
           const r = el.getBoundingClientRect();
           return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5
                  && r.right <= innerWidth + 0.5; }""", selector))


def start_computer_game(page: Any, base: str, ruleset: str, *, time_control: str = "untimed",
                        level: str = "1") -> None:
    page.goto(base + "/")
    page.check(f"input[name=ruleset][value={ruleset}]")
    page.locator("label:has(input[name=color][value=white])").click()
    page.select_option("#time-control", time_control)
    page.select_option("#level", level)
    page.click("button[data-action=computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")


def assert_game_screen(page: Any) -> None:
    """Both players' rows, the board, the status and the game controls are on screen."""
    for sel in ("#player-top", "#board", "#player-bottom", "#status", "#controls",
                ".nav-row", ".site-header"):
        assert in_viewport(page, sel), f"{sel} is not on screen"
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_a_whole_game_against_the_computer_on_a_phone(daphne_server: str, new_page: Any,
                                                     artifacts_dir: Path) -> None:
    page = new_page(**PHONE)
    page.goto(daphne_server + "/")
    # One header row; the navigation opens from the menu button.
    header = page.evaluate("document.querySelector('.site-header').getBoundingClientRect().height")
    assert header <= 64, header
    assert not page.locator(".site-nav").is_visible()
    page.click("#menu-toggle")
    assert page.locator(".site-nav a[href='/lobby/']").is_visible()
    page.screenshot(path=str(artifacts_dir / "phone-menu-open.png"))
    page.click("#menu-toggle")

    start_computer_game(page, daphne_server, "international", time_control="5+3")
    state = wait_my_turn(page)
    assert_game_screen(page)
    assert page.locator("#controls button[data-action=resign]").is_visible()
    assert page.locator("#controls button[data-action=draw_offer]").is_visible()
    page.screenshot(path=str(artifacts_dir / "phone-game-start.png"))

    played = 0
    while played < 6:
        state = wait_my_turn(page)
        if any(m["captured"] for m in state["legal"]):
            assert in_viewport(page, "#capture-banner")
        assert_game_screen(page)
        play_path(page, state["legal"][0]["path"])
        played += 1
    wait_my_turn(page)
    page.wait_for_timeout(400)
    assert_game_screen(page)
    page.screenshot(path=str(artifacts_dir / "phone-game-playing.png"))

    page.click("#controls button[data-action=resign]")  # asks in the page first
    page.click("#controls button[data-confirm=yes]")
    page.wait_for_function("window.kondavoGame.state.status === 'finished'")
    overlay = page.locator("#overlay")
    overlay.wait_for(state="visible")
    assert in_viewport(page, "#overlay")
    assert page.locator("#overlay-score").inner_text() == "0-2"
    assert page.locator("#overlay-title").inner_text() == "You lose"
    assert page.locator("#overlay-reason").inner_text() == "resignation"
    assert page.locator("#overlay button[data-action=rematch]").is_visible()
    assert page.locator("#overlay a", has_text="New game").get_attribute("href") == "/"
    assert page.evaluate("window.scrollY") == 0
    page.screenshot(path=str(artifacts_dir / "phone-game-over.png"))
    # Closing the overlay shows the board; the same actions sit under it.
    page.click("#overlay-close")
    assert not overlay.is_visible()
    assert page.locator("#controls button[data-action=rematch]").is_visible()
    assert in_viewport(page, "#controls")


@pytest.mark.parametrize("size", [SMALL_PHONE, DESKTOP], ids=["360x640", "1280x800"])
def test_game_screen_fits_small_phones_and_desktops(daphne_server: str, new_page: Any,
                                                   artifacts_dir: Path,
                                                   size: dict[str, int]) -> None:
    page = new_page(**size)
    start_computer_game(page, daphne_server, "english", time_control="3+2")
    wait_my_turn(page)
    assert_game_screen(page)
    board = page.evaluate("document.getElementById('board').getBoundingClientRect().width")
    if size is SMALL_PHONE:
        assert board >= 340, board  # the board takes the phone's width
    else:
        assert board >= 480, board
        assert in_viewport(page, "#moves")  # the move list sits beside the board
    page.screenshot(path=str(artifacts_dir / f"game-{size['width']}x{size['height']}.png"))
    # With the forced-capture note (the tallest game screen) it still fits.
    game = games.game_create_vs_computer(player=player_of(page), ruleset="english", level=1,
                                         color="white", start_fen="W:W22,30:B18,5",
                                         time_control="3+2")
    page.goto(f"{daphne_server}/game/{game.id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    wait_my_turn(page)
    page.locator("#capture-banner").wait_for(state="visible")
    page.screenshot(
        path=str(artifacts_dir / f"game-{size['width']}x{size['height']}-capture.png"))
    assert_game_screen(page)
    assert in_viewport(page, "#capture-banner")


def test_illegal_clicks_get_feedback(daphne_server: str, new_page: Any,
                                     artifacts_dir: Path) -> None:
    creator = player_get_or_create_guest(request_session={})
    # White to move must capture: 33x22 is the only legal move.
    game = games.game_create_friend(player=creator, ruleset="international", color="black",
                                    start_fen="W:W33,46:B28,5")
    page = new_page(**PHONE)
    page.goto(f"{daphne_server}/game/{game.id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    join_game(page)  # the invited person presses Join
    state = wait_my_turn(page)
    assert [m["notation"] for m in state["legal"]] == ["33x22"]
    toast = page.locator("#toast")
    page.click("#board [data-square='46']")  # a piece that may not move: a capture is due
    toast.wait_for(state="visible")
    assert "capture is mandatory" in toast.inner_text().lower()
    assert "kb-reject" in (page.locator("#board [data-square='46']").get_attribute("class") or "")
    page.screenshot(path=str(artifacts_dir / "phone-illegal-click.png"))
    page.click("#board [data-square='5']")  # the opponent's piece
    page.wait_for_function("document.getElementById('toast').textContent.includes('opponent')")
    page.click("#board [data-square='33']")  # select, then a square it cannot reach
    page.click("#board [data-square='29']")
    page.wait_for_function(
        "document.getElementById('toast').textContent.toLowerCase().includes('capture')")
    assert game_state(page)["ply"] == 0


def test_draw_offer_is_its_own_line_and_the_offerer_hears_the_decline(
        daphne_server: str, new_page: Any, artifacts_dir: Path) -> None:
    alice, bob = new_page(**PHONE), new_page(**DESKTOP)
    alice.goto(daphne_server + "/")
    become_guest(alice)
    game = games.game_create_friend(player=player_of(alice), ruleset="brazilian",
                                    color="white", time_control="untimed")
    url = f"{daphne_server}/game/{game.id}/"
    alice.goto(url)
    bob.goto(url)
    join_game(bob)
    bob.wait_for_function("window.kondavoGame && window.kondavoGame.state && "
                          "window.kondavoGame.state.you === 'black'")
    play_path(alice, wait_my_turn(alice)["legal"][0]["path"])
    play_path(bob, wait_my_turn(bob)["legal"][0]["path"])
    wait_my_turn(alice)
    bob.click("#controls button[data-action=draw_offer]")
    alice.locator("#offer").wait_for(state="visible")
    assert alice.locator("#offer-text").inner_text() == "Black offers a draw."
    assert alice.locator("#status").inner_text() == "Your turn"
    assert bob.locator("#offer-text").inner_text() == "You offered a draw."
    assert bob.locator("#status").inner_text() == "Waiting for your opponent"
    assert in_viewport(alice, "#offer button[data-action=draw_decline]")
    alice.screenshot(path=str(artifacts_dir / "phone-draw-offered.png"))
    alice.click("#offer button[data-action=draw_decline]")
    bob.wait_for_function("document.getElementById('toast').textContent.includes('declined')")
    assert not bob.locator("#offer").is_visible()
    bob.screenshot(path=str(artifacts_dir / "desktop-draw-declined.png"))


def test_stepping_back_and_forth_through_the_moves(daphne_server: str, new_page: Any,
                                                  artifacts_dir: Path) -> None:
    page = new_page(**DESKTOP)
    start_computer_game(page, daphne_server, "spanish")
    for _ in range(3):
        play_path(page, wait_my_turn(page)["legal"][0]["path"])
    state = wait_my_turn(page)
    moves = state["moves"]
    assert len(moves) >= 5
    page.wait_for_function(f"window.kondavoGame.plies && "
                           f"window.kondavoGame.plies.length === {len(moves) + 1}")
    plies = page.evaluate("window.kondavoGame.plies")
    page.locator("body").press("ArrowLeft")
    page.wait_for_function(f"window.kondavoGame.view === {len(moves) - 1}")
    # The board shows the position before the last move, and nothing can be played.
    assert page.evaluate("window.kondavoGame.board.fen") == plies[len(moves) - 1]["fen"]
    assert page.evaluate("window.kondavoGame.board.movable") is None
    assert page.locator("#review-note").is_visible()
    page.keyboard.press("ArrowUp")  # the start
    page.wait_for_function("window.kondavoGame.view === 0")
    assert page.evaluate("window.kondavoGame.board.fen") == plies[0]["fen"]
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.kondavoGame.view === 1")
    # A click in the move list jumps to that move.
    page.click("#moves button[data-ply='2']")
    page.wait_for_function("window.kondavoGame.view === 2")
    assert page.locator("#moves button.current").inner_text() == moves[1]
    page.screenshot(path=str(artifacts_dir / "desktop-move-navigation.png"))
    # One key returns to the live board, where the player can move again.
    page.keyboard.press("ArrowDown")
    page.wait_for_function("window.kondavoGame.view === null && window.kondavoGame.board.movable")
    assert page.evaluate("window.kondavoGame.board.fen") == state["fen"]
    play_path(page, wait_my_turn(page)["legal"][0]["path"])


def test_a_replay_that_missed_a_move_is_fetched_again(daphne_server: str,
                                                     new_page: Any) -> None:
    """The page loads every ply's position (replay.json) when it opens; if a move is played
    while that request is on its way, the reply does not match the game any more and must be
    fetched again (else move navigation stays off for the rest of the game)."""
    page = new_page(**DESKTOP)
    calls: list[str] = []

    def first_reply_is_stale(route: Any) -> None:
        calls.append(route.request.url)
        if len(calls) == 1:  # as if sent before the moves now on the board
            route.fulfill(status=200, content_type="application/json", body='{"plies": []}')
        else:
            route.continue_()

    page.route("**/replay.json", first_reply_is_stale)
    start_computer_game(page, daphne_server, "spanish")
    moves = wait_my_turn(page)["moves"]
    page.wait_for_function(f"window.kondavoGame.plies && "
                           f"window.kondavoGame.plies.length === {len(moves) + 1}")
    assert len(calls) >= 2


def test_watch_page_lists_live_games(daphne_server: str, new_page: Any,
                                     artifacts_dir: Path) -> None:
    creator = player_get_or_create_guest(request_session={})
    live = games.game_create_vs_computer(player=creator, ruleset="turkish", level=6,
                                         color="white", time_control="untimed")
    for size, name in ((PHONE, "phone"), (DESKTOP, "desktop")):
        page = new_page(**size)
        page.goto(daphne_server + "/watch/")
        card = page.locator(f"#live-games [data-game='{live.id}']")
        card.wait_for()
        assert "Kondavo AI 6" in card.inner_text()
        assert page.locator(f"#live-games [data-game='{live.id}'] .kb-piece").count() == 32
        page.screenshot(path=str(artifacts_dir / f"{name}-watch.png"))
    page.goto(daphne_server + "/watch/?ruleset=english")
    assert page.locator(f"#live-games [data-game='{live.id}']").count() == 0
    page.goto(daphne_server + "/watch/?ruleset=turkish")
    page.click(f"#live-games [data-game='{live.id}'] a")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    assert game_state(page)["you"] is None


def pdn_of_opening(ruleset: str, plies: int = 6) -> str:
    """A short game of ``ruleset`` as PDN text (first legal move each turn)."""
    from variants import GameRecord, get_variant
    from variants.pdn import write_pdn

    variant = get_variant(ruleset)
    record = GameRecord.new(variant)
    for _ in range(plies):
        record.push(variant.legal_moves(record.position)[0])
    return write_pdn(record, {"Event": "Browser test", "Result": "*"})


@pytest.mark.parametrize("ruleset", ["international", "english", "brazilian", "spanish",
                                     "turkish"])
def test_analysis_board_evaluates_a_pasted_pdn(daphne_server: str, new_page: Any,
                                               artifacts_dir: Path, ruleset: str) -> None:
    size = PHONE if ruleset in ("english", "turkish") else DESKTOP
    page = new_page(**size)
    page.goto(daphne_server + "/analysis/")
    page.select_option("#an-ruleset", ruleset)
    page.fill("#an-pdn", pdn_of_opening(ruleset))
    page.click("#btn-load")
    page.wait_for_function("window.kondavoAnalysis.plies.length === 7")
    assert page.evaluate("window.kondavoAnalysis.ruleset") == ruleset
    # The last position is shown with the engine's evaluation and best line.
    page.wait_for_function("document.getElementById('best-line').textContent.length > 0",
                           timeout=30_000)
    evaluation = page.locator("#eval-text").inner_text()
    assert re.search(r"[+-]?\d+\.\d\d · depth \d+|wins in \d+", evaluation), evaluation
    assert page.locator("#best-line").inner_text().startswith("Best line: ")
    # Step back: another position, another evaluation.
    page.locator("body").press("ArrowLeft")
    page.wait_for_function("window.kondavoAnalysis.view === 5")
    fen5 = page.evaluate("window.kondavoAnalysis.plies[5].fen")
    page.wait_for_function(f"window.kondavoAnalysis.evals[{fen5!r}] !== undefined",
                           timeout=30_000)
    assert page.evaluate("window.kondavoAnalysis.board.fen") == fen5
    page.screenshot(path=str(artifacts_dir / f"analysis-{ruleset}.png"))


def test_analysis_board_reports_bad_pdn_and_reviews_a_finished_game(
        daphne_server: str, new_page: Any, console: Any, artifacts_dir: Path) -> None:
    console.allowed.append("status of 400")  # the bad PDN's answer
    page = new_page(**DESKTOP)
    page.goto(daphne_server + "/analysis/")
    page.select_option("#an-ruleset", "english")
    page.fill("#an-pdn", "1. 11-15 99-100 *")
    page.click("#btn-load")
    error = page.locator("#load-error")
    error.wait_for(state="visible")
    assert "could not be read" in error.inner_text() or "move" in error.inner_text()

    # A finished game opens from the game page's overlay, and is reviewed move by move.
    creator = player_get_or_create_guest(request_session={})
    game = games.game_create_friend(player=creator, ruleset="international", color="black",
                                    start_fen="W:W30,40:B25,14")
    page.goto(f"{daphne_server}/game/{game.id}/")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    join_game(page)
    play_path(page, wait_my_turn(page)["legal"][0]["path"])  # White's first move
    page.wait_for_function("window.kondavoGame.state.ply === 1")
    page.click("#controls button[data-action=resign]")
    page.click("#controls button[data-confirm=yes]")
    page.locator("#overlay").wait_for(state="visible")
    page.locator("#overlay a", has_text="Analyse").click()
    page.wait_for_function("window.kondavoAnalysis && window.kondavoAnalysis.plies.length === 2")
    page.click("#btn-review")
    page.wait_for_function("document.getElementById('review-status').textContent"
                           ".startsWith('Review done')", timeout=30_000)
    assert page.evaluate("Object.keys(window.kondavoAnalysis.evals).length") == 2
    page.screenshot(path=str(artifacts_dir / "desktop-analysis-review.png"))


def test_position_editor_and_continue_against_the_computer(daphne_server: str,
                                                           new_page: Any,
                                                           artifacts_dir: Path) -> None:
    page = new_page(**PHONE)
    page.goto(daphne_server + "/analysis/?ruleset=brazilian")
    page.click("#btn-editor")
    page.click("#editor-clear")
    page.locator("label:has(input[name=palette][value=white-king])").click()
    page.click("#board [data-square='d4']")
    page.locator("label:has(input[name=palette][value=black-man])").click()
    page.click("#board [data-square='c5']")
    page.click("#board [data-square='e7']")
    page.screenshot(path=str(artifacts_dir / "phone-analysis-editor.png"))
    page.click("#editor-done")
    page.wait_for_function("window.kondavoAnalysis.plies.length === 1 && "
                           "!window.kondavoAnalysis.editing")
    assert page.evaluate("window.kondavoAnalysis.plies[0].fen") == "W:WKd4:Be7,c5"
    page.wait_for_function("document.getElementById('best-line').textContent.length > 0",
                           timeout=30_000)
    page.locator("#continue summary").click()
    page.select_option("#continue-level", "1")
    page.click("button[data-action=continue-computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    state = game_state(page)
    assert state["you"] == "white" and state["fen"] == "W:WKd4:Be7,c5"


def log_in(page: Any, base: str, name: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"pw-{name}-Xy9!")
    page.click("form[action='/accounts/login/'] button[type=submit]")
    page.wait_for_url(lambda u: "/accounts/login/" not in u)


def test_challenge_from_a_profile_is_answered_from_any_page(daphne_server: str, new_page: Any,
                                                            artifacts_dir: Path) -> None:
    """Issue 20: Alice challenges Bob from his profile; nobody is seated yet. Bob, on the
    home page, sees the challenge (the notification socket of every page), accepts, and
    both land in the game (Alice's lobby page waited for the answer)."""
    from django.contrib.auth import get_user_model

    from kondavo.accounts.services import player_for_user
    from kondavo.games.models import Game

    for name in ("alice", "bob"):
        player_for_user(user=get_user_model().objects.create_user(
            name, password=f"pw-{name}-Xy9!"))
    alice, bob = new_page(**DESKTOP), new_page(**PHONE)
    log_in(bob, daphne_server, "bob")
    bob.goto(daphne_server + "/")
    bob.wait_for_selector("#notify-bell")
    log_in(alice, daphne_server, "alice")
    alice.goto(daphne_server + "/profile/bob/")
    alice.locator("#challenge summary").click()
    alice.select_option("#ch-ruleset", "spanish")
    alice.select_option("#ch-color", "white")
    alice.check("#challenge input[name=rated]")
    alice.screenshot(path=str(artifacts_dir / "desktop-profile-challenge.png"))
    alice.click("#challenge button[type=submit]")
    alice.wait_for_url(re.compile(r"/lobby/\?challenge=\d+$"))
    alice.locator("#challenge-notice").wait_for(state="visible")
    assert Game.objects.count() == 0  # nobody seated before Bob says yes
    toast = bob.locator(".notify-toast[data-kind=challenge]")
    toast.wait_for(state="visible")
    assert "alice challenges you" in toast.inner_text()
    assert bob.locator("#notify-count").inner_text() == "1"
    bob.screenshot(path=str(artifacts_dir / "phone-challenge-notice.png"))
    toast.locator("button[data-action=accept]").click()
    bob.wait_for_url(re.compile(r"/game/\w+/$"))
    alice.wait_for_url(re.compile(r"/game/\w+/$"))
    for page in (alice, bob):
        page.wait_for_function("window.kondavoGame && window.kondavoGame.state")
    state = game_state(alice)
    assert (state["you"], state["variant"], state["rated"]) == ("white", "spanish", True)
    assert game_state(bob)["you"] == "black" and game_state(bob)["id"] == state["id"]


@pytest.fixture(scope="module")
def quick_claim_server(django_db_setup: None, artifacts_dir: Path) -> Any:
    """A Daphne of its own where an absent opponent may be claimed after 6 s, not 60 s."""
    from daphne_process import running_daphne
    from django.db import connection

    with running_daphne(connection.settings_dict, artifacts_dir / "daphne-claim.log",
                        KONDAVO_SERVE_STATIC="true", KONDAVO_BOT_INPROCESS="true",
                        KONDAVO_CLAIM_VICTORY_SECONDS="6") as (_proc, base_url):
        yield base_url


@pytest.mark.timing
@pytest.mark.parametrize("claim", ["claim_victory", "claim_draw"])
def test_opponent_left_countdown_then_claim(quick_claim_server: str, new_page: Any,
                                            artifacts_dir: Path, claim: str) -> None:
    base = quick_claim_server
    alice, bob = new_page(**PHONE), new_page(**DESKTOP)
    alice.goto(base + "/")
    become_guest(alice)
    game = games.game_create_friend(player=player_of(alice), ruleset="international",
                                    color="white", time_control="untimed")
    alice.goto(f"{base}/game/{game.id}/")
    bob.goto(f"{base}/game/{game.id}/")
    join_game(bob)
    bob.wait_for_function("window.kondavoGame && window.kondavoGame.state && "
                          "window.kondavoGame.state.you === 'black'")
    play_path(alice, wait_my_turn(alice)["legal"][0]["path"])
    wait_my_turn(bob)
    notice = alice.locator("#notice")
    assert not notice.is_visible()
    bob.context.close()  # Black leaves: the tab is closed
    notice.wait_for(state="visible")
    text = alice.locator("#notice-text").inner_text()
    seconds = int(re.search(r"in (\d+) s", text).group(1))  # type: ignore[union-attr]
    assert 1 <= seconds <= 6, text
    assert alice.locator("#notice button").count() == 0  # nothing to claim yet
    alice.screenshot(path=str(artifacts_dir / "phone-opponent-left-countdown.png"))
    button = alice.locator(f"#notice button[data-action={claim}]")
    button.wait_for(state="visible", timeout=15_000)
    assert "Claim victory" in alice.locator("#notice").inner_text()
    alice.screenshot(path=str(artifacts_dir / "phone-opponent-left-claim.png"))
    button.click()
    alice.wait_for_function("window.kondavoGame.state.status === 'finished'")
    alice.locator("#overlay").wait_for(state="visible")
    title = alice.locator("#overlay-title").inner_text()
    assert title == ("You win!" if claim == "claim_victory" else "Draw"), title
    assert alice.locator("#overlay-reason").inner_text() == "the opponent left the game"


@pytest.mark.timing
def test_clocks_are_untouched_until_the_first_moves(daphne_server: str, new_page: Any,
                                                    artifacts_dir: Path) -> None:
    page = new_page(**PHONE)
    start_computer_game(page, daphne_server, "international", time_control="3+2")
    state = wait_my_turn(page)
    assert state["clocks"]["running"] is None and state["abort_at"] is not None
    mine = page.locator("#player-bottom .clock")
    theirs = page.locator("#player-top .clock")
    assert mine.inner_text() == theirs.inner_text() == "3:00"
    status = page.locator("#status")
    assert re.search(r"Your turn: \d+ s for your first move", status.inner_text()), \
        status.inner_text()
    page.wait_for_timeout(1500)
    assert mine.inner_text() == "3:00"  # nothing ran while the first move waited
    page.screenshot(path=str(artifacts_dir / "phone-first-move.png"))
    play_path(page, state["legal"][0]["path"])
    state = wait_my_turn(page)  # the computer made its first move: now clocks run
    assert theirs.inner_text() == "3:00" and state["clocks"]["running"] == "white"
    page.wait_for_timeout(1300)
    assert mine.inner_text() != "3:00"
    assert "first move" not in status.inner_text()


@pytest.fixture(scope="module")
def quick_abort_server(django_db_setup: None, artifacts_dir: Path) -> Any:
    """A Daphne of its own where a first move must come within 8 s (not 30 s)."""
    from daphne_process import running_daphne
    from django.db import connection

    with running_daphne(connection.settings_dict, artifacts_dir / "daphne-abort.log",
                        KONDAVO_SERVE_STATIC="true", KONDAVO_BOT_INPROCESS="true",
                        KONDAVO_FIRST_MOVE_SECONDS="8") as (_proc, base_url):
        yield base_url


@pytest.mark.timing
def test_a_game_without_a_first_move_is_aborted(quick_abort_server: str, new_page: Any,
                                                artifacts_dir: Path) -> None:
    base = quick_abort_server
    alice, bob = new_page(**PHONE), new_page(**DESKTOP)
    alice.goto(base + "/")
    become_guest(alice)
    game = games.game_create_friend(player=player_of(alice), ruleset="turkish",
                                    color="white", time_control="5+3")
    alice.goto(f"{base}/game/{game.id}/")
    bob.goto(f"{base}/game/{game.id}/")
    join_game(bob)
    bob.wait_for_function("window.kondavoGame && window.kondavoGame.state && "
                          "window.kondavoGame.state.you === 'black'")
    alice.wait_for_function("window.kondavoGame.state.status === 'active'")
    assert "first move" in alice.locator("#status").inner_text()
    assert re.search(r"White has \d+ s for a first move", bob.locator("#status").inner_text())
    for page in (alice, bob):  # nobody moves: aborted, no result
        page.wait_for_function("window.kondavoGame.state.status === 'aborted'", timeout=30_000)
        page.locator("#overlay").wait_for(state="visible")
        assert page.locator("#overlay-title").inner_text() == "Game aborted"
        assert page.locator("#overlay-reason").inner_text() == (
            "White did not make a first move in time: no result, unrated.")
    alice.screenshot(path=str(artifacts_dir / "phone-aborted-no-first-move.png"))
    from kondavo.games.models import Game

    row = Game.objects.get(pk=game.id)
    assert row.status == Game.Status.ABORTED and not row.winner and row.moves == []
