"""Settings shared by every environment. Everything deployment-specific comes from os.environ.

- ``DATABASE_URL``: unset -> SQLite file ``db.sqlite3`` in the repository directory;
  ``postgres://user:pass@host:port/name`` -> PostgreSQL; ``sqlite:///relative/or/absolute``.
- ``REDIS_URL``: unset -> in-process bus, Celery tasks run eagerly in-process
  (``KONDAVO_BOT_INPROCESS``); set -> channels_redis layer and Celery broker on Redis.
- ``SECRET_KEY``, ``DEBUG``, ``ALLOWED_HOSTS``, ``CSRF_TRUSTED_ORIGINS`` (comma separated).
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

# The repository directory (kondavo/settings/base.py -> three levels up).
BASE_DIR = Path(__file__).resolve().parent.parent.parent


# --------------------------------------------------------------------------- env helpers

def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true/false)")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from exc


def env_seconds(name: str, default: float) -> float:
    value = env_str(name).strip()
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number of seconds, not {value!r}") from exc
    if seconds <= 0:
        raise ImproperlyConfigured(f"{name} must be positive, not {value!r}")
    return seconds


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


# --------------------------------------------------------------------------- secret key

# Values that appear in docs, examples and development settings: never a production key.
KNOWN_PLACEHOLDER_KEYS = frozenset({
    "change-me-to-a-long-random-string",
    "django-insecure-kondavo-local-development-only",
    "kondavo-test-secret-key-not-for-production",
    "change-me", "changeme", "secret", "secret-key", "your-secret-key", "xxx",
})
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_UNIQUE_CHARACTERS = 10


def secret_key_problem(key: str) -> str | None:
    """Why ``key`` is unfit for production, or None. As Django's own deployment check
    (security.W009): at least 50 characters, at least 10 different ones, not Django's
    generated "django-insecure-" development keys; and none of the known placeholders."""
    if not key:
        return "must be set in the environment for production"
    if key.strip().lower() in KNOWN_PLACEHOLDER_KEYS or key.startswith("django-insecure-"):
        return "is a placeholder from the documentation or development settings"
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"is too short ({len(key)} characters; at least {SECRET_KEY_MIN_LENGTH})"
    if len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS:
        return (f"has too few different characters ({len(set(key))}; at least "
                f"{SECRET_KEY_MIN_UNIQUE_CHARACTERS})")
    return None


# --------------------------------------------------------------------------- database

POSTGRES_SCHEMES = {"postgres", "postgresql", "pgsql", "postgis"}
SQLITE_SCHEMES = {"sqlite", "sqlite3"}


def sqlite_database(path: Path | str) -> dict[str, Any]:
    """A SQLite database tuned for one Daphne process serving many async requests. Each
    worker thread keeps its connection (``CONN_MAX_AGE``): opening one per service call
    (with its PRAGMAs) was a third of the embedded server's CPU under a crowd of sockets."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "CONN_MAX_AGE": None if str(path) == ":memory:" else env_int("DB_CONN_MAX_AGE", 600),
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }


def parse_database_url(url: str | None, *, base_dir: Path = BASE_DIR) -> dict[str, Any]:
    """Turn ``DATABASE_URL`` into a Django ``DATABASES['default']`` dict.

    ``None``/empty -> ``<base_dir>/db.sqlite3``. ``sqlite:///rel.db`` is relative to
    ``base_dir``; ``sqlite:////abs/path.db`` is absolute; ``sqlite://:memory:`` in memory.
    ``postgres://user:pass@host:port/name?sslmode=require`` -> PostgreSQL; the user and
    password are percent-decoded and query parameters become ``OPTIONS`` (``host=/socket/dir``
    overrides the host, for Unix sockets).
    """
    if url is None or url.strip() == "":
        return sqlite_database(base_dir / "db.sqlite3")
    url = url.strip()
    parts = urlsplit(url)
    scheme = parts.scheme.lower()

    if scheme in SQLITE_SCHEMES:
        if url.rstrip("/").endswith(":memory:"):
            return sqlite_database(":memory:")
        raw = unquote(parts.path)
        name = raw[1:] if raw.startswith("/") else raw
        if not name:
            raise ImproperlyConfigured(f"DATABASE_URL {url!r} has no SQLite file name")
        path = Path(name)
        return sqlite_database(path if path.is_absolute() else base_dir / path)

    if scheme in POSTGRES_SCHEMES:
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ImproperlyConfigured("DATABASE_URL for PostgreSQL needs a database name")
        options: dict[str, Any] = dict(parse_qsl(parts.query))
        host = options.pop("host", None) or parts.hostname or ""
        try:
            port = parts.port
        except ValueError as exc:
            raise ImproperlyConfigured(f"DATABASE_URL has an invalid port: {url!r}") from exc
        database = {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": unquote(host),
            "PORT": str(port) if port else "",
            "OPTIONS": options,
            # Persistent connections (only without a pool): each thread keeps its own
            # connection (health-checked) instead of opening one per call. With the pool,
            # the health checks are the pool's check of each connection it hands out.
            "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 60),
            "CONN_HEALTH_CHECKS": True,
            # true behind PgBouncer in transaction mode, where a cursor cannot outlive its
            # transaction (docs/deploying.md). Prepared statements are off already (Django).
            "DISABLE_SERVER_SIDE_CURSORS": env_bool("DB_DISABLE_SERVER_SIDE_CURSORS", False),
        }
        database.update(postgres_pool_settings(options))
        return database

    raise ImproperlyConfigured(
        f"Unsupported DATABASE_URL scheme {parts.scheme!r}: use postgres:// or sqlite://"
    )


