"""The puzzles app's one error: a stable ``code`` for the protocol and a message."""

from __future__ import annotations


class PuzzleError(Exception):
    """``not_found`` (404), ``bad_request`` or ``illegal_move`` (400)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        return 404 if self.code == "not_found" else 400


class PuzzleDataError(ValueError):
    """A puzzle from a data file or the generator that does not replay; the message says
    why."""
