"""The words the tournament scripts show, translated on the server for the page's (or the
notification's reader's) language and passed as one dictionary with ``json_script``, as
``frontend.jsi18n`` does. Placeholders are ``{name}`` (filled in by the script)."""

from __future__ import annotations

from django.utils.translation import gettext as _

# Notifications store a language-independent template key and its values
# (``data["template"]``, ``data["tournament"]``, ``data["name"]``); the bell fills in the
# reader's words. ``data["text"]`` stays as the fallback of older pages.
NOTIFY_STARTED = "tournamentStarted"
NOTIFY_GAME = "tournamentGame"


def tournament_notify_strings() -> dict[str, str]:
    """The tournament notifications' words, merged into the bell's dictionary."""
    return {
        NOTIFY_STARTED: _("{tournament} has started."),
        NOTIFY_GAME: _("Your tournament game against {name} starts ({tournament})."),
    }


def tournament_js_strings() -> dict[str, object]:
    """tournament.js's words (the tournament page), with the chat box's (chat.js)."""
    from kondavo.chat.strings import chat_error_strings, chat_js_strings

    return {
        "chat": chat_js_strings(),
        "errors": {**chat_error_strings(),
                   "not_allowed": _("Only the tournament's players write in its chat."),
                   "not_a_player": _("Guests can read the chat: log in to write.")},
        "round": _("Round {n} of {m}"),
        "startsIn": _("Starts in {time}"),
        "endsIn": _("Ends in {time}"),
        "finished": _("Finished"),
        "cancelled": _("Cancelled"),
        "players": _("{n} players"),
        "paused": _("paused"),
        "withdrawn": _("withdrawn"),
        "playing": _("playing"),
        "bye": _("bye"),
        "you": _("Your rank: {rank}, {score} points in {games} games"),
        "fire": _("on a winning streak: wins count double"),
        "score": _("{n} pts"),  # a score: a number of points, abbreviated
        "berserkDone": _("Berserk: your clock is halved; a win gives one more point."),
    }


def game_page_strings() -> dict[str, str]:
    """The tournament box of a tournament game's page (game_tournament.js)."""
    return {
        "berserkDone": _("Berserk: your clock is halved; a win gives one more point."),
        "failed": _("Berserk is no longer possible."),
    }
