"""Moderation: the Django admin is for staff only; banned players cannot play; staff abort."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from kondavo.accounts.models import Player
from kondavo.games import services
from kondavo.games.errors import GameError
from kondavo.games.models import Game, Seek

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture
def staff_client(client: Client) -> Client:
    User.objects.create_user("mod", password="pw-mod-Xy9!", is_staff=True, is_superuser=True)
    assert client.login(username="mod", password="pw-mod-Xy9!")
    return client


def _active_game(guest_factory: Any, moves: int = 2) -> Game:
    alice, bob = guest_factory(), guest_factory()
    game = services.game_create(creator=alice, ruleset="english", color="black",
                                opponent=bob)
    for ply, text in enumerate(("9-14", "22-18")[:moves]):
        player = alice if ply % 2 == 0 else bob
        game = services.game_play_move(game_id=game.id, player=player, ply=ply,
                                       move_text=text)
    return game


def test_the_admin_is_for_staff_only(client: Client) -> None:
    assert client.get("/admin/").status_code == 302  # to the admin login
    User.objects.create_user("eve", password="pw-eve-Xy9!")
    assert client.login(username="eve", password="pw-eve-Xy9!")
    response = client.get("/admin/games/game/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_staff_see_games_players_and_rulesets(staff_client: Client, guest_factory: Any) -> None:
    game = _active_game(guest_factory)
    page = staff_client.get("/admin/games/game/").content.decode()
    assert game.id in page
    assert staff_client.get("/admin/accounts/player/").status_code == 200
    page = staff_client.get("/admin/frontend/rulesetchoice/add/").content.decode()
    assert '<option value="italian"' in page or '<option value="international"' in page


def test_staff_abort_a_game_in_progress(staff_client: Client, guest_factory: Any) -> None:
    game = _active_game(guest_factory)
    with pytest.raises(GameError):  # the players themselves can no longer abort it
        services.game_abort(game_id=game.id, player=game.white)
    response = staff_client.post("/admin/games/game/", {
        "action": "abort_games", "_selected_action": [game.id]})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and game.winner is None
    with pytest.raises(GameError, match="over"):
        services.game_play_move(game_id=game.id, player=game.white, ply=2, move_text="5-9")


def test_a_banned_player_cannot_play_seek_or_join(staff_client: Client,
                                                  guest_factory: Any) -> None:
    game = _active_game(guest_factory)
    mover = game.black if game.ply % 2 == 0 else game.white
    waiting = services.game_create_friend(player=guest_factory(), ruleset="english")
    staff_client.post("/admin/accounts/player/", {"action": "ban",
                                                  "_selected_action": [mover.pk]})
    mover.refresh_from_db()
    assert mover.banned
    before = Game.objects.get(pk=game.pk).ply
    with pytest.raises(GameError, match="banned"):
        services.game_play_move(game_id=game.id, player=mover, ply=before, move_text="10-15")
    assert Game.objects.get(pk=game.pk).ply == before
    with pytest.raises(GameError, match="banned"):
        services.game_create_vs_computer(player=mover, ruleset="english", level=1)
    with pytest.raises(GameError, match="banned"):
        services.seek_create(player=mover, ruleset="english", time_control="untimed")
    with pytest.raises(GameError, match="banned"):
        services.game_join(game_id=waiting.id, player=mover)
    seek = services.seek_create(player=guest_factory(), ruleset="english",
                                time_control="untimed")
    with pytest.raises(GameError, match="banned"):
        services.seek_accept(seek_id=seek.id, player=mover)
    assert Seek.objects.get(pk=seek.pk).status == Seek.Status.OPEN
    staff_client.post("/admin/accounts/player/", {"action": "unban",
                                                  "_selected_action": [mover.pk]})
    assert not Player.objects.get(pk=mover.pk).banned
    services.seek_create(player=Player.objects.get(pk=mover.pk), ruleset="english",
                         time_control="untimed")
