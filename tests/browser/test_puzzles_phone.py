"""The puzzle page on a phone (390x844) in a real Chromium against a real Daphne: a visitor
without an account solves one puzzle in each built-in ruleset by tapping the squares (the
board from the solver's side, the reply played by the page), misses one and retries it,
takes a hint, sees a solution; a French visitor gets the page and the forced-capture rule in
French. Screenshots: tests/artifacts/puzzles-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kondavo.puzzles import services
from kondavo.puzzles.models import Puzzle
from tests.puzzles.shots import SHOTS, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def tap_move(page: Any, notation: str) -> None:
    """Tap the squares of the legal move written ``notation`` (origin, then each landing)."""
    legal = page.evaluate("window.kondavoPuzzles.legal")
    entry = next(m for m in legal if m["notation"] == notation)
    before = page.evaluate("window.kondavoPuzzles.ply")
    for square in entry["path"]:
        page.locator(f'#board [data-square="{square}"]').click()
        # The board plays the move as soon as the taps name one legal move.
        if page.evaluate(f"window.kondavoPuzzles.busy || window.kondavoPuzzles.over "
                         f"|| window.kondavoPuzzles.ply !== {before}"):
            return
    raise AssertionError(f"{notation}: the taps did not play it")


def wait_ply(page: Any, ply: int) -> None:
    page.wait_for_function(
        f"window.kondavoPuzzles.ply === {ply} && !window.kondavoPuzzles.busy")


def open_puzzle(page: Any, base: str, ruleset: str) -> None:
    page.goto(f"{base}/puzzles/?ruleset={ruleset}")
    page.wait_for_function("window.kondavoPuzzles && window.kondavoPuzzles.puzzle")


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def test_a_guest_solves_one_puzzle_in_each_ruleset(daphne_server: str, new_page: Any,
                                                    artifacts_dir: Path) -> None:
    services.puzzles_store([shot(k) for k in SHOTS])
    page = new_page(**PHONE)
    for ruleset, data in SHOTS.items():
        open_puzzle(page, daphne_server, ruleset)
        puzzle = page.evaluate("window.kondavoPuzzles.puzzle")
        assert puzzle["ruleset"] == ruleset and puzzle["solver"] == data["solver"]
        # The board is drawn from the solver's side; the board fits the phone's screen.
        assert page.evaluate("window.kondavoPuzzles.puzzle.solver") == data["solver"]
        box = page.locator("#board").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert box["y"] + box["height"] <= 844
        no_sideways_scroll(page)
        solution = data["solution"]
        for ply in range(0, len(solution), 2):
            wait_ply(page, ply)
            tap_move(page, solution[ply])
        page.wait_for_function("window.kondavoPuzzles.over")
        feedback = page.inner_text("#pz-feedback")
        assert feedback.startswith("Solved!"), feedback
        assert page.locator("#pz-next").is_visible()
        page.screenshot(path=str(artifacts_dir / f"puzzles-{ruleset}.png"))
    # Five first attempts, each solved: five puzzles played once, each rating down.
    assert sorted(Puzzle.objects.values_list("plays", flat=True)) == [1] * 5
    assert all(p.rating < 1500 for p in Puzzle.objects.all())


def test_a_miss_a_retry_a_hint_and_the_solution(daphne_server: str, new_page: Any,
                                               artifacts_dir: Path) -> None:
    services.puzzles_store([shot("english"), shot("brazilian")])
    page = new_page(**PHONE)
    open_puzzle(page, daphne_server, "english")
    tap_move(page, "25-22")  # not the shot
    page.wait_for_selector("#pz-feedback[data-kind='wrong']")
    assert "Not this move" in page.inner_text("#pz-feedback")
    assert "1500 → 1338 (-162)" in page.inner_text("#pz-feedback")
    page.locator("#pz-retry").wait_for(state="visible")
    wait_ply(page, 0)
    page.click("#pz-hint")
    page.wait_for_selector('#board [data-square="23"].pz-hint')
    tap_move(page, "23-18")
    wait_ply(page, 2)
    # The reply was a capture: the page says which rule forced it.
    assert "Capture is mandatory" in page.inner_text("#pz-rule")
    tap_move(page, "32x16")
    page.wait_for_function("window.kondavoPuzzles.over")
    assert "not rated" in page.inner_text("#pz-feedback")
    page.screenshot(path=str(artifacts_dir / "puzzles-retry.png"))

    open_puzzle(page, daphne_server, "brazilian")
    page.click("#pz-solution")
    page.wait_for_function("window.kondavoPuzzles.over && !window.kondavoPuzzles.busy")
    assert "e3-d4 d6xf4 g1xe3xg5" in page.inner_text("#pz-feedback")
    assert Puzzle.objects.get(pk="brazilian-00000000aa").plays == 1


def test_the_page_in_french(daphne_server: str, new_page: Any, artifacts_dir: Path) -> None:
    services.puzzles_store([shot("turkish")])
    page = new_page(**PHONE, locale="fr-FR")
    open_puzzle(page, daphne_server, "turkish")
    assert page.inner_text("#pz-hint") == "Indice"
    assert "meilleure suite pour les Blancs" in page.inner_text("#pz-prompt")
    tap_move(page, "b7-b8")
    wait_ply(page, 2)
    rule = page.inner_text("#pz-rule")
    assert "forcé" in rule, rule
    tap_move(page, "b8xb4xh4")
    page.wait_for_function("window.kondavoPuzzles.over")
    assert page.inner_text("#pz-feedback").startswith("Résolu !")
    no_sideways_scroll(page)
    page.screenshot(path=str(artifacts_dir / "puzzles-fr.png"))


def test_the_page_runs_under_the_content_security_policy(daphne_server: str, new_page: Any,
                                                        artifacts_dir: Path) -> None:
    services.puzzles_store([shot("english")])
    page = new_page(**PHONE, csp=True)
    page.goto(f"{daphne_server}/puzzles/english-00000000aa/")
    page.locator('#board [data-square="23"].kb-movable').wait_for()
    page.locator('#board [data-square="23"]').click()
    page.locator('#board [data-square="18"]').click()
    page.wait_for_selector("#pz-feedback[data-kind='right']")
    page.locator('#board [data-square="32"].kb-movable').wait_for()
    # A tap on a piece that cannot move while a capture is due says which rule it is.
    page.locator('#board [data-square="11"]').click()
    page.wait_for_selector("#toast.shown")
    assert "Capture is mandatory" in page.inner_text("#toast")
    page.locator('#board [data-square="32"]').click()
    page.locator('#board [data-square="16"]').click()
    page.wait_for_selector("#pz-next:visible")
    assert page.inner_text("#pz-feedback").startswith("Solved!")
    # The home page's puzzle of the day, drawn by its script under the same policy.
    page.goto(f"{daphne_server}/")
    page.locator("#daily-board .kb-piece").first.wait_for()
    assert page.get_attribute("#daily-puzzle", "href") == "/puzzles/english-00000000aa/"


def test_my_games_brings_back_the_shot_a_guest_missed(daphne_server: str, new_page: Any,
                                                      artifacts_dir: Path) -> None:
    pytest.importorskip("bots.puzzles")
    from kondavo.accounts.models import Player
    from kondavo.games import services as games
    from tests.browser.frontend_helpers import player_of

    page = new_page(**PHONE)
    page.goto(f"{daphne_server}/rules/")
    me = player_of(page)
    other = Player.objects.create(kind=Player.Kind.USER, name="pz-opponent")
    start = "B:W16,19,20,21,22,26,27,28,31:B2,3,7,9,10,11,13,15,18"  # 18x25 wins; 15x24 was played
    game = games.game_create(creator=other, opponent=me, ruleset="english", color="white",
                             start_fen=start)
    games.game_play_move(game_id=game.id, player=me, ply=0, move_text="15x24")
    games.game_resign(game_id=game.id, player=me)
    assert services.game_puzzles_store(game_id=game.id) >= 1  # what the task does

    page.goto(f"{daphne_server}/puzzles/?ruleset=english&mode=mine")
    page.wait_for_function("window.kondavoPuzzles && window.kondavoPuzzles.puzzle")
    assert page.evaluate("window.kondavoPuzzles.puzzle.fen") == start
    assert "you played 15x24 here" in page.inner_text("#pz-feedback")
    tap_move(page, "18x25")
    page.wait_for_function("window.kondavoPuzzles.over")
    assert page.inner_text("#pz-feedback").startswith("Solved!")
    page.screenshot(path=str(artifacts_dir / "puzzles-my-games.png"))
