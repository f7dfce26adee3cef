"""The notifications app's one service layer: store a notification, read a player's
latest ones, mark them read, and turn game events into notifications.

- ``notify`` (registered as the games app's notifier, ``kondavo.games.hooks.notify``):
  stores the notification in the caller's transaction (one row per recipient and key) and,
  on commit, sends it to the recipient's notification sockets (``notification`` frame with
  the unread count).
- ``on_game_events`` (the games app's game events listener, after a write's commit): a seat
  taken (``joined``, to the game's creator), a rematch offer (``rematch``, to the other
  player) and, in an untimed game between two people, the move that makes it someone's turn
  (``turn``, one notification per game, updated at each move). Never raises: the move it
  follows is stored and published already.
- ``notifications_snapshot``, ``notifications_mark_read``: what the socket sends on
  connect, and "read" from any page (every page of the player hears the new count).

Frames and payloads are shaped by ``kondavo.games.wire``.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from kondavo.accounts.models import Player
from kondavo.games import clock, events, presence, selectors, wire
from kondavo.games.hooks import GameEvents
from kondavo.notifications.models import Notification

log = logging.getLogger(__name__)

LISTED = 30  # notifications sent on connect, newest first
KINDS = frozenset(Notification.Kind.values)


def _item(n: Notification, now_ms: int | None = None) -> dict[str, Any]:
    data = dict(n.data)
    if n.kind == Notification.Kind.CHALLENGE and data.get("status") == "pending":
        # Expiry is lazy (the sweep runs every minute): show it as soon as it is true.
        now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
        if (data.get("expires_at") or 0) <= now_ms:
            data["status"] = "expired"
    return wire.notification_item(id=n.pk, kind=n.kind, data=data, url=n.url,
                                  created=n.updated, read=n.read_at is not None)


def unread_count(*, player_id: int) -> int:
    return Notification.objects.filter(recipient_id=player_id, read_at__isnull=True).count()


def _publish(notification_id: int) -> None:
    """After the commit: the notification as stored now, and the unread count."""
    n = Notification.objects.filter(pk=notification_id).first()
    if n is None:
        return
    frame = wire.notification_frame(_item(n), unread_count(player_id=n.recipient_id))
    events.publish_notify(n.recipient_id, frame)


def notify(*, recipient_id: int, kind: str, key: str, data: dict[str, Any], url: str = "",
           read: bool | None = False, now: datetime | None = None) -> Notification:
    """Store (or update: same recipient and key) a notification; sent on commit.
    ``read``: False marks it unread, True read, None keeps what it was (new: unread)."""
    if kind not in KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")
    now = now or timezone.now()
    defaults: dict[str, Any] = {"kind": kind, "data": data, "url": url[:200], "updated": now}
    if read is not None:
        defaults["read_at"] = now if read else None
    with transaction.atomic():
        n, _created = Notification.objects.update_or_create(
            recipient_id=recipient_id, key=key[:64], defaults=defaults)
        transaction.on_commit(partial(_publish, n.pk))
    return n


def notify_generic(*, player: Player, key: str, text: str, url: str = "") -> Notification:
    """A notification with its own words (e.g. "your tournament starts"), for later
    features: ``text`` is shown as it is (translate it for the recipient first)."""
    return notify(recipient_id=player.pk, kind=Notification.Kind.GENERIC, key=key,
                  data={"text": text[:300]}, url=url)


def notifications_snapshot(*, player: Player) -> dict[str, Any]:
    """The ``notifications`` frame: the latest ones, newest first, and the unread count."""
    now_ms = int(time.time() * 1000)
    items = [_item(n, now_ms) for n in Notification.objects.filter(recipient=player)[:LISTED]]
    return wire.notifications_frame(items, unread_count(player_id=player.pk))


def notifications_mark_read(*, player: Player, ids: list[Any] | None) -> int:
    """Mark ``ids`` (None: all) of ``player``'s notifications read; every page of theirs
    hears the new count (``unread`` frame). Returns how many changed."""
    rows = Notification.objects.filter(recipient=player, read_at__isnull=True)
    clean: list[int] | None = None
    if ids is not None:
        clean = [int(i) for i in ids if isinstance(i, int) and not isinstance(i, bool)][:64]
        rows = rows.filter(pk__in=clean)
    changed = rows.update(read_at=timezone.now())
    if changed:
        frame = wire.unread_frame(unread_count(player_id=player.pk), clean)
        transaction.on_commit(partial(events.publish_notify, player.pk, frame))
    return changed


# --------------------------------------------------------------------------- game events

_WATCHED = frozenset({"players", "rematch"})


def on_game_events(ev: GameEvents) -> None:
    """Turn a committed game write's frames into notifications (see the module docstring).
    Cheap for what it ignores: a timed game's moves cost one loop over the frame types."""
    if ev.timed and not any(t in _WATCHED for t, _d in ev.frames):
        return
    try:
        _game_events(ev)
    except Exception:  # the game write is committed and published: never fail it
        log.exception("notifications for game %s failed", ev.game_id)


def _human(ev: GameEvents, side: str) -> int | None:
    """The player id at ``side`` if a person sits there."""
    if ev.kinds.get(side) in (None, Player.Kind.BOT):
        return None
    return ev.white_id if side == "white" else ev.black_id


def _name(player_id: int | None) -> str:
    if player_id is None:
        return ""
    return Player.objects.filter(pk=player_id).values_list("name", flat=True).first() or ""


def _at_the_board(game_id: str, side: str) -> bool:
    """Whether ``side`` has the game's page open (a live socket at the game), by the
    presence store (one read; a store that does not answer counts as away)."""
    try:
        view = presence.store().view(game_id, clock.now().timestamp())
    except Exception:
        return False
    return bool(view.online.get(side))


def _game_events(ev: GameEvents) -> None:
    url = selectors.game_url(ev.game_id)
    last_move: dict[str, Any] | None = None
    for t, d in ev.frames:
        if t == "move":
            last_move = dict(d)
        elif t == "players" and ev.creator_id is not None:
            seats = {"white": ev.white_id, "black": ev.black_id}
            joined = next((pid for pid in seats.values() if pid and pid != ev.creator_id), None)
            if joined is not None:
                notify(recipient_id=ev.creator_id, kind=Notification.Kind.JOINED,
                       key=f"joined:{ev.game_id}",
                       data={"game_id": ev.game_id, "by": _name(joined)}, url=url)
        elif t == "rematch" and d.get("offered_by") in ("white", "black"):
            by = str(d["offered_by"])
            to = _human(ev, "black" if by == "white" else "white")
            if to is not None:
                notify(recipient_id=to, kind=Notification.Kind.REMATCH,
                       key=f"rematch:{ev.game_id}",
                       data={"game_id": ev.game_id, "from": _name(_human(ev, by))}, url=url)
    if last_move is None or ev.timed or not last_move.get("legal"):
        return
    turn = str(last_move.get("turn"))
    mover = "black" if turn == "white" else "white"
    to, other = _human(ev, turn), _human(ev, mover)
    if to is None or other is None:  # only between two people (a bot answers at once)
        return
    if _at_the_board(ev.game_id, turn):  # the board tells them: no write, no frame
        return
    notify(recipient_id=to, kind=Notification.Kind.TURN, key=f"turn:{ev.game_id}",
           data={"game_id": ev.game_id, "opponent": _name(other),
                 "ply": last_move.get("ply")}, url=url)
