"""Pages of the site: home, game, lobby, rules. Leaderboards and accounts live elsewhere."""

from django.urls import path

from kondavo.games import converters

from . import views

converters.register()

urlpatterns = [
    path("", views.home, name="home"),
    path("game/<gameid:game_id>/", views.game, name="game"),
    path("lobby/", views.lobby, name="lobby"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<str:key>/", views.rules, name="rules"),
]
