"""Fair play in the Django admin: engine-use flags (for review, never automatic), signals,
offences, cool-downs (lift one by shortening it) and games made casual."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from kondavo.fairplay.models import CasualNote, Cooldown, EngineFlag, EngineSignal, Offence


@admin.register(EngineFlag)
class EngineFlagAdmin(admin.ModelAdmin):
    list_display = ("player", "games", "considered", "matches", "ratio", "updated", "reviewed")
    list_filter = ("reviewed",)
    search_fields = ("player__name",)
    readonly_fields = ("player", "games", "considered", "matches", "updated")
    actions = ["mark_reviewed"]

    @admin.display(description=_("match ratio"))
    def ratio(self, obj: EngineFlag) -> str:
        return f"{obj.matches / obj.considered:.0%}" if obj.considered else "-"

    @admin.action(description=_("Mark reviewed"))
    def mark_reviewed(self, request: HttpRequest, queryset: QuerySet[EngineFlag]) -> None:
        queryset.update(reviewed=True)


@admin.register(EngineSignal)
class EngineSignalAdmin(admin.ModelAdmin):
    list_display = ("game", "player", "ruleset", "considered", "matches", "depth", "created")
    search_fields = ("player__name", "game__id")
    raw_id_fields = ("game", "player")


@admin.register(Offence)
class OffenceAdmin(admin.ModelAdmin):
    list_display = ("player", "kind", "game", "created")
    list_filter = ("kind",)
    search_fields = ("player__name",)
    raw_id_fields = ("game", "player")


@admin.register(Cooldown)
class CooldownAdmin(admin.ModelAdmin):
    list_display = ("player", "reason", "level", "starts", "until")
    search_fields = ("player__name",)
    raw_id_fields = ("player",)


@admin.register(CasualNote)
class CasualNoteAdmin(admin.ModelAdmin):
    list_display = ("game", "reason", "limit")
    raw_id_fields = ("game",)
