"""Password hashing that never slows a live game.

A password hash is made to be slow: Django's PBKDF2 runs 1,000,000 rounds, about half a
second of a core, at every sign-up, login and password change. In a web process that core
is one the event loop may need for the moves of the games it serves. So the hashing runs on
threads of its own at the lowest CPU priority (``KONDAVO_PASSWORD_HASH_NICE`` below the
process's, default 19, at most 19; Linux gives each thread its own nice value): on a
saturated machine a sign-up waits a little longer, a move does not wait for a sign-up.
``KONDAVO_PASSWORD_HASH_THREADS`` (default 2) hash at once per process; more wait their
turn.

``BackgroundPBKDF2PasswordHasher`` is Django's PBKDF2 hasher (same algorithm name, same
hashes, same iterations), listed first in ``PASSWORD_HASHERS`` in place of Django's own.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None  # (the process that made it, the pool)


def hashing_pool() -> ThreadPoolExecutor:
    """This process's hashing threads, each lowered by ``KONDAVO_PASSWORD_HASH_NICE`` as it
    starts (``bots.analysis.lower_thread_priority``, as the puzzle and table threads are);
    made again in a forked child, where the parent's threads do not exist."""
    global _pool
    pid = os.getpid()
    found = _pool
    if found is None or found[0] != pid:
        with _lock:
            found = _pool
            if found is None or found[0] != pid:
                from bots.analysis import lower_thread_priority

                nice = int(getattr(settings, "KONDAVO_PASSWORD_HASH_NICE", 19))
                workers = max(1, int(getattr(settings, "KONDAVO_PASSWORD_HASH_THREADS", 2)))
                found = _pool = (pid, ThreadPoolExecutor(
                    max_workers=workers, thread_name_prefix="password-hash",
                    initializer=partial(lower_thread_priority, nice)))
    return found[1]


class BackgroundPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2-SHA256 hasher, computed on the low-priority hashing threads (the
    caller waits for it). ``verify`` and ``harden_runtime`` go through ``encode``."""

    def encode(self, password: str, salt: str, iterations: int | None = None) -> str:
        parent: Any = super()
        return hashing_pool().submit(parent.encode, password, salt, iterations).result()
