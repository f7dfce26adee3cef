"""Moderation: what banned players may not do, which rulesets new games may use, and the
staff's abort of any game.

``require_not_banned`` is called by the game services before anything a player starts
(creating, joining or accepting a game, posting a seek, playing a move);
``require_offered`` before a new game or seek (the operator's choice of rulesets).
``game_abort_by_staff`` ends any unfinished game with no result, for the Django admin.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import clock
from kondavo.games.errors import GameError


def require_not_banned(*players: Player | None) -> None:
    """Refuse (``not_allowed``) when any of ``players`` is banned."""
    for player in players:
        if player is not None and player.banned:
            raise GameError("not_allowed", "this account is banned from playing")


def require_offered(key: str) -> None:
    """Refuse (``bad_request``) a new game or seek in a ruleset the site does not offer
    (``KONDAVO_RULESETS`` and the admin's choices). Games already started are unaffected."""
    from frontend.rulesets import is_offered

    if not is_offered(key):
        raise GameError("bad_request", f"the ruleset {key!r} is not offered on this site")


@transaction.atomic
def game_abort_by_staff(*, game_id: str, now: datetime | None = None) -> bool:
    """Abort an unfinished game (any ply) with no result; False if it was already over.

    The game services' own write path (lock, ``end`` event, guarded save, on-commit
    publishing), so the players' boards hear the end at once and the clocks stop.
    """
    from kondavo.games.services.clocks import abort
    from kondavo.games.services.store import GameWrite

    write = GameWrite.lock(game_id, clock.resolve(now))
    if write.game.is_over:
        return False
    abort(write, reason="by_staff", side=None)
    write.save(clock_changed=True)
    return True
