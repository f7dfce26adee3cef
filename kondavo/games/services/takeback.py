"""Takeback against the computer: a casual game's player takes back their last move.

Only in casual (unrated) games against a bot, only on the player's own turn (the bot has
answered): the bot's reply and the player's move are both taken back, so it is the player's
turn again in the position before their move. The clocks keep the time they show; the turn
starts anew. Publishes a versioned ``takeback`` event ``{ply}``: clients fetch the new state.

Idempotent: the request names the ply the player sees (``ply``, the number of moves played),
checked under the row lock like a move's. A repeated request (a double click, a frame sent
twice) finds the game at another ply and is refused with ``stale_ply``, changing nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import clock, wire
from kondavo.games.errors import GameError
from kondavo.games.history import repetition_of
from kondavo.games.models import Game
from kondavo.games.selectors import takeback_allowed, turn_of
from kondavo.games.services import clocks
from kondavo.games.services.store import GameWrite, other, require_active
from variants import GameRecord, get_variant


def game_takeback(*, game_id: str, player: Player, ply: int,
                  now: datetime | None = None) -> Game:
    """Take back ``player``'s last move and the computer's reply, if the game is still at
    ``ply`` (the number of moves played that the player sees)."""
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise GameError("bad_request", "ply must be a non-negative integer")
    game, error = _takeback_locked(game_id, player, ply, clock.resolve(now))
    if error is not None:
        raise error
    return game


@transaction.atomic
def _takeback_locked(game_id: str, player: Player, ply: int,
                     now: datetime) -> tuple[Game, GameError | None]:
    write = GameWrite.lock(game_id, now)
    side = write.seat(player)
    game = write.game
    if clocks.flag_locked(write):  # committed: the flag fell before the takeback
        return game, GameError("game_over", "time is up: the game is over")
    require_active(game)
    if ply != game.ply:  # already taken back, or the board it was asked from is old
        raise GameError("stale_ply", f"the game is at ply {game.ply}, not {ply}")
    if not takeback_allowed(rated=game.rated, opponent_kind=write.kinds.get(other(side))):
        raise GameError("not_allowed", "takebacks are for casual games against the computer")
    if turn_of(game) != side:
        raise GameError("not_allowed", "wait for the computer's reply, then take back")
    if game.ply < 2:  # only the computer has moved, or nobody
        raise GameError("not_allowed", "you have no move to take back")
    variant = get_variant(game.ruleset)
    moves = list(game.moves)[: game.ply - 2]
    record = GameRecord.from_notation(variant, moves, game.start_fen)
    clocks.stop(game, now)  # before the position changes: it reads the side to move
    game.moves = moves
    game.ply = len(moves)
    game.fen = variant.format_fen(record.position)
    game.quiet_plies = record.quiet_plies
    game.repetition = repetition_of(record)
    game.draw_offer = None
    clocks.start(write)
    write.add("takeback", wire.takeback_event(ply=game.ply, by=side))
    clocks.save(write)
    return game, None
