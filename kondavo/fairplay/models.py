"""Fair-play records. Data and constraints only: logic is in ``services`` and ``rules``."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from kondavo.accounts.models import Player
from kondavo.games.models import Game


class Offence(models.Model):
    """A game aborted, not started or left lost by ``player`` against a person."""

    class Kind(models.TextChoices):
        ABORT = "abort", _("Aborted a game")
        NO_MOVE = "no_move", _("Did not make a first move")
        LEFT = "left", _("Left a lost game")

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="offences",
                               verbose_name=_("player"))
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("game"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    created = models.DateTimeField(_("created"))

    class Meta:
        ordering = ["-created"]
        verbose_name = _("fair-play offence")
        verbose_name_plural = _("fair-play offences")
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="offence_once_per_game"),
            models.CheckConstraint(condition=Q(kind__in=["abort", "no_move", "left"]),
                                   name="offence_kind_valid"),
        ]
        indexes = [models.Index(fields=["player", "created"], name="offence_recent")]

    def __str__(self) -> str:
        return f"{self.kind} by {self.player_id} in {self.game_id}"


class Cooldown(models.Model):
    """``player`` may not start or join a game against a person before ``until``."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="cooldowns",
                               verbose_name=_("player"))
    starts = models.DateTimeField(_("starts"))
    until = models.DateTimeField(_("until"))
    reason = models.CharField(_("reason"), max_length=8, choices=Offence.Kind.choices)
    level = models.PositiveSmallIntegerField(_("level"), default=1)

    class Meta:
        ordering = ["-starts"]
        verbose_name = _("cool-down")
        verbose_name_plural = _("cool-downs")
        indexes = [models.Index(fields=["player", "-until"], name="cooldown_latest")]

    def __str__(self) -> str:
        return f"{self.player_id} until {self.until:%Y-%m-%d %H:%M}"


class CasualNote(models.Model):
    """Why a game asked for as rated was made casual."""

    class Reason(models.TextChoices):
        PAIR_LIMIT = "pair_limit", _("Daily limit of rated games between the same players")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+",
                                verbose_name=_("game"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    limit = models.PositiveIntegerField(_("limit"), default=0)

    class Meta:
        verbose_name = _("game made casual")
        verbose_name_plural = _("games made casual")

    def __str__(self) -> str:
        return f"{self.game_id}: {self.reason}"


class EngineSignal(models.Model):
    """Per rated game and player: of the moves made in non-trivial positions
    (``considered``), how many were the engine's best move at a modest depth (``matches``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("game"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="engine_signals",
                               verbose_name=_("player"))
    ruleset = models.CharField(_("ruleset"), max_length=32)
    considered = models.PositiveIntegerField(_("moves considered"))
    matches = models.PositiveIntegerField(_("engine matches"))
    depth = models.PositiveSmallIntegerField(_("depth"))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("engine-use signal")
        verbose_name_plural = _("engine-use signals")
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="enginesignal_once"),
            models.CheckConstraint(condition=Q(matches__lte=models.F("considered")),
                                   name="enginesignal_matches_le_considered"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.game_id}: {self.matches}/{self.considered}"

    @property
    def ratio(self) -> float:
        return self.matches / self.considered if self.considered else 0.0


class EngineFlag(models.Model):
    """An account whose recent rated games match the engine above the threshold: for the
    staff to look at. Never a punishment by itself."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="engine_flag",
                                  verbose_name=_("player"))
    games = models.PositiveIntegerField(_("games"))
    considered = models.PositiveIntegerField(_("moves considered"))
    matches = models.PositiveIntegerField(_("engine matches"))
    updated = models.DateTimeField(_("updated"), auto_now=True)
    reviewed = models.BooleanField(_("reviewed"), default=False)
    note = models.CharField(_("staff note"), max_length=300, blank=True, default="")

    class Meta:
        ordering = ["reviewed", "-updated"]
        verbose_name = _("engine-use flag")
        verbose_name_plural = _("engine-use flags")

    def __str__(self) -> str:
        return f"{self.player_id}: {self.matches}/{self.considered} over {self.games} games"
