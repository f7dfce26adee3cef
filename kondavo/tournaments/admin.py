"""Tournaments in the Django admin: tournaments (the staff cancel them), their players and
their pairings. Scores, pairings and results are the services' to write: the admin shows
them read-only, so an edit here never leaves the standings and the sheets disagreeing."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from kondavo.tournaments import services
from kondavo.tournaments.models import Entry, Pairing, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("player", "rating", "score", "games", "wins", "streak", "paused", "withdrawn",
              "rank")
    readonly_fields = fields
    ordering = ("-score", "pk")
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "kind", "ruleset", "time_control", "status", "starts_at",
                    "ends_at", "rated", "private", "created_by")
    list_filter = ("status", "kind", "ruleset", "rated", "private")
    search_fields = ("name", "created_by__name", "schedule_key")
    date_hierarchy = "starts_at"
    raw_id_fields = ("created_by",)
    readonly_fields = ("status", "current_round", "seeds", "schedule_key", "created",
                       "finished", "ends_at")
    inlines = [EntryInline]
    actions = ["cancel_tournaments"]

    @admin.action(description=_("Cancel the selected tournaments (games still going no "
                                "longer count)"))
    def cancel_tournaments(self, request: HttpRequest,
                           queryset: QuerySet[Tournament]) -> None:
        n = sum(services.tournament_cancel(tournament_id=pk)
                for pk in queryset.values_list("pk", flat=True))
        self.message_user(request, ngettext("%(n)d tournament cancelled.",
                                            "%(n)d tournaments cancelled.", n) % {"n": n},
                          messages.SUCCESS)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "player", "score", "games", "wins", "streak",
                    "paused", "withdrawn", "rank")
    list_filter = ("paused", "withdrawn")
    search_fields = ("player__name", "tournament__name")
    raw_id_fields = ("tournament", "player", "last_opponent")
    readonly_fields = ("tournament", "player", "joined", "rating", "score", "games", "wins",
                       "streak", "sheet", "colours", "last_opponent", "free_since",
                       "had_bye", "tiebreak1", "tiebreak2", "rank")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Pairing)
class PairingAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "round", "white", "black", "result", "white_points",
                    "black_points", "game", "created")
    list_filter = ("result",)
    search_fields = ("tournament__name", "white__name", "black__name", "game__id")
    raw_id_fields = ("tournament", "game", "white", "black")
    readonly_fields = ("tournament", "round", "game", "white", "black", "result",
                       "white_points", "black_points", "white_berserk", "black_berserk",
                       "created", "finished")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
