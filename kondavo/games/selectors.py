"""Reads: games, the protocol's state and event payloads, lobby seeks."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet

from kondavo.accounts.models import Player
from kondavo.games import clock, hooks
from kondavo.games import presence as presence_store
from kondavo.games.models import Game, Seek
from kondavo.games.presence import PresenceView
from variants import Color, GameRecord, Move, Position, Variant, get_variant
from variants.pdn import write_pdn

log = logging.getLogger(__name__)

GAME_PAGE_URL = "/game/{id}/"  # the page itself is the frontend app's


def game_url(game_id: str) -> str:
    return GAME_PAGE_URL.format(id=game_id)


def side_name(color: Color) -> str:
    return "white" if color is Color.WHITE else "black"


def game_get(*, game_id: str) -> Game | None:
    return Game.objects.select_related("white", "black").filter(pk=str(game_id)[:12]).first()


def game_version(*, game_id: str) -> int | None:
    """The game's current event version (one indexed read), or None for an unknown game."""
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first()


def games_of_player(*, player: Player, status: str | None = None,
                    limit: int = 50) -> QuerySet[Game]:
    qs = Game.objects.select_related("white", "black").filter(
        Q(white=player) | Q(black=player))
    if status is not None:
        qs = qs.filter(status=status)
    return qs.order_by("-created")[:limit]


def game_record(game: Game) -> GameRecord:
    """The game rebuilt from its start position and stored moves."""
    return GameRecord.from_notation(get_variant(game.ruleset), game.moves, game.start_fen)


def turn_of(game: Game) -> str:
    """The side to move, from the cached FEN (a PDN FEN starts with W or B)."""
    return "white" if game.fen[:1].upper() == "W" else "black"


# --------------------------------------------------------------------------- clocks

def clock_remaining(game: Game, side: str, now: datetime) -> int | None:
    """Milliseconds left for ``side`` at ``now`` (may be negative when the flag fell)."""
    if not game.timed:
        return None
    stored = game.white_ms if side == "white" else game.black_ms
    if stored is None:
        return None
    if clock_running(game) == side and game.turn_started_at is not None:
        elapsed = int((now - game.turn_started_at).total_seconds() * 1000)
        return stored - max(elapsed, 0)
    return stored


def clock_running(game: Game) -> str | None:
    """The side whose clock runs: none before each side has made its first move."""
    if (not game.timed or game.status != Game.Status.ACTIVE or game.turn_started_at is None
            or game.ply < 2):
        return None
    return turn_of(game)


def abort_payload(game: Game) -> dict[str, Any] | None:
    """Why an aborted game was aborted: ``{reason, side}`` (``side``: who did not make a
    first move in time); None for other games."""
    if game.status != Game.Status.ABORTED:
        return None
    reason = game.reason or "by_player"
    return {"reason": reason, "side": turn_of(game) if reason == "no_first_move" else None}


def abort_at(game: Game) -> int | None:
    """Before each side's first move: when the game is aborted if the side to move has not
    moved (epoch ms); None otherwise (and while a bot is to move)."""
    if game.status != Game.Status.ACTIVE or game.ply >= 2 or game.flag_at is None:
        return None
    return int(game.flag_at.timestamp() * 1000)


def clocks_payload(game: Game, now: datetime) -> dict[str, Any] | None:
    if not game.timed:
        return None
    white = clock_remaining(game, "white", now)
    black = clock_remaining(game, "black", now)
    return {
        "white": max(white or 0, 0),
        "black": max(black or 0, 0),
        "running": clock_running(game),
        "initial": game.clock_initial_ms,
        "increment": game.clock_increment_ms,
    }


# --------------------------------------------------------------------------- payloads

def move_payload(variant: Variant, position: Position, move: Move,
                 legal: list[Move]) -> dict[str, Any]:
    label = variant.square_label
    return {
        "notation": variant.format_move(position, move, legal),
        "path": [label(s) for s in move.path],
        "captured": [label(s) for s in move.captured],
    }


def legal_payload(variant: Variant, position: Position) -> list[dict[str, Any]]:
    legal = variant.legal_moves(position)
    return [move_payload(variant, position, m, legal) for m in legal]


def player_rating(player: Player, ruleset: str) -> int | None:
    """The rating shown next to a player (``hooks.player_rating``: the rating app's)."""
    return hooks.player_rating(player=player, ruleset=ruleset)


