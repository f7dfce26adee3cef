"""Pages of the site: home, game, lobby, rules. Leaderboards and accounts live elsewhere."""

from django.urls import path

from kondavo.games import converters

from . import views

converters.register()

urlpatterns = [
    path("", views.home, name="home"),
    path("game/<gameid:game_id>/", views.game, name="game"),
    path("game/<gameid:game_id>/replay.json", views.game_replay, name="game_replay"),
    path("analysis/", views.analysis_board, name="analysis"),
    path("analysis/replay", views.analysis_replay, name="analysis_replay"),
    path("analysis/eval", views.analysis_eval, name="analysis_eval"),
    path("lobby/", views.lobby, name="lobby"),
    path("watch/", views.watch, name="watch"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<str:key>/", views.rules, name="rules"),
]
