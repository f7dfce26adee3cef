"""Notifications. Data and constraints only: logic is in ``services``."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kondavo.accounts.models import Player


class Notification(models.Model):
    """One thing ``recipient`` should hear of. ``key`` names what it is about
    (``challenge:12``, ``turn:<game id>``, ...): one row per recipient and key, so news about
    the same thing updates it (and brings it back to the top, unread) instead of piling up.
    ``data`` is the kind's payload (docs/protocol.md, "Notification socket")."""

    class Kind(models.TextChoices):
        CHALLENGE = "challenge", "Challenge"
        CHALLENGE_ANSWER = "challenge_answer", "Answer to a challenge"
        REMATCH = "rematch", "Rematch offer"
        JOINED = "joined", "Opponent joined"
        TURN = "turn", "Your turn"
        GENERIC = "generic", "Other (e.g. a tournament starts)"

    recipient = models.ForeignKey(Player, on_delete=models.CASCADE,
                                  related_name="notifications")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    key = models.CharField(max_length=64)
    data = models.JSONField(default=dict, blank=True)
    url = models.CharField(max_length=200, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-updated", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["recipient", "key"], name="notification_one_per_key"),
            models.CheckConstraint(
                condition=Q(kind__in=["challenge", "challenge_answer", "rematch", "joined",
                                      "turn", "generic"]),
                name="notification_kind_valid"),
        ]
        indexes = [
            models.Index(fields=["recipient", "-updated"], name="notification_latest"),
            models.Index(fields=["recipient"], condition=Q(read_at__isnull=True),
                         name="notification_unread"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} for {self.recipient_id}"
