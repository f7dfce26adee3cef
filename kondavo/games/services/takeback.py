"""Takebacks in casual games: at once against the computer, by offer between people.

**Against the computer** (``game_takeback``): only in casual (unrated) games against a bot,
only on the player's own turn (the bot has answered): the bot's reply and the player's move
are both taken back, so it is the player's turn again in the position before their move.

**Between people** (``game_takeback_offer``, ``game_takeback_accept``,
``game_takeback_decline``): only in casual games. A player offers to take back their own last
move; the opponent accepts or declines (the offerer may withdraw). Accepted, the position goes
back to before the offerer's last move: one ply when the opponent has not replied yet (the
opponent is to move), two plies (the offerer's move and the reply) when the opponent has
replied already. An offer lives at the ply it was made at: any move ends it (the ``move``
event says so to every client; nothing is written on the move path), so a reply played
while the offer stands cancels it. An offer on the opponent's standing offer is refused:
answer it first.

Every request names the ply the player sees (``ply``, the number of moves played), checked
under the row lock like a move's: a repeated request (a double click, a frame sent twice)
finds the game at another ply and is refused with ``stale_ply``, changing nothing; two
offers accepted at once take back one turn, never four plies.

The clocks keep the time they show; the turn starts anew. Events: ``takeback_offer``
``{by, ply}`` (``by`` None when the offer is gone, with ``declined_by`` when the opponent said
no) and ``takeback`` ``{ply, by}`` (clients fetch the new state).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import clock, wire
from kondavo.games.errors import GameError
from kondavo.games.history import repetition_of
from kondavo.games.models import Game
from kondavo.games.selectors import (
    takeback_allowed,
    takeback_offer_of,
    takeback_offers_allowed,
    turn_of,
)
from kondavo.games.services import clocks
from kondavo.games.services.store import GameWrite, other, require_active
from variants import GameRecord, get_variant

Body = Callable[[GameWrite, str], None]


def _check_ply(ply: Any) -> int:
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise GameError("bad_request", "ply must be a non-negative integer")
    return ply


def _run(game_id: str, player: Player, ply: int | None, now: datetime | None,
         body: Body) -> Game:
    """Lock, seat, flag check, active, ply check; then ``body(write, side)`` saves."""
    if ply is not None:
        _check_ply(ply)
    game, error = _locked(game_id, player, ply, clock.resolve(now), body)
    if error is not None:
        raise error
    return game


@transaction.atomic
def _locked(game_id: str, player: Player, ply: int | None, now: datetime,
            body: Body) -> tuple[Game, GameError | None]:
    write = GameWrite.lock(game_id, now)
    side = write.seat(player)
    game = write.game
    if clocks.flag_locked(write):  # committed: the flag fell before the request
        return game, GameError("game_over", "time is up: the game is over")
    require_active(game)
    if ply is not None and ply != game.ply:  # already done, or asked from an old board
        raise GameError("stale_ply", f"the game is at ply {game.ply}, not {ply}")
    body(write, side)
    return game, None


def _rewind(write: GameWrite, plies: int, by: str) -> None:
    """Take back the last ``plies`` moves, clear the offers, publish ``takeback``, save."""
    game, now = write.game, write.now
    variant = get_variant(game.ruleset)
    moves = list(game.moves)[: game.ply - plies]
    record = GameRecord.from_notation(variant, moves, game.start_fen)
    clocks.stop(game, now)  # before the position changes: it reads the side to move
    game.moves = moves
    game.ply = len(moves)
    game.fen = variant.format_fen(record.position)
    game.quiet_plies = record.quiet_plies
    game.repetition = repetition_of(record)
    game.draw_offer = None
    game.takeback_offer = None
    game.takeback_offer_ply = None
    clocks.start(write)
    write.add("takeback", wire.takeback_event(ply=game.ply, by=by))
    clocks.save(write)


def plies_to_take_back(game: Game, side: str) -> int:
    """How many plies taking back ``side``'s last move removes: 1 when the opponent is to
    move (no reply yet), 2 when the opponent has replied; 0 when ``side`` has not moved."""
    if turn_of(game) != side:
        return 1 if game.ply >= 1 else 0
    return 2 if game.ply >= 2 else 0


# --------------------------------------------------------------------------- the computer

def game_takeback(*, game_id: str, player: Player, ply: int,
                  now: datetime | None = None) -> Game:
    """Take back ``player``'s last move and the computer's reply, if the game is still at
    ``ply`` (the number of moves played that the player sees)."""
    def body(write: GameWrite, side: str) -> None:
        game = write.game
        if not takeback_allowed(rated=game.rated, opponent_kind=write.kinds.get(other(side))):
            raise GameError("not_allowed", "takebacks are for casual games against the computer")
        if turn_of(game) != side:
            raise GameError("not_allowed", "wait for the computer's reply, then take back")
        if game.ply < 2:  # only the computer has moved, or nobody
            raise GameError("not_allowed", "you have no move to take back")
        _rewind(write, 2, side)

    return _run(game_id, player, _check_ply(ply), now, body)


# --------------------------------------------------------------------------- between people

def _require_offers(write: GameWrite, side: str) -> None:
    if not takeback_offers_allowed(rated=write.game.rated,
                                   opponent_kind=write.kinds.get(other(side))):
        raise GameError("not_allowed", "takeback offers are for casual games between people")


def game_takeback_offer(*, game_id: str, player: Player, ply: int,
                        now: datetime | None = None) -> Game:
    """Offer to take back ``player``'s last move, the game being at ``ply``. Offering again
    changes nothing; on the opponent's standing offer it is refused (answer that first)."""
    def body(write: GameWrite, side: str) -> None:
        game = write.game
        _require_offers(write, side)
        standing = takeback_offer_of(game)
        if standing == side:
            return
        if standing == other(side):
            raise GameError("not_allowed", "answer your opponent's takeback offer first")
        if plies_to_take_back(game, side) == 0:
            raise GameError("not_allowed", "you have no move to take back")
        game.takeback_offer = side
        game.takeback_offer_ply = game.ply
        write.add("takeback_offer", wire.takeback_offer_event(by=side, ply=game.ply))
        write.save(fields=("takeback_offer", "takeback_offer_ply", "version"))

    return _run(game_id, player, _check_ply(ply), now, body)


