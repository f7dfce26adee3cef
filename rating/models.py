"""Ratings: one row per (player, ruleset) and one change row per (rated game, player)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from . import elo


class Rating(models.Model):
    player = models.ForeignKey(
        "accounts.Player", on_delete=models.CASCADE, related_name="ratings"
    )
    ruleset = models.CharField(_("ruleset"), max_length=32)
    rating = models.IntegerField(_("rating"), default=elo.START_RATING)
    games = models.PositiveIntegerField(_("games"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    draws = models.PositiveIntegerField(_("draws"), default=0)
    losses = models.PositiveIntegerField(_("losses"), default=0)
    last_played = models.DateTimeField(_("last played"), null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "ruleset"], name="rating_one_per_ruleset"),
            models.CheckConstraint(
                condition=models.Q(games=models.F("wins") + models.F("draws") + models.F("losses")),
                name="rating_games_sum",
            ),
        ]
        indexes = [models.Index(fields=["ruleset", "-rating"], name="rating_board_idx")]

    def __str__(self) -> str:
        return f"{self.player_id}/{self.ruleset}: {self.display}"

    @property
    def provisional(self) -> bool:
        return elo.is_provisional(self.games)

    @property
    def display(self) -> str:
        """The rating as shown: "1540?" while provisional."""
        return f"{self.rating}?" if self.provisional else str(self.rating)


class RatingChange(models.Model):
    """What one rated game did to one player's rating. UNIQUE (game, player): a game is
    applied at most once."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(
        "accounts.Player", on_delete=models.CASCADE, related_name="rating_changes"
    )
    ruleset = models.CharField(max_length=32)
    before = models.IntegerField()
    after = models.IntegerField()
    delta = models.IntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="ratingchange_once_per_game"),
            models.CheckConstraint(
                condition=models.Q(after=models.F("before") + models.F("delta")),
                name="ratingchange_delta_consistent",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "ruleset", "created"], name="ratingchange_history_idx")
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} player {self.player_id}: {self.before}->{self.after}"
