"""Writes to games and seeks. Every function is keyword-only and runs in one transaction.

One module per job:

- ``store``: the one write path (``GameWrite``: lock the row, add versioned events, save
  with a version-guarded UPDATE, on-commit publishing, the ``game_finished`` hook and the
  bot's move request through ``kondavo.games.hooks``);
- ``clocks``: running clocks and flagging (``game_flag_if_expired``);
- ``creation``: new games and their seats (``game_create``, ``game_join``, ...);
- ``moves``: ``game_play_move``;
- ``actions``: resign, draws, abort, claim victory, rematch;
- ``takeback``: taking a move back in a casual game against the computer, and takeback
  offers between people in casual games;
- ``challenge``: challenges to a named player (accept, decline, withdraw, expire) and the
  block list;
- ``presence``: players' open sockets;
- ``lobby``: seeks.

Layers, each importing only those before it (checked by tests/games/test_import_graph.py):
``store`` <- ``clocks`` <- ``creation`` <- ``moves``, ``actions``, ``takeback``,
``challenge``, ``lobby``; ``presence`` stands alone. No service module imports this
package's names: they are for callers outside. What the services send is shaped by
``kondavo.games.wire``.

A refused request raises ``GameError`` and changes nothing, except that a clock found run
out is flagged first (that is committed, then ``game_over`` is raised).

Bots: ``bot_turn_since`` is set while a bot is to move in an active game (from the start of
its turn). The periodic ``games.tasks.bot_move_sweep`` asks again for bot moves overdue by
``KONDAVO_BOT_STALL_SECONDS`` (a move lost with a killed worker); ``bot_move_play`` is
idempotent (expected ply, and the move itself goes through the locked, ply-checked
``game_play_move``), so a repeated request never plays two moves.
"""

from kondavo.games.errors import GameError
from kondavo.games.services.actions import (
    game_abort,
    game_accept_draw,
    game_claim_draw,
    game_claim_victory,
    game_decline_draw,
    game_offer_draw,
    game_ratings_published,
    game_rematch,
    game_resign,
)
from kondavo.games.services.challenge import (
    blocked_names,
    challenge_accept,
    challenge_cancel,
    challenge_create,
    challenge_decline,
    challenge_expire,
    player_block,
    player_unblock,
)
from kondavo.games.services.clocks import game_flag_if_expired
from kondavo.games.services.creation import (
    game_create,
    game_create_friend,
    game_create_vs_computer,
    game_join,
    game_open_for_viewer,
)
from kondavo.games.services.lobby import seek_accept, seek_cancel, seek_cancel_all, seek_create
from kondavo.games.services.moves import game_play_move
from kondavo.games.services.presence import (
    game_heartbeats,
    game_presence_close,
    game_presence_open,
    presence_member,
)
from kondavo.games.services.takeback import (
    game_takeback,
    game_takeback_accept,
    game_takeback_decline,
    game_takeback_offer,
)

__all__ = [
    "GameError", "blocked_names", "challenge_accept", "challenge_cancel", "challenge_create",
    "challenge_decline", "challenge_expire", "game_abort", "game_accept_draw", "game_claim_draw",
    "game_claim_victory", "game_create", "game_create_friend", "game_create_vs_computer",
    "game_decline_draw", "game_flag_if_expired", "game_heartbeats", "game_join",
    "game_offer_draw", "game_open_for_viewer", "game_play_move", "game_presence_close",
    "game_presence_open", "game_ratings_published", "game_rematch", "game_resign",
    "game_takeback", "game_takeback_accept", "game_takeback_decline", "game_takeback_offer",
    "presence_member",
    "player_block", "player_unblock", "seek_accept", "seek_cancel", "seek_cancel_all",
    "seek_create",
]
