"""Narrow errors, all ValueError subclasses, with messages a player can read."""

from __future__ import annotations

from collections.abc import Sequence


class VariantError(ValueError):
    """Base class of every error raised by the rules engine."""


class UnknownVariant(VariantError, LookupError):
    pass


class InvalidFEN(VariantError):
    pass


class InvalidSquare(VariantError):
    pass


class InvalidNotation(VariantError):
    """The text is not a move in this ruleset's notation at all."""


class IllegalMove(VariantError):
    """Well-formed, but not a legal move in this position."""


class AmbiguousMove(IllegalMove):
    """A short form that matches several legal moves; ``candidates`` lists them in full."""

    def __init__(self, text: str, candidates: Sequence[str]) -> None:
        self.text = text
        self.candidates = tuple(candidates)
        super().__init__(
            f"{text} is ambiguous: it could be {', '.join(self.candidates)}; "
            "write the full capture path"
        )


class InvalidPDN(VariantError):
    pass
