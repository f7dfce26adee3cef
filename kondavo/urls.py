"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),  # staff only (is_staff), see docs/adding-a-ruleset.md
    path("i18n/", include("django.conf.urls.i18n")),  # set_language at /i18n/setlang/
    path("games/", include("kondavo.games.urls")),
    path("accounts/", include("kondavo.accounts.urls")),
    path("tournaments/", include("kondavo.tournaments.urls")),
    path("puzzles/", include("kondavo.puzzles.urls")),
    path("", include("rating.urls")),
    path("", include("frontend.urls")),
]

# An uncaught exception: 503 + Retry-After while PostgreSQL or Redis is down, else a 500.
handler500 = "kondavo.outages.server_error"
