"""Websocket routes of the tournaments app (collected by kondavo/routing.py)."""

from django.urls import URLPattern, re_path

from kondavo.tournaments import consumers

websocket_urlpatterns: list[URLPattern] = [
    re_path(r"^ws/tournament/(?P<tournament_id>[0-9]{1,12})/$",
            consumers.TournamentConsumer.as_asgi()),
]
