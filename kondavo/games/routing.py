"""Websocket routes of the games app (collected by kondavo/routing.py)."""

from django.urls import URLPattern, re_path

from kondavo.games import consumers

websocket_urlpatterns: list[URLPattern] = [
    re_path(r"^ws/game/(?P<game_id>[a-z0-9]{1,12})/$", consumers.GameConsumer.as_asgi()),
    re_path(r"^ws/lobby/$", consumers.LobbyConsumer.as_asgi()),
]
