"""The chat app's one service layer.

Rooms are names (``ROOM``): ``game.<id>.players`` (the two players), ``game.<id>.spectators``
(everyone else; the players read it only once the game is over, as on lichess) and any other
room such as ``tournament.<id>``. :func:`chat_post` and :func:`chat_history` work for any
room; the game socket's frames come through :func:`chat_game_frame` (the games app's chat
hook) and the last lines go out with the game's ``state`` (:func:`chat_game_state`).

Delivery: a line is stored, then published on commit to the room's bus group (``game.<id>``
for a game's rooms, the room's name otherwise) as a ``chat.frame`` message that says who may
read it (``kondavo.games.wire.chat_message``); each socket keeps what its audience may read
(``wire.chat_for_socket``), so a spectators' line never reaches a player's socket during the
game and a muted author's lines never reach the player who muted them.

Moderation: per-player and per-address rate limits (``kondavo.ratelimits``), the word filter
(``wordfilter``: refused, not altered), a length limit, guests read-only unless
``KONDAVO_CHAT_GUESTS_WRITE``, mutes and reports by players, the staff's removal of lines
(pushed to the sockets) and restrictions (mute for a while, ban), every action in
``ModerationLog``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.chat import wordfilter
from kondavo.chat.models import ChatLine, ChatMute, ChatReport, ChatRestriction, ModerationLog
from kondavo.games import events, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.ratelimits import rate_limit

ROOM = re.compile(r"^[a-z][a-z0-9_]{0,15}\.[A-Za-z0-9_-]{1,32}(?:\.[a-z][a-z0-9_]{0,15})?$")
GAME_ROOM = re.compile(r"^game\.([A-Za-z0-9]{1,12})\.(players|spectators)$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
MUTED_BY_SENT = 5000  # at most this many muters travel with a line


def max_length() -> int:
    return int(getattr(settings, "KONDAVO_CHAT_MAX_LENGTH", 200))


def history_size() -> int:
    return int(getattr(settings, "KONDAVO_CHAT_HISTORY", 50))


def guests_write() -> bool:
    return bool(getattr(settings, "KONDAVO_CHAT_GUESTS_WRITE", False))


def game_room(game_id: str, kind: str) -> str:
    return f"game.{game_id}.{kind}"


def room_group(room: str) -> str:
    """The bus group a room's lines travel on."""
    match = GAME_ROOM.match(room)
    return events.game_group(match.group(1)) if match else room


def check_room(room: Any) -> str:
    if not isinstance(room, str) or not ROOM.match(room):
        raise GameError("bad_request", "a room is a name such as game.<id>.players")
    return room


def clean_text(text: Any) -> str:
    """The line as it will be stored: composed Unicode, no control or direction characters,
    runs of blanks made one space, trimmed. Refused when empty or too long."""
    if not isinstance(text, str):
        raise GameError("bad_request", 'a chat line is {"room": ..., "text": "..."}')
    text = unicodedata.normalize("NFC", text)
    text = " ".join(_CONTROL.sub("", text).split())
    if not text:
        raise GameError("bad_request", _("Write something first."))
    if len(text) > max_length():
        raise GameError("too_long", _("A chat line has at most %(n)d characters.")
                        % {"n": max_length()})
    return text


def restriction_of(player: Player, now: datetime | None = None) -> ChatRestriction | None:
    now = now or timezone.now()
    return (ChatRestriction.objects.filter(player=player)
            .filter(Q(until__isnull=True, kind=ChatRestriction.Kind.BAN) | Q(until__gt=now))
            .order_by("-until").first())


def may_write(player: Player | None) -> bool:
    """Whether ``player`` may write at all (rooms aside)."""
    if player is None or player.is_bot or player.banned:
        return False
    if player.is_guest and not guests_write():
        return False
    return restriction_of(player) is None


