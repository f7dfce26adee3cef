from django.apps import AppConfig


class BotsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "bots"
    verbose_name = "Bots"

    def ready(self) -> None:
        from bots import seam
        from bots.engine.ratings import nominal_rating
        from kondavo.games import hooks

        # Looked up at call time, so tests can replace ``seam.request_bot_move``.
        hooks.register_bot_mover(lambda game_id, ply: seam.request_bot_move(game_id, ply))
        # A computer level's nominal rating, shown next to the bot in games and lists.
        hooks.register_bot_rating_reader(nominal_rating)