def player_payload(player: Player | None, ruleset: str) -> dict[str, Any] | None:
    if player is None:
        return None
    if player.kind == Player.Kind.BOT:
        # A bot has no Elo of its own: its level's nominal rating, measured per ruleset
        # (None when not measured: pages then show the level alone).
        level = int(player.bot_level or 0)
        return {"name": player.name, "kind": player.kind, "level": level,
                "rating": hooks.bot_rating(ruleset, level)}
    return {"name": player.name, "kind": player.kind, "rating": player_rating(player, ruleset)}


def players_payload(game: Game) -> dict[str, Any]:
    return {
        "white": player_payload(game.white, game.ruleset),
        "black": player_payload(game.black, game.ruleset),
    }


def result_payload(game: Game) -> dict[str, Any] | None:
    if game.status != Game.Status.FINISHED:
        return None
    return {"winner": game.winner, "reason": game.reason, "score": result_score(game)}


def result_score(game: Game) -> str:
    """The result from White's side in the ruleset's notation ("2-0", "1-0", "1/2-1/2"...)."""
    winner = {"white": Color.WHITE, "black": Color.BLACK}.get(game.winner or "")
    return get_variant(game.ruleset).result_text(winner)


def takeback_allowed(*, rated: bool, opponent_kind: str | None) -> bool:
    """A player may take moves back only in a casual game against the computer."""
    return not rated and opponent_kind == Player.Kind.BOT


def claim_seconds() -> float:
    """How long a player must have been gone before the opponent may claim the game."""
    return float(getattr(settings, "KONDAVO_CLAIM_VICTORY_SECONDS", 60))


def away_since(game: Game, view: PresenceView, side: str) -> float | None:
    """Since when (epoch seconds) the player of ``side`` has had no live socket; None while
    online. A player never seen counts from the start of the game, or from when the presence
    store began keeping this game's presence if later (it lost its data meanwhile)."""
    if view.online.get(side, False):
        return None
    left = view.left_at.get(side)
    if left is None:  # never seen: from the start, but not before the store kept presence
        epoch = view.epoch if view.epoch is not None else view.now
        left = max(game.started.timestamp(), epoch) if game.started is not None else epoch
    return left


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
            left = away_since(game, view, side)
        claim = (left + claim_seconds()
                 if left is not None and game.status == Game.Status.ACTIVE else None)
        out[side] = player is not None and left is None
        out["left_at"][side] = _ms(left)
        out["claim_at"][side] = _ms(claim)
    out["spectators"] = view.spectators if view is not None else 0
    out["now"] = _ms(now)
    return out


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else int(seconds * 1000)


def game_presence_view(game_id: str, now: datetime | None = None) -> PresenceView | None:
    """The game's presence now, or None if the presence store does not answer."""
    try:
        return presence_store.store().view(str(game_id), clock.resolve(now).timestamp())
    except Exception:
        log.warning("presence store unavailable", exc_info=True)
        return None


def _viewer_may_take_back(game: Game, viewer: Player | None) -> bool:
    side = game.side_of(viewer)
    if side is None:
        return False
    opponent = game.black if side == "white" else game.white
    return takeback_allowed(rated=game.rated,
                            opponent_kind=opponent.kind if opponent is not None else None)


