"""Passwords are hashed on low-priority threads of their own (kondavo/accounts/hashers.py),
with hashes that Django's own PBKDF2 hasher reads and writes."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
from django.contrib.auth import hashers as django_hashers
from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, make_password
from django.test import override_settings

from kondavo.accounts.hashers import BackgroundPBKDF2PasswordHasher

SITE_HASHERS = ["kondavo.accounts.hashers.BackgroundPBKDF2PasswordHasher"]


def own_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_the_site_lists_the_background_hasher_first_in_place_of_djangos() -> None:
    from kondavo.settings import base

    assert base.PASSWORD_HASHERS[0] == SITE_HASHERS[0]
    assert "django.contrib.auth.hashers.PBKDF2PasswordHasher" not in base.PASSWORD_HASHERS


def test_its_hashes_are_djangos_pbkdf2_hashes_both_ways() -> None:
    with override_settings(PASSWORD_HASHERS=SITE_HASHERS):
        encoded = make_password("correct horse battery")
        assert encoded.startswith(f"pbkdf2_sha256${PBKDF2PasswordHasher.iterations}$")
        assert check_password("correct horse battery", encoded)
        assert not check_password("wrong horse battery", encoded)
        assert PBKDF2PasswordHasher().verify("correct horse battery", encoded)
        stock = PBKDF2PasswordHasher().encode("an older password", "somesalt", 1000)
        assert check_password("an older password", stock)  # hashes made before still work
        assert not check_password("another password", stock)


def test_the_hashing_runs_on_a_nice_19_thread_and_leaves_the_callers_priority(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, int]] = []
    real = django_hashers.pbkdf2

    def recording(*args: Any, **kwargs: Any) -> bytes:
        seen.append((threading.current_thread().name, own_nice()))
        return real(*args, **kwargs)

    monkeypatch.setattr(django_hashers, "pbkdf2", recording)
    before = own_nice()
    hasher = BackgroundPBKDF2PasswordHasher()
    encoded = hasher.encode("a passphrase", "salt1234", 1000)
    assert hasher.verify("a passphrase", encoded) and not hasher.verify("a passphrase!", encoded)
    assert len(seen) == 3 and all(name.startswith("password-hash") for name, _ in seen), seen
    assert {nice for _, nice in seen} == {19}
    assert own_nice() == before  # the caller's thread keeps its priority
    assert encoded == PBKDF2PasswordHasher().encode("a passphrase", "salt1234", 1000)