def game_takeback_accept(*, game_id: str, player: Player, ply: int,
                         now: datetime | None = None) -> Game:
    """Accept the opponent's takeback offer made at ``ply`` (the game still at ``ply``): the
    offerer's last move is taken back (and the reply to it, if any)."""
    def body(write: GameWrite, side: str) -> None:
        game = write.game
        _require_offers(write, side)
        offerer = other(side)
        if takeback_offer_of(game) != offerer:
            raise GameError("not_allowed", "there is no takeback offer to accept")
        plies = plies_to_take_back(game, offerer)
        if plies == 0:  # cannot happen for an offer made at this ply; never go below 0
            raise GameError("not_allowed", "there is no move to take back")
        _rewind(write, plies, offerer)

    return _run(game_id, player, _check_ply(ply), now, body)


def game_takeback_decline(*, game_id: str, player: Player, ply: int | None = None,
                          now: datetime | None = None) -> Game:
    """Decline the opponent's takeback offer, or withdraw one's own (``ply``, if given,
    must be the game's)."""
    def body(write: GameWrite, side: str) -> None:
        game = write.game
        offer = takeback_offer_of(game)
        if offer is None:
            raise GameError("not_allowed", "there is no takeback offer")
        game.takeback_offer = None
        game.takeback_offer_ply = None
        write.add("takeback_offer", wire.takeback_offer_event(
            by=None, ply=game.ply, declined_by=side if offer != side else None))
        write.save(fields=("takeback_offer", "takeback_offer_ply", "version"))

    return _run(game_id, player, ply, now, body)
