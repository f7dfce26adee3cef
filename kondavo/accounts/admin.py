"""Django admin for staff: players, and banning them."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from kondavo.accounts.models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "user", "bot_level", "banned", "created", "last_seen")
    list_filter = ("kind", "banned")
    search_fields = ("name", "user__username")
    readonly_fields = ("kind", "user", "guest_key", "bot_level", "created", "last_seen")
    fields = ("name", "kind", "user", "bot_level", "banned", "ban_reason", "created",
              "last_seen")
    actions = ["ban", "unban"]

    @admin.action(description="Ban the selected players (no new games, seeks or moves)",
                  permissions=["change"])
    def ban(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        count = queryset.exclude(kind=Player.Kind.BOT).update(banned=True)
        self.message_user(request, f"{count} player(s) banned.", messages.SUCCESS)

    @admin.action(description="Lift the ban on the selected players", permissions=["change"])
    def unban(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        count = queryset.update(banned=False, ban_reason="")
        self.message_user(request, f"{count} player(s) unbanned.", messages.SUCCESS)
