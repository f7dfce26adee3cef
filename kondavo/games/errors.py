"""The one error type of the games services. ``code`` is a stable protocol error code."""

from __future__ import annotations

CODES = frozenset({
    "bad_json", "too_large", "rate_limited", "unknown_type", "bad_request", "not_a_player",
    "not_your_turn", "stale_ply", "illegal_move", "ambiguous_move", "game_over",
    "not_allowed", "not_found", "limit_reached", "unavailable",
    # the chat (kondavo/chat): a line too long, refused by the word filter, a guest's line,
    # a writer muted or banned by the staff
    "too_long", "chat_filtered", "chat_read_only", "chat_muted", "chat_banned",
})


class GameError(Exception):
    """A refused request: nothing was changed. Consumers turn it into an ``error`` frame."""

    def __init__(self, code: str, message: str) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"GameError({self.code!r}, {self.message!r})"
