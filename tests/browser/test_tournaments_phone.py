"""Tournament pages on a phone, in a real Chromium against a real Daphne.

- Two players with accounts join an arena from its page (390x844), are paired when it
  starts and land in their game without touching anything (the socket's ``game`` frame);
  the game page links back to the tournament and offers Berserk before the first move; a
  French spectator's page (its words translated) sees the standings move when the game ends
  and reads a player's line in the tournament's chat.
- The tournament list, a running tournament with standings, the creation form and a
  finished tournament with its podium have no sideways scrolling at 360x640 and 390x844 and
  work at 1280x800; screenshots go to ``KONDAVO_TOURNAMENT_SHOTS`` (else the artifacts).

No Celery worker serves the test's Daphne: the tournament's tasks (pairing, scoring a
finished game) run in this process, as a worker would run them (``worker`` below), and reach
the pages over the same bus.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from kondavo.accounts.services import player_for_user
from kondavo.games import services as games
from kondavo.games.models import Game
from kondavo.tournaments import services, tasks
from kondavo.tournaments.models import Pairing, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tournaments app's tasks run at once in this process (the worker's part)."""
    ran: list[str] = []

    def send(name: str, *args: Any) -> None:
        ran.append(name)
        getattr(tasks, name)(*args)

    monkeypatch.setattr(services, "_send_task", send)
    return ran


def shots_dir(artifacts_dir: Path) -> Path:
    path = Path(os.environ.get("KONDAVO_TOURNAMENT_SHOTS") or artifacts_dir / "tournaments")
    path.mkdir(parents=True, exist_ok=True)
    return path


def logged_in(page: Any, base: str, name: str) -> Any:
    """An account, logged in in ``page``'s browser context (its Player)."""
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-Xy9!")
    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": base}])
    return player_for_user(user=user)


def overflow(page: Any) -> int:
    """How far the page scrolls sideways (0: not at all)."""
    return int(page.evaluate("document.scrollingElement.scrollWidth - innerWidth"))


