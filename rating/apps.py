from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _apply_rated_game(sender: Any, *, game: Any, **kwargs: Any) -> None:
    """Receiver of ``kondavo.games.hooks.game_finished``: rate a finished rated game."""
    from rating import services

    if game.rated and game.status == "finished":  # never an aborted game
        services.rating_apply_game(game=game)


def _read_rating(*, player: Any, ruleset: str) -> int | None:
    from rating import selectors

    return selectors.rating_for_player(player=player, ruleset=ruleset)


class RatingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rating"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from kondavo.games import hooks

        hooks.game_finished.connect(_apply_rated_game, dispatch_uid="rating.apply_game")
        hooks.register_rating_reader(_read_rating)
