"""Rating writes. The only entry point is :func:`rating_apply_game`."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from kondavo.accounts.models import Player
from kondavo.fairplay.services import rating_adjust
from kondavo.games.models import Game

from . import elo
from .models import Rating, RatingChange
from .policy import can_be_rated

FINISHED = "finished"


def _white_score(game: Game) -> float | None:
    """1 / 0.5 / 0 from White's point of view; None unless the game is finished (a running
    or aborted game has no result). A finished game without a winner is a draw."""
    if game.status != FINISHED:
        return None
    if game.winner == "white":
        return elo.WIN
    if game.winner == "black":
        return elo.LOSS
    return elo.DRAW


def _lock_ratings(players: list[Player], ruleset: str) -> dict[int, Rating]:
    """Rating rows of both players (created at 1500 if missing), locked FOR UPDATE in
    player-id order so that concurrent games of the same players cannot deadlock."""
    ordered = sorted(players, key=lambda p: p.pk)
    Rating.objects.bulk_create(
        [Rating(player=p, ruleset=ruleset) for p in ordered], ignore_conflicts=True
    )
    rows = (
        Rating.objects.select_for_update()
        .filter(ruleset=ruleset, player__in=[p.pk for p in ordered])
        .order_by("player_id")
    )
    return {row.player_id: row for row in rows}


def _record(row: Rating, delta: int, score: float, when: datetime) -> None:
    row.rating += delta
    row.games += 1
    if score == elo.WIN:
        row.wins += 1
    elif score == elo.LOSS:
        row.losses += 1
    else:
        row.draws += 1
    row.last_played = when
    row.save(update_fields=["rating", "games", "wins", "draws", "losses", "last_played"])


@transaction.atomic
def rating_apply_game(*, game: Game) -> None:
    """Apply a finished rated game to both players' ratings in its ruleset.

    Call it inside the transaction that records the result. Idempotent: a game that already
    has RatingChange rows is skipped (checked after the Rating rows are locked, so two
    concurrent calls for the same game apply it once). Casual games, games with a guest,
    unfinished or aborted games change nothing. Bot seats are rated like anyone. The Elo
    changes are weighted by the fair-play rules (``kondavo.fairplay.rules``).
    """
    if not getattr(game, "rated", False):
        return
    white, black = game.white, game.black
    if not can_be_rated(white, black):
        return
    white_score = _white_score(game)
    if white_score is None:
        return
    ruleset: str = game.ruleset

    rows = _lock_ratings([white, black], ruleset)
    if RatingChange.objects.filter(game=game).exists():
        return
    w, b = rows[white.pk], rows[black.pk]
    outcome = elo.rate_game(
        elo.Side(w.rating, w.games), elo.Side(b.rating, b.games), white_score
    )
    # Fair play (kondavo/fairplay/rules.py): the same pair, provisional accounts, short games.
    white_delta, black_delta = rating_adjust(
        game=game, white_games=w.games, black_games=b.games,
        white_delta=outcome.white_delta, black_delta=outcome.black_delta)
    when = game.finished or timezone.now()
    changes = []
    for row, delta, score in (
        (w, white_delta, white_score),
        (b, black_delta, 1.0 - white_score),
    ):
        before = row.rating
        _record(row, delta, score, when)
        changes.append(
            RatingChange(game=game, player_id=row.player_id, ruleset=ruleset,
                         before=before, after=row.rating, delta=delta)
        )
    RatingChange.objects.bulk_create(changes)
