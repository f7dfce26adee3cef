"""Issue 9 item 7 in a real browser: every page works under the site's Content-Security-
Policy (no inline script or style, no eval): the console stays free of "Refused to ..."
errors (checked by ``new_page`` at the end) while a visitor plays a move, opens the lobby
(which gets a guest identity with fetch) and reads the other pages."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_pages_work_under_the_csp(daphne_server: str, new_page: Any, console: Any) -> None:
    console.allowed.append("404 (Not Found)")
    page = new_page(csp=True)
    page.goto(daphne_server + "/")
    page.check("input[name=ruleset][value=english]")
    page.locator("label:has(input[name=color][value=white])").click()
    page.select_option("#time-control", "untimed")
    page.select_option("#level", "1")
    page.click("button[data-action=computer]")
    page.wait_for_url(re.compile(r"/game/\w+/$"))
    page.locator("#board [data-square]").first.wait_for()
    page.locator("#board .kb-movable").first.wait_for()  # the game script ran: moves marked
    state = page.evaluate("() => window.kondavoGame.state")
    assert state["you"] == "white" and state["status"] == "active"
    for label in state["legal"][0]["path"]:
        page.click(f"#board [data-square='{label}']")
    page.locator("#moves li").first.wait_for()

    page.goto(daphne_server + "/lobby/")
    page.select_option("#seek-ruleset", "brazilian")
    page.click("#seek-form button[type=submit]")
    page.locator("#seeks tr.mine").wait_for()

    for path in ("/rules/", "/rules/international/", "/leaderboards/", "/accounts/login/",
                 "/accounts/signup/", "/no/such/page/"):
        page.goto(daphne_server + path)
        page.locator("main, body").first.wait_for()
    csp_errors = [e for e in console.errors if "Content Security Policy" in e]
    assert csp_errors == []