def game_state(game: Game, viewer: Player | None, *, now: datetime | None = None,
               record: GameRecord | None = None,
               presence: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``state`` payload of docs/protocol.md for ``viewer`` (None: anonymous);
    ``presence``: the game's presence payload if already read."""
    now = clock.resolve(now)
    if presence is None:
        presence = presence_payload(game, game_presence_view(game.id, now))
    variant = get_variant(game.ruleset)
    record = record if record is not None else game_record(game)
    position = record.position
    last_move = None
    if record.moves:
        last = record.moves[-1]
        last_move = {
            "path": [variant.square_label(s) for s in last.move.path],
            "captured": [variant.square_label(s) for s in last.move.captured],
        }
    legal = legal_payload(variant, position) if game.status == Game.Status.ACTIVE else []
    return {
        "id": game.id,
        "variant": variant.key,
        "variant_name": variant.name,
        "board": variant.board.as_dict(),
        "capture_rule": variant.capture_rule_text(),
        "fen": game.fen,
        "ply": game.ply,
        "turn": side_name(position.turn),
        "moves": list(game.moves),
        "last_move": last_move,
        "legal": legal,
        "clocks": clocks_payload(game, now),
        "abort_at": abort_at(game),
        "abort": abort_payload(game),
        "players": players_payload(game),
        "you": game.side_of(viewer),
        "status": game.status,
        "result": result_payload(game),
        "draw_offer": game.draw_offer,
        "rematch": ({"game_id": game.rematch_id, "url": game_url(game.rematch_id)}
                    if game.rematch_id else
                    ({"offered_by": game.rematch_offer} if game.rematch_offer else None)),
        "rated": game.rated,
        "takeback_allowed": _viewer_may_take_back(game, viewer),
        "time_control": game.time_control,
        "presence": presence,
        "claim_victory_after_ms": int(claim_seconds() * 1000),
        "heartbeat_ms": int(presence_store.heartbeat_seconds() * 1000),
        "url": game_url(game.id),
    }


# --------------------------------------------------------------------------- watch

def games_live(*, ruleset: str | None = None, limit: int = 30,
               scan: int = 300) -> list[dict[str, Any]]:
    """Games being played now (both seats taken), the highest rated first: a game's rating is
    its stronger player's (a bot's nominal rating; guests count as unrated), ties newest
    first. ``scan`` bounds how many of the most recently started games are considered."""
    qs = Game.objects.select_related("white", "black").filter(status=Game.Status.ACTIVE)
    if ruleset:
        qs = qs.filter(ruleset=ruleset)
    out = []
    for game in qs.order_by("-started", "-created")[:scan]:
        players = players_payload(game)
        ratings = [p["rating"] for p in players.values() if p and p.get("rating")]
        variant = get_variant(game.ruleset)
        out.append({
            "id": game.id, "url": game_url(game.id), "ruleset": variant.key,
            "variant_name": variant.name, "players": players, "rated": game.rated,
            "time_control": game.time_control, "ply": game.ply, "fen": game.fen,
            "rating": max(ratings) if ratings else None,
        })
    out.sort(key=lambda g: -(g["rating"] or 0))  # stable: newest first among equals
    out = out[:limit]
    for entry in out:  # one presence read per listed game
        view = game_presence_view(entry["id"])
        entry["spectators"] = view.spectators if view is not None else 0
    return out


# --------------------------------------------------------------------------- lobby

def seek_expiry_cutoff(now: datetime | None = None) -> datetime:
    """Seeks created before this have expired (``KONDAVO_SEEK_TTL_SECONDS``)."""
    return clock.resolve(now) - timedelta(seconds=int(settings.KONDAVO_SEEK_TTL_SECONDS))


def seeks_open(*, limit: int = 200) -> list[dict[str, Any]]:
    """Open seeks that have not expired (``KONDAVO_SEEK_TTL_SECONDS``), oldest first, as
    lobby payloads with the internal ``player_id``. Past ``limit`` the newest are kept, so
    a new seek always shows."""
    newest = list(Seek.objects.select_related("player").filter(
        status=Seek.Status.OPEN, created__gte=seek_expiry_cutoff()).order_by("-created")[:limit])
    out = []
    for seek in reversed(newest):
        variant = get_variant(seek.ruleset)
        out.append({
            "id": seek.pk,
            "variant": variant.key,
            "variant_name": variant.name,
            "time_control": seek.time_control,
            "rated": seek.rated,
            "color": seek.color,
            "player": seek.player.name,
            "rating": player_rating(seek.player, seek.ruleset),
            "player_id": seek.player_id,
        })
    return out


def seeks_for_viewer(seeks: list[dict[str, Any]], player_id: int | None) -> list[dict[str, Any]]:
    """Drop the internal ``player_id`` and add ``mine``."""
    return [
        {**{k: v for k, v in s.items() if k != "player_id"}, "mine": s["player_id"] == player_id}
        for s in seeks
    ]


def lobby_version() -> int:
    from kondavo.games.models import LobbyState

    row = LobbyState.objects.filter(pk=1).first()
    return row.version if row else 0


# --------------------------------------------------------------------------- PDN

def game_pdn(game: Game) -> str:
    """The game as PDN (``variants.pdn.write_pdn``)."""
    result = result_score(game) if game.status == Game.Status.FINISHED else "*"
    tags = {
        "Event": "Kondavo game",
        "Site": "Kondavo",
        "Date": game.created.strftime("%Y.%m.%d") if game.created else "????.??.??",
        "Round": "-",
        "White": game.white.name if game.white else "?",
        "Black": game.black.name if game.black else "?",
        "Result": result,
        "TimeControl": game.time_control,
    }
    return write_pdn(game_record(game), tags)
