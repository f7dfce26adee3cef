"""A game record: start, moves, and the history repetition and the draw counter need."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from variants.base import Variant
from variants.errors import IllegalMove, VariantError, with_context
from variants.history import legal_moves_in
from variants.types import Move, Outcome, Position


@dataclass(frozen=True, slots=True)
class PlayedMove:
    move: Move
    notation: str
    before: Position


@dataclass
class GameRecord:
    """Mutable record of one game. Every move pushed is checked against the legal moves."""

    variant: Variant
    start: Position
    moves: list[PlayedMove] = field(default_factory=list)
    quiet_plies: int = 0
    _positions: list[Position] = field(default_factory=list, repr=False)
    _counts: Counter[Position] = field(default_factory=Counter, repr=False)
    _quiet_history: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._positions = [self.start]
        self._counts = Counter([self.start])

    @classmethod
    def new(cls, variant: Variant, start: Position | None = None) -> GameRecord:
        return cls(variant, variant.initial_position() if start is None else start)

    @classmethod
    def from_notation(cls, variant: Variant, moves: Iterable[str],
                      start_fen: str | None = None) -> GameRecord:
        """Rebuild a game from its start (default: the initial position) and moves in notation.

        Raises IllegalMove (or AmbiguousMove, InvalidNotation) naming the move number.
        """
        start = variant.parse_fen(start_fen) if start_fen else variant.initial_position()
        record = cls(variant, start)
        offset = 0 if start.turn is variant.first_to_move else 1
        for ply, text in enumerate(moves):
            try:
                record.push_notation(text)
            except VariantError as exc:
                number = (ply + offset) // 2 + 1
                raise with_context(exc, "move_in_game", number=number, text=text) from exc
        return record

    @classmethod
    def resume(cls, variant: Variant, position: Position, quiet_plies: int = 0,
               history: Iterable[Position] = ()) -> GameRecord:
        """Continue a game from ``position`` without replaying its moves.

        ``quiet_plies`` is the draw counter at ``position``; ``history`` the earlier positions
        that can still repeat, oldest first (those since the last irreversible move: a capture,
        a promotion or a man advance). The result's ``start`` is ``position`` and its ``moves``
        are only those pushed after resuming; ``outcome`` and ``repetition_count`` behave as
        on the record the game was replayed into.
        """
        record = cls(variant, position, quiet_plies=quiet_plies)
        record._positions = [*history, position]
        record._counts = Counter(record._positions)
        return record

    @property
    def position(self) -> Position:
        return self._positions[-1]

    @property
    def positions(self) -> tuple[Position, ...]:
        return tuple(self._positions)

    @property
    def ply(self) -> int:
        return len(self.moves)

    def legal_moves(self) -> list[Move]:
        """The legal moves now, the game so far considered (a ruleset's ``restrict``)."""
        return legal_moves_in(self)

    def push(self, move: Move, legal: list[Move] | None = None) -> PlayedMove:
        """Play ``move``; ``legal``: the current position's legal moves, if already known."""
        position = self.position
        if legal is None:
            legal = self.legal_moves()
        for candidate in legal:
            if candidate == move:
                move = candidate
                break
        else:
            raise IllegalMove("that move is not legal here")
        return self._push(position, move, legal)

    def push_notation(self, text: str) -> PlayedMove:
        position = self.position
        legal = self.legal_moves()
        move = self.variant.parse_move(position, text, legal)
        return self._push(position, move, legal)

    def _push(self, position: Position, move: Move, legal: list[Move]) -> PlayedMove:
        variant = self.variant
        played = PlayedMove(move, variant.format_move(position, move, legal), position)
        after = variant.apply(position, move)
        self._quiet_history.append(self.quiet_plies)
        resets = variant.resets_draw_counter(position, move)
        self.quiet_plies = 0 if resets else self.quiet_plies + 1
        self.moves.append(played)
        self._positions.append(after)
        self._counts[after] += 1
        return played

    def copy(self) -> GameRecord:
        """An independent record of the same game: moves pushed on one do not touch the other."""
        clone = GameRecord(self.variant, self.start, list(self.moves), self.quiet_plies)
        clone._positions = list(self._positions)
        clone._counts = self._counts.copy()
        clone._quiet_history = list(self._quiet_history)
        return clone

    def pop(self) -> PlayedMove:
        played = self.moves.pop()
        after = self._positions.pop()
        self._counts[after] -= 1
        self.quiet_plies = self._quiet_history.pop()
        return played

    def repetition_count(self) -> int:
        """How many times the current position has occurred (the start counts)."""
        return self._counts[self.position]

    def outcome(self, legal: list[Move] | None = None) -> Outcome | None:
        """The result so far, or None; ``legal``: the current position's legal moves, if
        already known (they are not generated again)."""
        return self.variant.outcome(self, self.legal_moves() if legal is None else legal)

    @property
    def notations(self) -> list[str]:
        return [m.notation for m in self.moves]
