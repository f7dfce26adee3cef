"""The Player: who sits at a board. Every game refers to Players, never to auth Users."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

BOT_LEVEL_MIN = 1
BOT_LEVEL_MAX = 8


class Player(models.Model):
    class Kind(models.TextChoices):
        GUEST = "guest", "Guest"
        USER = "user", "User"
        BOT = "bot", "Bot"

    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.GUEST)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )
    # Random secret stored in the guest's session; None for users and bots.
    guest_key = models.CharField(max_length=64, unique=True, null=True, blank=True)
    name = models.CharField(max_length=64, unique=True)
    bot_level = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(BOT_LEVEL_MIN), MaxValueValidator(BOT_LEVEL_MAX)],
    )
    created = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(default=timezone.now)
    # Moderation (staff, in the Django admin): a banned player may not start, join or
    # accept games, post seeks or play moves.
    banned = models.BooleanField(default=False)
    ban_reason = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(bot_level__isnull=True)
                | Q(bot_level__gte=BOT_LEVEL_MIN, bot_level__lte=BOT_LEVEL_MAX),
                name="player_bot_level_range",
            ),
            models.CheckConstraint(
                condition=Q(kind="bot", bot_level__isnull=False)
                | (~Q(kind="bot") & Q(bot_level__isnull=True)),
                name="player_bot_level_iff_bot",
            ),
            models.UniqueConstraint(
                fields=["bot_level"], condition=Q(kind="bot"), name="player_one_bot_per_level"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_guest(self) -> bool:
        return self.kind == self.Kind.GUEST

    @property
    def is_bot(self) -> bool:
        return self.kind == self.Kind.BOT
