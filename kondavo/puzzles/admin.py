"""Puzzles in the admin: find, read, enable or disable them (ratings are the site's)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import DailyPuzzle, GameScan, Puzzle, PuzzleAttempt, PuzzleFile, PuzzleRating


@admin.register(Puzzle)
class PuzzleAdmin(admin.ModelAdmin):
    list_display = ("id", "ruleset", "solver", "rating", "plays", "wins", "enabled",
                    "retired", "source_kind", "source_game")
    list_filter = ("ruleset", "enabled", "retired", "source_kind", "file")
    search_fields = ("id", "fen", "theme_tags")
    readonly_fields = ("id", "ruleset", "fen", "solution", "solver", "themes", "theme_tags",
                       "rating", "deviation", "volatility", "plays", "wins", "source_kind",
                       "source_game", "source_ply", "played", "data", "created", "file",
                       "retired")
    actions = ["enable", "disable"]

    @admin.action(description=_("Enable the selected puzzles"))
    def enable(self, request: HttpRequest, queryset: QuerySet[Puzzle]) -> None:
        queryset.update(enabled=True)

    @admin.action(description=_("Disable the selected puzzles"))
    def disable(self, request: HttpRequest, queryset: QuerySet[Puzzle]) -> None:
        queryset.update(enabled=False)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(PuzzleRating)
class PuzzleRatingAdmin(admin.ModelAdmin):
    list_display = ("player", "ruleset", "rating", "deviation", "attempts", "wins",
                    "best_streak")
    list_filter = ("ruleset",)
    search_fields = ("player__name",)
    raw_id_fields = ("player",)


@admin.register(PuzzleAttempt)
class PuzzleAttemptAdmin(admin.ModelAdmin):
    list_display = ("player", "puzzle", "result", "hinted", "created")
    list_filter = ("result",)
    search_fields = ("player__name", "puzzle__id")
    raw_id_fields = ("player", "puzzle")


@admin.register(DailyPuzzle, PuzzleFile, GameScan)
class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
