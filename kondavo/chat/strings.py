"""The chat's words for the page scripts (chat.js), merged by ``frontend.jsi18n``:
translated here, in the chat app's catalog."""

from __future__ import annotations

from django.utils.translation import gettext as _


def chat_js_strings() -> dict[str, str]:
    return {
        "players": _("Players"),
        "spectators": _("Spectators"),
        "mute": _("mute"),
        "muteTitle": _("Hide the messages of {name}"),
        "report": _("report"),
        "reported": _("Thank you: the moderators will look at it."),
        "empty": _("No messages yet."),
        "readOnly": _("You can read this chat but not write in it."),
        "fairPlayPairLimit": _("This game is casual: you have already played {n} rated games "
                               "against this opponent in the last 24 hours."),
    }


def chat_error_strings() -> dict[str, str]:
    """The chat's error codes (docs/protocol.md), for the page's ``errors``."""
    return {
        "too_long": _("That message is too long."),
        "chat_filtered": _("That message contains a word that is not allowed in the chat; "
                           "it was not sent."),
        "chat_read_only": _("Guests can read the chat: log in to write."),
        "chat_muted": _("You are muted in the chat for a while."),
        "chat_banned": _("You are banned from the chat."),
    }
