"""Rating reads: leaderboards, rating histories, a player's ratings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from kondavo.accounts.models import Player
from variants import variant_keys

from . import elo
from .models import Rating, RatingChange

DEFAULT_THRESHOLDS = {"min_games": 5, "active_days": 90}


def leaderboard_thresholds(ruleset: str) -> dict[str, int]:
    """``settings.KONDAVO_LEADERBOARD[ruleset]`` over ``[...]["default"]`` over built-ins."""
    config: dict[str, Any] = getattr(settings, "KONDAVO_LEADERBOARD", {}) or {}
    merged = dict(DEFAULT_THRESHOLDS)
    merged.update(config.get("default") or {})
    merged.update(config.get(ruleset) or {})
    return {"min_games": int(merged["min_games"]), "active_days": int(merged["active_days"])}


def ruleset_keys() -> list[str]:
    """Every ruleset that can have a leaderboard (built-ins and plugins)."""
    return variant_keys()


@dataclass(frozen=True)
class LeaderboardEntry:
    rank: int
    player_id: int
    name: str
    is_bot: bool
    bot_level: int | None
    rating: int
    games: int
    wins: int
    draws: int
    losses: int
    provisional: bool
    qualified: bool  # meets min_games and active_days; others only fill a thin board
    last_played: datetime | None

    @property
    def display(self) -> str:
        return f"{self.rating}?" if self.provisional else str(self.rating)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "name": self.name,
            "bot": self.is_bot,
            "bot_level": self.bot_level,
            "rating": self.rating,
            "provisional": self.provisional,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "qualified": self.qualified,
            "last_played": self.last_played.isoformat() if self.last_played else None,
        }


def leaderboard(
    ruleset: str,
    *,
    min_games: int | None = None,
    active_within_days: int | None = None,
    include_bots: bool = True,
    limit: int = 50,
) -> list[LeaderboardEntry]:
    """Top players of a ruleset, best first.

    Players with at least ``min_games`` rated games who played within
    ``active_within_days`` come first (``qualified``); thresholds left as None come from
    :func:`leaderboard_thresholds`. If they are fewer than ``limit``, the board is filled
    with everyone else who has played at least one rated game there (``qualified=False``),
    so a ruleset with few players still shows a board.
    """
    thresholds = leaderboard_thresholds(ruleset)
    if min_games is None:
        min_games = thresholds["min_games"]
    if active_within_days is None:
        active_within_days = thresholds["active_days"]
    cutoff = timezone.now() - timedelta(days=active_within_days)

    base = Rating.objects.filter(ruleset=ruleset, games__gte=1).exclude(
        player__kind=Player.Kind.GUEST
    )
    if not include_bots:
        base = base.exclude(player__kind=Player.Kind.BOT)
    base = base.select_related("player").order_by("-rating", "-games", "player__name")
    qualifies = Q(games__gte=max(min_games, 1), last_played__gte=cutoff)

    qualified = list(base.filter(qualifies)[:limit])
    rows = [(r, True) for r in qualified]
    if len(rows) < limit:
        rows += [(r, False) for r in base.exclude(qualifies)[: limit - len(rows)]]
    return [
        LeaderboardEntry(
            rank=i,
            player_id=r.player_id,
            name=r.player.name,
            is_bot=r.player.kind == Player.Kind.BOT,
            bot_level=r.player.bot_level,
            rating=r.rating,
            games=r.games,
            wins=r.wins,
            draws=r.draws,
            losses=r.losses,
            provisional=elo.is_provisional(r.games),
            qualified=ok,
            last_played=r.last_played,
        )
        for i, (r, ok) in enumerate(rows, start=1)
    ]


@dataclass(frozen=True)
class HistoryPoint:
    when: datetime
    rating: int
    delta: int
    game_id: str


def rating_history(player: Player, ruleset: str) -> list[HistoryPoint]:
    """The player's rating after each rated game in this ruleset, oldest first."""
    changes = RatingChange.objects.filter(player=player, ruleset=ruleset).order_by(
        "created", "id"
    )
    return [
        HistoryPoint(when=c.created, rating=c.after, delta=c.delta, game_id=c.game_id)
        for c in changes
    ]


def ratings_of_player(player: Player) -> list[Rating]:
    """The player's Rating rows with at least one game, in the registry's ruleset order
    (unknown keys, e.g. an uninstalled plugin, last)."""
    order = {key: i for i, key in enumerate(ruleset_keys())}
    rows = list(Rating.objects.filter(player=player, games__gte=1))
    return sorted(rows, key=lambda r: (order.get(r.ruleset, len(order)), r.ruleset))


def recent_games_of_player(player: Player, *, limit: int = 20) -> QuerySet[Any]:
    """The player's latest games, newest first (any ruleset, rated or not)."""
    game_model = apps.get_model("games", "Game")
    return (
        game_model.objects.filter(Q(white=player) | Q(black=player))
        .select_related("white", "black")
        .order_by("-id")[:limit]
    )


def rating_for_player(*, player: Player, ruleset: str) -> int | None:
    """The player's current rating in a ruleset (1500 before any rated game); None for
    guests, who are never rated."""
    if player.kind == Player.Kind.GUEST:
        return None
    value = (
        Rating.objects.filter(player=player, ruleset=ruleset)
        .values_list("rating", flat=True)
        .first()
    )
    return elo.START_RATING if value is None else value
