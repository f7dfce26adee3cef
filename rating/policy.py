"""Which games may be rated. Used by the games app when a game is created."""

from __future__ import annotations

from kondavo.accounts.models import Player

RATEABLE_KINDS = frozenset({Player.Kind.USER, Player.Kind.BOT})


def can_be_rated(white: Player | None, black: Player | None) -> bool:
    """A game can be rated between two accounts, or an account and a bot seat.

    Guests never play rated games; a player cannot play themself rated; bot against bot is
    not rated (it would move the anchors without a human involved).
    """
    if white is None or black is None or white.pk == black.pk:
        return False
    if white.kind not in RATEABLE_KINDS or black.kind not in RATEABLE_KINDS:
        return False
    return Player.Kind.USER in (white.kind, black.kind)
