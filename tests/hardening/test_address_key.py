"""Per-address limits count an IPv6 client by its /64 (``kondavo.limits.address_key``): one
subscriber usually holds a whole /64 and could otherwise rotate through it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from kondavo.limits import address_key
from kondavo.ratelimits import RateLimited, rate_limit

pytestmark = pytest.mark.embedded


@pytest.mark.parametrize(("address", "key"), [
    ("203.0.113.9", "203.0.113.9"),
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::", "2001:db8:1:2::/64"),
    ("::ffff:203.0.113.9", "203.0.113.9"),
    ("0.0.0.0", "0.0.0.0"),
    ("not an address", "not an address"),
])
def test_address_key(address: str, key: str) -> None:
    assert address_key(address) == key


def test_an_ipv6_64_shares_one_rate_limit(settings: Any) -> None:
    cache.clear()
    settings.KONDAVO_TEST_ADDRESS_RATE = "2/m"
    for suffix in ("::1", "::2"):  # two addresses of one /64: the window is shared
        rate_limit(action="addr-test", keys=[f"ip:2001:db8:5:6{suffix}"],
                   setting="KONDAVO_TEST_ADDRESS_RATE")
    with pytest.raises(RateLimited):
        rate_limit(action="addr-test", keys=["ip:2001:db8:5:6:ffff::3"],
                   setting="KONDAVO_TEST_ADDRESS_RATE")
    # another /64 has its own window
    rate_limit(action="addr-test", keys=["ip:2001:db8:5:7::1"],
               setting="KONDAVO_TEST_ADDRESS_RATE")
