"""Prove the shared fixtures in conftest.py work: redis_url, daphne_server, Playwright."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest


@pytest.mark.services
def test_redis_url_reaches_a_live_redis(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        assert client.ping() is True
    finally:
        client.close()


@pytest.mark.embedded
def test_daphne_server_serves_home_page(daphne_server: str) -> None:
    with urllib.request.urlopen(daphne_server + "/", timeout=10) as response:
        body = response.read().decode()
        assert response.status == 200
    assert "Kondavo" in body
    assert daphne_server.startswith("http://127.0.0.1:")


@pytest.mark.embedded
@pytest.mark.django_db(transaction=True)
def test_daphne_server_shares_the_test_database(daphne_server: str) -> None:
    """A guest made by the subprocess (on a first action) is visible from the test."""
    from kondavo.accounts.models import Player

    before = Player.objects.filter(kind=Player.Kind.GUEST).count()
    token = "t" * 32
    request = urllib.request.Request(
        daphne_server + "/accounts/guest/", method="POST",
        headers={"Cookie": f"csrftoken={token}", "X-CSRFToken": token})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        cookies = response.headers.get_all("Set-Cookie") or []
    assert any(c.startswith("sessionid=") for c in cookies), cookies
    assert Player.objects.filter(kind=Player.Kind.GUEST).count() == before + 1


@pytest.mark.embedded
def test_daphne_server_serves_static_files(daphne_server: str) -> None:
    from django.contrib.staticfiles import finders

    found = None
    for finder in finders.get_finders():
        for path, _storage in finder.list([]):
            found = path
            break
        if found:
            break
    if found is None:
        pytest.skip("no static files in any app yet")
    url = f"{daphne_server}/static/{found}"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200


@pytest.mark.browser
def test_chromium_opens_the_home_page(daphne_server: str, page, artifacts_dir: Path) -> None:
    response = page.goto(daphne_server + "/")
    assert response is not None and response.status == 200
    assert "Kondavo" in page.title()
    page.screenshot(path=str(artifacts_dir / "infra-home.png"))
