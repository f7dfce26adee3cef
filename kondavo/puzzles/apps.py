from typing import Any

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _finished(sender: Any, *, game: Any, **kwargs: Any) -> None:
    from kondavo.puzzles import services

    services.on_game_finished(game=game)


def _load_shipped(sender: Any, *, plan: Any = None, using: str = "default",
                  **kwargs: Any) -> None:
    """After ``migrate`` (never after a test's flush, whose plan is None): the shipped
    puzzle files, when they changed since they were last loaded (a hash per file)."""
    from django.conf import settings

    if plan is None or not getattr(settings, "KONDAVO_PUZZLES_AUTOLOAD", True):
        return
    from kondavo.puzzles import services

    report = services.puzzles_load()
    if report.created or report.updated or report.retired or report.skipped:
        print(f"  Puzzles: {report.created} new, {report.updated} updated, "
              f"{report.retired} retired, {report.skipped} skipped ({report.files} files)")


def _logged_in(sender: Any, *, request: Any, user: Any, **kwargs: Any) -> None:
    """A guest's puzzle progress (in the session) goes to the account."""
    from kondavo.accounts.services import player_for_user
    from kondavo.puzzles import services

    session = getattr(request, "session", None)
    if session is not None and session.get(services.SESSION_KEY):
        services.session_progress_claim(session=session, player=player_for_user(user=user))


class PuzzlesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "kondavo.puzzles"
    label = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in
        from django.db.models.signals import post_migrate

        from kondavo.games import hooks

        hooks.game_finished.connect(_finished, dispatch_uid="puzzles.game_finished")
        post_migrate.connect(_load_shipped, sender=self, dispatch_uid="puzzles.load_shipped")
        user_logged_in.connect(_logged_in, dispatch_uid="puzzles.logged_in")
