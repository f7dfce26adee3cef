"""Helpers shared by the front-end browser tests (imported as a top-level module)."""

from __future__ import annotations

from typing import Any


def player_of(page: Any) -> Any:
    """The guest Player of the browser context ``page`` belongs to (made now if the visitor
    has none yet; the page must come from the site)."""
    from django.contrib.sessions.backends.db import SessionStore

    from kondavo.accounts.models import Player
    from kondavo.accounts.services import GUEST_SESSION_KEY

    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    if "sessionid" not in cookies:  # no identity yet: get one, as a first action would
        become_guest(page)
        cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    session = SessionStore(session_key=cookies["sessionid"])
    return Player.objects.get(guest_key=session[GUEST_SESSION_KEY])


def become_guest(page: Any) -> None:
    """The visitor of ``page`` gets a guest identity, as on their first action (the page
    must come from the site: it reads the CSRF cookie)."""
    status = page.evaluate(
        "async () => (await fetch('/accounts/guest/', {method: 'POST', headers: "
        "{'X-CSRFToken': document.cookie.match(/csrftoken=([^;]+)/)[1]}})).status")
    assert status == 200, status


def join_game(page: Any) -> None:
    """Press the game page's Join button (invited to a friend game) and wait for the board."""
    page.click("#btn-join")
    page.wait_for_function("window.kondavoGame && window.kondavoGame.state && "
                           "window.kondavoGame.state.you")


def game_state(page: Any) -> dict[str, Any]:
    return page.evaluate("window.kondavoGame.state")  # type: ignore[no-any-return]


def wait_my_turn(page: Any, timeout: float = 30_000) -> dict[str, Any]:
    page.wait_for_function(
        "() => { const g = window.kondavoGame; return g && g.state && g.state.you &&"
        " g.state.status === 'active' && g.state.turn === g.state.you && g.board.movable; }",
        timeout=timeout,
    )
    return game_state(page)


def play_path(page: Any, path: list[str]) -> None:
    """Click the squares of a legal move's path, one by one (the board stops early when the
    move is already unambiguous)."""
    ply = page.evaluate("window.kondavoGame.state.ply")
    for label in path:
        done = page.evaluate(
            f"window.kondavoGame.state.ply !== {ply} || !window.kondavoGame.board.movable")
        if done:
            break
        page.click(f"#board [data-square='{label}']")
    page.wait_for_function(f"window.kondavoGame.state.ply > {ply}")
