from django.apps import AppConfig


class BotsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bots"
    verbose_name = "Bots"

    def ready(self) -> None:
        from bots import seam
        from kondavo.games import hooks

        # Looked up at call time, so tests can replace ``seam.request_bot_move``.
        hooks.register_bot_mover(lambda game_id, ply: seam.request_bot_move(game_id, ply))
