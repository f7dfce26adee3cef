"""Replays and engine analysis for the analysis board and the game page's move navigation.

Reads only (the frontend app's selectors): a game, a PDN text or a position becomes a list of
plies (the position after each move, with the move's path), and a position is analysed by the
bots' analysis service (``bots.analysis.analyse``) within hard bounds. Bad input raises
:class:`AnalysisInputError` with a message a player can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from bots.analysis import analyse
from variants import Color, GameRecord, Position, Variant, VariantError, get_variant
from variants.errors import UnknownVariant
from variants.pdn import read_pdn

# Bounds of one analysis request (settings may lower them, never raise past these).
MAX_DEPTH = 14
MAX_TIME = 1.0
MAX_PDN_CHARS = 64_000
MAX_PLIES = 600


class AnalysisInputError(ValueError):
    """The ruleset, FEN, PDN or ply of a request is not usable; the message says why."""


@dataclass(frozen=True)
class Replay:
    variant: Variant
    record: GameRecord
    tags: dict[str, str]
    result: str

    def as_dict(self) -> dict[str, Any]:
        return replay_payload(self.variant, self.record, tags=self.tags, result=self.result)


def ruleset_get(key: str) -> Variant:
    try:
        return get_variant(str(key or ""))
    except UnknownVariant:
        raise AnalysisInputError(f"unknown ruleset {key!r}") from None


def replay_payload(variant: Variant, record: GameRecord, *, tags: dict[str, str] | None = None,
                   result: str = "*") -> dict[str, Any]:
    """Every ply of ``record``: ply 0 is the start, ply n the position after move n."""
    label = variant.square_label
    plies: list[dict[str, Any]] = [{"fen": variant.format_fen(record.start), "notation": None,
                                    "path": None, "captured": []}]
    for played, position in zip(record.moves, record.positions[1:], strict=True):
        plies.append({
            "fen": variant.format_fen(position),
            "notation": played.notation,
            "path": [label(s) for s in played.move.path],
            "captured": [label(s) for s in played.move.captured],
        })
    return {"ruleset": variant.key, "board": variant.board.as_dict(),
            "start_fen": plies[0]["fen"], "plies": plies, "tags": tags or {},
            "result": result}


def replay_from_pdn(*, ruleset: str, text: str) -> Replay:
    """The first game of a PDN text. A GameType tag may name the ruleset; else ``ruleset``."""
    if len(text) > MAX_PDN_CHARS:
        raise AnalysisInputError(f"the PDN is too long (limit {MAX_PDN_CHARS} characters)")
    if not text.strip():
        raise AnalysisInputError("the PDN is empty")
    variant = ruleset_get(ruleset)
    try:
        games = read_pdn(text, variant)
    except VariantError as exc:
        raise AnalysisInputError(f"the PDN could not be read: {exc}") from None
    if not games:
        raise AnalysisInputError("the PDN holds no game")
    game = games[0]
    if len(game.record.moves) > MAX_PLIES:
        raise AnalysisInputError(f"the game is too long (limit {MAX_PLIES} moves)")
    return Replay(game.variant, game.record, dict(game.tags), game.result)


def replay_from_fen(*, ruleset: str, fen: str) -> Replay:
    variant = ruleset_get(ruleset)
    return Replay(variant, GameRecord.new(variant, position_from_fen(variant, fen)), {}, "*")


def position_from_fen(variant: Variant, fen: str) -> Position:
    fen = str(fen or "").strip()
    if not fen:
        raise AnalysisInputError("the FEN is empty")
    if len(fen) > 1000:
        raise AnalysisInputError("the FEN is too long")
    try:
        return variant.parse_fen(fen)
    except VariantError as exc:
        raise AnalysisInputError(f"the FEN is not a {variant.name} position: {exc}") from None


def record_to_ply(replay: Replay, ply: int) -> GameRecord:
    """The game of ``replay`` up to ``ply`` moves (with its repetition history)."""
    if not 0 <= ply <= len(replay.record.moves):
        raise AnalysisInputError(f"ply must be 0..{len(replay.record.moves)}")
    return GameRecord.from_notation(replay.variant,
                                    [m.notation for m in replay.record.moves[:ply]],
                                    replay.variant.format_fen(replay.record.start))


def analysis_bounds() -> tuple[int, float]:
    depth = min(int(getattr(settings, "KONDAVO_ANALYSIS_MAX_DEPTH", MAX_DEPTH)), MAX_DEPTH)
    limit = min(float(getattr(settings, "KONDAVO_ANALYSIS_MAX_SECONDS", MAX_TIME)), MAX_TIME)
    return max(1, depth), max(0.05, limit)


def analysis_run(*, variant: Variant, target: GameRecord | Position,
                 depth: int | None = None, time_limit: float | None = None) -> dict[str, Any]:
    """Evaluation (White-relative centi-men, mate in plies) and best line of ``target``."""
    max_depth, max_time = analysis_bounds()
    depth = max_depth if depth is None else max(1, min(int(depth), max_depth))
    time_limit = max_time if time_limit is None else max(0.05, min(float(time_limit), max_time))
    position = target.position if isinstance(target, GameRecord) else target
    legal = variant.legal_moves(position)
    if not legal:
        winner = "black" if position.turn is Color.WHITE else "white"
        return {"score": None, "mate_in": 0, "depth": 0, "nodes": 0, "pv": [],
                "game_over": True, "winner": winner}
    result = analyse(variant, target, depth=depth, time_limit=time_limit)
    data = result.as_dict(variant, position)
    data["game_over"] = False
    return data