def test_arena_on_phones_pairs_redirects_and_moves_the_standings(
        daphne_server: str, new_page: Any, artifacts_dir: Path, worker: list[str]) -> None:
    shots = shots_dir(artifacts_dir)
    ann_page, ben_page = new_page(**PHONE), new_page(**PHONE)
    watcher = new_page(**PHONE, locale="fr-FR")
    for page in (ann_page, ben_page, watcher):
        page.goto(daphne_server + "/rules/")  # a page of the site, for the cookies' origin
    ann = logged_in(ann_page, daphne_server, "arena-ann")
    logged_in(ben_page, daphne_server, "arena-ben")
    t = services.tournament_create(creator=ann, name="Phone Arena", kind="arena",
                                   ruleset="english", time_control="3+2",
                                   starts_at=timezone.now() + timedelta(minutes=10),
                                   duration_minutes=30)
    url = f"{daphne_server}/tournaments/{t.pk}/"
    for page in (ann_page, ben_page):
        page.goto(url)
        page.click("#t-join")
        page.wait_for_selector("#t-withdraw")
        page.wait_for_function("document.getElementById('t-rows').children.length >= 1")
    watcher.goto(url)
    watcher.wait_for_function("document.getElementById('t-rows').children.length === 2")
    assert "Classement" in watcher.locator(".t-standings h2").inner_text()
    assert "Commence dans" in watcher.locator("#t-clock").inner_text()
    # A visitor without an account is asked to log in to join a rated arena.
    assert watcher.locator("#t-login").inner_text() == "Connectez-vous pour participer"
    assert watcher.locator("#t-join").count() == 0
    ann_page.screenshot(path=str(shots / "arena-joined-390.png"))

    # It starts: both are paired and taken into their game by the page itself.
    assert services.tournament_tick(tournament_id=t.pk) == "none"
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now())
    assert services.tournament_tick(tournament_id=t.pk) == "started"
    pairing = Pairing.objects.get(tournament=t, result="")
    game_url = f"/game/{pairing.game_id}/"
    for page in (ann_page, ben_page):
        page.wait_for_url(f"**{game_url}", timeout=15_000)
        page.wait_for_function("window.kondavoGame && window.kondavoGame.state"
                               " && window.kondavoGame.state.you")
        link = page.locator("#game-tournament-link")
        assert link.get_attribute("href") == f"/tournaments/{t.pk}/"
        assert "Phone Arena" in link.inner_text()
        assert page.locator("#btn-berserk").is_visible()
        assert overflow(page) <= 0
    white_page, black_page = ((ann_page, ben_page) if pairing.white_id == ann.pk
                              else (ben_page, ann_page))
    white_page.screenshot(path=str(shots / "arena-game-berserk-390.png"))
    # Berserk: the button sits by the game's own buttons, on the first screen.
    box = white_page.locator("#btn-berserk").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]
    white_page.click("#btn-berserk")
    white_page.wait_for_selector("#btn-berserk", state="hidden")
    assert "Berserk" in white_page.locator("#berserk-note").inner_text()
    game = Game.objects.get(pk=pairing.game_id)
    assert game.white_ms == game.clock_initial_ms // 2
    # One move each (Black starts in English draughts); Black's Berserk goes once Black
    # has moved.
    for page in (black_page, white_page):
        page.wait_for_function(
            "() => { const g = window.kondavoGame; return g.state.turn === g.state.you"
            " && g.board.movable; }")
        state = page.evaluate("window.kondavoGame.state")
        ply = state["ply"]
        for square in state["legal"][0]["path"]:
            if page.evaluate(f"window.kondavoGame.state.ply !== {ply}"):
                break
            page.click(f"#board [data-square='{square}']")
        page.wait_for_function(f"window.kondavoGame.state.ply > {ply}")
    black_page.wait_for_selector("#btn-berserk", state="hidden")

    # The spectator's standings move when the game ends (the black player resigns).
    watcher.wait_for_function(
        "[...document.querySelectorAll('#t-rows .t-score')].every(s => s.textContent === '0')")
    black_page.click("#controls button[data-action=resign]")
    black_page.click("#controls button[data-confirm=yes]")
    black_page.wait_for_function("window.kondavoGame.state.status === 'finished'")
    assert services.tournament_record_result(game_id=pairing.game_id)  # the worker's task
    white_name = "arena-ann" if pairing.white_id == ann.pk else "arena-ben"
    watcher.wait_for_function(
        "() => { const r = document.querySelector('#t-rows .t-row');"
        f" return r && r.querySelector('.t-name').textContent === '{white_name}'"
        " && r.querySelector('.t-score').textContent === '3'; }", timeout=15_000)
    assert overflow(watcher) <= 0
    watcher.screenshot(path=str(shots / "arena-standings-moved-fr-390.png"), full_page=True)
    # Back to the tournament from the game: the next game is already there.
    white_page.click("#game-tournament-link")
    white_page.wait_for_url(f"**/tournaments/{t.pk}/")
    assert "tournament_pair" in worker

    # The tournament's chat: a player writes, the spectator reads (folded until tapped).
    white_page.wait_for_selector("#chat:not([hidden])")
    white_page.click("#chat > summary")
    white_page.fill("#chat-input", "gg <b>all</b>")
    white_page.press("#chat-input", "Enter")
    watcher.wait_for_selector("#chat:not([hidden])")
    watcher.wait_for_function("document.getElementById('chat-count').textContent === '•'")
    watcher.click("#chat > summary")
    line = watcher.locator("#chat-lines .chat-line").first
    line.wait_for()
    assert line.locator(".chat-text").inner_text().strip() == "gg <b>all</b>"
    assert watcher.locator("#chat-form").is_hidden()  # a visitor reads, never writes
    assert overflow(watcher) <= 0 and overflow(white_page) <= 0
    watcher.screenshot(path=str(shots / "arena-chat-fr-390.png"), full_page=True)


def _field(t_name: str, names: list[str], creator: Any, **kw: Any) -> Tournament:
    args: dict[str, Any] = {"kind": "arena", "ruleset": "international",
                            "time_control": "5+3", "duration_minutes": 60,
                            "starts_at": timezone.now() + timedelta(minutes=30)}
    args.update(kw)
    t = services.tournament_create(creator=creator, name=t_name, **args)
    User = get_user_model()
    for name in names:
        user = User.objects.create_user(name, password=f"pw-{name}-Xy9!")
        services.tournament_join(tournament_id=t.pk, player=player_for_user(user=user))
    return t


def _play_out(t: Tournament, rounds: int) -> None:
    for _ in range(rounds):
        for p in Pairing.objects.filter(tournament=t, result="").select_related("game"):
            loser = p.game.black if p.pk % 2 else p.game.white
            games.game_resign(game_id=p.game_id, player=loser)