def postgres_pool_settings(options: dict[str, Any]) -> dict[str, Any]:
    """psycopg 3's connection pool (on unless ``DB_POOL=false``), added to ``options``.

    One pool per process of at most ``DB_POOL_MAX_SIZE`` connections: a request or socket
    action that finds them all busy waits up to ``DB_POOL_TIMEOUT`` seconds for one instead
    of opening another PostgreSQL backend (which fails with "too many clients" under a
    burst). While PostgreSQL is down that wait ends in an error (a 503 page, an
    ``unavailable`` error frame: kondavo/outages.py), so it is kept short (10 s). A pool
    replaces persistent connections, so ``CONN_MAX_AGE`` is 0 with it. PostgreSQL's
    ``max_connections`` must exceed (web replicas x DB_POOL_MAX_SIZE) + (Celery worker
    processes x DB_POOL_MAX_SIZE) + a few for migrations and psql.
    """
    if not env_bool("DB_POOL", True):
        return {}
    min_size = env_int("DB_POOL_MIN_SIZE", 2)
    max_size = env_int("DB_POOL_MAX_SIZE", 10)
    if not 0 <= min_size <= max_size or max_size < 1:
        raise ImproperlyConfigured(
            f"need 0 <= DB_POOL_MIN_SIZE ({min_size}) <= DB_POOL_MAX_SIZE ({max_size}), max >= 1")
    # Each connection is checked (psycopg_pool's check_connection, one empty round trip) as
    # it leaves the pool, so after a PostgreSQL restart the dead ones are dropped and
    # replaced and none reaches a request: Django passes that check when
    # CONN_HEALTH_CHECKS is on (parse_database_url). Checking only connections idle for a
    # second was tried (a round trip per move saved): a restart then lost a probe move.
    options["pool"] = {
        "min_size": min_size,
        "max_size": max_size,
        "timeout": env_seconds("DB_POOL_TIMEOUT", 10.0),
    }
    return {"CONN_MAX_AGE": 0}


# --------------------------------------------------------------------------- redis

REDIS_SCHEMES = {"redis", "rediss", "unix"}


def channel_redis_urls(redis_url: str | None, shard_urls: list[str] | None = None) -> list[str]:
    """The bus's Redis servers: ``CHANNEL_REDIS_URLS`` (comma separated), else ``REDIS_URL``
    alone; none without Redis. The bus (kondavo/games/bus.py) shards groups over them by a
    hash of their names, so every process must list the same URLs in the same order.
    Presence, the cache and Celery stay on ``REDIS_URL``, hence it is required too.
    """
    if not shard_urls:
        return [redis_url] if redis_url else []
    if not redis_url:
        raise ImproperlyConfigured(
            "CHANNEL_REDIS_URLS needs REDIS_URL too (presence, cache and Celery use it)")
    for url in shard_urls:
        if urlsplit(url).scheme.lower() not in REDIS_SCHEMES:
            raise ImproperlyConfigured(
                f"CHANNEL_REDIS_URLS: {url!r} is not a redis://, rediss:// or unix:// URL")
    if len(set(shard_urls)) != len(shard_urls):
        raise ImproperlyConfigured(f"CHANNEL_REDIS_URLS lists a server twice: {shard_urls}")
    return list(shard_urls)


def bus_settings_for(redis_url: str | None,
                     shard_urls: list[str] | None = None) -> dict[str, Any]:
    """The bus between web processes (kondavo/games/bus.py): Redis pub/sub on
    ``channel_redis_urls``, else (no Redis: the embedded mode) inside the process."""
    return {
        "KONDAVO_BUS_URLS": channel_redis_urls(redis_url, shard_urls),
        "KONDAVO_BUS_PREFIX": env_str("KONDAVO_BUS_PREFIX", "kondavo"),
        # A publish gives up after this many seconds while Redis does not answer (it is
        # tried again for a while; the move is stored and clients resync). A refused
        # connection (Redis restarting) fails at once.
        "KONDAVO_BUS_TIMEOUT": env_seconds("KONDAVO_BUS_TIMEOUT", 5.0),
    }


