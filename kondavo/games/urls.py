"""HTTP routes of the games app, mounted at /games/ (the game page /game/<id>/ is frontend's)."""

from django.urls import URLPattern, path

from kondavo.games import converters, services, views

converters.register()

app_name = "games"
urlpatterns: list[URLPattern] = [
    path("new/computer", views.new_computer, name="new_computer"),
    path("new/friend", views.new_friend, name="new_friend"),
    path("seek", views.seek, name="seek"),
    path("challenge/<str:name>", views.challenge, name="challenge"),
    path("challenges/<int:challenge_id>/<str:answer>", views.challenge_answer,
         name="challenge_answer"),
    path("block/<str:name>", views.block_list, {"change": services.player_block},
         name="block"),
    path("unblock/<str:name>", views.block_list, {"change": services.player_unblock},
         name="unblock"),
    path("<gameid:game_id>/join", views.join, name="join"),
    path("<gameid:game_id>/state.json", views.state, name="state"),
    path("<gameid:game_id>/pdn", views.pdn, name="pdn"),
]
