"""The tournaments app's edges with the rest of the site: its notifications are worded in
the reader's language (a template key and its values, not stored words), a tournament
game's page links back to the tournament and offers Berserk before the first move, and the
staff see and cancel tournaments in the admin."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone, translation

from kondavo.games import services as games
from kondavo.games.models import Game
from kondavo.notifications.models import Notification
from kondavo.tournaments import services, strings
from kondavo.tournaments.models import Pairing, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]


def _started_arena(accounts: Any, names: tuple[str, str], **kw: Any) -> tuple[Tournament, Any,
                                                                               Any, Pairing]:
    a, b = accounts(names[0]), accounts(names[1])
    t = services.tournament_create(creator=a, name="Edge Arena", kind="arena",
                                   ruleset="english",
                                   starts_at=timezone.now() + timedelta(minutes=5),
                                   **{"time_control": "3+2", **kw})
    for p in (a, b):
        services.tournament_join(tournament_id=t.pk, player=p)
    assert services.tournament_tick(tournament_id=t.pk, now=t.starts_at) == "started"
    pairing = Pairing.objects.get(tournament=t, result="")
    return t, a, b, pairing


def test_notifications_are_worded_in_the_readers_language(accounts: Any,
                                                          run_tasks: Any) -> None:
    from frontend.jsi18n import notify_strings

    t, a, b, pairing = _started_arena(accounts, ("nina", "otto"))
    note = Notification.objects.get(recipient=b, key=f"tournament:{t.pk}")
    # The game's notification replaced "has started" (one row per key): a template key and
    # its values, words only as the fallback of older pages.
    assert note.data["template"] == strings.NOTIFY_GAME
    assert note.data["name"] == "nina" and note.data["tournament"] == "Edge Arena"
    assert note.url == f"/game/{pairing.game_id}/"
    with translation.override("fr"):
        french = notify_strings()[strings.NOTIFY_GAME]
    with translation.override("tr"):
        turkish = notify_strings()[strings.NOTIFY_STARTED]
    assert "{name}" in french and "{tournament}" in french and "partie" in french
    assert "turnuva" in turkish.lower() or "{tournament}" in turkish
    assert french != notify_strings()[strings.NOTIFY_GAME]


def test_the_started_notification_has_a_template(accounts: Any, run_tasks: Any,
                                                 monkeypatch: Any) -> None:
    sent: list[dict[str, Any]] = []
    from kondavo.games import hooks

    monkeypatch.setattr(hooks, "notify", lambda **kw: sent.append(kw))
    _started_arena(accounts, ("pia", "quin"))
    started = [s for s in sent if s["data"].get("template") == strings.NOTIFY_STARTED]
    assert len(started) == 2 and started[0]["data"]["tournament"] == "Edge Arena"


def test_game_page_links_back_and_offers_berserk(accounts: Any, run_tasks: Any,
                                                client: Any) -> None:
    t, a, b, pairing = _started_arena(accounts, ("rita", "sven"))
    white = pairing.white
    url = f"/game/{pairing.game_id}/"
    client.login(username=white.name, password=f"pw-{white.name}-Xy9!")
    page = client.get(url).content.decode()
    assert f'href="/tournaments/{t.pk}/"' in page and 'id="btn-berserk"' in page
    assert "tournaments/game_tournament.js" in page
    response = client.post(f"/tournaments/{t.pk}/berserk/")
    assert response.status_code == 200 and response.json() == {"ok": True}
    game = Game.objects.get(pk=pairing.game_id)
    assert game.white_ms == game.clock_initial_ms // 2
    page = client.get(url).content.decode()
    assert 'id="btn-berserk"' not in page and f'href="/tournaments/{t.pk}/"' in page
    # Twice: allowed and harmless; after the first move: refused, as JSON.
    assert client.post(f"/tournaments/{t.pk}/berserk/").status_code == 200
    client.logout()
    # A spectator: the link, no button; a game outside tournaments: neither.
    page = client.get(url).content.decode()
    assert f'href="/tournaments/{t.pk}/"' in page and 'id="btn-berserk"' not in page
    other = games.game_create(creator=a, ruleset="english", time_control="3+2",
                              color="white", opponent=b)
    assert 'id="game-tournament"' not in client.get(f"/game/{other.id}/").content.decode()


def test_no_berserk_button_in_an_untimed_arena(accounts: Any, run_tasks: Any,
                                              client: Any) -> None:
    t, a, b, pairing = _started_arena(accounts, ("tara", "ugo"), time_control="untimed")
    client.login(username=pairing.black.name, password=f"pw-{pairing.black.name}-Xy9!")
    page = client.get(f"/game/{pairing.game_id}/").content.decode()
    assert 'id="game-tournament"' in page and 'id="btn-berserk"' not in page
    response = client.post(f"/tournaments/{t.pk}/berserk/")
    assert response.status_code == 409 and response.json()["error"] == "not_allowed"


def test_admin_lists_and_cancels(accounts: Any, run_tasks: Any, client: Any) -> None:
    from django.contrib.auth import get_user_model

    t, a, b, pairing = _started_arena(accounts, ("vera", "walt"))
    staff = get_user_model().objects.create_superuser("staff-t", "s@example.com",
                                                      "pw-staff-Xy9!")
    client.force_login(staff)
    for path in ("/admin/tournaments/tournament/", f"/admin/tournaments/tournament/{t.pk}/"
                 "change/", "/admin/tournaments/entry/", "/admin/tournaments/pairing/"):
        assert client.get(path).status_code == 200, path
    response = client.post("/admin/tournaments/tournament/", {
        "action": "cancel_tournaments", "_selected_action": [str(t.pk)]})
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.status == Tournament.Status.CANCELLED and t.finished is not None
    # A game still going no longer counts; nobody is paired again.
    games.game_resign(game_id=pairing.game_id, player=pairing.black)
    pairing.refresh_from_db()
    assert pairing.result == Pairing.Result.VOID
    assert services.tournament_cancel(tournament_id=t.pk) is False
    assert services.tournament_pair(tournament_id=t.pk) == 0


def test_berserk_follows_who_moves_first(accounts: Any, run_tasks: Any) -> None:
    """English draughts: Black moves first, so White may still berserk after Black's first
    move, and Black no longer may."""
    t, a, b, pairing = _started_arena(accounts, ("xena", "yuri"))
    game = Game.objects.get(pk=pairing.game_id)
    games.game_play_move(game_id=game.id, player=pairing.black, ply=0, move_text="11-15")
    with pytest.raises(games.GameError):
        services.tournament_berserk(tournament_id=t.pk, player=pairing.black)
    services.tournament_berserk(tournament_id=t.pk, player=pairing.white)
    game.refresh_from_db()
    assert game.white_ms == game.clock_initial_ms // 2


def test_scheduled_arenas_are_named_in_the_readers_language(settings: Any,
                                                            client: Any) -> None:
    settings.KONDAVO_TOURNAMENT_SCHEDULE = "english:3+2"
    assert services.schedule_upcoming(hours_ahead=1) == 1
    t = Tournament.objects.get(schedule_key__startswith="hourly:english:3+2:")
    assert t.name == "Hourly English checkers 3+2 Arena"  # stored in the site's language
    page = client.get("/tournaments/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Arène horaire Dames anglaises 3+2" in page
    page = client.get(f"/tournaments/{t.pk}/", HTTP_ACCEPT_LANGUAGE="tr").content.decode()
    assert "Saatlik" in page and "Arenası" in page
