"""Chat lines, mutes, reports, staff restrictions and the moderation log. Data and
constraints only: logic is in ``services``.

A room is a name: ``game.<id>.players``, ``game.<id>.spectators``, ``tournament.<id>``...
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from kondavo.accounts.models import Player

MAX_ROOM = 64


class ChatLine(models.Model):
    """One line said in a room (kept when removed: ``removed_at`` hides it)."""

    room = models.CharField(_("room"), max_length=MAX_ROOM)
    author = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="chat_lines",
                               verbose_name=_("author"))
    text = models.CharField(_("text"), max_length=500)
    address = models.CharField(_("address"), max_length=64, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    removed_at = models.DateTimeField(_("removed at"), null=True, blank=True)
    removed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("removed by"))

    class Meta:
        ordering = ["-id"]
        verbose_name = _("chat line")
        verbose_name_plural = _("chat lines")
        indexes = [models.Index(fields=["room", "-id"], name="chatline_room_latest")]

    def __str__(self) -> str:
        return f"{self.room} #{self.pk}: {self.text[:40]}"


class ChatMute(models.Model):
    """``muter`` does not want to read ``muted``: their lines are not sent to the muter."""

    muter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="chat_mutes")
    muted = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="chat_muted_by")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("chat mute (by a player)")
        verbose_name_plural = _("chat mutes (by players)")
        constraints = [
            models.UniqueConstraint(fields=["muter", "muted"], name="chatmute_once"),
            models.CheckConstraint(condition=~Q(muter=models.F("muted")),
                                   name="chatmute_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.muter_id} mutes {self.muted_id}"


class ChatReport(models.Model):
    """A player reports a line; the line's text is kept here as it was."""

    line = models.ForeignKey(ChatLine, on_delete=models.SET_NULL, null=True,
                             related_name="reports", verbose_name=_("line"))
    reporter = models.ForeignKey(Player, on_delete=models.CASCADE,
                                 related_name="chat_reports_made", verbose_name=_("reporter"))
    author = models.ForeignKey(Player, on_delete=models.CASCADE,
                               related_name="chat_reports_received", verbose_name=_("author"))
    room = models.CharField(_("room"), max_length=MAX_ROOM)
    text = models.CharField(_("text"), max_length=500)
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    resolved = models.BooleanField(_("resolved"), default=False)

    class Meta:
        ordering = ["resolved", "-id"]
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        constraints = [models.UniqueConstraint(fields=["line", "reporter"],
                                               name="chatreport_once")]

    def __str__(self) -> str:
        return f"report {self.pk} on line {self.line_id}"


class ChatRestriction(models.Model):
    """The staff's decision: ``mute`` (until ``until``) or ``ban`` (no end unless ``until``)
    keeps a player from writing in any chat room."""

    class Kind(models.TextChoices):
        MUTE = "mute", _("Muted (for a while)")
        BAN = "ban", _("Banned from chat")

    player = models.ForeignKey(Player, on_delete=models.CASCADE,
                               related_name="chat_restrictions", verbose_name=_("player"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.MUTE)
    until = models.DateTimeField(_("until"), null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("created by"))

    class Meta:
        ordering = ["-id"]
        verbose_name = _("chat restriction")
        verbose_name_plural = _("chat restrictions")
        constraints = [models.CheckConstraint(condition=Q(kind__in=["mute", "ban"]),
                                              name="chatrestriction_kind_valid"),
                       models.CheckConstraint(condition=Q(kind="ban") | Q(until__isnull=False),
                                              name="chatrestriction_mute_has_end")]

    def __str__(self) -> str:
        return f"{self.kind} {self.player_id} until {self.until}"

    def clean(self) -> None:
        if self.kind == self.Kind.MUTE and self.until is None:
            raise ValidationError({"until": _("A mute needs an end; a ban may have none.")})


class ModerationLog(models.Model):
    """Every moderation action: a line refused by the word filter, a mute or report by a
    player, a line removed or a player restricted by the staff."""

    class Action(models.TextChoices):
        FILTERED = "filtered", _("Line refused by the word filter")
        MUTE = "mute", _("Player muted by a player")
        UNMUTE = "unmute", _("Player unmuted by a player")
        REPORT = "report", _("Line reported")
        REMOVE = "remove", _("Line removed by the staff")
        RESTRICT = "restrict", _("Player muted or banned by the staff")
        UNRESTRICT = "unrestrict", _("Restriction lifted by the staff")

    action = models.CharField(_("action"), max_length=12, choices=Action.choices)
    actor_player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+", verbose_name=_("by player"))
    actor_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("by staff"))
    target = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+", verbose_name=_("about player"))
    line = models.ForeignKey(ChatLine, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("line"))
    room = models.CharField(_("room"), max_length=MAX_ROOM, blank=True, default="")
    detail = models.CharField(_("detail"), max_length=500, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")

    def __str__(self) -> str:
        return f"{self.action} {self.created:%Y-%m-%d %H:%M}"
