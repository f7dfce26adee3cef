"""A ruleset's own rules on the site. A rule that reads the game so far: the server refuses
the move it forbids (nothing changes), accepts the others, and the game page is sent only
the allowed moves. A result of its own: the game ends with its reason and its words."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from ruleset_fixtures import with_three_kings  # noqa: F401  (the fixture)

from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.services import game_create, game_play_move
from variants import registry as registry_module
from variants.registry import BUILTINS, Registry
from variants.rulesets.international import International

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


class KingLimit(International):
    key = "king-limit"
    name = "King limit"
    max_king_moves_with_men = 3


@pytest.fixture
def with_king_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_module, "_default", Registry([*BUILTINS, KingLimit()]))


def test_the_server_applies_the_king_move_limit(guest_factory: Any, client: Client,
                                                with_king_limit: None) -> None:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="king-limit", color="white",
                       start_fen="W:WK50,46:BK1")
    for ply, text in enumerate(["50-45", "1-6", "45-50", "6-1", "50-45", "1-6"]):
        game_play_move(game_id=game.id, player=white if ply % 2 == 0 else black, ply=ply,
                       move_text=text)
    state = client.get(f"/games/{game.id}/state.json").json()
    data = state.get("d", state)
    assert [m["notation"] for m in data["legal"]] == ["46-41"]

    with pytest.raises(GameError) as refused:
        game_play_move(game_id=game.id, player=white, ply=6, move_text="45-50")
    assert refused.value.code == "illegal_move"
    game.refresh_from_db()
    assert (game.ply, game.fen) == (6, "W:WK45,46:BK6")

    game_play_move(game_id=game.id, player=white, ply=6, move_text="46-41")
    game_play_move(game_id=game.id, player=black, ply=7, move_text="6-1")
    game_play_move(game_id=game.id, player=white, ply=8, move_text="45-50")  # allowed again
    game.refresh_from_db()
    assert (game.ply, game.status) == (9, Game.Status.ACTIVE)


@pytest.mark.usefixtures("with_three_kings")
def test_a_ruleset_reason_ends_the_game_with_its_words(guest_factory: Any,
                                                       client: Client) -> None:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="three-kings", color="white",
                       start_fen="W:WKa1,Kc1,g7:BKh2")
    game_play_move(game_id=game.id, player=white, ply=0, move_text="g7-h8")
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == (Game.Status.FINISHED, None,
                                                       "three_kings")
    state = client.get(f"/games/{game.id}/state.json").json()
    result = state.get("d", state)["result"]
    assert (result["reason"], result["reason_text"]) == ("three_kings",
                                                         "three kings against one")
