"""The games app's wire format: every frame and payload it sends to a client, and how a
frame is encoded (docs/protocol.md describes them; this module is the reference).

A frame is ``{"v": version, "t": type, "d": payload}`` (``v`` only where the protocol has
one). Selectors read (models, plain values); services and consumers shape what goes out
here, and nowhere else: the ``state`` of a game, its versioned events (``move``, ``end``,
``draw_offer``, ``players``, ``rematch``, ``takeback``, ``takeback_offer``, ``ratings``),
``presence``, the lobby's ``seeks``
and a player's ``game`` / ``challenge`` notices, ``error``, the watch list's entries, and
the notification socket's frames (``notifications``, ``notification``, ``unread``) with the
payloads of each notification kind.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from datetime import datetime
from typing import Any

from kondavo.accounts.models import Player
from kondavo.games import clock, hooks, selectors
from kondavo.games import presence as presence_store
from kondavo.games.models import Challenge, Game, Seek
from kondavo.games.presence import PresenceView
from variants import GameRecord, Move, PlayedMove, Position, Variant, get_variant

# --------------------------------------------------------------------------- frames

def frame(t: str, d: dict[str, Any], v: int | None = None) -> dict[str, Any]:
    """A frame: ``{"v", "t", "d"}``, or ``{"t", "d"}`` without a version."""
    return {"t": t, "d": d} if v is None else {"v": v, "t": t, "d": d}


def encode_frame(value: dict[str, Any]) -> str:
    """A frame as the text a socket sends (compact JSON, UTF-8 kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def error(code: str, message: str) -> dict[str, Any]:
    """The ``error`` payload: a stable ``code`` and words for a person."""
    return {"code": code, "message": message}


# --------------------------------------------------------------------------- pieces

def clocks_payload(game: Game, now: datetime) -> dict[str, Any] | None:
    if not game.timed:
        return None
    white = selectors.clock_remaining(game, "white", now)
    black = selectors.clock_remaining(game, "black", now)
    return {
        "white": max(white or 0, 0),
        "black": max(black or 0, 0),
        "running": selectors.clock_running(game),
        "initial": game.clock_initial_ms,
        "increment": game.clock_increment_ms,
    }


def abort_payload(game: Game) -> dict[str, Any] | None:
    """Why an aborted game was aborted: ``{reason, side}`` (``side``: who did not make a
    first move in time); None for other games."""
    if game.status != Game.Status.ABORTED:
        return None
    reason = game.reason or "by_player"
    return {"reason": reason,
            "side": selectors.turn_of(game) if reason == "no_first_move" else None}


def move_payload(variant: Variant, position: Position, move: Move,
                 legal: list[Move]) -> dict[str, Any]:
    label = variant.square_label
    return {
        "notation": variant.format_move(position, move, legal),
        "path": [label(s) for s in move.path],
        "captured": [label(s) for s in move.captured],
    }


def legal_payload(variant: Variant, position: Position,
                  legal: list[Move] | None = None) -> list[dict[str, Any]]:
    """The legal moves as the game page reads them; ``legal``: the moves the game so far
    allows (``GameRecord.legal_moves``), when the caller has a record."""
    if legal is None:
        legal = variant.legal_moves(position)
    return [move_payload(variant, position, m, legal) for m in legal]


def player_payload(player: Player | None, ruleset: str) -> dict[str, Any] | None:
    if player is None:
        return None
    if player.kind == Player.Kind.BOT:
        # A bot has no Elo of its own: its level's nominal rating, measured per ruleset
        # (None when not measured: pages then show the level alone).
        level = int(player.bot_level or 0)
        return {"name": player.name, "kind": player.kind, "level": level,
                "rating": hooks.bot_rating(ruleset, level)}
    return {"name": player.name, "kind": player.kind,
            "rating": selectors.player_rating(player, ruleset)}


def players_payload(game: Game) -> dict[str, Any]:
    return {
        "white": player_payload(game.white, game.ruleset),
        "black": player_payload(game.black, game.ruleset),
    }


def result_payload(game: Game) -> dict[str, Any] | None:
    if game.status != Game.Status.FINISHED:
        return None
    payload: dict[str, Any] = {"winner": game.winner, "reason": game.reason,
                               "score": selectors.result_score(game)}
    # A ruleset's own outcome reason (``outcome_reasons``) comes with its English words;
    # pages word it in the reader's language (frontend.rulesets.ruleset_reasons).
    own = get_variant(game.ruleset).reason_text(game.reason) if game.reason else None
    if own is not None:
        payload["reason_text"] = own
    return payload


def ratings_payload(game: Game) -> dict[str, Any] | None:
    """What a finished rated game did to its players' ratings: per side ``{before, after,
    delta}`` (the rating app's record, through ``hooks.rating_changes``); None for other
    games and while the game is not rated yet."""
    if not game.rated or game.status != Game.Status.FINISHED:
        return None
    return hooks.rating_changes(game)


def takeback_offer_payload(game: Game) -> dict[str, Any] | None:
    """The standing takeback offer ``{by, ply}`` (it lives at its ply only), or None."""
    by = selectors.takeback_offer_of(game)
    return None if by is None else {"by": by, "ply": game.ply}


def rematch_payload(game: Game) -> dict[str, Any] | None:
    if game.rematch_id:
        return {"game_id": game.rematch_id, "url": selectors.game_url(game.rematch_id)}
    return {"offered_by": game.rematch_offer} if game.rematch_offer else None


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else int(seconds * 1000)


def presence_payload(game: Game, view: PresenceView | None) -> dict[str, Any]:
    """The ``presence`` payload of docs/protocol.md: per side online or since when gone
    (``left_at``, epoch ms) and when the opponent may claim the game (``claim_at``, epoch
    ms: only while the game is active), the number of spectators, and the server's time.
    A bot is always online. ``view`` None (the store did not answer): everyone online."""
    now = view.now if view is not None else clock.now().timestamp()
    out: dict[str, Any] = {"left_at": {}, "claim_at": {}}
    for side in ("white", "black"):
        player = game.player_of(side)
        left = None
        if view is not None and player is not None and player.kind != Player.Kind.BOT:
            left = selectors.away_since(game, view, side)
        claim = (left + selectors.claim_seconds()
                 if left is not None and game.status == Game.Status.ACTIVE else None)
        out[side] = player is not None and left is None
        out["left_at"][side] = _ms(left)
        out["claim_at"][side] = _ms(claim)
    out["spectators"] = view.spectators if view is not None else 0
    out["now"] = _ms(now)
    return out


# --------------------------------------------------------------------------- state

BoardPart = tuple[str, dict[str, Any] | None, list[dict[str, Any]]]
_board_parts: OrderedDict[tuple[str, int], BoardPart] = OrderedDict()
_board_parts_lock = threading.Lock()
BOARD_PARTS_KEPT = 4096


def _board_part(variant: Variant, game: Game, record: GameRecord | None) -> BoardPart:
    """The side to move, the last move and the legal moves of ``game`` as it stands: the
    game is replayed from its moves for them, so each process keeps the latest few thousand
    by (game, event version), which changes with anything that changes them. A crowd
    opening one game, or every socket resyncing at once, replays it once."""
    key = (game.id, game.version)
    with _board_parts_lock:
        found = _board_parts.get(key)
        if found is not None:
            _board_parts.move_to_end(key)
            return found
    record = record if record is not None else selectors.game_record(game)
    last_move = None
    if record.moves:
        last = record.moves[-1]
        last_move = {
            "path": [variant.square_label(s) for s in last.move.path],
            "captured": [variant.square_label(s) for s in last.move.captured],
        }
    legal = (legal_payload(variant, record.position, record.legal_moves())
             if game.status == Game.Status.ACTIVE else [])
    part: BoardPart = (selectors.side_name(record.position.turn), last_move, legal)
    with _board_parts_lock:
        _board_parts[key] = part
        while len(_board_parts) > BOARD_PARTS_KEPT:
            _board_parts.popitem(last=False)
    return part


def game_state(game: Game, viewer: Player | None, *, now: datetime | None = None,
               record: GameRecord | None = None,
               presence: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``state`` payload of docs/protocol.md for ``viewer`` (None: anonymous);
    ``presence``: the game's presence payload if already read."""
    now = clock.resolve(now)
    if presence is None:
        presence = presence_payload(game, selectors.game_presence_view(game.id, now))
    variant = get_variant(game.ruleset)
    turn, last_move, legal = _board_part(variant, game, record)
    return {
        "id": game.id,
        "variant": variant.key,
        "variant_name": variant.name,
        "board": variant.board.as_dict(),
        "capture_rule": variant.capture_rule_text(),
        "fen": game.fen,
        "ply": game.ply,
        "turn": turn,
        "moves": list(game.moves),
        "last_move": last_move,
        "legal": legal,
        "clocks": clocks_payload(game, now),
        "abort_at": selectors.abort_at(game),
        "abort": abort_payload(game),
        "players": players_payload(game),
        "you": game.side_of(viewer),
        "status": game.status,
        "result": result_payload(game),
        "draw_offer": game.draw_offer,
        "rematch": rematch_payload(game),
        "rated": game.rated,
        "takeback_allowed": selectors.viewer_may_take_back(game, viewer),
        "takeback_offers": selectors.viewer_may_offer_takeback(game, viewer),
        "takeback_offer": takeback_offer_payload(game),
        "ratings": ratings_payload(game),
        "time_control": game.time_control,
        "presence": presence,
        "claim_victory_after_ms": int(selectors.claim_seconds() * 1000),
        "heartbeat_ms": int(presence_store.heartbeat_seconds() * 1000),
        "url": selectors.game_url(game.id),
        **hooks.state_extras(game, viewer),  # e.g. "chat", "fair_play" (their apps)
    }


# --------------------------------------------------------------------------- game events

def move_event(variant: Variant, game: Game, played: PlayedMove, after: Position,
               legal: list[Move], quiet_plies: int, now: datetime) -> dict[str, Any]:
    """``move``: the move just stored (``game`` already updated), the position after it
    and its legal moves (empty when the move ended the game)."""
    return {
        "ply": game.ply,
        "path": [variant.square_label(s) for s in played.move.path],
        "captured": [variant.square_label(s) for s in played.move.captured],
        "notation": played.notation,
        "fen": game.fen,
        "turn": selectors.side_name(after.turn),
        "legal": [move_payload(variant, after, m, legal) for m in legal],
        "clocks": clocks_payload(game, now),
        "moves_left_hint": max(variant.draw_plies - quiet_plies, 0),
        "abort_at": selectors.abort_at(game),
    }


def end_event(game: Game) -> dict[str, Any]:
    """``end`` of a game finished with a result."""
    return {"status": game.status, "result": result_payload(game)}


def end_ratings(frames: list[dict[str, Any]], game: Game) -> None:
    """After the ``game_finished`` hook, in the transaction that ended the game (the rating
    app rates it there): the write's ``end`` frame, not yet published, gets the game's
    ``ratings`` (absent when it is not rated, or not yet)."""
    if not game.rated:
        return
    ratings = ratings_payload(game)
    if ratings is None:
        return
    for f in frames:
        if f["t"] == "end":
            f["d"]["ratings"] = ratings


def ratings_event(game: Game) -> dict[str, Any]:
    """``ratings``: the game's rating changes, applied after its ``end`` went out."""
    return {"ratings": ratings_payload(game)}


def abort_event(game: Game, *, reason: str, side: str | None) -> dict[str, Any]:
    """``end`` of an aborted game: no result, and why."""
    return {"status": game.status, "result": None, "abort": {"reason": reason, "side": side}}


def draw_offer_event(*, by: str | None, declined_by: str | None = None) -> dict[str, Any]:
    """``draw_offer``: ``by`` the side offering, or None when the offer is gone;
    ``declined_by`` the side that said no (absent when the offerer withdrew)."""
    return {"by": by} if declined_by is None else {"by": by, "declined_by": declined_by}


def players_event(game: Game, now: datetime) -> dict[str, Any]:
    """``players``: both seats are taken and the game starts."""
    return {"players": players_payload(game), "status": game.status,
            "clocks": clocks_payload(game, now), "abort_at": selectors.abort_at(game)}


def rematch_event(*, new_game_id: str | None = None,
                  offered_by: str | None = None) -> dict[str, Any]:
    """``rematch``: the new game, or the side offering one."""
    if new_game_id is not None:
        return {"game_id": new_game_id, "url": selectors.game_url(new_game_id)}
    return {"offered_by": offered_by}


def takeback_event(*, ply: int, by: str) -> dict[str, Any]:
    """``takeback``: moves were taken back; ``ply`` the number of moves played now."""
    return {"ply": ply, "by": by}


def takeback_offer_event(*, by: str | None, ply: int,
                         declined_by: str | None = None) -> dict[str, Any]:
    """``takeback_offer``: ``by`` the side offering to take back its last move at ``ply``,
    or None when the offer is gone (``declined_by``: the side that said no; absent when the
    offerer withdrew). A ``move`` ends an offer without this event."""
    out: dict[str, Any] = {"by": by, "ply": ply}
    if declined_by is not None:
        out["declined_by"] = declined_by
    return out


# --------------------------------------------------------------------------- lobby

def lobby_seeks(seeks: list[Seek]) -> list[dict[str, Any]]:
    """The lobby's seeks as published, each with the internal ``player_id``
    (``seeks_for_viewer`` turns it into ``mine`` for each socket)."""
    out = []
    for seek in seeks:
        variant = get_variant(seek.ruleset)
        out.append({
            "id": seek.pk,
            "variant": variant.key,
            "variant_name": variant.name,
            "time_control": seek.time_control,
            "rated": seek.rated,
            "color": seek.color,
            "player": seek.player.name,
            "rating": selectors.player_rating(seek.player, seek.ruleset),
            "player_id": seek.player_id,
        })
    return out


def seeks_for_viewer(seeks: list[dict[str, Any]], player_id: int | None) -> list[dict[str, Any]]:
    """Drop the internal ``player_id`` and add ``mine``."""
    return [
        {**{k: v for k, v in s.items() if k != "player_id"}, "mine": s["player_id"] == player_id}
        for s in seeks
    ]


def seeks_payload(seeks: list[dict[str, Any]], player_id: int | None) -> dict[str, Any]:
    """The ``seeks`` payload for one lobby socket (its player's id: ``mine``)."""
    return {"seeks": seeks_for_viewer(seeks, player_id)}


def seek_game_frame(version: int, game: Game) -> dict[str, Any]:
    """To the two players of an accepted seek: the game to open."""
    return frame("game", {"id": game.id, "url": selectors.game_url(game.id)}, v=version)


def challenge_frame(game: Game, challenger: Player, variant: Variant) -> dict[str, Any]:
    """To the challenged player's lobby sockets: a game against ``challenger`` started."""
    return frame("challenge", {
        "id": game.id, "url": selectors.game_url(game.id), "from": challenger.name,
        "variant": variant.key, "time_control": game.time_control, "rated": game.rated})


# --------------------------------------------------------------------------- watch

def live_games(games: list[Game], *, limit: int) -> list[dict[str, Any]]:
    """The watch list's entries for ``games`` (active games), the highest rated first: a
    game's rating is its stronger player's (a bot's nominal rating; guests count as
    unrated), ties in the given order; each with its spectator count (one presence read
    per listed game)."""
    out = []
    for game in games:
        players = players_payload(game)
        ratings = [p["rating"] for p in players.values() if p and p.get("rating")]
        variant = get_variant(game.ruleset)
        out.append({
            "id": game.id, "url": selectors.game_url(game.id), "ruleset": variant.key,
            "variant_name": variant.name, "players": players, "rated": game.rated,
            "time_control": game.time_control, "ply": game.ply, "fen": game.fen,
            "rating": max(ratings) if ratings else None,
        })
    out.sort(key=lambda g: -(g["rating"] or 0))  # stable: the given order among equals
    out = out[:limit]
    for entry in out:
        view = selectors.game_presence_view(entry["id"])
        entry["spectators"] = view.spectators if view is not None else 0
    return out


# --------------------------------------------------------------------------- notifications

def epoch_ms(when: datetime | None) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


def notification_item(*, id: int, kind: str, data: dict[str, Any], url: str,
                      created: datetime, read: bool) -> dict[str, Any]:
    """One notification as the notification socket sends it."""
    return {"id": id, "kind": kind, "data": data, "url": url, "created": epoch_ms(created),
            "read": read}


def notifications_frame(items: list[dict[str, Any]], unread: int) -> dict[str, Any]:
    """On connect: the latest notifications, newest first, and the unread count."""
    return frame("notifications", {"items": items, "unread": unread})


def notification_frame(item: dict[str, Any], unread: int) -> dict[str, Any]:
    """A notification, new or changed (same ``id``: replace it), and the unread count."""
    return frame("notification", {"item": item, "unread": unread})


def unread_frame(unread: int, read: list[int] | None) -> dict[str, Any]:
    """Notifications were marked read (``read``: their ids, None: all of them)."""
    return frame("unread", {"unread": unread, "read": read})


def challenge_status(challenge: Challenge, now: datetime) -> str:
    """The challenge's status, ``expired`` as soon as it is past ``expires_at``."""
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= now:
        return Challenge.Status.EXPIRED
    return challenge.status


def challenge_data(challenge: Challenge, now: datetime) -> dict[str, Any]:
    """A ``challenge`` notification's data (to the challenged player): who, what, the
    colour the challenged player would play, until when, and where it stands."""
    variant = get_variant(challenge.ruleset)
    theirs = {"white": "black", "black": "white"}.get(challenge.color, "random")
    return {"challenge_id": challenge.pk, "from": challenge.challenger.name,
            "variant": variant.key, "variant_name": variant.name,
            "time_control": challenge.time_control, "rated": challenge.rated,
            "color": theirs, "expires_at": epoch_ms(challenge.expires_at),
            "status": challenge_status(challenge, now), "game_id": challenge.game_id}


def challenge_answer_data(challenge: Challenge, now: datetime) -> dict[str, Any]:
    """A ``challenge_answer`` notification's data (to the challenger): the answer
    (``accepted``, ``declined``, ``expired``) and the game once accepted."""
    return {"challenge_id": challenge.pk, "by": challenge.opponent.name,
            "variant": challenge.ruleset, "status": challenge_status(challenge, now),
            "game_id": challenge.game_id}


def challenge_sent(challenge: Challenge) -> dict[str, Any]:
    """The answer to the challenger's request: the challenge and until when it waits."""
    return {"challenge": challenge.pk, "status": challenge.status,
            "expires_at": epoch_ms(challenge.expires_at), "opponent": challenge.opponent.name}


def game_frame(game_id: str) -> dict[str, Any]:
    """To the socket that accepted a challenge: the game to open."""
    return frame("game", {"id": game_id, "url": selectors.game_url(game_id)})


# --------------------------------------------------------------------------- chat

CHAT_PLAYERS = "players"
CHAT_SPECTATORS = "spectators"
CHAT_EVERYONE = "all"


def chat_line(*, id: int, room: str, author: str, text: str,
              created: datetime) -> dict[str, Any]:
    """One chat line: ``{id, room, author, text, at}`` (``text`` as written: the page
    escapes it)."""
    return {"id": id, "room": room, "author": author, "text": text, "at": epoch_ms(created)}


def chat_line_frame(line: dict[str, Any]) -> dict[str, Any]:
    """``chat``: a new line in a room the socket reads."""
    return frame("chat", {"line": line})


def chat_remove_frame(room: str, ids: list[int]) -> dict[str, Any]:
    """``chat_remove``: the staff removed these lines of ``room``."""
    return frame("chat_remove", {"room": room, "ids": ids})


def chat_muted_frame(names: list[str]) -> dict[str, Any]:
    """``chat_muted``: the players whose lines this player no longer receives."""
    return frame("chat_muted", {"muted": names})


def chat_reported_frame(line_id: int) -> dict[str, Any]:
    """``chat_reported``: the report of a line was recorded."""
    return frame("chat_reported", {"id": line_id})


def chat_message(chat_frame: dict[str, Any], *, audience: str, seats: list[int] | None = None,
                 open_to_players: bool = False,
                 muted_by: list[int] | None = None) -> dict[str, Any]:
    """The bus message (``chat.frame``) carrying ``chat_frame`` to a room's sockets:
    ``audience`` ``players`` (only the seated players), ``spectators`` (everyone else, and
    the players too once ``open_to_players``: the game is over) or ``all``; ``muted_by``:
    players who muted the author (not sent to them)."""
    return {"type": "chat.frame", "frame": chat_frame, "audience": audience,
            "seats": list(seats or []), "open": open_to_players,
            "muted_by": list(muted_by or [])}


def chat_for_socket(message: dict[str, Any], player_id: int | None,
                    version: int | None = None) -> dict[str, Any] | None:
    """The frame of a ``chat.frame`` bus message for one socket (its player's id), or None
    when that socket must not get it. ``version``: the game socket's current ``v``."""
    if player_id is not None and player_id in message.get("muted_by", ()):
        return None
    seated = player_id is not None and player_id in message.get("seats", ())
    audience = message.get("audience")
    if audience == CHAT_PLAYERS and not seated:
        return None
    if audience == CHAT_SPECTATORS and seated and not message.get("open"):
        return None
    out = dict(message["frame"])
    if version is not None:
        out["v"] = version
    return out


# --------------------------------------------------------------------------- tournaments
# The tournament socket's frames (``kondavo.tournaments``, docs/protocol.md "Tournament
# socket"). Built from plain values: the games app never imports the tournaments app.

def tournament_row(*, rank: int, player_id: int, name: str, rating: int | None, score: float,
                   games: int, fire: bool, sheet: list[dict[str, Any]], playing: bool,
                   paused: bool, withdrawn: bool, tiebreaks: list[float] | None
                   ) -> dict[str, Any]:
    """One line of the standings (``sheet``: the player's games, oldest first, each
    ``{"p": points, "r": "w"|"d"|"l"|"b"|"v", "f": on fire, "k": berserk}``)."""
    return {"rank": rank, "id": player_id, "name": name, "rating": rating, "score": score,
            "games": games, "fire": fire, "sheet": sheet, "playing": playing,
            "paused": paused, "withdrawn": withdrawn, "tiebreaks": tiebreaks}


def tournament_standings_frame(data: dict[str, Any]) -> dict[str, Any]:
    """``standings``: what everyone watching a tournament sees (status, round, the top of
    the standings, the leader's game, the current round's games, the podium once over);
    coalesced to about one a second per tournament."""
    return frame("standings", data)


def tournament_snapshot_frame(data: dict[str, Any]) -> dict[str, Any]:
    """``tournament``: on connect and resync: the tournament and ``standings``' payload."""
    return frame("tournament", data)


def tournament_me_frame(data: dict[str, Any] | None) -> dict[str, Any]:
    """``me``: the socket's player in the tournament (None: not in it)."""
    return frame("me", {"entry": data})
