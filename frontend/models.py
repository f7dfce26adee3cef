"""Operator choices about the rulesets the site offers, editable in the Django admin."""

from __future__ import annotations

from django.db import models


class RulesetChoice(models.Model):
    """Whether the site offers one installed ruleset, and where it comes in the lists.

    Rulesets without a row keep the order of ``KONDAVO_RULESETS`` (or of the registry) and
    come after those with one. Disabling a ruleset hides it from the menus and refuses new
    games in it; games already played or in progress stay readable and playable.
    """

    key = models.CharField(max_length=64, unique=True, help_text="The ruleset key, e.g. italian")
    enabled = models.BooleanField(default=True)
    position = models.IntegerField(default=0, help_text="Lower comes first")

    class Meta:
        ordering = ["position", "key"]
        verbose_name = "ruleset offered by the site"
        verbose_name_plural = "rulesets offered by the site"

    def __str__(self) -> str:
        return self.key
