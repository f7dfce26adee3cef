"""The settings helpers of the Redis clients and the database pool: the sharded bus
(``CHANNEL_REDIS_URLS``), the options that make every client recover from a restart, and the
pool's health check (kondavo/settings/base.py, kondavo/redis_clients.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from kondavo.redis_clients import connection_options
from kondavo.settings.base import (
    bus_settings_for,
    caches_for,
    celery_settings_for,
    channel_redis_urls,
    parse_database_url,
)

pytestmark = pytest.mark.embedded

A, B, C = "redis://a:6379/0", "redis://b:6379/0", "rediss://c:6380/1"


def test_one_redis_is_one_shard() -> None:
    assert channel_redis_urls(A) == [A]
    assert channel_redis_urls(A, []) == [A]
    assert channel_redis_urls(None) == [] and channel_redis_urls("") == []


def test_shards_become_the_bus_urls_in_order() -> None:
    config = bus_settings_for(A, [B, C, A])
    assert config["KONDAVO_BUS_URLS"] == [B, C, A]
    assert 0 < config["KONDAVO_BUS_TIMEOUT"] <= 5


def test_bad_shard_lists_are_refused_with_a_clear_error() -> None:
    with pytest.raises(ImproperlyConfigured, match="needs REDIS_URL"):
        channel_redis_urls(None, [A, B])
    with pytest.raises(ImproperlyConfigured, match="not a redis"):
        channel_redis_urls(A, [B, "http://c:6379"])
    with pytest.raises(ImproperlyConfigured, match="twice"):
        channel_redis_urls(A, [A, B, A])


def test_the_sharded_bus_is_built_from_the_settings(settings: Any) -> None:
    from kondavo.games.bus import RedisBus, bus, shard_of

    for key, value in bus_settings_for(A, [A, B]).items():
        setattr(settings, key, value)
    made = bus()
    assert isinstance(made, RedisBus) and made.urls == [A, B]
    # groups are spread over the shards by their name, the same way in every process
    assert {shard_of(f"game.{i}", 2) for i in range(50)} == {0, 1}
    assert shard_of("game.abc", 2) == shard_of("game.abc", 2)


def test_every_redis_client_recovers_at_its_first_call() -> None:
    options = connection_options()
    assert 0 < options["socket_connect_timeout"] <= 2
    assert options["retry"].get_retries() >= 1
    cache = caches_for(A)["default"]["OPTIONS"]
    assert 0 < cache["socket_timeout"] <= 5 and cache["retry"].get_retries() >= 1
    celery = celery_settings_for(A)
    transport = celery["CELERY_BROKER_TRANSPORT_OPTIONS"]
    assert transport["visibility_timeout"] == 120  # the redelivery options are kept
    assert 0 < transport["socket_connect_timeout"] <= 2
    assert transport["health_check_interval"] > 0
    # the result backend (a web process awaits the analysis results)
    assert 0 < celery["CELERY_REDIS_SOCKET_CONNECT_TIMEOUT"] <= 2
    assert celery["CELERY_REDIS_BACKEND_HEALTH_CHECK_INTERVAL"] > 0


def test_the_cache_client_takes_the_options() -> None:
    from django.core.cache.backends.redis import RedisCache

    cache = RedisCache(A, {"OPTIONS": caches_for(A)["default"]["OPTIONS"]})
    pool = cache._cache._get_connection_pool(write=True)
    assert pool.connection_kwargs["socket_connect_timeout"] == options_timeout()
    assert pool.connection_kwargs["retry"].get_retries() >= 1


def options_timeout() -> float:
    return float(connection_options()["socket_connect_timeout"])


def test_the_database_pool_checks_each_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DB_POOL", raising=False)
    database = parse_database_url("postgres://u:p@db:5432/kondavo")
    # Django hands psycopg_pool its check_connection when CONN_HEALTH_CHECKS is on.
    assert database["CONN_HEALTH_CHECKS"] is True
    assert database["OPTIONS"]["pool"]["timeout"] <= 10
    assert "check" not in database["OPTIONS"]["pool"]  # Django passes it itself
