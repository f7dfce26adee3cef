"""Views behind the game page, the analysis board and the watch page (Django test client)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from kondavo.accounts.services import player_get_or_create_guest
from kondavo.games import services as games
from variants import GameRecord, get_variant
from variants.pdn import write_pdn

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_rate_limits(settings: Any) -> None:
    cache.clear()
    # No Celery worker here: the analysis board's searches run in the embedded mode's pool
    # (the worker path: tests/frontend/test_analysis_admission.py).
    settings.KONDAVO_BOT_INPROCESS = True


def post(client: Client, url: str, body: dict[str, Any] | str) -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json")


def opening_pdn(ruleset: str, plies: int = 4) -> str:
    variant = get_variant(ruleset)
    record = GameRecord.new(variant)
    for _ in range(plies):
        record.push(variant.legal_moves(record.position)[0])
    return write_pdn(record, {"Result": "*"})


def test_levels_show_their_nominal_rating_only_when_measured(
        client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    import frontend.views

    monkeypatch.setattr(frontend.views, "nominal_rating",
                        lambda ruleset, level: 1234 if (ruleset, level) == ("english", 3) else None)
    html = client.get("/").content.decode()
    boards = json.loads(html.split('id="kondavo-boards" type="application/json">')[1]
                        .split("</script>")[0])
    assert boards["english"]["levels"]["3"] == "Level 3 (rating 1234)"
    assert boards["english"]["levels"]["4"] == "Level 4"
    assert boards["international"]["levels"]["3"] == "Level 3"
    assert "1500" not in json.dumps(boards["turkish"]["levels"])


def test_bot_players_carry_level_and_nominal_rating(monkeypatch: pytest.MonkeyPatch) -> None:
    from kondavo.games import hooks, wire

    guest = player_get_or_create_guest(request_session={})
    game = games.game_create_vs_computer(player=guest, ruleset="spanish", level=5,
                                         color="white")
    monkeypatch.setattr(hooks.registry, "bot_rating_reader", lambda ruleset, level: None)
    bot = wire.players_payload(game)["black"]
    assert bot == {"name": "Kondavo AI 5", "kind": "bot", "level": 5, "rating": None}
    monkeypatch.setattr(hooks.registry, "bot_rating_reader",
                        lambda ruleset, level: 1710 if ruleset == "spanish" else None)
    assert wire.players_payload(game)["black"]["rating"] == 1710


@pytest.mark.parametrize("ruleset", ["international", "english", "brazilian", "spanish",
                                     "turkish"])
def test_replay_and_eval_of_a_pasted_pdn(client: Client, ruleset: str) -> None:
    pdn = opening_pdn(ruleset)
    replay = post(client, "/analysis/replay", {"ruleset": ruleset, "pdn": pdn})
    assert replay.status_code == 200
    data = replay.json()
    assert data["ruleset"] == ruleset and len(data["plies"]) == 5
    assert data["plies"][0]["fen"] == get_variant(ruleset).format_fen(
        get_variant(ruleset).initial_position())
    assert all(p["notation"] and p["path"] for p in data["plies"][1:])
    answer = post(client, "/analysis/eval", {"ruleset": ruleset, "pdn": pdn, "ply": 2,
                                             "depth": 3})
    assert answer.status_code == 200
    result = answer.json()
    assert result["depth"] >= 1 and result["pv"] and isinstance(result["score"], int)
    # The best line starts with a legal move of the position after two plies.
    variant = get_variant(ruleset)
    position = variant.parse_fen(data["plies"][2]["fen"])
    legal = variant.legal_moves(position)
    assert result["pv"][0] in {variant.format_move(position, m, legal) for m in legal}


@pytest.mark.parametrize(("body", "words"), [
    ({"ruleset": "english", "fen": "W:W99:B1"}, "FEN"),
    ({"ruleset": "english", "fen": "hello"}, "FEN"),
    ({"ruleset": "english", "pdn": "1. 11-15 99-100 *"}, "PDN"),
    ({"ruleset": "nosuch", "fen": "W:W21:B1"}, "ruleset"),
    ({"ruleset": "english"}, "PDN"),
    ({"ruleset": "english", "pdn": opening_pdn("english"), "ply": 40}, "move number"),
    ({"ruleset": "english", "fen": "B:W21:B1", "depth": "deep"}, "number"),
])
def test_bad_analysis_input_is_a_clear_400(client: Client, body: dict[str, Any],
                                            words: str) -> None:
    answer = post(client, "/analysis/eval", body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and words in error["message"], error


def test_analysis_requests_are_bounded(client: Client, settings: Any) -> None:
    too_big = post(client, "/analysis/replay", {"ruleset": "english", "pdn": "x" * 70_000})
    assert too_big.status_code == 400 and "too large" in too_big.json()["error"]["message"]
    assert post(client, "/analysis/replay", "[1, 2]").status_code == 400
    assert client.get("/analysis/eval").status_code == 405
    settings.KONDAVO_ANALYSIS_RATE = 3
    codes = [post(client, "/analysis/eval", {"ruleset": "english", "fen": "B:W21:B1",
                                             "depth": 1}).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]


def test_analysis_depth_and_time_are_capped(client: Client,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import bots.analysis
    import frontend.analysis

    seen: list[tuple[Any, Any]] = []
    real = bots.analysis.analyse

    def spy(variant: Any, target: Any, *, depth: Any = None, time_limit: Any = None) -> Any:
        seen.append((depth, time_limit))
        return real(variant, target, depth=1, time_limit=0.05)

    monkeypatch.setattr(bots.analysis, "analyse", spy)
    answer = post(client, "/analysis/eval", {"ruleset": "english", "fen": "B:W21:B1",
                                             "depth": 99, "time": 60})
    assert answer.status_code == 200
    assert seen == [(frontend.analysis.MAX_DEPTH, frontend.analysis.MAX_TIME)]


def test_game_replay_lists_every_ply(client: Client) -> None:
    alice = player_get_or_create_guest(request_session={})
    bob = player_get_or_create_guest(request_session={})
    game = games.game_create(creator=alice, opponent=bob, ruleset="turkish", color="white")
    games.game_play_move(game_id=game.id, player=alice, ply=0, move_text="a3-a4")
    games.game_play_move(game_id=game.id, player=bob, ply=1, move_text="h6-h5")
    data = client.get(f"/game/{game.id}/replay.json").json()
    assert [p["notation"] for p in data["plies"]] == [None, "a3-a4", "h6-h5"]
    assert data["plies"][1]["path"] == ["a3", "a4"]
    assert data["plies"][-1]["fen"] == games.game_open_for_viewer(game_id=game.id,
                                                                  player=None).fen
    assert client.get("/game/nosuch/replay.json").status_code == 404


def test_watch_lists_active_games_highest_rated_first(
        client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from kondavo.games import hooks

    guest = player_get_or_create_guest(request_session={})
    weak = games.game_create_vs_computer(player=guest, ruleset="english", level=1)
    other = player_get_or_create_guest(request_session={})
    strong = games.game_create_vs_computer(player=other, ruleset="turkish", level=8)
    waiting = games.game_create_friend(player=guest, ruleset="english")
    ratings = {1: 900, 8: 2100}
    monkeypatch.setattr(hooks.registry, "bot_rating_reader",
                        lambda ruleset, level: ratings.get(level))
    data = client.get("/watch/?format=json").json()
    ids = [g["id"] for g in data["games"]]
    assert ids == [strong.id, weak.id] and waiting.id not in ids
    assert data["games"][0]["rating"] == 2100 and data["games"][0]["spectators"] == 0
    only = client.get("/watch/?ruleset=english&format=json").json()
    assert [g["id"] for g in only["games"]] == [weak.id]
    page = client.get("/watch/")
    assert page.status_code == 200 and strong.id in page.content.decode()
