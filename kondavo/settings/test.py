"""pytest settings. DATABASE_URL / REDIS_URL pick PostgreSQL / Redis as in base.py.

With SQLite the test database is a file (not in-memory) so a Daphne subprocess started by
the ``daphne_server`` fixture can open the same database.
"""

import os
import tempfile
from pathlib import Path

from .base import *  # noqa: F401,F403
from .base import DATABASES, REDIS_URL, caches_for, env_bool, env_int, env_list, env_str

DEBUG = False
SECRET_KEY = env_str("SECRET_KEY") or "kondavo-test-secret-key-not-for-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["testserver", "localhost", "127.0.0.1", "[::1]"])
KONDAVO_SERVE_STATIC = env_bool("KONDAVO_SERVE_STATIC", True)
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("KONDAVO_TEST_SQLITE")
        or str(Path(tempfile.gettempdir()) / f"kondavo-test-{os.getpid()}.sqlite3"),
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Persistent connections (production default 60 s) would outlive the tests in the
    # threads of sync_to_async and keep the test database from being dropped. Processes
    # that tests start (the integration stack) set DB_CONN_MAX_AGE like production.
    DATABASES["default"]["CONN_MAX_AGE"] = env_int("DB_CONN_MAX_AGE", 0)
    # No connection pool in the pytest process unless asked for (DB_POOL=true): the test
    # database is created and dropped around the run. Daphne children that tests start with
    # DB_POOL=true get the production pool.
    if not env_bool("DB_POOL", False):
        DATABASES["default"]["OPTIONS"].pop("pool", None)

# The rate-limit cache in its own Redis database (3; Celery tests use 1) so that tests can
# clear it between tests without touching anything else. Daphne children that tests
# start compute the same URL from the same environment.
if REDIS_URL and not env_str("CACHE_REDIS_URL"):
    CACHES = caches_for(REDIS_URL.rsplit("/", 1)[0] + "/3" if REDIS_URL.count("/") >= 3
                        else REDIS_URL)

# Test processes open many sockets from one address in a short time: the per-address gate
# and caps are off unless a test (or a Daphne child's environment) turns them on. Presence
# goes out at once (tests of the coalescing set the interval themselves).
KONDAVO_WS_CONNECT_RATE = float(env_str("KONDAVO_WS_CONNECT_RATE") or 0)
KONDAVO_WS_MAX_PER_PLAYER = env_int("KONDAVO_WS_MAX_PER_PLAYER", 0)
KONDAVO_WS_MAX_ANON_PER_IP = env_int("KONDAVO_WS_MAX_ANON_PER_IP", 0)
KONDAVO_WS_MAX_PER_IP = env_int("KONDAVO_WS_MAX_PER_IP", 0)
KONDAVO_PRESENCE_PUBLISH_SECONDS = float(env_str("KONDAVO_PRESENCE_PUBLISH_SECONDS") or 0)

# The engine-use signal (kondavo/fairplay) searches every finished rated game after its
# commit: off in tests unless a test turns it on (tests/fairplay computes it directly).
KONDAVO_FAIRPLAY_ENGINE_SIGNAL = env_bool("KONDAVO_FAIRPLAY_ENGINE_SIGNAL", False)

# Puzzles: the shipped files are not loaded by the test database's migrate (tests load what
# they need), and finished games are not searched unless a test turns it on.
KONDAVO_PUZZLES_AUTOLOAD = env_bool("KONDAVO_PUZZLES_AUTOLOAD", False)
KONDAVO_PUZZLES_FROM_GAMES = env_bool("KONDAVO_PUZZLES_FROM_GAMES", False)
