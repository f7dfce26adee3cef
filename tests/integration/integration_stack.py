"""Helpers of the integration tests (the ``stack`` fixture is in conftest.py).

``Stack`` spawns Daphne, Celery workers and beat as subprocesses on the test database and
kills them all in the fixture's finalizer; ``Visitor`` is an HTTP client that keeps the
session and CSRF cookies of its first page view, like a browser.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit
from urllib.request import HTTPCookieProcessor, Request, build_opener

from daphne_process import REPO_DIR, database_url_for, free_port, wait_for_port

__all__ = ["REPO_DIR", "database_url_for", "free_port", "wait_for_port"]

# Redis DB numbers of these tests (0: the suite's REDIS_URL, 1: celery.contrib.pytest).
LAYER_DB = 2
BROKER_DB = 3
# Settings the stack leaves at their production defaults (kondavo/settings/base.py).
PRODUCTION_DEFAULTS = ("CELERY_VISIBILITY_TIMEOUT", "CELERY_UNACKED_RESTORE_INTERVAL",
                       "KONDAVO_FLAG_SWEEP_SECONDS", "KONDAVO_BOT_SWEEP_SECONDS",
                       "KONDAVO_BOT_STALL_SECONDS")
HTTP_TIMEOUT = 20


def redis_db_url(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, ""))


def wait_until(predicate: Callable[[], Any], timeout: float, what: str,
               interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, pattern: str, timeout: float) -> re.Match[str]:
        def found() -> re.Match[str] | None:
            if self.popen.poll() is not None:
                raise AssertionError(f"{self.name} exited ({self.popen.returncode}):\n"
                                     + self.log()[-4000:])
            return re.search(pattern, self.log())

        try:
            return wait_until(found, timeout, f"{pattern!r} in the log of {self.name}")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- {self.log_path.name} ---\n"
                                 + self.log()[-4000:]) from None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)


@dataclass
class Stack:
    base: str
    env: dict[str, str]
    broker_url: str
    artifacts: Path
    procs: list[Proc] = field(default_factory=list)

    def spawn(self, name: str, args: list[str], **env: str) -> Proc:
        log_path = self.artifacts / f"integration-{name}.log"
        log = open(log_path, "wb")  # noqa: SIM115 - kept open for the child's lifetime
        popen = subprocess.Popen(args, cwd=REPO_DIR, env={**self.env, **env}, stdout=log,
                                 stderr=subprocess.STDOUT)
        log.close()  # the child holds its own descriptor
        proc = Proc(name, popen, log_path)
        self.procs.append(proc)
        return proc

    def worker(self, name: str, queues: str = "bots-fast,bots,celery", **env: str) -> Proc:
        """A Celery worker (on every queue by default), ready to consume when this returns."""
        proc = self.spawn(name, [
            sys.executable, "-m", "celery", "-A", "kondavo", "worker", "-Q", queues,
            "--pool=solo", "--without-gossip", "--without-mingle", "--without-heartbeat",
            "--loglevel=INFO", "-n", f"{name}@%h",
        ], **env)
        proc.wait_for_log(r"\bready\.", timeout=60)
        return proc

    def beat(self, schedule_dir: Path, **env: str) -> Proc:
        return self.spawn("beat", [
            sys.executable, "-m", "celery", "-A", "kondavo", "beat", "--loglevel=INFO",
            f"--schedule={schedule_dir / 'celerybeat-schedule'}",
        ], **env)

    def broker(self) -> Any:
        import redis

        return redis.Redis.from_url(self.broker_url)


class Visitor:
    """A browser-like HTTP client: keeps the session and CSRF cookies of its first visit."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = CookieJar()
        self.opener = build_opener(HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        for c in self.jar:
            if c.name == name and c.value:
                return c.value
        raise AssertionError(f"no {name} cookie: {[c.name for c in self.jar]}")

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=HTTP_TIMEOUT) as resp:
            return resp.read().decode()

    def post_json(self, path: str, fields: dict[str, Any]) -> dict[str, Any]:
        import json

        req = Request(self.base + path, data=urlencode(fields).encode(), method="POST",
                      headers={"Accept": "application/json", "Referer": self.base + "/",
                               "X-CSRFToken": self.cookie("csrftoken")})
        with self.opener.open(req, timeout=HTTP_TIMEOUT) as resp:
            data: dict[str, Any] = json.loads(resp.read())
            return data
