"""DATABASE_URL parsing and the env-driven choice of channel layer / Celery mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from kondavo.settings.base import (
    bus_settings_for,
    celery_settings_for,
    parse_database_url,
)

REPO_DIR = Path(__file__).resolve().parent.parent
STRONG_KEY = "kq3-Vt9sLw0_Zr7xYb2NcPd5Hm8Jf1Ge4Ua6Ts0Qo3Wi9Ek2Rn7Dl5Xc1Bv8Mz4Py6"


def test_unset_database_url_is_sqlite_in_repo_dir() -> None:
    for value in (None, "", "  "):
        db = parse_database_url(value, base_dir=Path("/srv/kondavo"))
        assert db["ENGINE"] == "django.db.backends.sqlite3"
        assert db["NAME"] == str(Path("/srv/kondavo/db.sqlite3"))


def test_postgres_url() -> None:
    db = parse_database_url("postgres://kon:s3cr%40t@db.example:6543/kondavo?sslmode=require")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["USER"], db["PASSWORD"]) == ("kon", "s3cr@t")
    assert (db["HOST"], db["PORT"], db["NAME"]) == ("db.example", "6543", "kondavo")
    assert db["OPTIONS"]["sslmode"] == "require"


def test_postgresql_scheme_without_credentials_or_port() -> None:
    db = parse_database_url("postgresql://localhost/kon")
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == ("", "", "localhost", "")


def test_postgres_unix_socket_via_query() -> None:
    db = parse_database_url("postgres://kon@/kondavo?host=/var/run/postgresql")
    assert db["HOST"] == "/var/run/postgresql" and "host" not in db["OPTIONS"]


def test_sqlite_urls() -> None:
    base = Path("/srv/k")
    assert parse_database_url("sqlite:///other.db", base_dir=base)["NAME"] == str(base / "other.db")
    assert parse_database_url("sqlite:////tmp/x.db", base_dir=base)["NAME"] == "/tmp/x.db"
    assert parse_database_url("sqlite://:memory:", base_dir=base)["NAME"] == ":memory:"


@pytest.mark.parametrize("url", ["mysql://u@h/db", "postgres://h/", "sqlite://", "postgres://h:x/d"])
def test_bad_database_urls(url: str) -> None:
    with pytest.raises(ImproperlyConfigured):
        parse_database_url(url)


def test_no_redis_means_in_process_bus_and_eager_celery() -> None:
    assert bus_settings_for(None)["KONDAVO_BUS_URLS"] == []
    celery = celery_settings_for(None)
    assert celery["CELERY_TASK_ALWAYS_EAGER"] is True


def test_redis_means_the_redis_bus_with_a_bounded_publish() -> None:
    bus = bus_settings_for("redis://127.0.0.1:6379/0")
    assert bus["KONDAVO_BUS_URLS"] == ["redis://127.0.0.1:6379/0"]
    assert 0 < bus["KONDAVO_BUS_TIMEOUT"] <= 5 and bus["KONDAVO_BUS_PREFIX"]


def test_redis_celery_settings() -> None:
    celery = celery_settings_for("redis://r:6379/0")
    assert celery["CELERY_TASK_ALWAYS_EAGER"] is False
    assert celery["CELERY_BROKER_URL"] == "redis://r:6379/0"
    assert celery["CELERY_TASK_ROUTES"] == {"bots.tasks.analysis_eval": {"queue": "analysis"},
                                            "kondavo.fairplay.tasks.*": {"queue": "analysis"},
                                            "kondavo.puzzles.tasks.*": {"queue": "analysis"},
                                            "bots.tasks.*": {"queue": "bots"}}
    assert celery["CELERY_WORKER_PREFETCH_MULTIPLIER"] == 1
    assert celery["CELERY_TASK_ACKS_LATE"] is True
    assert celery["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True
    assert celery_settings_for("redis://r/0", "redis://r/5")["CELERY_BROKER_URL"] == "redis://r/5"


def test_celery_app_reads_django_settings() -> None:
    from kondavo.celery import app

    assert app.main == "kondavo"
    assert app.conf.task_routes == {"bots.tasks.analysis_eval": {"queue": "analysis"},
                                    "kondavo.fairplay.tasks.*": {"queue": "analysis"},
                                    "kondavo.puzzles.tasks.*": {"queue": "analysis"},
                                    "bots.tasks.*": {"queue": "bots"}}
    assert app.conf.task_always_eager is (not os.environ.get("REDIS_URL"))


@pytest.mark.embedded
def test_loaded_settings_follow_the_environment() -> None:
    """The settings module actually loaded for this run matches the env it ran with."""
    engine = settings.DATABASES["default"]["ENGINE"]
    from kondavo.games.bus import LocalBus, RedisBus, bus

    assert settings.CHANNEL_LAYERS == {}  # the hub, not Channels' layer, fans out
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        assert engine == "django.db.backends.postgresql"
    elif not os.environ.get("DATABASE_URL"):
        assert engine == "django.db.backends.sqlite3"
    if os.environ.get("REDIS_URL"):
        assert isinstance(bus(), RedisBus)
        assert settings.KONDAVO_BOT_INPROCESS is False
    else:
        assert isinstance(bus(), LocalBus)
        assert settings.KONDAVO_BOT_INPROCESS is True
        assert settings.CELERY_TASK_ALWAYS_EAGER is True


def _import_settings(module: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "ALLOWED_HOSTS"}}
    clean.update(env, DJANGO_SETTINGS_MODULE=module)
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_DIR, env=clean, capture_output=True, text=True
    )


def test_production_requires_secret_key() -> None:
    result = _import_settings("kondavo.settings.production", ALLOWED_HOSTS="kondavo.example")
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


def test_production_with_secret_key_loads_with_whitenoise() -> None:
    result = _import_settings(
        "kondavo.settings.production", SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="kondavo.example"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_embedded_settings_have_debug_off_unless_switched_on() -> None:
    env = {k: v for k, v in os.environ.items() if k != "KONDAVO_DEBUG"}
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    off = subprocess.run([sys.executable, "-c", code], cwd=REPO_DIR, capture_output=True, text=True,
                         env={**env, "DJANGO_SETTINGS_MODULE": "kondavo.settings.local"})
    on = subprocess.run([sys.executable, "-c", code], cwd=REPO_DIR, capture_output=True, text=True,
                        env={**env, "DJANGO_SETTINGS_MODULE": "kondavo.settings.local",
                             "KONDAVO_DEBUG": "1"})
    assert (off.returncode, off.stdout.strip()) == (0, "False"), off.stderr
    assert (on.returncode, on.stdout.strip()) == (0, "True"), on.stderr


@pytest.mark.parametrize(("value", "expected"), [
    (None, "(50000, 20, 10)"), ("20000,10,5", "(20000, 10, 5)"), ("off", "(700, 10, 10)")])
def test_the_web_process_tunes_its_garbage_collector(value: str | None, expected: str) -> None:
    """kondavo/asgi.py sets the collector's thresholds (KONDAVO_GC_THRESHOLDS; "off" leaves
    Python's defaults)."""
    env = {k: v for k, v in os.environ.items() if k != "KONDAVO_GC_THRESHOLDS"}
    env["DJANGO_SETTINGS_MODULE"] = "kondavo.settings.test"
    if value is not None:
        env["KONDAVO_GC_THRESHOLDS"] = value
    out = subprocess.run(
        [sys.executable, "-c", "import gc, kondavo.asgi; print(gc.get_threshold())"],
        cwd=REPO_DIR, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == expected, out.stderr
