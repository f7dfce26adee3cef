from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Kondavo front end"

    def ready(self) -> None:
        from django.conf import settings

        from variants.registry import add_ruleset_dirs

        # Data-only rulesets (*.toml) from the directories the operator configured.
        add_ruleset_dirs(getattr(settings, "KONDAVO_RULESET_DIRS", None) or [])
