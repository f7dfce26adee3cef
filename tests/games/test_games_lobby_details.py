"""Seek details in the lobby: the author's colour is honoured, rating and mode are shown."""

from __future__ import annotations

from typing import Any

import pytest

from kondavo.games import selectors, wire
from kondavo.games.errors import GameError
from kondavo.games.services import seek_accept, seek_cancel, seek_create

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


def test_a_lobby_socket_opening_reads_the_seeks_once_per_version(
        guest_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``lobby.lobby_snapshot``: a crowd of lobby sockets opening costs one read of the
    version each, not the seeks with their players and ratings; a new seek (a new version)
    and time (seeks expire) make it read them again."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kondavo.games.services import lobby

    author = guest_factory()
    first = seek_create(player=author, ruleset="spanish", time_control="3+2", color="white")
    version, seeks = lobby.lobby_snapshot()
    assert [s["id"] for s in seeks] == [first.pk]
    with CaptureQueriesContext(connection) as queries:
        for _ in range(5):
            assert lobby.lobby_snapshot() == (version, seeks)
    assert len(queries) == 5, [q["sql"] for q in queries]  # the version, nothing else

    second = seek_create(player=guest_factory(), ruleset="turkish", time_control="5+3",
                         color="random")
    new_version, new_seeks = lobby.lobby_snapshot()
    assert new_version > version
    assert [s["id"] for s in new_seeks] == [first.pk, second.pk]

    seek_cancel(seek_id=second.pk, player=second.player)
    lobby.remember_snapshot(*lobby.lobby_snapshot())
    clock = [lobby.time.monotonic() + lobby.SNAPSHOT_SECONDS + 1]
    monkeypatch.setattr(lobby.time, "monotonic", lambda: clock[0])
    with CaptureQueriesContext(connection) as queries:
        assert [s["id"] for s in lobby.lobby_snapshot()[1]] == [first.pk]
    assert len(queries) > 1  # older than SNAPSHOT_SECONDS: the seeks were read again
