"""A ruleset's results: wins, draws, the draw counter, and which set-up positions can occur.

Hooks a ruleset may override: ``special_outcome`` (its own immediate results),
``draw_outcome`` (its own draw rules, reading the game so far), ``is_advance`` /
``resets_draw_counter`` (the draw counter) and ``position_problems`` (why a set-up position
cannot occur in a game).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from variants.errors import InvalidPosition, Problem
from variants.geometry import Geometry
from variants.types import Bitboard, Color, Move, Outcome, Position, Reason, bits

if TYPE_CHECKING:
    from variants.game import GameRecord


class RulesetOutcomes:
    """The results part of a ruleset (a base class of ``Variant``)."""

    draw_plies: ClassVar[int] = 100  # plies with no capture and no man advance
    repetitions: ClassVar[int] = 3
    # The most pieces on the board with which ``special_outcome`` can give a result, when the
    # ruleset states it (None: any number). 2 (one piece a side, as Turkish's king against a
    # lone man) lets the compiled engine know the rule exactly: in its search and in its
    # endgame tables.
    special_outcome_pieces: ClassVar[int | None] = None

    if TYPE_CHECKING:
        key: ClassVar[str]
        name: ClassVar[str]
        side_names: ClassVar[tuple[str, str]]
        geometry: Geometry
        _labels: tuple[str, ...]

        def legal_moves(self, position: Position) -> list[Move]: ...

        def promotion_squares(self, color: Color) -> Bitboard: ...

        def initial_position(self) -> Position: ...

    def is_advance(self, position: Position, move: Move) -> bool:
        """True when ``move`` is a man moving forward (resets the draw counter)."""
        origin = move.path[0]
        if not (position.men(position.turn) >> origin) & 1:
            return False
        r0 = self.geometry.coords[origin][0]
        r1 = self.geometry.coords[move.path[-1]][0]
        return r1 > r0 if position.turn is Color.WHITE else r1 < r0

    def resets_draw_counter(self, position: Position, move: Move) -> bool:
        return move.is_capture or self.is_advance(position, move)

    def special_outcome(self, position: Position) -> Outcome | None:
        """Hook for a ruleset's own immediate results (none by default)."""
        return None

    def outcome(self, record: GameRecord,
                legal: Sequence[Move] | None = None) -> Outcome | None:
        """The result of the game so far, or None while it goes on. ``legal``: the legal
        moves of ``record.position``, if the caller has them already."""
        position = record.position
        mover = position.turn
        if not position.pieces(mover):
            return Outcome(mover.opponent, Reason.NO_PIECES)
        special = self.special_outcome(position)
        if special is not None:
            return special
        if not (self.legal_moves(position) if legal is None else legal):
            return Outcome(mover.opponent, Reason.NO_MOVES)
        return self.draw_outcome(record)

    def draw_outcome(self, record: GameRecord) -> Outcome | None:
        """Hook: the draw rules, checked once the game is not won. The shared rule: a draw
        at the ``repetitions``-th occurrence of a position, or after ``draw_plies`` plies
        with no capture and no man advance. A ruleset may declare its own (for example a
        federation's limit on king moves), reading ``record``'s positions and moves."""
        if record.repetition_count() >= self.repetitions:
            return Outcome(None, Reason.THREEFOLD)
        if record.quiet_plies >= self.draw_plies:
            return Outcome(None, Reason.FIFTY_MOVES)
        return None


    # --- set-up positions -------------------------------------------------------------------
    def position_problems(self, position: Position) -> list[str]:
        """Why ``position`` cannot occur in a game of this ruleset, in words a player can
        read (empty: it can). The default, driven by the ruleset's data: pieces off the
        played squares or two on one square; a side with no pieces; a side with more pieces
        than it starts with (kings are crowned men); a man resting on the row where its side's
        men are crowned (a man that ends a move there is crowned under every
        ``PromotionRule``). A ruleset with other limits extends this list. Each item is a
        ``variants.errors.Problem``: the English sentence, with a code and params that a site
        translates."""
        problems: list[str] = []
        board = (1 << self.geometry.size) - 1
        boards = (position.white_men, position.white_kings, position.black_men,
                  position.black_kings)
        if position.occupied & ~board or any(b < 0 for b in boards):
            problems.append(Problem("off_board"))
        if sum(b.bit_count() for b in boards) != position.occupied.bit_count():
            problems.append(Problem("square_twice"))
        for color in Color:
            side = self.side_names[color]
            men, kings = position.men(color) & board, position.kings(color) & board
            start = self._initial_pieces(color)
            if not men | kings:
                problems.append(Problem("side_no_pieces", side=side))
            elif men.bit_count() > start:
                problems.append(Problem("side_too_many_men", side=side,
                                        count=men.bit_count(), start=start))
            elif (men | kings).bit_count() > start:
                problems.append(Problem("side_too_many_pieces", side=side,
                                        count=(men | kings).bit_count(), start=start))
            crowned = men & self.promotion_squares(color)
            if crowned:
                squares = ", ".join(self._labels[sq] for sq in bits(crowned))
                problems.append(Problem("men_on_crowning_row", side=side, squares=squares))
        return problems

    def check_position(self, position: Position) -> None:
        """Raise ``InvalidPosition`` naming every problem of ``position_problems``."""
        problems = self.position_problems(position)
        if problems:
            raise InvalidPosition(code="position_impossible", ruleset=self.name,
                                  ruleset_key=self.key, problems=tuple(problems))

    def _initial_pieces(self, color: Color) -> int:
        """How many pieces ``color`` starts with (from ``initial_fen``)."""
        return self.initial_position().pieces(color).bit_count()


__all__ = ["RulesetOutcomes"]
