"""Websocket routes of the notifications app (collected by kondavo/routing.py)."""

from django.urls import URLPattern, re_path

from kondavo.notifications import consumers

websocket_urlpatterns: list[URLPattern] = [
    re_path(r"^ws/notify/$", consumers.NotifyConsumer.as_asgi()),
]
