"""HTTP routes of the rating app (mounted at the site root)."""

from django.urls import path

from . import views

app_name = "rating"
urlpatterns = [
    path("leaderboards/", views.leaderboard_index, name="leaderboards"),
    path("leaderboards/<str:ruleset>.json", views.leaderboard_json, name="leaderboard_json"),
    path("leaderboards/<str:ruleset>/", views.leaderboard_page, name="leaderboard"),
    path("profile/<str:name>/", views.profile, name="profile"),
]
