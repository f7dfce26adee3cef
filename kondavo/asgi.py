"""ASGI entry point: ``daphne kondavo.asgi:application`` (never with ``--proxy-headers``).

The outermost layer (``kondavo.proxy``) sets the client's address and scheme from proxy
headers only when a proxy in ``KONDAVO_TRUSTED_PROXIES`` sent them.
Websockets then meet the per-address opening gate (``kondavo.games.discipline``).
Then HTTP goes to Django (wrapped in the staticfiles handler when ``KONDAVO_SERVE_STATIC``, i.e.
in local and test settings); websockets go through the allowed-hosts origin check, the
session middleware (the user looked up lazily, ``kondavo.accounts.middleware``) and the URL
router built from ``kondavo/routing.py``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kondavo.settings.local")

# Must run before importing anything that touches models (consumers, routing).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from kondavo.accounts.middleware import SessionUserMiddlewareStack  # noqa: E402
from kondavo.routing import websocket_urlpatterns  # noqa: E402

http_app = django_asgi_app
if settings.KONDAVO_SERVE_STATIC:
    from asgiref.sync import sync_to_async
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.core.exceptions import SuspiciousOperation
    from django.core.handlers.exception import response_for_exception

    class StaticFilesHandler(ASGIStaticFilesHandler):
        """Django's, but a path that escapes the static directories (``/static/../x``) is
        a 400 like any suspicious request, not a 500 with a traceback."""

        async def get_response_async(self, request):  # type: ignore[no-untyped-def]
            try:
                return await super().get_response_async(request)
            except SuspiciousOperation as exc:
                return await sync_to_async(response_for_exception)(request, exc)

    http_app = StaticFilesHandler(django_asgi_app)

# Each HTTP request's thread-sensitive work on a pooled thread, not a thread started (and
# joined by another) per request (kondavo/middleware.py).
# A 429 is answered a second late, after Django is done with it (kondavo/middleware.py).
from kondavo.middleware import LateRefusals, RequestThreads  # noqa: E402

http_app = LateRefusals(RequestThreads(http_app))

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            SessionUserMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# Publishes on the bus from views and consumers go through the serving event loop
# (kondavo.games.events.Publisher).
from kondavo.games.events import LoopBinding  # noqa: E402

application = LoopBinding(application)

# A websocket over its address's opening rate is refused here, before the session, the
# router or a consumer exist (kondavo.games.discipline.ConnectGateMiddleware).
from kondavo.games.discipline import ConnectGateMiddleware  # noqa: E402

application = ConnectGateMiddleware(application)

# Outermost: the client's address and scheme as the trusted proxies tell them (a bad
# KONDAVO_TRUSTED_PROXIES entry stops the server here, at start).
from kondavo.proxy import TrustedProxies, TrustedProxyMiddleware, parse_trusted  # noqa: E402

application = TrustedProxyMiddleware(
    application, TrustedProxies(parse_trusted(settings.KONDAVO_TRUSTED_PROXIES)))

# Under Daphne, each websocket's frame budget is spent in the protocol, before a frame is
# queued for the application (kondavo.games.discipline.guard_daphne); autobahn's debug
# formatting (at every opening, frame sent and close) happens only when a debug line is
# written (lazy_autobahn_debug).
# Daphne's event loop serves the seated players' sockets first (players_first).
from kondavo.games.discipline import (  # noqa: E402
    guard_daphne,
    lazy_autobahn_debug,
    players_first,
)

guard_daphne()
lazy_autobahn_debug()
players_first()

# Last, with everything loaded: the garbage collector's thresholds for a heap of many live
# sockets (KONDAVO_GC_THRESHOLDS in the settings). Not ``gc.freeze()`` as well: with the
# start-up heap frozen, a Redis restart left the bus's connections unusable for a minute.
if settings.KONDAVO_GC_THRESHOLDS:
    import gc

    gc.set_threshold(*settings.KONDAVO_GC_THRESHOLDS)