def redis_cache_options() -> dict[str, Any]:
    """Connection options of the cache's Redis client (kondavo/redis_clients.py): a call
    during an outage fails within about a second; the first after it succeeds."""
    from kondavo.redis_clients import DEFAULT_SOCKET_TIMEOUT, connection_options

    return {"socket_timeout": DEFAULT_SOCKET_TIMEOUT, **connection_options()}


def caches_for(redis_url: str | None) -> dict[str, Any]:
    if not redis_url:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "kondavo"),
            "OPTIONS": redis_cache_options(),
        }
    }


def celery_settings_for(redis_url: str | None, broker_url: str | None = None) -> dict[str, Any]:
    """Celery settings (names as in the Django settings module, CELERY_ namespace)."""
    broker = broker_url or redis_url
    common: dict[str, Any] = {
        "CELERY_TASK_ROUTES": {"bots.tasks.analysis_eval": {"queue": "analysis"},
                               "kondavo.fairplay.tasks.*": {"queue": "analysis"},
                               "kondavo.puzzles.tasks.*": {"queue": "analysis"},
                               "bots.tasks.*": {"queue": "bots"}},
        "CELERY_TASK_DEFAULT_QUEUE": "celery",
        "CELERY_WORKER_PREFETCH_MULTIPLIER": 1,
        "CELERY_TASK_ACKS_LATE": True,
        "CELERY_TASK_REJECT_ON_WORKER_LOST": True,
        "CELERY_TASK_SERIALIZER": "json",
        "CELERY_RESULT_SERIALIZER": "json",
        "CELERY_ACCEPT_CONTENT": ["json"],
        "CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP": True,
        "CELERY_TASK_EAGER_PROPAGATES": True,
    }
    if not broker:
        return {
            **common,
            "CELERY_TASK_ALWAYS_EAGER": True,
            "CELERY_BROKER_URL": "memory://",
            "CELERY_RESULT_BACKEND": None,
        }
    return {
        **common,
        "CELERY_TASK_ALWAYS_EAGER": False,
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": broker,
        "CELERY_RESULT_EXPIRES": 3600,
        "CELERY_BROKER_TRANSPORT_OPTIONS": redis_broker_transport_options(),
        # A web process publishes tasks, and reads the results of the analysis tasks: a
        # publish during a Redis outage fails after CELERY_BROKER_CONNECTION_TIMEOUT x
        # (retries + 1) at most, and the broker's and the result backend's connections
        # reconnect at their first use after it (kondavo/redis_clients.py).
        "CELERY_BROKER_CONNECTION_TIMEOUT": 2.0,
        "CELERY_TASK_PUBLISH_RETRY_POLICY": {"max_retries": 2, "interval_start": 0,
                                             "interval_step": 0.2, "interval_max": 0.5},
        "CELERY_REDIS_SOCKET_CONNECT_TIMEOUT": 1.0,
        "CELERY_REDIS_SOCKET_KEEPALIVE": True,
        "CELERY_REDIS_RETRY_ON_TIMEOUT": True,
        "CELERY_REDIS_BACKEND_HEALTH_CHECK_INTERVAL": 10,
    }


def redis_broker_transport_options() -> dict[str, Any]:
    """Redelivery of tasks whose worker died (kombu's Redis ack emulation).

    A task is acked after it ran (``acks_late``). A worker that stops normally (SIGTERM)
    puts its unacked messages back at once; one that is killed (SIGKILL, OOM) leaves them
    in Redis until ``visibility_timeout`` seconds after delivery, when the next worker scan
    (every ``unacked_restore_interval`` s, and at worker start) requeues them. The timeout
    must exceed the longest time a worker legitimately holds a message, else a message still
    being worked on is delivered a second time: that is a bot search, bounded by the hard
    limit ``bots.tasks.TIME_LIMIT`` (90 s), hence 120 s. No task is sent with a
    ``countdown``/``eta`` (a worker holds those unacked until they run): clocks are checked
    by the beat's flag sweep instead. A lost bot move is also asked for again by the bot
    move sweep after ``KONDAVO_BOT_STALL_SECONDS``, usually well before this timeout.
    """
    from kondavo.redis_clients import kombu_transport_options

    return {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 120),
        "unacked_restore_interval": env_int("CELERY_UNACKED_RESTORE_INTERVAL", 10),
        "unacked_restore_throttle": 1,
        # Connect timeout, keepalive and health checks: see kondavo/redis_clients.py.
        **kombu_transport_options(),
    }


