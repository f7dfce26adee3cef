"""Django admin for staff: games and seeks, with an abort action for moderation."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from kondavo.games.models import Game, Seek
from kondavo.games.services.actions import game_abort_by_staff


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "ruleset", "white", "black", "status", "winner", "reason", "ply",
                    "rated", "created")
    list_filter = ("status", "ruleset", "rated")
    search_fields = ("id", "white__name", "black__name")
    ordering = ("-created",)
    # Games change through the game services only; here they are read, and aborted.
    readonly_fields = [f.name for f in Game._meta.fields]
    actions = ["abort_games"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Abort the selected games (no result)", permissions=["change"])
    def abort_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        aborted = sum(1 for game in queryset if game_abort_by_staff(game_id=game.id))
        self.message_user(request, f"{aborted} game(s) aborted.", messages.SUCCESS)


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "ruleset", "time_control", "rated", "status")
    list_filter = ("status", "ruleset")
    search_fields = ("player__name",)
