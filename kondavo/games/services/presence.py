"""Who sits at the board with an open socket (for "opponent left" and claim victory)."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import clock, events
from kondavo.games.models import Game


@transaction.atomic
def game_presence(*, game_id: str, player: Player | None, connected: bool,
                  now: datetime | None = None) -> dict[str, bool] | None:
    """Count a player's game socket opening/closing. Returns the new presence if the
    player sits at the board (None for spectators or unknown games)."""
    now = clock.resolve(now)
    if player is None:
        return None
    game = Game.objects.select_for_update().filter(pk=str(game_id)[:12]).first()
    if game is None:
        return None
    side = game.side_of(player)
    if side is None:
        return None
    count_field, left_field = f"{side}_connections", f"{side}_left_at"
    count = getattr(game, count_field)
    if connected:
        setattr(game, count_field, count + 1)
        setattr(game, left_field, None)
    else:
        setattr(game, count_field, max(count - 1, 0))
        if count <= 1:
            setattr(game, left_field, now)
    game.save(update_fields=[count_field, left_field])
    presence = {"white": game.white_connections > 0, "black": game.black_connections > 0}
    transaction.on_commit(partial(events.publish_presence, game.id, presence))
    return presence