def celery_beat_schedule() -> dict[str, Any]:
    """``celery -A kondavo beat`` (exactly one, see docker-compose.yml):

    - the flag sweep (``KONDAVO_FLAG_SWEEP_SECONDS``, default 2 s): ends games whose clock
      ran out while no client was there to notice (one indexed query per run);
    - the bot move sweep (``KONDAVO_BOT_SWEEP_SECONDS``, default 5 s): asks again for bot
      moves overdue by ``KONDAVO_BOT_STALL_SECONDS`` (a message lost with a killed worker).
    """
    flag_every = env_seconds("KONDAVO_FLAG_SWEEP_SECONDS", 2.0)
    bot_every = env_seconds("KONDAVO_BOT_SWEEP_SECONDS", 5.0)
    return {
        "games-flag-sweep": {
            "task": "games.tasks.game_flag_sweep",
            "schedule": flag_every,
            # A sweep that waited longer than one period is superseded by the next one.
            "options": {"queue": "celery", "expires": flag_every},
        },
        "games-bot-move-sweep": {
            "task": "games.tasks.bot_move_sweep",
            "schedule": bot_every,
            "options": {"queue": "celery", "expires": bot_every},
        },
        # Expired seeks (KONDAVO_SEEK_TTL_SECONDS) leave the lobby lists.
        "games-seek-expire-sweep": {
            "task": "games.tasks.seek_expire_sweep",
            "schedule": 60.0,
            "options": {"queue": "celery", "expires": 60.0},
        },
        # Unanswered challenges (KONDAVO_CHALLENGE_TTL_SECONDS) expire; both players hear.
        "games-challenge-expire-sweep": {
            "task": "games.tasks.challenge_expire_sweep",
            "schedule": 30.0,
            "options": {"queue": "celery", "expires": 30.0},
        },
        # Tournaments (kondavo/tournaments): start the due ones, end arenas, pair arenas
        # (KONDAVO_TOURNAMENT_TICK_SECONDS); create the next hourly arenas (idempotent).
        "tournaments-tick": {
            "task": "tournaments.tasks.tournament_tick",
            "schedule": env_seconds("KONDAVO_TOURNAMENT_TICK_SECONDS", 5.0),
            "options": {"queue": "celery",
                        "expires": env_seconds("KONDAVO_TOURNAMENT_TICK_SECONDS", 5.0)},
        },
        "tournaments-schedule": {
            "task": "tournaments.tasks.tournament_schedule",
            "schedule": 600.0,
            "options": {"queue": "celery", "expires": 600.0},
        },
    }


# --------------------------------------------------------------------------- core

SECRET_KEY = env_str("SECRET_KEY")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",  # for staff only: games, players, moderation, rulesets offered
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "kondavo.accounts",
    "kondavo.games",
    "kondavo.notifications",
    "kondavo.chat",
    "kondavo.fairplay",
    "rating",
    "bots",
    "kondavo.tournaments",
    "kondavo.puzzles",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "kondavo.limits.RequestLimitsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "kondavo.accounts.middleware.PlayerMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Turns a login refused for too many failures into a 429 page.
    "axes.middleware.AxesMiddleware",
    # Last: the chain above runs in one worker thread per request (kondavo/middleware.py).
    "kondavo.middleware.SyncChainMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # First: refuses authentication while the client is locked out (django-axes).
    "kondavo.accounts.backends.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "kondavo.urls"
