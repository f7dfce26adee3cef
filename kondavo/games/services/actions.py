"""What a seated player can do besides moving: resign, draws, abort, claims, rematch; and
the staff's abort of any game (``game_abort_by_staff``, for the Django admin)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db import transaction

from kondavo.accounts.models import Player
from kondavo.games import clock, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.selectors import away_since, claim_seconds, game_presence_view
from kondavo.games.services import clocks
from kondavo.games.services.store import GameWrite, other, require_active

Body = Callable[[GameWrite, str], None]


def _action(game_id: str, player: Player, now: datetime | None, body: Body) -> Game:
    """Lock, seat check, flag check, then ``body(write, side)``; saves and publishes."""
    game, error = _action_locked(game_id, player, clock.resolve(now), body)
    if error is not None:
        raise error
    return game


@transaction.atomic
def _action_locked(game_id: str, player: Player, now: datetime,
                   body: Body) -> tuple[Game, GameError | None]:
    write = GameWrite.lock(game_id, now)
    side = write.seat(player)
    if clocks.flag_locked(write):
        return write.game, GameError("game_over", "time is up: the game is over")
    body(write, side)
    write.save()
    return write.game, None


def game_resign(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    def body(write: GameWrite, side: str) -> None:
        require_active(write.game)
        clocks.finish(write, winner=other(side), reason=str(Game.Reason.RESIGN))

    return _action(game_id, player, now, body)


def game_offer_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Offer a draw; if the opponent already offered one, this accepts it."""
    def body(write: GameWrite, side: str) -> None:
        game = write.game
        require_active(game)
        if game.draw_offer == side:
            return
        if game.draw_offer == other(side):
            clocks.finish(write, winner=None, reason=str(Game.Reason.AGREEMENT))
            return
        game.draw_offer = side
        write.add("draw_offer", wire.draw_offer_event(by=side))

    return _action(game_id, player, now, body)


def game_accept_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    def body(write: GameWrite, side: str) -> None:
        require_active(write.game)
        if write.game.draw_offer != other(side):
            raise GameError("not_allowed", "there is no draw offer to accept")
        clocks.finish(write, winner=None, reason=str(Game.Reason.AGREEMENT))

    return _action(game_id, player, now, body)


def game_decline_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Decline the opponent's offer, or withdraw one's own."""
    def body(write: GameWrite, side: str) -> None:
        require_active(write.game)
        offer = write.game.draw_offer
        if offer is None:
            raise GameError("not_allowed", "there is no draw offer")
        write.game.draw_offer = None
        # declined_by: the side that said no (absent when the offerer withdrew).
        write.add("draw_offer", wire.draw_offer_event(
            by=None, declined_by=side if offer != side else None))

    return _action(game_id, player, now, body)


def game_abort(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Abort a game nobody has lost yet: waiting, or before both sides have moved."""
    def body(write: GameWrite, side: str) -> None:
        game = write.game
        if game.is_over:
            raise GameError("game_over", "the game is over")
        if game.status == Game.Status.ACTIVE and game.ply >= 2:
            raise GameError("not_allowed", "both sides have moved: resign instead")
        clocks.abort(write, reason=str(Game.Reason.BY_PLAYER), side=side)

    return _action(game_id, player, now, body)


def _claim(write: GameWrite, side: str) -> None:
    """Refuse unless the opponent has had no live socket for ``claim_seconds()``."""
    game, now = write.game, write.now
    require_active(game)
    opponent_side = other(side)
    if write.kinds.get(opponent_side) == Player.Kind.BOT:
        raise GameError("not_allowed", "the computer never leaves")
    view = game_presence_view(game.id, now)
    if view is None:
        raise GameError("unavailable", "presence is unknown just now: try again")
    since = away_since(game, view, opponent_side)
    if since is None:
        raise GameError("not_allowed", "your opponent is connected")
    wait = since + claim_seconds() - now.timestamp()
    if wait > 0:
        raise GameError("not_allowed", f"you can claim the game in {int(wait) + 1} s")


def game_claim_victory(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Win a game whose opponent has had no live socket for KONDAVO_CLAIM_VICTORY_SECONDS
    (the ``claim_at`` of the presence payload)."""
    def body(write: GameWrite, side: str) -> None:
        _claim(write, side)
        clocks.finish(write, winner=side, reason=str(Game.Reason.ABANDONED))

    return _action(game_id, player, now, body)


def game_claim_draw(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """End as a draw a game whose opponent has had no live socket for
    KONDAVO_CLAIM_VICTORY_SECONDS (instead of claiming victory)."""
    def body(write: GameWrite, side: str) -> None:
        _claim(write, side)
        clocks.finish(write, winner=None, reason=str(Game.Reason.ABANDONED))

    return _action(game_id, player, now, body)


def game_rematch(*, game_id: str, player: Player, now: datetime | None = None) -> Game:
    """Ask for a rematch; when both sides asked (the computer always agrees), create it with
    colours swapped. Returns the finished game (its ``rematch`` is set once created)."""
    from kondavo.games.services.creation import game_create

    def body(write: GameWrite, side: str) -> None:
        game = write.game
        if not game.is_over:
            raise GameError("not_allowed", "the game is not over yet")
        if game.rematch_id is not None:
            return
        opponent = game.player_of(other(side))
        if opponent is None:
            raise GameError("not_allowed", "nobody to play a rematch with")
        if game.rematch_offer == other(side) or opponent.is_bot:
            me = game.player_of(side)
            assert me is not None
            new = game_create(
                creator=me, ruleset=game.ruleset, time_control=game.time_control,
                color=other(side), opponent=opponent, rated=game.rated,
                start_fen=game.start_fen, now=write.now)
            game.rematch = new
            game.rematch_offer = None
            write.add("rematch", wire.rematch_event(new_game_id=new.id))
        elif game.rematch_offer != side:
            game.rematch_offer = side
            write.add("rematch", wire.rematch_event(offered_by=side))

    return _action(game_id, player, now, body)


@transaction.atomic
def game_abort_by_staff(*, game_id: str, now: datetime | None = None) -> bool:
    """Abort an unfinished game (any ply) with no result; False if it was already over.

    The game services' own write path (lock, ``end`` event, guarded save, on-commit
    publishing), so the players' boards hear the end at once and the clocks stop.
    """
    write = GameWrite.lock(game_id, clock.resolve(now))
    if write.game.is_over:
        return False
    clocks.abort(write, reason="by_staff", side=None)
    clocks.save(write)
    return True


@transaction.atomic
def game_ratings_published(*, game_id: str, now: datetime | None = None) -> bool:
    """Send the game's sockets a versioned ``ratings`` event: for ratings applied after
    the game's ``end`` went out (the rating app rates a game in the transaction that ends
    it, and ``end`` carries them then). False (nothing sent) while the game has none."""
    write = GameWrite.lock(game_id, clock.resolve(now))
    if wire.ratings_payload(write.game) is None:
        return False
    write.add("ratings", wire.ratings_event(write.game))
    write.save(fields=("version",))
    return True
