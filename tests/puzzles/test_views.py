"""The puzzle pages and their JSON endpoints through Django's test client: a guest solves,
CSRF is required, the rate limit and the body limit answer with 429 and 413, a logged-in
guest's progress moves to the account, the home page shows the daily puzzle."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from kondavo.accounts.services import player_for_user
from kondavo.puzzles import services
from kondavo.puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating

from .shots import SHOTS, shot

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture
def puzzles() -> None:
    services.puzzles_store([shot(k) for k in SHOTS])


def post(client: Client, url: str, body: Any, **extra: Any) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json", **extra)


def test_the_page_shows_a_puzzle_from_the_solvers_side(client: Client, puzzles: None) -> None:
    response = client.get("/puzzles/?ruleset=spanish")
    assert response.status_code == 200
    config = json.loads(response.context["config"] and json.dumps(response.context["config"]))
    puzzle = config["puzzle"]
    assert puzzle["id"] == "spanish-00000000aa" and puzzle["solver"] == "black"
    assert puzzle["fen"] == SHOTS["spanish"]["fen"]
    assert "solution" not in puzzle and "28-23" not in json.dumps(puzzle["themes"])
    assert {m["notation"] for m in puzzle["legal"]} >= {"28-23"}
    assert puzzle["capturePoint"] is True
    assert puzzle["captureRule"].startswith("Capture is mandatory")
    assert b"kondavo-puzzles" in response.content
    assert client.get("/puzzles/english-00000000aa/").status_code == 200
    assert client.get("/puzzles/english-nosuch/").status_code == 404


def test_a_guest_solves_over_json(client: Client, puzzles: None) -> None:
    client.get("/puzzles/?ruleset=english")
    assert "sessionid" not in client.cookies  # reading the page makes no session
    url = "/puzzles/english-00000000aa/"
    first = post(client, url + "move", {"ply": 0, "move": "23-18"})
    assert first.status_code == 200
    data = first.json()
    assert data["correct"] and data["reply"]["notation"] == "10x19" and not data["done"]
    done = post(client, url + "move", {"ply": 2, "move": "32x16"}).json()
    assert done["done"] and done["result"] == "solved"
    assert done["rating"] == {"before": 1500, "after": 1662, "delta": 162, "puzzle": 1338}
    assert done["player"]["rating"] == 1662 and done["player"]["provisional"] is True
    assert not PuzzleRating.objects.exists()  # a guest's rating is in the session
    assert Puzzle.objects.get(pk="english-00000000aa").plays == 1
    assert post(client, url + "hint", {"ply": 0}).json() == {"square": "23"}
    line = post(client, url + "solution", {}).json()
    assert [m["notation"] for m in line["line"]] == ["23-18", "10x19", "32x16"]
    assert line["rating"] is None  # solved already: showing it costs nothing


@pytest.mark.parametrize(("url", "body", "status", "code"), [
    ("/puzzles/english-nosuch/move", {"ply": 0, "move": "23-18"}, 404, "not_found"),
    ("/puzzles/english-00000000aa/move", {"ply": 0, "move": "23-17"}, 400, "illegal_move"),
    ("/puzzles/english-00000000aa/move", {"ply": 0, "move": "x" * 150}, 400, "illegal_move"),
    ("/puzzles/english-00000000aa/move", {"ply": 0, "move": "x" * 300}, 400, "too_large"),
    ("/puzzles/english-00000000aa/move", {"ply": 0, "move": "1" * 3000}, 413, "too_large"),
    ("/puzzles/english-00000000aa/move", {"ply": 1}, 400, "bad_request"),
    ("/puzzles/english-00000000aa/move", [1, 2], 400, "bad_request"),
    ("/puzzles/english-00000000aa/hint", {"ply": 3}, 400, "bad_request"),
    ("/puzzles/streak", {"ruleset": "chess"}, 400, "bad_request"),
])
def test_bad_requests_are_refused_and_change_nothing(client: Client, puzzles: None, url: str,
                                                    body: Any, status: int, code: str) -> None:
    response = post(client, url, body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert not Puzzle.objects.filter(plays__gt=0).exists()


def test_posts_need_the_csrf_token(puzzles: None) -> None:
    client = Client(enforce_csrf_checks=True)
    page = client.get("/puzzles/?ruleset=english")
    url = "/puzzles/english-00000000aa/move"
    assert post(client, url, {"ply": 0, "move": "23-18"}).status_code == 403
    token = page.cookies["csrftoken"].value
    ok = post(client, url, {"ply": 0, "move": "23-18"}, HTTP_X_CSRFTOKEN=token)
    assert ok.status_code == 200 and ok.json()["correct"]


def test_the_rate_limit_answers_429(client: Client, puzzles: None, settings: Any) -> None:
    settings.KONDAVO_PUZZLE_RATE = "3/m"
    post(client, "/puzzles/english-00000000aa/move", {"ply": 0, "move": "23-18"})  # a session
    url = "/puzzles/english-00000000aa/hint"
    assert [post(client, url, {"ply": 0}).status_code for _ in range(3)] == [200] * 3
    refused = post(client, url, {"ply": 0})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["error"]["code"] == "rate_limited"


def test_next_and_streak_endpoints(client: Client, puzzles: None) -> None:
    nxt = client.get("/puzzles/next?ruleset=turkish").json()
    assert nxt["puzzle"]["id"] == "turkish-00000000aa" and nxt["streak"] is None
    none = client.get("/puzzles/next?ruleset=turkish&after=turkish-00000000aa").json()
    assert none["puzzle"] is None
    started = post(client, "/puzzles/streak", {"ruleset": "brazilian"}).json()
    assert started["streak"]["count"] == 0 and started["puzzle"]["ruleset"] == "brazilian"
    pid = started["puzzle"]["id"]
    post(client, f"/puzzles/{pid}/move", {"ply": 0, "move": "e3-d4", "mode": "streak"})
    done = post(client, f"/puzzles/{pid}/move",
                {"ply": 2, "move": "g1xe3xg5", "mode": "streak"}).json()
    assert done["streak"]["count"] == 1 and done["rating"] is None
    over = client.get("/puzzles/next?ruleset=brazilian&mode=streak").json()
    assert over["puzzle"] is None and over["streak"]["alive"] is False  # none left


def test_a_guest_who_logs_in_keeps_the_progress(client: Client, puzzles: None) -> None:
    client.get("/puzzles/?ruleset=english")
    post(client, "/puzzles/english-00000000aa/move", {"ply": 0, "move": "25-22"})
    user = get_user_model().objects.create_user("pz-login", password="pw-pz-login-9!x")
    assert client.post("/accounts/login/", {"username": "pz-login",
                                            "password": "pw-pz-login-9!x"}).status_code == 302
    player = player_for_user(user=user)
    row = PuzzleRating.objects.get(player=player, ruleset="english")
    assert (round(row.rating), row.attempts, row.wins) == (1338, 1, 0)
    assert PuzzleAttempt.objects.get(player=player).result == "failed"


def test_home_shows_the_daily_puzzle_and_the_nav_links(client: Client, puzzles: None) -> None:
    home = client.get("/")
    assert b'id="daily-puzzle"' in home.content
    assert b'href="/puzzles/' in home.content
    assert b"Puzzle of the day" in home.content
    rules = client.get("/rules/english/")
    assert b"/puzzles/?ruleset=english" in rules.content


def test_the_page_in_french(client: Client, puzzles: None) -> None:
    response = client.get("/puzzles/?ruleset=english", HTTP_ACCEPT_LANGUAGE="fr")
    assert b"Indice" in response.content
    assert response.context["config"]["i18n"]["pzSolved"] == "Résolu !"


def test_the_staff_disable_a_puzzle_in_the_admin(client: Client, puzzles: None) -> None:
    staff = get_user_model().objects.create_superuser("pz-staff", password="pw-pz-staff-9!x")
    client.force_login(staff)
    assert client.get("/admin/puzzles/puzzle/").status_code == 200
    assert client.get("/admin/puzzles/puzzle/english-00000000aa/change/").status_code == 200
    response = client.post("/admin/puzzles/puzzle/", {
        "action": "disable", "_selected_action": ["english-00000000aa"]})
    assert response.status_code == 302
    assert not Puzzle.objects.get(pk="english-00000000aa").enabled
    assert client.get("/puzzles/english-00000000aa/").status_code == 404
    for page in ("puzzlerating", "puzzleattempt", "dailypuzzle", "puzzlefile", "gamescan"):
        assert client.get(f"/admin/puzzles/{page}/").status_code == 200


def test_the_daily_puzzle_comes_from_a_ruleset_that_has_puzzles(client: Client) -> None:
    services.puzzles_store([shot("turkish")])  # International, offered first, has none
    home = client.get("/")
    assert b'href="/puzzles/turkish-00000000aa/"' in home.content
    assert "sessionid" not in client.cookies


def test_a_guest_who_signs_up_keeps_the_progress(client: Client, puzzles: None) -> None:
    post(client, "/puzzles/turkish-00000000aa/move", {"ply": 0, "move": "b7-b8"})
    post(client, "/puzzles/turkish-00000000aa/move", {"ply": 2, "move": "b8xb4xh4"})
    response = client.post("/accounts/signup/", {"username": "pz-newcomer",
                                                 "password1": "Un-mot-de-passe-9",
                                                 "password2": "Un-mot-de-passe-9"})
    assert response.status_code == 302
    row = PuzzleRating.objects.get(player__name="pz-newcomer", ruleset="turkish")
    assert (round(row.rating), row.attempts, row.wins) == (1662, 1, 1)
    page = client.get("/puzzles/?ruleset=turkish")
    assert page.context["rating"]["rating"] == 1662


def test_load_puzzles_command(tmp_path: Any) -> None:
    from django.core.management import CommandError, call_command

    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(shot("english")) + "\n" + json.dumps(shot("spanish")) + "\n")
    out = io.StringIO()
    call_command("load_puzzles", str(path), stdout=out)
    assert out.getvalue().strip() == (
        "1 files (0 unchanged): 2 puzzles new, 0 updated, 0 retired, 0 skipped")
    out = io.StringIO()
    call_command("load_puzzles", str(path), stdout=out)
    assert "1 files (1 unchanged): 0 puzzles new" in out.getvalue()
    with pytest.raises(CommandError, match="no such file"):
        call_command("load_puzzles", str(tmp_path / "missing.jsonl"))
