"""Issue 20 item 5: a classroom behind one address. The default limits (``.env.example``,
docs/deploying.md "A classroom behind one address") let 40 pupils sharing an address each
get a guest and start a game at once, while a script making guests and games from one
address is stopped: per session (a guest's own rate) and per address (a higher ceiling, in
tiers that slow a burst down step by step). Real database, the Redis cache's counters."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)

SCHOOL = "203.0.113.40"
JSON = {"HTTP_ACCEPT": "application/json"}


def test_the_defaults_are_the_documented_ones(settings: Any) -> None:
    assert settings.KONDAVO_GUEST_RATE == "60/10m,150/h,400/d"
    assert settings.KONDAVO_CREATE_RATE_IP == "80/m,1200/h"
    assert settings.KONDAVO_CREATE_RATE_PLAYER == "10/m"


def test_a_classroom_of_40_starts_together_and_a_script_is_stopped() -> None:
    started = 0
    for pupil in range(40):
        c = Client(REMOTE_ADDR=SCHOOL)
        assert c.post("/accounts/guest/", **JSON).status_code == 200, pupil
        r = c.post("/games/new/computer", {"ruleset": "international", "level": "1",
                                            "color": "white"}, **JSON)
        assert r.status_code == 201, (pupil, r.content)
        started += 1
    assert started == 40
    # A script from the same address: a new visitor (no cookie) per request.
    made = 0
    for _ in range(400):
        r = Client(REMOTE_ADDR=SCHOOL).post("/games/new/friend", {"ruleset": "english"},
                                            **JSON)
        if r.status_code == 429:
            break
        assert r.status_code == 201, r.content
        made += 1
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    # 60 guests in ten minutes per address: the class took 40, the script got the rest.
    assert made == 20, made
    print(f"classroom: 40 of 40 started; the script was stopped after {made} more guests")
    # Another address is not affected.
    other = Client(REMOTE_ADDR="198.51.100.41")
    assert other.post("/games/new/friend", {"ruleset": "english"}, **JSON).status_code == 201


def test_one_session_making_games_is_stopped_by_its_own_rate() -> None:
    c = Client(REMOTE_ADDR="203.0.113.41")
    statuses = [c.post("/games/new/friend", {"ruleset": "english"}, **JSON).status_code
                for _ in range(12)]
    assert statuses[:10] == [201] * 10 and statuses[10:] == [429, 429]
    # The address's other pupils still play.
    assert Client(REMOTE_ADDR="203.0.113.41").post(
        "/games/new/friend", {"ruleset": "english"}, **JSON).status_code == 201


def test_tiers_slow_a_key_down_step_by_step(settings: Any) -> None:
    from kondavo.ratelimits import RateLimited, parse_rates, rate_limit

    assert [(r.count, r.window) for r in parse_rates("60/10m, 150/h,400/d")] == [
        (60, 600), (150, 3600), (400, 86400)]
    settings.KONDAVO_TEST_TIERS = "5/m,8/h"
    for _ in range(5):
        rate_limit(action="tiers", keys=["ip:192.0.2.9"], setting="KONDAVO_TEST_TIERS")
    with pytest.raises(RateLimited) as refused:
        rate_limit(action="tiers", keys=["ip:192.0.2.9"], setting="KONDAVO_TEST_TIERS")
    assert "at most 5 a minute" in refused.value.message
