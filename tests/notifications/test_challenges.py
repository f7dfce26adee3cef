"""Issue 20 items 3 and 5: challenges over the notification socket (``/ws/notify/``), on the
real database and channel layer (PostgreSQL + Redis under tests/run_with_services.sh; SQLite
and the in-memory layer in the embedded pass).

A challenge seats nobody until it is accepted; it can be declined, it expires, the
challenged player can block the sender, and senders are rate limited. Notifications reach
every page's socket live, are stored (still there after a reconnect), counted unread and
marked read from any page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from notify_helpers import closed_with, frame_of, guest, notify_socket

from kondavo.games import clock
from kondavo.games.errors import GameError
from kondavo.games.models import Block, Challenge, Game
from kondavo.games.services import (
    challenge_create,
    challenge_expire,
    game_create,
    game_create_friend,
    game_join,
    game_play_move,
    game_rematch,
    game_resign,
)
from kondavo.notifications.models import Notification

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.embedded]

db = database_sync_to_async


def challenge(sender: Any, to: Any, **kw: Any) -> Challenge:
    return challenge_create(player=sender, opponent_name=to.name,
                            ruleset=kw.pop("ruleset", "international"),
                            time_control=kw.pop("time_control", "5+3"), **kw)


async def test_a_challenge_creates_no_game_until_accepted() -> None:
    alice, bob = await db(guest)("alice-c1"), await db(guest)("bob-c1")
    a, b = await notify_socket(alice), await notify_socket(bob)
    assert (await frame_of(b, "notifications"))["d"] == {"items": [], "unread": 0}
    await frame_of(a, "notifications")
    sent = await db(challenge)(alice, bob, color="white")
    note = (await frame_of(b, "notification"))["d"]
    assert note["unread"] == 1
    item = note["item"]
    assert item["kind"] == "challenge" and not item["read"]
    assert item["data"]["from"] == "alice-c1" and item["data"]["color"] == "black"
    assert item["data"]["status"] == "pending" and item["data"]["challenge_id"] == sent.pk
    # Nothing is seated: no game at all, for either player.
    assert await db(Game.objects.count)() == 0
    await b.send_json_to({"t": "accept", "d": {"id": sent.pk}})
    game_frame = await frame_of(b, "game")
    game = await db(Game.objects.select_related("white", "black").get)(pk=game_frame["d"]["id"])
    assert game.status == Game.Status.ACTIVE
    assert (game.white_id, game.black_id) == (alice.pk, bob.pk)
    assert game_frame["d"]["url"] == f"/game/{game.id}/"
    # Bob's own notification turns read (answered); Alice hears the answer with the game.
    update = (await frame_of(b, "notification"))["d"]
    assert update["item"]["data"]["status"] == "accepted" and update["unread"] == 0
    answer = (await frame_of(a, "notification"))["d"]["item"]
    assert answer["kind"] == "challenge_answer" and answer["url"] == game_frame["d"]["url"]
    assert answer["data"]["status"] == "accepted" and answer["data"]["by"] == "bob-c1"
    # Accepting twice is the same game; a third person cannot accept it.
    await b.send_json_to({"t": "accept", "d": {"id": sent.pk}})
    assert (await frame_of(b, "game"))["d"]["id"] == game.id
    assert await db(Game.objects.count)() == 1
    await a.send_json_to({"t": "accept", "d": {"id": sent.pk}})
    assert (await frame_of(a, "error"))["d"]["code"] == "not_found"
    await a.disconnect()
    await b.disconnect()


async def test_decline_tells_the_challenger_and_seats_nobody() -> None:
    alice, bob = await db(guest)(), await db(guest)()
    a, b = await notify_socket(alice), await notify_socket(bob)
    await frame_of(a, "notifications")
    sent = await db(challenge)(alice, bob)
    await frame_of(b, "notification")
    await b.send_json_to({"t": "decline", "d": {"id": sent.pk}})
    answer = (await frame_of(a, "notification"))["d"]["item"]
    assert answer["kind"] == "challenge_answer" and answer["data"]["status"] == "declined"
    assert answer["url"] == ""
    await b.send_json_to({"t": "accept", "d": {"id": sent.pk}})
    error = (await frame_of(b, "error"))["d"]
    assert error["code"] == "not_allowed" and "no longer open" in error["message"]
    assert await db(Game.objects.count)() == 0
    # The challenger may withdraw a pending one instead.
    again = await db(challenge)(alice, bob)
    await a.send_json_to({"t": "cancel", "d": {"id": again.pk}})
    withdrawn = (await frame_of(b, "notification"))["d"]
    while withdrawn["item"]["data"]["status"] != "cancelled":
        withdrawn = (await frame_of(b, "notification"))["d"]
    assert withdrawn["item"]["data"]["challenge_id"] == again.pk
    await a.disconnect()
    await b.disconnect()


async def test_an_unanswered_challenge_expires(settings: Any) -> None:
    settings.KONDAVO_CHALLENGE_TTL_SECONDS = 60
    alice, bob = await db(guest)(), await db(guest)()
    sent = await db(challenge)(alice, bob)
    assert (sent.expires_at - sent.created) == timedelta(seconds=60)
    later = timezone.now() + timedelta(seconds=61)
    # Past its time it cannot be accepted, before any sweep ran...
    b = await notify_socket(bob)
    snapshot = (await frame_of(b, "notifications"))["d"]
    assert snapshot["items"][0]["data"]["status"] == "pending"
    original = clock.now
    clock.now = lambda: later  # type: ignore[assignment]
    try:
        await b.send_json_to({"t": "accept", "d": {"id": sent.pk}})
        assert (await frame_of(b, "error"))["d"]["code"] == "not_allowed"
        # ...and the refusal expired it: the challenger hears (here: on their next page).
        a = await notify_socket(alice)
        [answer] = (await frame_of(a, "notifications"))["d"]["items"]
        assert answer["kind"] == "challenge_answer" and answer["data"]["status"] == "expired"
        assert await db(challenge_expire)() == 0  # the sweep finds nothing left
    finally:
        clock.now = original  # type: ignore[assignment]
    assert (await db(Challenge.objects.get)(pk=sent.pk)).status == "expired"
    # A second challenge expired by the sweep alone.
    second = await db(challenge)(alice, bob)
    assert await db(challenge_expire)(now=later + timedelta(seconds=120)) == 1
    answer = (await frame_of(a, "notification"))["d"]["item"]
    while answer["data"]["challenge_id"] != second.pk:
        answer = (await frame_of(a, "notification"))["d"]["item"]
    assert answer["data"]["status"] == "expired"
    assert (await db(Challenge.objects.get)(pk=second.pk)).status == "expired"
    assert await db(challenge_expire)(now=later + timedelta(seconds=120)) == 0
    assert await db(Game.objects.count)() == 0
    await a.disconnect()
    await b.disconnect()


async def test_a_blocked_sender_is_refused_with_a_plain_message() -> None:
    alice, bob, carol = await db(guest)(), await db(guest)("bob-block"), await db(guest)()
    b = await notify_socket(bob)
    await frame_of(b, "notifications")
    sent = await db(challenge)(alice, bob)
    await frame_of(b, "notification")
    await b.send_json_to({"t": "decline", "d": {"id": sent.pk, "block": True}})
    await frame_of(b, "notification")
    assert await db(Block.objects.filter(blocker=bob, blocked=alice).exists)()
    with pytest.raises(GameError) as refused:
        await db(challenge)(alice, bob)
    assert refused.value.code == "not_allowed"
    assert refused.value.message == "bob-block is not accepting challenges from you."
    assert "block" not in refused.value.message.replace("bob-block", "")
    assert await db(Challenge.objects.filter(challenger=alice).count)() == 1
    await db(challenge)(carol, bob)  # others still may
    await b.disconnect()


def test_challenges_are_rate_limited_per_sender(settings: Any) -> None:
    settings.KONDAVO_CHALLENGE_RATE = "3/m"
    alice, bob = guest(), guest()
    targets = [guest() for _ in range(4)]
    for target in targets[:3]:
        challenge(alice, target)
    with pytest.raises(GameError) as refused:
        challenge(alice, targets[3])
    assert refused.value.code == "rate_limited"
    assert refused.value.retry_after >= 1  # type: ignore[attr-defined]
    assert Challenge.objects.filter(challenger=alice).count() == 3
    challenge(bob, targets[3])  # per sender


def test_a_new_challenge_to_the_same_player_replaces_the_pending_one() -> None:
    alice, bob = guest(), guest()
    first = challenge(alice, bob)
    second = challenge(alice, bob, ruleset="english")
    first.refresh_from_db()
    assert first.status == "cancelled" and second.status == "pending"
    assert Notification.objects.filter(recipient=bob, kind="challenge").count() == 2
    assert Notification.objects.filter(recipient=bob, read_at__isnull=True).count() == 1


async def test_a_notification_reaches_every_page_and_survives_a_reconnect() -> None:
    alice, bob = await db(guest)(), await db(guest)()
    page1, page2 = await notify_socket(bob), await notify_socket(bob)
    for page in (page1, page2):
        await frame_of(page, "notifications")
    sent = await db(challenge)(alice, bob)
    items = [(await frame_of(page, "notification"))["d"] for page in (page1, page2)]
    assert items[0] == items[1] and items[0]["unread"] == 1
    await page1.disconnect()
    await page2.disconnect()
    # A new page (a reload, another process after a restart) reads it from the database.
    page3 = await notify_socket(bob)
    snapshot = (await frame_of(page3, "notifications"))["d"]
    assert snapshot["unread"] == 1
    [item] = snapshot["items"]
    assert item["kind"] == "challenge" and item["data"]["challenge_id"] == sent.pk
    page4 = await notify_socket(bob)
    await frame_of(page4, "notifications")
    # Read on one page: every page hears the count.
    await page3.send_json_to({"t": "read", "d": {"ids": [item["id"]]}})
    for page in (page3, page4):
        assert (await frame_of(page, "unread"))["d"] == {"unread": 0, "read": [item["id"]]}
    await page3.disconnect()
    page5 = await notify_socket(bob)
    snapshot = (await frame_of(page5, "notifications"))["d"]
    assert snapshot["unread"] == 0 and snapshot["items"][0]["read"]
    # Bad requests are answered, the socket stays.
    await page5.send_json_to({"t": "read", "d": {}})
    assert (await frame_of(page5, "error"))["d"]["code"] == "bad_request"
    await page5.send_json_to({"t": "ping"})
    await frame_of(page5, "pong")
    await page4.disconnect()
    await page5.disconnect()


async def test_unread_count_and_read_all() -> None:
    bob = await db(guest)()
    senders = [await db(guest)() for _ in range(3)]
    for sender in senders:
        await db(challenge)(sender, bob)
    page = await notify_socket(bob)
    snapshot = (await frame_of(page, "notifications"))["d"]
    assert snapshot["unread"] == 3 and len(snapshot["items"]) == 3
    # newest first
    assert [i["data"]["from"] for i in snapshot["items"]] == [s.name for s in senders[::-1]]
    await page.send_json_to({"t": "read", "d": {"all": True}})
    assert (await frame_of(page, "unread"))["d"] == {"unread": 0, "read": None}
    assert await db(Notification.objects.filter(recipient=bob, read_at__isnull=True).count)() == 0
    await page.disconnect()


async def test_the_notification_socket_goes_through_the_socket_discipline(settings: Any) -> None:
    settings.KONDAVO_WS_MAX_PER_PLAYER = 2
    bob = await db(guest)()
    pages = [await notify_socket(bob) for _ in range(2)]
    third = await notify_socket(bob)
    frames, code = await closed_with(third)
    assert code == 4029 and frames[0]["d"]["code"] == "too_many_sockets"
    for page in pages:
        await page.disconnect()
    # Without an identity there is nothing to notify: refused, closed with 4403.
    frames, code = await closed_with(await notify_socket(None))
    assert code == 4403 and frames[0]["d"]["code"] == "not_a_player"


async def test_a_flooding_notification_socket_is_closed_and_its_owner_cools_down(
        settings: Any) -> None:
    settings.KONDAVO_WS_RATE = 5
    settings.KONDAVO_WS_BURST = 5
    settings.KONDAVO_WS_FLOOD_FRAMES = 10
    bob = await db(guest)()
    page = await notify_socket(bob)
    await frame_of(page, "notifications")
    for _ in range(100):
        await page.send_to(text_data='{"t":"ping"}')
    frames, code = await closed_with(page)
    assert code == 4008
    assert [f["d"]["code"] for f in frames if f["t"] == "error"] == ["rate_limited", "flooding"]
    frames, code = await closed_with(await notify_socket(bob))
    assert code == 4029 and frames[0]["d"]["code"] == "cooling_down"


def untimed_game(white: Any, black: Any) -> Game:
    return game_create(creator=white, opponent=black, ruleset="international",
                       time_control="untimed", color="white")


def test_your_turn_in_an_untimed_game_rematch_and_joined(
        django_capture_on_commit_callbacks: Any) -> None:
    alice, bob = guest(), guest()
    game = untimed_game(alice, bob)
    game_play_move(game_id=game.id, player=alice, ply=0, move_text="32-28")
    [turn] = Notification.objects.filter(recipient=bob, kind="turn")
    assert turn.key == f"turn:{game.id}" and turn.url == f"/game/{game.id}/"
    assert turn.data["opponent"] == alice.name and turn.read_at is None
    game_play_move(game_id=game.id, player=bob, ply=1, move_text="19-23")
    Notification.objects.filter(recipient=alice).update(read_at=timezone.now())
    game_play_move(game_id=game.id, player=alice, ply=2, move_text="28x19")
    # One per game, updated (and unread again) at each move.
    assert Notification.objects.filter(recipient=bob, kind="turn").count() == 1
    assert Notification.objects.get(recipient=bob, kind="turn").data["ply"] == 3
    # A timed game's moves notify nobody.
    timed = game_create(creator=alice, opponent=bob, ruleset="international",
                        time_control="5+3", color="white")
    game_play_move(game_id=timed.id, player=alice, ply=0, move_text="32-28")
    assert not Notification.objects.filter(key=f"turn:{timed.id}").exists()
    # A rematch offer reaches the other player.
    game_resign(game_id=timed.id, player=bob)
    game_rematch(game_id=timed.id, player=bob)
    rematch = Notification.objects.get(recipient=alice, kind="rematch")
    assert rematch.data["from"] == bob.name and rematch.url == f"/game/{timed.id}/"
    # Someone takes the seat of a friend game: its creator hears.
    friend = game_create_friend(player=alice, ruleset="english")
    carol = guest()
    game_join(game_id=friend.id, player=carol)
    joined = Notification.objects.get(recipient=alice, kind="joined")
    assert joined.data == {"game_id": friend.id, "by": carol.name}


def test_no_your_turn_notice_for_a_player_at_the_board(
        django_capture_on_commit_callbacks: Any) -> None:
    """The board tells a player who has the game's page open: no notification is written
    or sent for each move then (a busy untimed game costs its moves nothing more)."""
    from kondavo.games import presence

    alice, bob = guest(), guest()
    game = untimed_game(alice, bob)
    now = clock.now().timestamp()
    presence.store().refresh(game.id, "black:bobs-page", now + 60, now)
    game_play_move(game_id=game.id, player=alice, ply=0, move_text="32-28")
    assert not Notification.objects.filter(recipient=bob, kind="turn").exists()
    presence.store().close(game.id, "black:bobs-page", clock.now().timestamp())
    game_play_move(game_id=game.id, player=bob, ply=1, move_text="19-23")
    game_play_move(game_id=game.id, player=alice, ply=2, move_text="28x19")
    assert Notification.objects.get(recipient=bob, kind="turn").data["ply"] == 3


def test_the_block_list_over_http(client: Any) -> None:
    """``POST /games/block/<name>`` and ``unblock/<name>``: one view, the service given by
    the URL; each answers the list; an unknown name is refused and changes nothing."""
    from kondavo.accounts.services import GUEST_SESSION_KEY

    me, other = guest(), guest("blockee-h")
    session = client.session
    session[GUEST_SESSION_KEY] = me.guest_key
    session.save()
    headers = {"HTTP_ACCEPT": "application/json"}
    r = client.post("/games/block/blockee-h", **headers)
    assert r.status_code == 200 and r.json() == {"blocked": ["blockee-h"]}
    assert Block.objects.filter(blocker=me, blocked=other).exists()
    r = client.post("/games/block/nobody-by-this-name", **headers)
    assert r.status_code >= 400 and "error" in r.json()
    assert Block.objects.filter(blocker=me).count() == 1
    r = client.post("/games/unblock/blockee-h", **headers)
    assert r.status_code == 200 and r.json() == {"blocked": []}
    assert not Block.objects.filter(blocker=me).exists()