ASGI_APPLICATION = "kondavo.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL")
DATABASES = {"default": parse_database_url(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # guests keep their identity for a year

# Django's hashers, with its PBKDF2 one computed on low-priority threads of its own
# (kondavo/accounts/hashers.py): a burst of sign-ups never slows the moves of live games.
PASSWORD_HASHERS = [
    "kondavo.accounts.hashers.BackgroundPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
KONDAVO_PASSWORD_HASH_THREADS = env_int("KONDAVO_PASSWORD_HASH_THREADS", 2)
KONDAVO_PASSWORD_HASH_NICE = env_int("KONDAVO_PASSWORD_HASH_NICE", 19)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --------------------------------------------------------------------------- abuse limits

# Proxies allowed to tell the client's address (X-Forwarded-For) and scheme
# (X-Forwarded-Proto): comma-separated IPs and CIDRs, IPv4 or IPv6. Empty: no header is
# believed. kondavo.proxy (the outermost ASGI layer) puts the address in scope["client"],
# i.e. REMOTE_ADDR, which every per-address limit counts by (docs/deploying.md).
KONDAVO_TRUSTED_PROXIES = env_list("KONDAVO_TRUSTED_PROXIES")

# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins from one client IP
# address, logins from it are refused (HTTP 429) for AXES_COOLOFF_MINUTES. The address is
# REMOTE_ADDR (kondavo.limits.client_ip), as kondavo.proxy left it.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "kondavo.limits.client_ip"
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_VERBOSE = False

# Rate limits ("N/period", period s, m, h or d; empty: no limit; several comma-separated
# rates are each enforced: a burst, then slower and slower). Sign-up attempts per client IP
# address; game creation per player (a session's guest or an account) and per IP address
# (computer games, friend links and seeks, counted together). The per-address values let a
# classroom of 40 behind one address start together and stop a script (docs/deploying.md).
KONDAVO_SIGNUP_RATE = env_str("KONDAVO_SIGNUP_RATE", "10/h")
KONDAVO_CREATE_RATE_PLAYER = env_str("KONDAVO_CREATE_RATE_PLAYER", "10/m")
KONDAVO_CREATE_RATE_IP = env_str("KONDAVO_CREATE_RATE_IP", "80/m,1200/h")
# Guests created per client IP address (a guest identity is made on the first action; a
# session keeps its guest, so this counts visitors without one).
KONDAVO_GUEST_RATE = env_str("KONDAVO_GUEST_RATE", "60/10m,150/h,400/d")
# Challenges sent per player and per address, and how long an unanswered one waits.
KONDAVO_CHALLENGE_RATE = env_str("KONDAVO_CHALLENGE_RATE", "5/m,30/h")
KONDAVO_CHALLENGE_RATE_IP = env_str("KONDAVO_CHALLENGE_RATE_IP", "60/m")
KONDAVO_CHALLENGE_TTL_SECONDS = env_seconds("KONDAVO_CHALLENGE_TTL_SECONDS", 300.0)
# Chat (kondavo/chat, docs/deploying.md "Chat moderation"): lines per player and per
# address, reports per player, the length of a line, the lines sent with a game's state,
# whether guests may write, and the word filter's file (empty: the bundled lists).
# Puzzles (kondavo/puzzles, docs/puzzles.md): requests a visitor may make (moves, hints,
# solutions, next puzzle) per session and per address; the shipped files loaded by migrate;
# finished games searched for puzzles (on the analysis queue) and the search's budget.
KONDAVO_PUZZLE_RATE = env_str("KONDAVO_PUZZLE_RATE", "60/m,1500/h")
KONDAVO_PUZZLE_RATE_IP = env_str("KONDAVO_PUZZLE_RATE_IP", "600/m")
KONDAVO_PUZZLES_AUTOLOAD = env_bool("KONDAVO_PUZZLES_AUTOLOAD", True)
KONDAVO_PUZZLES_FROM_GAMES = env_bool("KONDAVO_PUZZLES_FROM_GAMES", True)
KONDAVO_PUZZLES_GAME_SECONDS = env_seconds("KONDAVO_PUZZLES_GAME_SECONDS", 20.0)
KONDAVO_PUZZLES_MIN_PLIES = env_int("KONDAVO_PUZZLES_MIN_PLIES", 12)
KONDAVO_PUZZLE_DAILY_RULESET = env_str("KONDAVO_PUZZLE_DAILY_RULESET", "")
KONDAVO_CHAT_RATE_PLAYER = env_str("KONDAVO_CHAT_RATE_PLAYER", "5/10s,30/5m")
KONDAVO_CHAT_RATE_IP = env_str("KONDAVO_CHAT_RATE_IP", "120/m")
KONDAVO_CHAT_REPORT_RATE = env_str("KONDAVO_CHAT_REPORT_RATE", "10/h")
KONDAVO_CHAT_MAX_LENGTH = env_int("KONDAVO_CHAT_MAX_LENGTH", 200)
KONDAVO_CHAT_HISTORY = env_int("KONDAVO_CHAT_HISTORY", 50)
KONDAVO_CHAT_GUESTS_WRITE = env_bool("KONDAVO_CHAT_GUESTS_WRITE", False)
KONDAVO_CHAT_WORDS_FILE = env_str("KONDAVO_CHAT_WORDS_FILE", "")
# Fair play (kondavo/fairplay/rules.py): rated games per pair a day, provisional accounts,
# short games, cool-downs after aborts and lost games left, the engine-use signal.
KONDAVO_FAIRPLAY_PAIR_RATED_PER_DAY = env_int("KONDAVO_FAIRPLAY_PAIR_RATED_PER_DAY", 10)
KONDAVO_FAIRPLAY_PROVISIONAL_GAMES = env_int("KONDAVO_FAIRPLAY_PROVISIONAL_GAMES", 10)
KONDAVO_FAIRPLAY_PROVISIONAL_WEIGHT = float(env_str("KONDAVO_FAIRPLAY_PROVISIONAL_WEIGHT", "0.25"))
KONDAVO_FAIRPLAY_RATING_RULES = env_bool("KONDAVO_FAIRPLAY_RATING_RULES", True)
KONDAVO_FAIRPLAY_SHORT_GAME_PLIES = env_int("KONDAVO_FAIRPLAY_SHORT_GAME_PLIES", 0)
KONDAVO_FAIRPLAY_ABORTS = env_int("KONDAVO_FAIRPLAY_ABORTS", 3)
KONDAVO_FAIRPLAY_ABORT_WINDOW_SECONDS = env_int("KONDAVO_FAIRPLAY_ABORT_WINDOW_SECONDS", 3600)
KONDAVO_FAIRPLAY_LEFT = env_int("KONDAVO_FAIRPLAY_LEFT", 2)
KONDAVO_FAIRPLAY_LEFT_WINDOW_SECONDS = env_int("KONDAVO_FAIRPLAY_LEFT_WINDOW_SECONDS", 86400)
KONDAVO_FAIRPLAY_COOLDOWN_SECONDS = env_int("KONDAVO_FAIRPLAY_COOLDOWN_SECONDS", 300)
KONDAVO_FAIRPLAY_ENGINE_SIGNAL = env_bool("KONDAVO_FAIRPLAY_ENGINE_SIGNAL", True)
KONDAVO_FAIRPLAY_ENGINE_DEPTH = env_int("KONDAVO_FAIRPLAY_ENGINE_DEPTH", 6)
KONDAVO_FAIRPLAY_ENGINE_SKIP_PLIES = env_int("KONDAVO_FAIRPLAY_ENGINE_SKIP_PLIES", 8)
KONDAVO_FAIRPLAY_ENGINE_GAMES = env_int("KONDAVO_FAIRPLAY_ENGINE_GAMES", 5)
KONDAVO_FAIRPLAY_ENGINE_MIN_MOVES = env_int("KONDAVO_FAIRPLAY_ENGINE_MIN_MOVES", 40)
KONDAVO_FAIRPLAY_ENGINE_THRESHOLD = float(env_str("KONDAVO_FAIRPLAY_ENGINE_THRESHOLD", "0.9"))
# Concurrent active games against the computer, and open seeks, per player.
KONDAVO_MAX_COMPUTER_GAMES = env_int("KONDAVO_MAX_COMPUTER_GAMES", 3)
KONDAVO_MAX_SEEKS = env_int("KONDAVO_MAX_SEEKS", 3)
# An open seek older than this is no longer listed, and cannot be accepted.
KONDAVO_SEEK_TTL_SECONDS = env_int("KONDAVO_SEEK_TTL_SECONDS", 600)

# Request bodies (forms and JSON): far above anything the site sends.
# (The analysis board takes a PDN of up to 64,000 characters.)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 256 * 1024)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 200

# --------------------------------------------------------------------------- security headers

# Content-Security-Policy (django-csp): scripts, styles and connections from this site only
# (no inline script or style, no eval); websockets to the same host (ws:/wss: 'self').
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# --------------------------------------------------------------------------- i18n

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("fr", _("French")),
    ("it", _("Italian")),
    ("tr", _("Turkish")),
    ("es", _("Spanish")),
    ("pt-br", _("Brazilian Portuguese")),
    ("pl", _("Polish")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]  # project-wide; each app's own locale/ is found too
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --------------------------------------------------------------------------- static files

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve /static/ from the app directories inside the ASGI app (no collectstatic needed).
# On in local and test; production uses whitenoise + collectstatic instead.
KONDAVO_SERVE_STATIC = env_bool("KONDAVO_SERVE_STATIC", False)

# --------------------------------------------------------------------------- channels / celery

REDIS_URL = env_str("REDIS_URL")
# The bus may be sharded over several Redis servers (CHANNEL_REDIS_URLS). Channels' own
# channel layer is not used: every socket's group messages come through the process's hub.
globals().update(bus_settings_for(REDIS_URL, env_list("CHANNEL_REDIS_URLS")))
CHANNEL_LAYERS: dict[str, Any] = {}
# The cache holds the rate-limit counters, so it must be shared by every web process:
# Redis (CACHE_REDIS_URL, default REDIS_URL) when there is one, else this process's memory.
CACHES = caches_for(env_str("CACHE_REDIS_URL") or REDIS_URL)
globals().update(celery_settings_for(REDIS_URL, env_str("CELERY_BROKER_URL") or None))
CELERY_BEAT_SCHEDULE = celery_beat_schedule()
# Without Redis there is no worker: bot moves are computed in this process (eager Celery,
# called off the event loop).
KONDAVO_BOT_INPROCESS = env_bool("KONDAVO_BOT_INPROCESS", not REDIS_URL)
# Bot levels up to this one search on the ``bots-fast`` queue (own worker), deeper ones on
# ``bots``: a cheap reply never waits behind a queue of deep searches.
KONDAVO_BOT_FAST_MAX_LEVEL = env_int("KONDAVO_BOT_FAST_MAX_LEVEL", 4)
# Thinking time of the top level (8), in seconds per move; lower levels use fixed budgets.
KONDAVO_BOT_MOVE_TIME = float(env_str("KONDAVO_BOT_MOVE_TIME") or 1.0)
# A bot move not played this long after the bot's turn began is asked for again by the bot
# move sweep (games.tasks.bot_move_sweep). Keep it above the thinking time plus queueing.
KONDAVO_BOT_STALL_SECONDS = env_seconds("KONDAVO_BOT_STALL_SECONDS", 30.0)

# Presence (kondavo/games/presence.py): the game page pings every HEARTBEAT seconds; a
# socket not heard from for TTL seconds counts as gone (whatever killed it). The opponent
# of a player gone for CLAIM_VICTORY seconds may claim the game (victory or draw).
KONDAVO_PRESENCE_HEARTBEAT_SECONDS = env_seconds("KONDAVO_PRESENCE_HEARTBEAT_SECONDS", 5.0)
KONDAVO_PRESENCE_TTL_SECONDS = env_seconds("KONDAVO_PRESENCE_TTL_SECONDS", 12.0)
# Presence changes go out coalesced: at most one ``presence`` frame per game per this many
# seconds from each process (the latest wins), so a crowd joining costs about one frame a second.
KONDAVO_PRESENCE_PUBLISH_SECONDS = env_seconds("KONDAVO_PRESENCE_PUBLISH_SECONDS", 1.0)
# The web process's garbage collector (kondavo/asgi.py): a collection runs after
# THRESHOLDS[0] new objects (Python's default is 700), the older generations every 20 and 10
# of those. With 2,000 sockets per process the defaults ran a full collection every few
# seconds, each stopping the event loop for up to half a second (bench/results/live.md).
# "off": Python's defaults.
KONDAVO_GC_THRESHOLDS = (None if env_str("KONDAVO_GC_THRESHOLDS").lower() == "off" else
                         tuple(int(x) for x in env_list("KONDAVO_GC_THRESHOLDS",
                                                        ["50000", "20", "10"])))
# Heartbeats are answered in batches (kondavo/games/heartbeats.py): the pings one process
# takes within this many seconds cost one database read and one presence round trip together.
KONDAVO_HEARTBEAT_BATCH_SECONDS = env_seconds("KONDAVO_HEARTBEAT_BATCH_SECONDS", 0.25)

# Socket discipline (kondavo/games/discipline.py). Per socket: RATE frames a second with a
# burst of BURST; FLOOD_FRAMES refused frames (replenished at RATE/10 a second) close the
# socket with 4008 and cool its owner (its player, else its address) down for COOLDOWN
# seconds. Per process: CONNECT_RATE socket openings a second per address (burst
# CONNECT_BURST); more are refused at the handshake. Shared by every Daphne (Redis): at most
# MAX_PER_PLAYER sockets of one player, MAX_ANON_PER_IP sockets without a player from one
# address, MAX_PER_IP sockets in all from one address. 0 turns a limit off.
KONDAVO_WS_RATE = float(env_str("KONDAVO_WS_RATE") or 20)
KONDAVO_WS_BURST = float(env_str("KONDAVO_WS_BURST") or 40)
KONDAVO_WS_FLOOD_FRAMES = env_int("KONDAVO_WS_FLOOD_FRAMES", 60)
KONDAVO_WS_COOLDOWN_SECONDS = env_seconds("KONDAVO_WS_COOLDOWN_SECONDS", 60.0)
KONDAVO_WS_CONNECT_RATE = float(env_str("KONDAVO_WS_CONNECT_RATE") or 10)
KONDAVO_WS_CONNECT_BURST = float(env_str("KONDAVO_WS_CONNECT_BURST") or 40)
KONDAVO_WS_REFUSE_DELAY = env_seconds("KONDAVO_WS_REFUSE_DELAY", 1.0)
KONDAVO_WS_REFUSE_HELD = env_int("KONDAVO_WS_REFUSE_HELD", 2000)
# An HTTP 429 is sent this many seconds late (kondavo.middleware.LateRefusals), at most
# this many waiting at once per process.
KONDAVO_HTTP_REFUSE_DELAY = env_seconds("KONDAVO_HTTP_REFUSE_DELAY", 1.0)
KONDAVO_HTTP_REFUSE_HELD = env_int("KONDAVO_HTTP_REFUSE_HELD", 2000)
# Threads per web process for the seated players' game actions (moves, takebacks, offers):
# apart from the pool that opens and closes sockets, so a crowd never delays a move.
KONDAVO_PLAY_THREADS = env_int("KONDAVO_PLAY_THREADS", 2)
# Sockets being admitted at once per web process (a crowd is let in one at a time).
KONDAVO_WS_OPENINGS = env_int("KONDAVO_WS_OPENINGS", 1)
# A web process's event loop serves the seated players' sockets first, then at most this
# many other ready sockets a turn (a crowd closing at once is served in slices); 0: as
# asyncio does, every ready socket in one turn.
KONDAVO_LOOP_SOCKETS_PER_TURN = env_int("KONDAVO_LOOP_SOCKETS_PER_TURN", 32)
KONDAVO_WS_MAX_PER_PLAYER = env_int("KONDAVO_WS_MAX_PER_PLAYER", 20)
KONDAVO_WS_MAX_ANON_PER_IP = env_int("KONDAVO_WS_MAX_ANON_PER_IP", 100)
KONDAVO_WS_MAX_PER_IP = env_int("KONDAVO_WS_MAX_PER_IP", 1000)
KONDAVO_CLAIM_VICTORY_SECONDS = env_seconds("KONDAVO_CLAIM_VICTORY_SECONDS", 60.0)
# No clock runs before each side's first move; a player who does not make it within this
# many seconds has the game aborted, unrated (the computer is never hurried).
KONDAVO_FIRST_MOVE_SECONDS = env_seconds("KONDAVO_FIRST_MOVE_SECONDS", 30.0)

# Analysis board (frontend/analysis.py): per position at most this deep and this long (the
# code caps them at 14 plies and 1 s whatever is set), and this many requests a minute per
# visitor (a game review asks once per move).
KONDAVO_ANALYSIS_MAX_DEPTH = env_int("KONDAVO_ANALYSIS_MAX_DEPTH", 14)
KONDAVO_ANALYSIS_MAX_SECONDS = env_seconds("KONDAVO_ANALYSIS_MAX_SECONDS", 1.0)
KONDAVO_ANALYSIS_RATE = env_int("KONDAVO_ANALYSIS_RATE", 120)
# Admission (frontend/admission.py): at most this many analyses queued or running site-wide
# (beyond: 503 + Retry-After), and how long a request waits for its answer (the search runs
# on the ``analysis`` Celery queue, or in the embedded mode in a small thread pool).
KONDAVO_ANALYSIS_MAX_QUEUED = env_int("KONDAVO_ANALYSIS_MAX_QUEUED", 8)
KONDAVO_ANALYSIS_WAIT_SECONDS = env_seconds("KONDAVO_ANALYSIS_WAIT_SECONDS", 10.0)

# --------------------------------------------------------------------------- rulesets

# The rulesets the site offers and their order: ruleset keys, comma-separated in the
# environment. Empty: every installed ruleset (built-ins first, then plugins). The Django
# admin can further disable and reorder them (frontend "rulesets offered by the site").
KONDAVO_RULESETS = env_list("KONDAVO_RULESETS")
# Directories of data-only rulesets (*.toml), os.pathsep-separated in the environment.
KONDAVO_RULESET_DIRS = [d for d in (env_str("KONDAVO_RULESET_DIRS") or "").split(os.pathsep) if d]

# --------------------------------------------------------------------------- rating

# Leaderboard thresholds per ruleset key, with "default" as the fallback for every key (and
# for keys missing from a ruleset's dict). Players below the thresholds still fill the board
# (after the qualified ones) when a ruleset has few players.
KONDAVO_LEADERBOARD = {
    "default": {"min_games": 5, "active_days": 90},
}

# Tournaments (kondavo/tournaments, docs/deploying.md "Tournaments"): the hourly arenas the
# beat creates ahead ("all": every offered ruleset at KONDAVO_TOURNAMENT_SCHEDULE_CONTROLS;
# or "english:3+2,spanish:1+0"; empty: none) and how long each lasts.
KONDAVO_TOURNAMENT_SCHEDULE = env_str("KONDAVO_TOURNAMENT_SCHEDULE", "all")
KONDAVO_TOURNAMENT_SCHEDULE_CONTROLS = env_str("KONDAVO_TOURNAMENT_SCHEDULE_CONTROLS",
                                               "1+0,3+2,5+3")
KONDAVO_TOURNAMENT_HOURLY_MINUTES = env_int("KONDAVO_TOURNAMENT_HOURLY_MINUTES", 57)

# --------------------------------------------------------------------------- logging

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"client_fault": {"()": "kondavo.limits.ClientFaultLogFilter"},
                "outage": {"()": "kondavo.outages.OutageLogFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain",
                             "filters": ["client_fault", "outage"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
    },
}
