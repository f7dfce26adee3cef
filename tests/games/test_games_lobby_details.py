"""Seek details in the lobby: the author's colour is honoured, rating and mode are shown."""

from __future__ import annotations

from typing import Any

import pytest

from kondavo.games import selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.services import seek_accept, seek_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("color", ["white", "black"])
def test_the_seeks_colour_is_the_authors(guest_factory: Any, color: str) -> None:
    author, other = guest_factory(), guest_factory()
    seek = seek_create(player=author, ruleset="spanish", time_control="3+2", color=color)
    [payload] = [s for s in wire.lobby_seeks(selectors.seeks_open()) if s["id"] == seek.pk]
    assert (payload["color"], payload["rated"], payload["rating"]) == (color, False, None)
    assert payload["time_control"] == "3+2" and payload["player"] == author.name
    game = seek_accept(seek_id=seek.pk, player=other)
    assert game.side_of(author) == color and game.side_of(other) != color


def test_a_bad_colour_is_refused(guest_factory: Any) -> None:
    with pytest.raises(GameError) as err:
        seek_create(player=guest_factory(), ruleset="spanish", time_control="3+2",
                    color="green")
    assert err.value.code == "bad_request"
    assert wire.lobby_seeks(selectors.seeks_open()) == []