def _require_writer(player: Player | None) -> Player:
    if player is None:
        raise GameError("not_a_player", _("Open a game or log in to chat."))
    if player.is_bot or player.banned:
        raise GameError("not_allowed", _("You may not write in the chat."))
    if player.is_guest and not guests_write():
        raise GameError("chat_read_only", _("Guests can read the chat: log in to write."))
    found = restriction_of(player)
    if found is not None:
        if found.until is None:
            raise GameError("chat_banned", _("You are banned from the chat."))
        minutes = max(1, int((found.until - timezone.now()).total_seconds() // 60) + 1)
        raise GameError("chat_muted", _("You are muted in the chat for %(n)d more minutes.")
                        % {"n": minutes})
    return player


def _log(action: str, *, actor_player: Player | None = None, actor_user: Any = None,
         target: Player | None = None, line: ChatLine | None = None, room: str = "",
         detail: str = "") -> None:
    ModerationLog.objects.create(action=action, actor_player=actor_player,
                                 actor_user=actor_user, target=target, line=line,
                                 room=room, detail=detail[:500])


def line_payload(line: ChatLine, author: str | None = None) -> dict[str, Any]:
    return wire.chat_line(id=line.pk, room=line.room, author=author or line.author.name,
                          text=line.text, created=line.created)


def _seats_and_open(room: str) -> tuple[str, list[int], bool]:
    """The audience of a room's lines: (audience, the game's seated player ids, whether the
    game is over)."""
    match = GAME_ROOM.match(room)
    if not match:
        return wire.CHAT_EVERYONE, [], True
    row = (Game.objects.filter(pk=match.group(1))
           .values_list("white_id", "black_id", "status").first())
    if row is None:
        raise GameError("not_found", "no such game")
    seats = [pid for pid in row[:2] if pid is not None]
    over = row[2] in (Game.Status.FINISHED, Game.Status.ABORTED)
    return match.group(2), seats, over


def _publish_line(line_id: int) -> None:
    line = ChatLine.objects.select_related("author").filter(pk=line_id).first()
    if line is None or line.removed_at is not None:
        return
    audience, seats, over = _seats_and_open(line.room)
    muted_by = list(ChatMute.objects.filter(muted_id=line.author_id)
                    .values_list("muter_id", flat=True)[:MUTED_BY_SENT])
    events.publish_chat(room_group(line.room), wire.chat_message(
        wire.chat_line_frame(line_payload(line)), audience=audience, seats=seats,
        open_to_players=over, muted_by=muted_by))


def chat_post(*, room: str, player: Player | None, text: Any, address: str = "") -> ChatLine:
    """Say ``text`` in ``room`` as ``player`` from ``address``; published on commit.

    Checks, in order: the room's name, the writer (an identity, not a guest unless allowed,
    no staff restriction), the text (not empty, ``KONDAVO_CHAT_MAX_LENGTH``), the rate limits
    (``KONDAVO_CHAT_RATE_PLAYER``, ``KONDAVO_CHAT_RATE_IP``), the word filter. Whether the
    player may write in this particular room is the caller's to check (the game socket:
    :func:`chat_game_frame`; a tournament: its members)."""
    room = check_room(room)
    writer = _require_writer(player)
    text = clean_text(text)
    rate_limit(action="chat", keys=[f"player:{writer.pk}"], setting="KONDAVO_CHAT_RATE_PLAYER")
    if address:
        rate_limit(action="chat", keys=[f"ip:{address}"], setting="KONDAVO_CHAT_RATE_IP")
    blocked = wordfilter.blocked_word(text)
    if blocked is not None:
        _log(ModerationLog.Action.FILTERED, actor_player=writer, target=writer, room=room,
             detail=f"[{blocked[0]}: {blocked[1]}] {text}")
        raise GameError("chat_filtered", _("This line contains a word that is not allowed "
                                           "in the chat; it was not sent."))
    with transaction.atomic():
        line = ChatLine.objects.create(room=room, author=writer, text=text,
                                       address=address[:64])
        transaction.on_commit(partial(_publish_line, line.pk))
    return line


def muted_ids(player: Player | None) -> set[int]:
    if player is None:
        return set()
    return set(ChatMute.objects.filter(muter=player).values_list("muted_id", flat=True))


def chat_history(*, room: str, viewer: Player | None = None,
                 limit: int | None = None) -> list[dict[str, Any]]:
    """The last lines of ``room``, oldest first: removed lines and lines of players the
    viewer muted left out."""
    room = check_room(room)
    rows = ChatLine.objects.filter(room=room, removed_at__isnull=True).select_related("author")
    muted = muted_ids(viewer)
    if muted:
        rows = rows.exclude(author_id__in=muted)
    lines = list(rows.order_by("-id")[: limit or history_size()])
    lines.reverse()
    return [line_payload(line) for line in lines]


# --------------------------------------------------------------------------- games

def _game_rooms(game: Game, viewer: Player | None) -> tuple[list[str], list[str]]:
    """(rooms the viewer reads, rooms the viewer may write to) in this game."""
    players, spectators = game_room(game.id, "players"), game_room(game.id, "spectators")
    seated = game.side_of(viewer) is not None
    if seated:
        read = [players, spectators] if game.is_over else [players]
        write = [players, spectators] if game.is_over else [players]
        if game.white is not None and game.black is not None and (
                game.white.is_bot or game.black.is_bot):
            write = [r for r in write if r != players]  # nobody to talk to
    else:
        read, write = [spectators], [spectators]
    if not may_write(viewer):
        write = []
    return read, write


def chat_game_state(game: Game, viewer: Player | None) -> dict[str, Any]:
    """The ``chat`` part of a game's ``state``: the last lines of the rooms the viewer
    reads, the rooms they may write to, the players they muted, the length limit and the
    viewer's own name (``me``: no mute or report on one's own lines)."""
    read, write = _game_rooms(game, viewer)
    muted = muted_ids(viewer)
    names = (list(Player.objects.filter(pk__in=muted).values_list("name", flat=True))
             if muted else [])
    return {"rooms": {room: chat_history(room=room, viewer=viewer) for room in read},
            "write": write, "muted": sorted(names), "max_length": max_length(),
            "me": viewer.name if viewer is not None else None}


def _game_room_of(game_id: str, value: Any) -> str:
    if value in (wire.CHAT_PLAYERS, wire.CHAT_SPECTATORS):
        return game_room(game_id, str(value))
    if isinstance(value, str) and value.startswith(f"game.{game_id}."):
        return check_room(value)
    raise GameError("bad_request", 'room is "players" or "spectators"')


def chat_game_frame(*, game_id: str, player: Player | None, address: str, t: str,
                    data: Mapping[str, Any]) -> dict[str, Any] | None:
    """A game socket's ``chat``, ``chat_mute``, ``chat_report`` or ``chat_remove`` frame
    (docs/protocol.md); returns a frame for the sender, or None."""
    if t == "chat":
        game = Game.objects.select_related("white", "black").filter(pk=game_id).first()
        if game is None:
            raise GameError("not_found", "no such game")
        room = _game_room_of(game.id, data.get("room"))
        _read, write = _game_rooms(game, player)
        if room not in write:
            _require_writer(player)  # the reason when it is the writer
            raise GameError("not_allowed", _("You cannot write in this chat room."))
        chat_post(room=room, player=player, text=data.get("text"), address=address)
        return None
    if player is None:
        raise GameError("not_a_player", _("Open a game or log in to chat."))
    if t == "chat_mute":
        names = chat_mute(player=player, name=data.get("name"),
                          mute=data.get("mute", True) is not False)
        return wire.chat_muted_frame(names)
    if t == "chat_report":
        line = chat_report(player=player, line_id=data.get("id"), reason=data.get("reason"))
        return wire.chat_reported_frame(line.pk)
    if t == "chat_remove":
        user = player.user
        if user is None or not user.is_staff:
            raise GameError("not_allowed", _("Only the staff can remove lines."))
        chat_remove_lines(line_ids=[data.get("id")], staff=user)
        return None
    raise GameError("unknown_type", f"unknown frame type {t[:32]!r}")


# --------------------------------------------------------------------------- moderation

def chat_mute(*, player: Player, name: Any, mute: bool = True) -> list[str]:
    """``player`` mutes (or unmutes) the player called ``name``: their lines are no longer
    sent to ``player``. Returns the names ``player`` has muted."""
    if not isinstance(name, str) or not name:
        raise GameError("bad_request", 'mute is {"name": "..."}')
    target = Player.objects.filter(name=name[:64]).first()
    if target is None:
        raise GameError("not_found", _("No such player."))
    if target.pk == player.pk:
        raise GameError("not_allowed", _("You cannot mute yourself."))
    if mute:
        _made, created = ChatMute.objects.get_or_create(muter=player, muted=target)
        if created:
            _log(ModerationLog.Action.MUTE, actor_player=player, target=target)
    elif ChatMute.objects.filter(muter=player, muted=target).delete()[0]:
        _log(ModerationLog.Action.UNMUTE, actor_player=player, target=target)
    return sorted(Player.objects.filter(chat_muted_by__muter=player)
                  .values_list("name", flat=True))


def chat_report(*, player: Player, line_id: Any, reason: Any = "") -> ChatLine:
    """``player`` reports a line they could read: kept (with its text) for the staff."""
    if not isinstance(line_id, int) or isinstance(line_id, bool):
        raise GameError("bad_request", 'report is {"id": line id}')
    line = ChatLine.objects.filter(pk=line_id).first()
    if line is None:
        raise GameError("not_found", _("No such line."))
    rate_limit(action="chat-report", keys=[f"player:{player.pk}"],
               setting="KONDAVO_CHAT_REPORT_RATE")
    with transaction.atomic():
        _report, created = ChatReport.objects.get_or_create(
            line=line, reporter=player,
            defaults={"author_id": line.author_id, "room": line.room, "text": line.text,
                      "reason": str(reason or "")[:200]})
        if created:
            _log(ModerationLog.Action.REPORT, actor_player=player, target=line.author,
                 line=line, room=line.room, detail=line.text)
    return line


def chat_remove_lines(*, line_ids: list[Any], staff: Any) -> int:
    """The staff removes lines: hidden from histories, and every socket of their rooms is
    told (``chat_remove``) on commit. Returns how many were removed."""
    ids = [i for i in line_ids if isinstance(i, int) and not isinstance(i, bool)]
    now = timezone.now()
    removed = 0
    with transaction.atomic():
        lines = list(ChatLine.objects.select_for_update()
                     .filter(pk__in=ids, removed_at__isnull=True))
        by_room: dict[str, list[int]] = {}
        for line in lines:
            line.removed_at, line.removed_by = now, staff
            line.save(update_fields=["removed_at", "removed_by"])
            _log(ModerationLog.Action.REMOVE, actor_user=staff, target=line.author,
                 line=line, room=line.room, detail=line.text)
            by_room.setdefault(line.room, []).append(line.pk)
            removed += 1
        for room, room_ids in by_room.items():
            message = wire.chat_message(wire.chat_remove_frame(room, room_ids),
                                        audience=wire.CHAT_EVERYONE)
            transaction.on_commit(partial(events.publish_chat, room_group(room), message))
    return removed


def chat_restrict(*, player: Player, kind: str, minutes: int | None, reason: str = "",
                  staff: Any = None) -> ChatRestriction:
    """The staff mutes (``minutes``) or bans (``minutes`` None: for good) a player from the
    chat."""
    until = timezone.now() + timedelta(minutes=minutes) if minutes else None
    restriction = ChatRestriction.objects.create(player=player, kind=kind, until=until,
                                                 reason=reason[:200], created_by=staff)
    chat_log_restriction(restriction, staff=staff)
    return restriction


def chat_log_restriction(restriction: ChatRestriction, *, staff: Any,
                         lifted: bool = False) -> None:
    _log(ModerationLog.Action.UNRESTRICT if lifted else ModerationLog.Action.RESTRICT,
         actor_user=staff, target=restriction.player,
         detail=f"{restriction.kind} until {restriction.until or '-'}: {restriction.reason}")
