"""Password hashing that never slows a live game.

A password hash is made to be slow: Django's PBKDF2 runs 1,000,000 rounds, about half a
second of a core, at every sign-up, login and password change. In a web process that core
is the one the event loop needs for the moves of the games it serves: in the attack lab, a
burst of sign-ups (each allowed by the per-address limits) raised the probe's move latency
from 10 ms to nearly 900 ms in the embedded mode. So the hashing runs on threads of its own
at the lowest CPU priority (nice 19, ``KONDAVO_PASSWORD_HASH_NICE``; Linux gives each thread
its own nice value): a sign-up waits a little longer when the machine is busy, a move does
not wait for a sign-up. ``KONDAVO_PASSWORD_HASH_THREADS`` (default 2) hash at once per
process; more wait their turn.

``BackgroundPBKDF2PasswordHasher`` is Django's PBKDF2 hasher (same algorithm name, same
hashes, same iterations), listed first in ``PASSWORD_HASHERS`` in place of Django's own.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None  # (the process that made it, the pool)


def _lower_priority() -> None:
    """Run by each hashing thread as it starts: this thread only, not the process."""
    nice = int(getattr(settings, "KONDAVO_PASSWORD_HASH_NICE", 19))
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except (OSError, AttributeError):  # not Linux, or not allowed: hash at normal priority
        pass


def hashing_pool() -> ThreadPoolExecutor:
    """This process's hashing threads (made again in a forked child)."""
    global _pool
    pid = os.getpid()
    found = _pool
    if found is None or found[0] != pid:
        with _lock:
            found = _pool
            if found is None or found[0] != pid:
                workers = max(1, int(getattr(settings, "KONDAVO_PASSWORD_HASH_THREADS", 2)))
                found = _pool = (pid, ThreadPoolExecutor(
                    max_workers=workers, thread_name_prefix="password-hash",
                    initializer=_lower_priority))
    return found[1]


class BackgroundPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2-SHA256 hasher, computed on the low-priority hashing threads (the
    caller waits for it). ``verify`` and ``harden_runtime`` go through ``encode``."""

    def encode(self, password: str, salt: str, iterations: int | None = None) -> str:
        parent: Any = super()
        return hashing_pool().submit(parent.encode, password, salt, iterations).result()