def test_tournament_pages_fit_phones_and_a_desktop(daphne_server: str, new_page: Any,
                                                   artifacts_dir: Path,
                                                   worker: list[str]) -> None:
    shots = shots_dir(artifacts_dir)
    setup = new_page()
    setup.goto(daphne_server + "/rules/")
    boss = logged_in(setup, daphne_server, "t-organiser")
    long_names = ["Maximiliana-Konstantinopolous-1", "Wojciech_Brzęczyszczykiewicz",
                  "Ayşegül-Karaosmanoğlu-Dama", "João_Guimarães_Rosa_2026", "eve", "fay",
                  "gus", "hal", "ivy", "jon"]
    running = _field("Thursday Evening International Draughts Marathon Arena", long_names,
                     boss, starts_at=timezone.now() + timedelta(seconds=1))
    services.tournament_tick(tournament_id=running.pk, now=timezone.now() + timedelta(seconds=2))
    _play_out(running, 3)
    finished = _field("Finished Swiss", ["kim", "lea", "max", "ned", "ola"], boss,
                      kind="swiss", rounds=2, starts_at=timezone.now() + timedelta(seconds=1))
    services.tournament_tick(tournament_id=finished.pk,
                             now=timezone.now() + timedelta(seconds=2))
    _play_out(finished, 2)
    finished.refresh_from_db()
    assert finished.status == Tournament.Status.FINISHED
    _field("Upcoming Blitz", ["pia"], boss, time_control="1+0")

    pages = {"list": "/tournaments/", "running": f"/tournaments/{running.pk}/",
             "new": "/tournaments/new/", "finished": f"/tournaments/{finished.pk}/"}
    widths: dict[str, int] = {}
    for size_name, size in (("360", SMALL_PHONE), ("390", PHONE), ("1280", DESKTOP)):
        page = new_page(**size)
        page.goto(daphne_server + "/rules/")
        page.context.add_cookies(setup.context.cookies())
        for name, path in pages.items():
            page.goto(daphne_server + path)
            if name in ("running", "finished"):
                page.wait_for_function(
                    "document.getElementById('t-rows').children.length >= 5")
            if name == "finished":
                page.wait_for_selector("#t-podium .t-step-1")
            page.wait_for_timeout(200)
            widths[f"{name}@{size_name}"] = overflow(page)
            page.screenshot(path=str(shots / f"{name}-{size_name}.png"), full_page=True)
            if name == "finished":  # Swiss counts half points: a win 1 on the sheet
                assert page.locator("#t-rows .t-row").first.locator(".t-pt").first \
                    .inner_text() in ("1", "½", "0")
                assert page.locator("#t-podium .t-step").count() == 3
            if name == "running" and size_name == "1280":  # the standings beside the rest
                standings = page.locator(".t-standings").bounding_box()
                featured = page.locator("#t-featured").bounding_box()
                assert standings and featured and featured["x"] > standings["x"] + \
                    standings["width"] - 1
            if name == "running":  # the standings' rows stay inside the screen
                right = page.evaluate(
                    "Math.max(...[...document.querySelectorAll('#t-rows .t-row *')]"
                    ".map(e => e.getBoundingClientRect().right))")
                assert right <= size["width"] + 0.5, (name, size_name, right)
    print("sideways overflow (px):", widths)
    assert all(w <= 0 for w in widths.values()), widths


def test_tournament_pages_under_the_csp(daphne_server: str, new_page: Any, console: Any,
                                        worker: list[str]) -> None:
    """The tournament pages and a tournament game's page run their scripts and styles
    under the site's Content-Security-Policy (nothing inline)."""
    page = new_page(**PHONE, csp=True)
    page.goto(daphne_server + "/rules/")
    me = logged_in(page, daphne_server, "csp-player")
    t = _field("CSP Arena", ["csp-rival"], me, time_control="3+2",
               starts_at=timezone.now() + timedelta(seconds=1))
    services.tournament_join(tournament_id=t.pk, player=me)
    services.tournament_tick(tournament_id=t.pk, now=timezone.now() + timedelta(seconds=2))
    pairing = Pairing.objects.get(tournament=t, result="")
    page.goto(f"{daphne_server}/tournaments/{t.pk}/")
    page.locator("#t-rows .t-row").nth(1).wait_for()  # tournament.js ran (the socket)
    page.locator("#chat:not([hidden])").wait_for()  # and the chat box (chat.js)
    page.goto(f"{daphne_server}/tournaments/new/")
    page.select_option("#t-kind", "swiss")
    page.locator("#t-minutes").wait_for(state="hidden")  # tournament_new.js ran
    page.goto(f"{daphne_server}/game/{pairing.game_id}/")
    page.locator("#btn-berserk").wait_for()
    page.locator(".game-bar #btn-berserk").wait_for()  # game_tournament.js moved it
    page.goto(f"{daphne_server}/tournaments/")
    page.locator(".t-card").first.wait_for()
    assert [e for e in console.errors if "Content Security Policy" in e] == []
