"""The chat in the Django admin: lines (remove, pushed to the sockets), reports, the
staff's restrictions (mute for a while, ban) and the moderation log (read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from kondavo.chat import services
from kondavo.chat.models import ChatLine, ChatMute, ChatReport, ChatRestriction, ModerationLog


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    list_display = ("id", "room", "author", "text", "created", "removed_at")
    list_filter = ("removed_at",)
    search_fields = ("room", "author__name", "text")
    raw_id_fields = ("author", "removed_by")
    readonly_fields = ("room", "author", "text", "address", "created", "removed_at",
                       "removed_by")
    actions = ["remove_lines"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=_("Remove the selected lines (every page showing them is told)"))
    def remove_lines(self, request: HttpRequest, queryset: QuerySet[ChatLine]) -> None:
        n = services.chat_remove_lines(line_ids=list(queryset.values_list("pk", flat=True)),
                                       staff=request.user)
        self.message_user(request, ngettext("%(n)d line removed.", "%(n)d lines removed.", n)
                          % {"n": n}, messages.SUCCESS)


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):
    list_display = ("id", "room", "author", "reporter", "text", "reason", "created", "resolved")
    list_filter = ("resolved",)
    search_fields = ("author__name", "reporter__name", "text")
    raw_id_fields = ("line", "reporter", "author")
    readonly_fields = ("line", "reporter", "author", "room", "text", "reason", "created")
    actions = ["remove_reported_lines", "mark_resolved"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=_("Remove the reported lines and mark the reports resolved"))
    def remove_reported_lines(self, request: HttpRequest,
                              queryset: QuerySet[ChatReport]) -> None:
        ids = [i for i in queryset.values_list("line_id", flat=True) if i is not None]
        n = services.chat_remove_lines(line_ids=ids, staff=request.user)
        queryset.update(resolved=True)
        self.message_user(request, ngettext("%(n)d line removed.", "%(n)d lines removed.", n)
                          % {"n": n}, messages.SUCCESS)

    @admin.action(description=_("Mark resolved"))
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        queryset.update(resolved=True)


@admin.register(ChatRestriction)
class ChatRestrictionAdmin(admin.ModelAdmin):
    list_display = ("player", "kind", "until", "reason", "created", "created_by")
    list_filter = ("kind",)
    search_fields = ("player__name", "reason")
    raw_id_fields = ("player",)
    readonly_fields = ("created", "created_by")

    def save_model(self, request: HttpRequest, obj: ChatRestriction, form: Any,
                   change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        services.chat_log_restriction(obj, staff=request.user)

    def delete_model(self, request: HttpRequest, obj: ChatRestriction) -> None:
        services.chat_log_restriction(obj, staff=request.user, lifted=True)
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ChatRestriction]) -> None:
        for obj in queryset:
            services.chat_log_restriction(obj, staff=request.user, lifted=True)
        super().delete_queryset(request, queryset)


@admin.register(ChatMute)
class ChatMuteAdmin(admin.ModelAdmin):
    list_display = ("muter", "muted", "created")
    search_fields = ("muter__name", "muted__name")
    raw_id_fields = ("muter", "muted")


@admin.register(ModerationLog)
class ModerationLogAdmin(admin.ModelAdmin):
    list_display = ("created", "action", "actor_player", "actor_user", "target", "room",
                    "detail")
    list_filter = ("action",)
    search_fields = ("target__name", "actor_player__name", "room", "detail")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
