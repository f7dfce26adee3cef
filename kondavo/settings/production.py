"""Production settings (docker compose): SECRET_KEY is required, whitenoise serves static."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .base import MIDDLEWARE, env_bool, env_int, env_list, env_str, secret_key_problem

DEBUG = env_bool("DEBUG", False)
if DEBUG:
    raise ImproperlyConfigured(
        "DEBUG=true is refused by the production settings: it shows tracebacks and settings "
        "to visitors (use kondavo.settings.local for development)")
SECRET_KEY = env_str("SECRET_KEY")
_problem = secret_key_problem(SECRET_KEY)
if _problem:
    raise ImproperlyConfigured(
        f"SECRET_KEY {_problem}. Generate one with: "
        'python -c "import secrets; print(secrets.token_urlsafe(50))"')
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set in the environment for production")

MIDDLEWARE = [
    MIDDLEWARE[0],  # SecurityMiddleware first
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[1:],
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
KONDAVO_SERVE_STATIC = False

# Served by kondavo.asgi, the scheme is scope["scheme"]: kondavo.proxy sets it from the
# X-Forwarded-Proto of a trusted proxy only and removes the header before Django sees it, so
# the setting below only matters outside kondavo.asgi (e.g. Django's test client).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_COOKIES = env_bool("SECURE_COOKIES", True)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# HSTS: sent on HTTPS responses only (as X-Forwarded-Proto tells behind the proxy), so it
# is on by default wherever the site is served over TLS. SECURE_HSTS_SECONDS=0 turns it off.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
