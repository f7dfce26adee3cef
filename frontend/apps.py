from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Kondavo front end"

    def ready(self) -> None:
        from django.conf import settings

        from frontend.rulesets import ruleset_choices
        from kondavo.games import hooks
        from variants.registry import add_ruleset_dirs

        # The games app's offered-rulesets policy reads the admin's rows through this.
        hooks.register_ruleset_choices_reader(ruleset_choices)

        # Data-only rulesets (*.toml) from the directories the operator configured.
        add_ruleset_dirs(getattr(settings, "KONDAVO_RULESET_DIRS", None) or [])
