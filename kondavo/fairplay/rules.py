"""The fair-play rules as arithmetic (no database), each number a setting.

Rated games and ratings (applied by ``rating.services.rating_apply_game``):

1. **Same two players**: at most ``KONDAVO_FAIRPLAY_PAIR_RATED_PER_DAY`` (10) rated games
   between the same two players in 24 hours; beyond it a game asked for as rated is casual
   (the players are told on the game page). Among those that are rated, the k-th of the
   last 24 hours moves both ratings by 1/k of the Elo change (the second by half, the
   tenth by a tenth).
2. **Provisional accounts**: a player with fewer than ``KONDAVO_FAIRPLAY_PROVISIONAL_GAMES``
   (10) rated games in the ruleset is provisional. Their own rating moves at the full
   (provisional, K = 40) rate, but their *opponent's* change is multiplied by
   ``KONDAVO_FAIRPLAY_PROVISIONAL_WEIGHT`` (0.25): a new account can neither give away
   nor take much rating. Two new accounts move each other's ratings at that weight.
3. **Short games** (off unless ``KONDAVO_FAIRPLAY_SHORT_GAME_PLIES`` is set): a rated game
   won by resignation or by the opponent leaving before that many plies gives the winner
   nothing; the loser's rating moves as usual (their own choice).

The weights multiply; each change is rounded half away from zero. Bots are never
provisional (their rating is an anchor). ``KONDAVO_FAIRPLAY_RATING_RULES`` = false turns
1-3 off (plain Elo).

Aborts and lost games left (``services.on_game_finished``), in games between two people:
an abort after the game started, a first move not made in time, and a lost game left (the
opponent claimed the victory) are offences. ``KONDAVO_FAIRPLAY_ABORTS`` (3) aborts or
missing first moves within ``KONDAVO_FAIRPLAY_ABORT_WINDOW_SECONDS`` (an hour), or
``KONDAVO_FAIRPLAY_LEFT`` (2) lost games left within ``KONDAVO_FAIRPLAY_LEFT_WINDOW_SECONDS``
(a day), counted since the player's last cool-down, start a cool-down: no new game against
a person (creating, joining, seeking, accepting) for ``KONDAVO_FAIRPLAY_COOLDOWN_SECONDS``
(5 minutes), doubled for each earlier cool-down in the last 24 hours, at most a day. Games
against the computer stay open.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from rating.elo import round_half_away


def setting(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


@dataclass(frozen=True)
class Seat:
    """One side of a rated game as the rules see it."""

    games: int  # rated games played in the ruleset before this one
    bot: bool


def provisional(seat: Seat) -> bool:
    return not seat.bot and seat.games < int(setting("KONDAVO_FAIRPLAY_PROVISIONAL_GAMES", 10))


def weights(*, white: Seat, black: Seat, pair_index: int, winner: str | None,
            reason: str, plies: int) -> tuple[float, float]:
    """The factors of White's and Black's Elo changes (see the module docstring)."""
    pair = 1.0 / max(1, pair_index)
    opp = setting("KONDAVO_FAIRPLAY_PROVISIONAL_WEIGHT", 0.25)
    w = pair * (opp if provisional(black) else 1.0)
    b = pair * (opp if provisional(white) else 1.0)
    short = int(setting("KONDAVO_FAIRPLAY_SHORT_GAME_PLIES", 0))
    if reason in ("resign", "abandoned") and plies < short:
        if winner == "white":
            w = 0.0
        elif winner == "black":
            b = 0.0
    return w, b


def scaled(delta: int, weight: float) -> int:
    return round_half_away(delta * weight)


def cooldown_seconds(earlier_today: int) -> int:
    """The length of a cool-down after ``earlier_today`` others in the last 24 hours."""
    base = setting("KONDAVO_FAIRPLAY_COOLDOWN_SECONDS", 300)
    return int(min(base * 2 ** max(0, earlier_today), 86400))
