"""Pages of the site: home, game, lobby, rules. Leaderboards and accounts live elsewhere."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("game/<str:game_id>/", views.game, name="game"),
    path("lobby/", views.lobby, name="lobby"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<str:key>/", views.rules, name="rules"),
]
