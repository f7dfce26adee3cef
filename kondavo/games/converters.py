"""The ``gameid`` path converter: letters and digits, at most 12 (the site's ids are 8
lower-case ones; upper case is let through for URL templates such as ``GAME``). Anything
else in that place of a URL is a 404 before any view or query."""

from __future__ import annotations

from django.urls import register_converter
from django.urls.converters import get_converters


class GameIdConverter:
    regex = "[A-Za-z0-9]{1,12}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return str(value)


def register() -> None:
    """Register ``gameid`` once (both the games and the frontend URLs use it)."""
    if "gameid" not in get_converters():
        register_converter(GameIdConverter, "gameid")
