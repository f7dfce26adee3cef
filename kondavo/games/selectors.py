"""Reads: games, their clocks and presence, lobby seeks, PDN. Plain values and model
instances only: what goes to a client is shaped by ``kondavo.games.wire``."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet

from kondavo.accounts.models import Player
from kondavo.games import clock, hooks
from kondavo.games import presence as presence_store
from kondavo.games.models import Game, Seek
from kondavo.games.presence import PresenceView
from variants import Color, GameRecord, get_variant
from variants.pdn import write_pdn

log = logging.getLogger(__name__)

GAME_PAGE_URL = "/game/{id}/"  # the page itself is the frontend app's


def game_url(game_id: str) -> str:
    return GAME_PAGE_URL.format(id=game_id)


def side_name(color: Color) -> str:
    return "white" if color is Color.WHITE else "black"


def game_get(*, game_id: str) -> Game | None:
    return Game.objects.select_related("white", "black").filter(pk=str(game_id)[:12]).first()


_VERSIONS_CHUNK = 500  # ids per statement


def games_version_status(*, game_ids: list[str]) -> dict[str, tuple[int, str]]:
    """Version and status of several games in one indexed read (per 500 ids): the
    heartbeats of every socket of a process that pinged within a fraction of a second are
    answered together (``kondavo.games.heartbeats``), so the ORM's cost per statement is
    shared by all of them. Unknown ids are left out."""
    ids = sorted({str(game_id)[:12] for game_id in game_ids})
    found: dict[str, tuple[int, str]] = {}
    for start in range(0, len(ids), _VERSIONS_CHUNK):
        rows = Game.objects.filter(pk__in=ids[start:start + _VERSIONS_CHUNK]).values_list(
            "pk", "version", "status")
        for pk, version, status in rows:
            found[str(pk)] = (int(version), str(status))
    return found


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


def abort_at(game: Game) -> int | None:
    """Before each side's first move: when the game is aborted if the side to move has not
    moved (epoch ms); None otherwise (and while a bot is to move)."""
    if game.status != Game.Status.ACTIVE or game.ply >= 2 or game.flag_at is None:
        return None
    return int(game.flag_at.timestamp() * 1000)


def player_rating(player: Player, ruleset: str) -> int | None:
    """The rating shown next to a player (``hooks.player_rating``: the rating app's)."""
    return hooks.player_rating(player=player, ruleset=ruleset)


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


def game_presence_view(game_id: str, now: datetime | None = None) -> PresenceView | None:
    """The game's presence now, or None if the presence store does not answer."""
    try:
        return presence_store.store().view(str(game_id), clock.resolve(now).timestamp())
    except Exception:
        log.warning("presence store unavailable", exc_info=True)
        return None


def viewer_may_take_back(game: Game, viewer: Player | None) -> bool:
    """Whether ``viewer`` may send ``takeback`` in ``game`` (a seated player of a casual game
    against the computer)."""
    side = game.side_of(viewer)
    if side is None:
        return False
    opponent = game.black if side == "white" else game.white
    return takeback_allowed(rated=game.rated,
                            opponent_kind=opponent.kind if opponent is not None else None)


def takeback_offers_allowed(*, rated: bool, opponent_kind: str | None) -> bool:
    """People may offer each other takebacks only in casual games (never rated, never
    against the computer, which takes back at once instead)."""
    return not rated and opponent_kind is not None and opponent_kind != Player.Kind.BOT


def takeback_offer_of(game: Game) -> str | None:
    """The side whose takeback offer stands: made at the game's current ply (any move since
    ended it) in an active game; None otherwise."""
    if (game.takeback_offer is None or game.status != Game.Status.ACTIVE
            or game.takeback_offer_ply != game.ply):
        return None
    return game.takeback_offer


def viewer_may_offer_takeback(game: Game, viewer: Player | None) -> bool:
    """Whether ``viewer`` may send ``takeback_offer`` (a seated player of a casual game
    against a person)."""
    side = game.side_of(viewer)
    if side is None:
        return False
    opponent = game.black if side == "white" else game.white
    return takeback_offers_allowed(
        rated=game.rated, opponent_kind=opponent.kind if opponent is not None else None)


# --------------------------------------------------------------------------- watch

def games_live(*, ruleset: str | None = None, scan: int = 300) -> list[Game]:
    """Games being played now (both seats taken), the most recently started first, at most
    ``scan`` of them (``wire.live_games`` ranks and shapes them for the watch list)."""
    qs = Game.objects.select_related("white", "black").filter(status=Game.Status.ACTIVE)
    if ruleset:
        qs = qs.filter(ruleset=ruleset)
    return list(qs.order_by("-started", "-created")[:scan])


# --------------------------------------------------------------------------- lobby

def seek_expiry_cutoff(now: datetime | None = None) -> datetime:
    """Seeks created before this have expired (``KONDAVO_SEEK_TTL_SECONDS``)."""
    return clock.resolve(now) - timedelta(seconds=int(settings.KONDAVO_SEEK_TTL_SECONDS))


def seeks_open(*, limit: int = 200) -> list[Seek]:
    """Open seeks that have not expired (``KONDAVO_SEEK_TTL_SECONDS``), oldest first, with
    their players. Past ``limit`` the newest are kept, so a new seek always shows."""
    newest = list(Seek.objects.select_related("player").filter(
        status=Seek.Status.OPEN, created__gte=seek_expiry_cutoff()).order_by("-created")[:limit])
    return newest[::-1]


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
