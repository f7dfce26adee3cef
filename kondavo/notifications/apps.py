from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "kondavo.notifications"
    verbose_name = _("Notifications")

    def ready(self) -> None:
        from kondavo.games import hooks
        from kondavo.notifications import services

        hooks.register_notifier(services.notify)
        hooks.register_game_events_listener(services.on_game_events)
