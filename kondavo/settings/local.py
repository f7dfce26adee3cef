"""Embedded settings (``make run``): SQLite + in-memory layer unless the env says otherwise.

Debug is off by default, so a visitor sees Kondavo's own 404 and 500 pages. For development,
``KONDAVO_DEBUG=1 make run`` turns Django's debug pages on. Static files are served by the
ASGI app either way (``KONDAVO_SERVE_STATIC``).
"""

from .base import *  # noqa: F401,F403
from .base import env_bool, env_list, env_str

DEBUG = env_bool("KONDAVO_DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or "django-insecure-kondavo-local-development-only"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "0.0.0.0"])
KONDAVO_SERVE_STATIC = env_bool("KONDAVO_SERVE_STATIC", True)
