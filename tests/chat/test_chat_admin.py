"""The chat in the Django admin: the staff remove lines (logged), restrict a player (logged),
and the fair-play records are listed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from chat_helpers import account
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from kondavo.chat import services
from kondavo.chat.models import ChatLine, ChatRestriction, ModerationLog

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture
def staff() -> Client:
    user = get_user_model().objects.create_superuser("chatadmin", password="pw-admin-Xy9!")
    client = Client()
    client.force_login(user)
    return client


def test_staff_remove_lines_and_restrict_players_in_the_admin(staff: Client,
                                                             settings: Any) -> None:
    settings.KONDAVO_CHAT_RATE_PLAYER = ""
    author = account()
    line = services.chat_post(room="tournament.7", player=author, text="spam spam")
    for path in ("chatline", "chatreport", "chatrestriction", "chatmute", "moderationlog"):
        assert staff.get(f"/admin/chat/{path}/").status_code == 200
    for path in ("engineflag", "enginesignal", "offence", "cooldown", "casualnote"):
        assert staff.get(f"/admin/fairplay/{path}/").status_code == 200

    response = staff.post("/admin/chat/chatline/", {"action": "remove_lines",
                                                    "_selected_action": [line.pk]})
    assert response.status_code == 302
    assert ChatLine.objects.get(pk=line.pk).removed_at is not None
    assert services.chat_history(room="tournament.7") == []
    assert ModerationLog.objects.filter(action="remove", line=line).exists()

    until = (timezone.now() + timedelta(hours=1)).replace(microsecond=0)
    response = staff.post("/admin/chat/chatrestriction/add/", {
        "player": author.pk, "kind": "mute", "until_0": until.strftime("%Y-%m-%d"),
        "until_1": until.strftime("%H:%M:%S"), "reason": "spam"})
    assert response.status_code == 302, response.content[:2000]
    assert ChatRestriction.objects.filter(player=author, kind="mute").exists()
    assert ModerationLog.objects.filter(action="restrict", target=author).exists()
    # A mute without an end is refused by the form.
    response = staff.post("/admin/chat/chatrestriction/add/", {
        "player": author.pk, "kind": "mute", "until_0": "", "until_1": "", "reason": ""})
    assert response.status_code == 200 and b"A mute needs an end" in response.content


def test_tournament_rooms_work_like_any_room(settings: Any) -> None:
    settings.KONDAVO_CHAT_RATE_PLAYER = ""
    a, b = account(), account()
    services.chat_post(room="tournament.12", player=a, text="gl all")
    services.chat_post(room="tournament.12", player=b, text="you too")
    assert [x["text"] for x in services.chat_history(room="tournament.12")] == [
        "gl all", "you too"]
    services.chat_mute(player=a, name=b.name)
    assert [x["text"] for x in services.chat_history(room="tournament.12", viewer=a)] == [
        "gl all"]
    assert services.room_group("tournament.12") == "tournament.12"
    assert services.room_group("game.abc.players") == "game.abc"
