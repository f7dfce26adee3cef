"""Tournaments: arenas (a fixed duration, players paired again as soon as they are free),
Swiss events (a fixed number of rounds, Dutch-style pairings) and round-robins (Berger
tables), per ruleset. Their games are ordinary games of ``kondavo.games``, linked to the
tournament by ``Pairing``; a game's result reaches this app through the games app's
``game_finished`` hook (``kondavo.games.hooks``), never by the games app importing it."""

from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _game_finished(sender: Any, *, game: Any, **kwargs: Any) -> None:
    from kondavo.tournaments import services

    services.on_game_finished(game=game)


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "kondavo.tournaments"
    label = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from kondavo.games import hooks

        hooks.game_finished.connect(_game_finished, dispatch_uid="tournaments.game_finished")
