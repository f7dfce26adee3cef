"""What the next move of a game needs, stored on its row instead of replayed from all moves.

``Game.quiet_plies`` is the no-progress draw counter and ``Game.repetition`` the keys of the
positions since the last irreversible move, oldest first, the current one last. A position
can only repeat between two irreversible moves, so these few keys are all the threefold rule
needs. A move is irreversible when it captures (pieces never come back), promotes (men never
come back) or advances a man in a ruleset whose men never step backwards without capturing
(the sum of the men's ranks only grows until a capture or promotion lowers the man count).
"""

from __future__ import annotations

from collections.abc import Sequence

from variants import Color, GameRecord, Move, Position, Variant


def position_key(position: Position) -> str:
    """A compact exact key: side to move, then the four bitboards in hex."""
    p = position
    return (f"{p.turn.letter}{p.white_men:x}.{p.white_kings:x}."
            f"{p.black_men:x}.{p.black_kings:x}")


def position_from_key(key: str) -> Position:
    turn = Color.WHITE if key[0] == "W" else Color.BLACK
    wm, wk, bm, bk = (int(part, 16) for part in key[1:].split("."))
    return Position(wm, wk, bm, bk, turn)


def is_irreversible(variant: Variant, before: Position, move: Move) -> bool:
    """True when no position before ``move`` can occur again after it."""
    if move.is_capture or move.promotes:
        return True
    if not (before.men(before.turn) >> move.origin) & 1:
        return False  # a king move
    men_never_retreat = all(v[0] >= 0 for v in variant.man_move_vectors)
    return men_never_retreat and variant.is_advance(before, move)


def next_repetition(variant: Variant, before: Position, move: Move, after: Position,
                    keys: Sequence[str]) -> list[str]:
    """``Game.repetition`` after ``move`` was played from ``before`` (whose list is ``keys``)."""
    if is_irreversible(variant, before, move):
        return [position_key(after)]
    return [*keys, position_key(after)]


def repetition_of(record: GameRecord) -> list[str]:
    """``Game.repetition`` for a record replayed from the start (its whole history)."""
    positions = record.positions
    keep = 0
    for i, played in enumerate(record.moves):
        if is_irreversible(record.variant, played.before, played.move):
            keep = i + 1
    return [position_key(p) for p in positions[keep:]]


def resume_record(variant: Variant, fen: str, quiet_plies: int,
                  repetition: Sequence[str]) -> GameRecord | None:
    """The record to play the next move on, or None when the stored history does not match
    ``fen`` (a row written without it: the caller replays the moves instead)."""
    if not repetition:
        return None
    position = position_from_key(repetition[-1])
    if variant.format_fen(position) != fen:
        return None
    history = [position_from_key(k) for k in repetition[:-1]]
    return GameRecord.resume(variant, position, quiet_plies, history)
