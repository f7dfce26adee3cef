"""Helpers for the front-end browser tests (tests/browser/, all marked ``browser``).

- ``bots_in_process`` (autouse, session): the Daphne subprocess computes bot moves itself,
  even when REDIS_URL is set and no Celery worker runs. It must be set before
  ``daphne_server`` starts, which it is when these tests are the first browser tests.
- ``new_page``: a page in a fresh browser context (a new visitor) that records console
  errors and page errors; ``console_errors`` is checked at the end of every test.
- frontend_helpers.py: ``player_of(page)`` (the guest Player behind a page's session
  cookie), ``wait_my_turn``, ``play_path``, ``game_state``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def bots_in_process() -> Iterator[None]:
    old = os.environ.get("KONDAVO_BOT_INPROCESS")
    os.environ["KONDAVO_BOT_INPROCESS"] = "true"
    yield
    if old is None:
        os.environ.pop("KONDAVO_BOT_INPROCESS", None)
    else:
        os.environ["KONDAVO_BOT_INPROCESS"] = old


class ConsoleLog:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[str] = []  # substrings of expected errors (e.g. a 404 page)

    def attach(self, page: Any) -> None:
        def on_console(msg: Any) -> None:
            if msg.type == "error":
                self.errors.append(f"{page.url}: {msg.text}")

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))

    def unexpected(self) -> list[str]:
        return [e for e in self.errors if not any(a in e for a in self.allowed)]


@pytest.fixture
def console() -> ConsoleLog:
    return ConsoleLog()


@pytest.fixture
def new_page(browser: Any, console: ConsoleLog) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def make(width: int = 1280, height: int = 900, locale: str = "en-US",
             csp: bool = False) -> Any:
        """A page in a new context. The site's Content-Security-Policy forbids eval, which
        Playwright's string predicates (``wait_for_function``) use, so contexts bypass it
        unless ``csp=True`` (test_csp_in_the_browser.py checks the pages under it)."""
        context = browser.new_context(viewport={"width": width, "height": height},
                                      locale=locale, bypass_csp=not csp)
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        console.attach(page)
        return page

    yield make
    for context in contexts:
        context.close()
    assert console.unexpected() == [], "console errors:\n" + "\n".join(console.unexpected())
