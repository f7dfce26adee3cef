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


class InvalidPosition(VariantError):
    """A well-formed position that cannot arise in a game of this ruleset (a side without
    pieces, more pieces than a side starts with, a man resting on its crowning row...)."""


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


def with_context(exc: VariantError, prefix: str) -> VariantError:
    """A copy of ``exc`` (same class and attributes) whose message starts with ``prefix``.

    Works for errors whose constructor takes other arguments than a message (AmbiguousMove).
    """
    cls = type(exc)
    copy = cls.__new__(cls)
    copy.__dict__.update(exc.__dict__)
    copy.args = (f"{prefix}: {exc}",)
    return copy


class PDNMoveError(InvalidPDN, IllegalMove):
    """A PDN game whose movetext holds an illegal, ambiguous or unreadable move.

    Both an ``InvalidPDN`` and an ``IllegalMove``; ``game`` and ``move_number`` locate it,
    ``text`` is the move as written and ``cause`` the underlying error.
    """

    def __init__(self, game: int, move_number: int, text: str, cause: VariantError) -> None:
        self.game = game
        self.move_number = move_number
        self.text = text
        self.cause = cause
        super().__init__(f"game {game}, move {move_number} ({text}): {cause}")
