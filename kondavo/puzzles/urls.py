"""``/puzzles/``: the page, one puzzle's page and the JSON endpoints (docs/protocol.md)."""

from django.urls import path

from . import views

app_name = "puzzles"

urlpatterns = [
    path("", views.index, name="index"),
    path("next", views.next_puzzle, name="next"),
    path("streak", views.streak, name="streak"),
    path("<str:puzzle_id>/", views.index, name="show"),
    path("<str:puzzle_id>/move", views.move, name="move"),
    path("<str:puzzle_id>/hint", views.hint, name="hint"),
    path("<str:puzzle_id>/solution", views.solution, name="solution"),
]
