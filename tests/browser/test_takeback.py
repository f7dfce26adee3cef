"""Takeback on the game page, in a real Chromium against a real Daphne: the button's frame
names the ply the board shows, so pressing it twice before the server answers takes back one
turn, not two (the second frame is refused with ``stale_ply``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from frontend_helpers import play_path, wait_my_turn

from kondavo.games.models import Game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_double_press_of_takeback_takes_back_one_turn(daphne_server: str,
                                                       new_page: Any) -> None:
    page = new_page()
    page.goto(daphne_server + "/")
    page.check("input[name=ruleset][value=international]")
    page.locator("label:has(input[name=color][value=white])").click()
    page.select_option("#time-control", "untimed")
    page.select_option("#level", "1")
    page.click("button[data-action=computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    for _ in range(2):  # two moves of mine, each answered by the computer
        state = wait_my_turn(page)
        play_path(page, state["legal"][0]["path"])
    state = wait_my_turn(page)
    assert state["ply"] == 4 and state["takeback_allowed"] is True
    page.evaluate("""() => {  // record what the page sends from now on
        window.__sent = [];
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
            window.__sent.push(data);
            return send.call(this, data);
        };
    }""")
    # Both presses in one go: the board still shows ply 4 for the second.
    page.evaluate("""() => {
        const b = document.querySelector('#controls button[data-action=takeback]');
        b.click(); b.click();
    }""")
    page.wait_for_function("window.kondavoGame.state.ply === 2")
    page.wait_for_function(
        "document.getElementById('toast').textContent.includes('position changed')")
    frames = [f for f in page.evaluate("window.__sent") if '"takeback"' in f]
    assert frames == ['{"t":"takeback","d":{"ply":4}}'] * 2
    game = Game.objects.get(pk=game_id)
    assert game.ply == 2 and len(game.moves) == 2
    state = wait_my_turn(page)
    assert state["ply"] == 2 and state["moves"] == game.moves
