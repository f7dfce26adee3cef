from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "kondavo.games"
    label = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from kondavo import dbpool

        dbpool.install()  # the live core takes a pooled connection per move: see dbpool
