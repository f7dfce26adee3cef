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


def _read_changes(game: Any) -> dict[str, Any] | None:
    from .models import RatingChange

    out: dict[str, Any] = {}
    rows = RatingChange.objects.filter(game_id=game.pk).values_list(
        "player_id", "before", "after", "delta")
    for player_id, before, after, delta in rows:
        side = ("white" if player_id == game.white_id
                else "black" if player_id == game.black_id else None)
        if side is not None:
            out[side] = {"before": before, "after": after, "delta": delta}
    return out or None


class RatingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rating"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from kondavo.games import hooks

        hooks.game_finished.connect(_apply_rated_game, dispatch_uid="rating.apply_game")
        hooks.register_rating_reader(_read_rating)
        hooks.register_rating_changes_reader(_read_changes)
