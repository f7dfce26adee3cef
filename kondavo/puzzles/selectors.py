"""Reads of the puzzles app: what a page or an answer shows about a puzzle or a player."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from kondavo.games.selectors import game_url
from variants import get_variant

from . import glicko
from .models import Puzzle
from .services import Progress, legal_payload, puzzle_line, served_puzzles
from .themes import FORCED_CAPTURE, theme_name

PROVISIONAL_DEVIATION = 110.0  # a rating this uncertain is shown with a "?"


def themes_available(*, ruleset: str) -> list[dict[str, str]]:
    """The themes of ``ruleset``'s puzzles, by name."""
    keys: set[str] = set()
    for tags in served_puzzles(ruleset=ruleset).values_list("theme_tags", flat=True).distinct():
        keys.update(t for t in tags.split(",") if t)
    return sorted(({"key": k, "name": theme_name(k)} for k in keys), key=lambda t: t["name"])


def rating_shown(rating: glicko.Rating, attempts: int) -> dict[str, Any]:
    return {"rating": round(rating.rating), "deviation": round(rating.deviation),
            "provisional": rating.deviation > PROVISIONAL_DEVIATION, "attempts": attempts}


def player_rating(*, progress: Progress, ruleset: str) -> dict[str, Any]:
    rating, attempts = progress.rating(ruleset)
    return rating_shown(rating, attempts)


def capture_point(puzzle: Puzzle, replies_capture: bool) -> bool:
    """Whether a forced capture is the point: the theme says so, or a reply captures."""
    return FORCED_CAPTURE in (puzzle.themes or []) or replies_capture


def puzzle_payload(puzzle: Puzzle, *, progress: Progress | None = None,
                   capture_rule: str = "", ruleset_name: str = "") -> dict[str, Any]:
    """A puzzle as the page gets it: never its solution."""
    line = puzzle_line(puzzle)
    variant = line.variant
    replies_capture = any(m.captured for m in line.moves[1::2])
    attempt = progress.attempt(puzzle.id) if progress is not None else None
    game = None
    if puzzle.source_game_id:
        game = {"url": game_url(puzzle.source_game_id), "ply": puzzle.source_ply,
                "played": puzzle.played}
    return {
        "id": puzzle.id,
        "url": reverse("puzzles:show", args=[puzzle.id]),
        "ruleset": puzzle.ruleset,
        "rulesetName": ruleset_name or variant.name,
        "board": variant.board.as_dict(),
        "fen": variant.format_fen(line.positions[0]),
        "solver": puzzle.solver,
        "legal": legal_payload(variant, line.positions[0]),
        "themes": [{"key": t, "name": theme_name(t)} for t in puzzle.themes or []],
        "rating": round(puzzle.rating),
        "plays": puzzle.plays,
        "moves": (len(line.moves) + 1) // 2,
        "capturePoint": capture_point(puzzle, replies_capture),
        "captureRule": capture_rule,
        "game": game,
        "attempt": attempt[0] if attempt else None,
    }


def ruleset_of(puzzle_id: str) -> str | None:
    return Puzzle.objects.filter(pk=puzzle_id).values_list("ruleset", flat=True).first()


def has_ruleset(key: str) -> bool:
    try:
        get_variant(key)
    except Exception:
        return False
    return True
