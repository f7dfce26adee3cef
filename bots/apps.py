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
        tables_solved_off_requests()


EMBEDDED_TABLES_MB = 100  # four pieces on 8x8 (15 MB) and on 10x10 (94 MB), three in Turkish


def tables_solved_off_requests() -> None:
    """Endgame tables (``bots.engine.tables``) are never solved by a process that serves
    requests: it uses those on disk (solved in the image or by a worker at start); in the
    embedded mode the analysis board's bounded background pool solves the missing ones up
    to four pieces and 100 MB (seconds each; larger tables, five pieces on 8x8 or four on
    Turkish's 64 squares, take minutes and are only used from disk:
    ``python -m bots.engine.tables``)."""
    from django.conf import settings

    from bots.analysis import background_pool
    from bots.engine import tables

    if getattr(settings, "KONDAVO_BOT_INPROCESS", False):
        tables.solve_missing_with(lambda job: background_pool().submit(job), max_pieces=4,
                                  max_mb=EMBEDDED_TABLES_MB)
    else:
        tables.solve_missing_with(None)
