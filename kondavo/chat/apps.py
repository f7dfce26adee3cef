from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "kondavo.chat"
    verbose_name = _("Chat")

    def ready(self) -> None:
        from kondavo.chat import services
        from kondavo.games import hooks

        hooks.register_chat_handler(services.chat_game_frame)
        hooks.register_state_extra("chat", services.chat_game_state)
