"""Arena rules, as pure functions (no database): points of a game and who plays whom next.

Points: a win 2, a draw 1, a loss 0. A streak: after two wins in a row a player is "on
fire" and each further win counts double (4) until a game that is not a win. Berserk: a
player who halved their own clock at the start of a game gets one extra point if they win.

Pairing (``pair``): the free players (active, not paused, not playing), sorted by score
(then rating), are paired with the closest free player below them in that order, never
with the opponent of their previous game while another free player is there; an odd one
out waits for the next run. White goes to the player with fewer whites than blacks so far
(then to the one who had black last, then to the lower id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIN, DRAW, LOSS = 2, 1, 0
FIRE_AFTER = 2  # wins in a row before wins count double


@dataclass(frozen=True, slots=True)
class Points:
    points: int
    fire: bool  # the game was played on a streak
    streak: int  # wins in a row after this game


def game_points(*, outcome: str, streak: int, berserk: bool) -> Points:
    """``outcome``: "win", "draw" or "loss"; ``streak``: wins in a row before the game."""
    fire = streak >= FIRE_AFTER
    if outcome == "win":
        points = WIN * (2 if fire else 1) + (1 if berserk else 0)
        return Points(points, fire, streak + 1)
    return Points(DRAW if outcome == "draw" else LOSS, fire, 0)


@dataclass(frozen=True, slots=True)
class Free:
    """A player waiting for a game."""

    player_id: int
    score: int
    rating: int
    last_opponent: int | None
    colours: str  # "w"/"b" per earlier game, oldest first


def colour_balance(colours: str) -> int:
    return colours.count("w") - colours.count("b")


def white_first(a: Free, b: Free) -> tuple[int, int]:
    """(white, black) for two players about to meet."""
    da, db = colour_balance(a.colours), colour_balance(b.colours)
    if da != db:
        return (a.player_id, b.player_id) if da < db else (b.player_id, a.player_id)
    la, lb = a.colours[-1:], b.colours[-1:]
    if la != lb:
        return (a.player_id, b.player_id) if la == "b" or lb == "w" else (b.player_id,
                                                                         a.player_id)
    return (a.player_id, b.player_id) if a.player_id < b.player_id else (b.player_id,
                                                                         a.player_id)


def _rematch(a: Free, b: Free) -> bool:
    return a.last_opponent == b.player_id or b.last_opponent == a.player_id


def pair(free: Sequence[Free]) -> list[tuple[int, int]]:
    """(white id, black id) pairs among ``free`` (see the module docstring)."""
    order = sorted(free, key=lambda f: (-f.score, -f.rating, f.player_id))
    taken: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for i, a in enumerate(order):
        if a.player_id in taken:
            continue
        rest = [b for b in order[i + 1:] if b.player_id not in taken]
        partner = next((b for b in rest if not _rematch(a, b)), None)
        if partner is None and len(rest) == 1 and len(order) - len(taken) == 2:
            partner = rest[0]  # nobody else is free: they may meet again
        if partner is None:
            continue
        taken.update((a.player_id, partner.player_id))
        pairs.append(white_first(a, partner))
    return pairs
