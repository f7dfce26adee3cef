"""The games app's notion of "now". Tests monkeypatch ``kondavo.games.clock.now``."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    return timezone.now()


def resolve(value: datetime | None) -> datetime:
    """``value`` if given (services accept an explicit ``now``), else the current time."""
    return value if value is not None else now()
