from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _finished(sender: Any, *, game: Any, frames: tuple[Any, ...] = (), **kwargs: Any) -> None:
    from kondavo.fairplay import services

    services.on_game_finished(game=game, frames=frames)


class FairPlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "kondavo.fairplay"
    label = "fairplay"
    verbose_name = _("Fair play")

    def ready(self) -> None:
        from kondavo.fairplay import services
        from kondavo.games import hooks

        hooks.game_finished.connect(_finished, dispatch_uid="fairplay.game_finished")
        hooks.register_start_check(services.check_start)
        hooks.register_rated_check(services.rated_allowed)
        hooks.register_state_extra("fair_play", services.fair_play_state)
