"""A game started from the analysis board's editor or "continue from here" (``start_fen``)
must start from a position that can occur in the ruleset: otherwise the request is refused
with the rules engine's words (in the visitor's language: ``kondavo.games.engine_errors``)
and nothing is created (real database, the real views)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from kondavo.accounts.services import player_get_or_create_guest
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.services import game_create_friend, game_create_vs_computer

pytestmark = pytest.mark.django_db

# (ruleset, impossible start position, words of the refusal)
IMPOSSIBLE = [
    ("international", "W:W:B1-20", "White: no pieces"),
    ("international", "W:W21-50:B1-15", "White: 30 men, but a side starts with 20"),
    ("international", "W:W3,31:B20", "White: men on the crowning row (3)"),
    ("english", "B:W21:B10,30", "Black: men on the crowning row (30)"),
    ("brazilian", "W:Wd8,c3:Bf6", "White: men on the crowning row (d8)"),
    ("spanish", "W:W1-12:B", "Black: no pieces"),
    ("turkish", "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3,a4:Bh7",
     "White: 17 men, but a side starts with 16"),
    ("brazilian", "W:Wa2:Bf6", "not a playable square"),
]


@pytest.mark.parametrize(("ruleset", "fen", "words"), IMPOSSIBLE,
                         ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(IMPOSSIBLE)])
def test_services_refuse_an_impossible_start(guest_factory: Any, ruleset: str, fen: str,
                                             words: str) -> None:
    me = guest_factory()
    for create in (
        lambda: game_create_vs_computer(player=me, ruleset=ruleset, level=1, color="white",
                                        start_fen=fen),
        lambda: game_create_friend(player=me, ruleset=ruleset, start_fen=fen),
    ):
        with pytest.raises(GameError) as err:
            create()
        assert err.value.code == "bad_request"
        assert words in err.value.message
    assert Game.objects.count() == 0


def test_a_possible_start_still_plays(guest_factory: Any) -> None:
    me = guest_factory()
    game = game_create_vs_computer(player=me, ruleset="english", level=1, color="black",
                                   start_fen="B:W21,K5:B10")
    assert game.start_fen == "B:WK5,21:B10" and game.status == Game.Status.ACTIVE


def test_continue_from_here_shows_the_refusal() -> None:
    """The analysis page's form (no JSON): back to the page with the message; a JSON client
    gets a 400 with the code and the message."""
    client = Client()
    client.get("/")
    player_get_or_create_guest(request_session=client.session)
    form = {"ruleset": "international", "start_fen": "W:W21-50:B1-15", "color": "white",
            "level": "1"}
    for url in ("/games/new/computer", "/games/new/friend"):
        response = client.post(url, form, HTTP_REFERER="http://testserver/analysis/")
        assert response.status_code == 303 and response["Location"] == "http://testserver/analysis/"
        shown = [str(m) for m in get_messages(response.wsgi_request)]
        assert shown == ["This position cannot occur in International: White: 30 men, but a "
                         "side starts with 20."]
        client.get("/analysis/")  # the page shows it (and so uses it up)
        answer = client.post(url, form, HTTP_ACCEPT="application/json")
        assert answer.status_code == 400
        assert answer.json()["error"]["code"] == "bad_request"
        assert "White: 30 men" in answer.json()["error"]["message"]
    assert Game.objects.count() == 0
