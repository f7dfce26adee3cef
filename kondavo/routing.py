"""All websocket URL patterns of the project, collected from the apps."""

from kondavo.games.routing import websocket_urlpatterns as games_websocket_urlpatterns
from kondavo.notifications.routing import (
    websocket_urlpatterns as notifications_websocket_urlpatterns,
)
from kondavo.tournaments.routing import (
    websocket_urlpatterns as tournaments_websocket_urlpatterns,
)

websocket_urlpatterns = [
    *games_websocket_urlpatterns,
    *notifications_websocket_urlpatterns,
    *tournaments_websocket_urlpatterns,
]
