"""Pages of the tournaments app (mounted at /tournaments/)."""

from django.urls import path

from kondavo.tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.tournament_new, name="new"),
    path("<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("<int:tournament_id>/standings.json", views.tournament_standings, name="standings"),
    path("<int:tournament_id>/<str:action>/", views.tournament_action, name="action"),
]
