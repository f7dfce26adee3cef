"""Puzzles, the attempts at them and the players' puzzle ratings.

A guest's rating and attempts live in the session (``services.SessionProgress``); an
account's in :class:`PuzzleRating` and :class:`PuzzleAttempt`.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from kondavo.accounts.models import Player

from . import glicko


class PuzzleQuerySet(models.QuerySet["Puzzle"]):
    def served(self) -> PuzzleQuerySet:
        """The puzzles players are given: enabled by the staff and not retired."""
        return self.filter(enabled=True, retired=False)


class Puzzle(models.Model):
    class Solver(models.TextChoices):
        WHITE = "white", _("White")
        BLACK = "black", _("Black")

    # "<ruleset>-<10 hex>", as the generator names it (bots/puzzles).
    id = models.CharField(primary_key=True, max_length=80)
    ruleset = models.CharField(max_length=32)
    fen = models.CharField(max_length=300)  # the solver to move
    solution = models.JSONField()  # solver move, reply, ..., solver move (notations)
    solver = models.CharField(max_length=5, choices=Solver.choices)
    themes = models.JSONField(default=list, blank=True)
    # The themes as ",shot,ending," for a portable filter (JSON "contains" is not on SQLite).
    theme_tags = models.CharField(max_length=300, blank=True, default="")
    rating = models.FloatField(default=glicko.START_RATING)
    deviation = models.FloatField(default=glicko.START_DEVIATION)
    volatility = models.FloatField(default=glicko.START_VOLATILITY)
    plays = models.PositiveIntegerField(default=0)  # rated (first) attempts
    wins = models.PositiveIntegerField(default=0)  # rated attempts solved without help
    enabled = models.BooleanField(default=True)  # the staff's choice
    # The data file that last loaded it ("" for a puzzle found in a game), and whether a
    # newer version of that file dropped it (its proof no longer holds): a retired puzzle
    # keeps its attempts and ratings but is no longer served.
    file = models.CharField(max_length=120, blank=True, default="")
    retired = models.BooleanField(default=False)
    source_kind = models.CharField(max_length=16, default="selfplay")
    source_game = models.ForeignKey("games.Game", null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="puzzles")
    source_ply = models.PositiveIntegerField(null=True, blank=True)
    played = models.CharField(max_length=120, blank=True, default="")  # the game's move there
    data = models.JSONField(default=dict, blank=True)  # the generator's source and proof
    created = models.DateTimeField(auto_now_add=True)

    objects = PuzzleQuerySet.as_manager()

    class Meta:
        ordering = ["ruleset", "rating"]
        indexes = [models.Index(fields=["ruleset", "enabled", "rating"],
                                name="puzzle_ruleset_rating")]
        constraints = [models.CheckConstraint(condition=Q(solver__in=["white", "black"]),
                                              name="puzzle_solver_side")]

    def __str__(self) -> str:
        return self.id

    @property
    def served(self) -> bool:
        return self.enabled and not self.retired


class PuzzleRating(models.Model):
    """An account's puzzle rating in one ruleset (Glicko-2)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="puzzle_ratings")
    ruleset = models.CharField(max_length=32)
    rating = models.FloatField(default=glicko.START_RATING)
    deviation = models.FloatField(default=glicko.START_DEVIATION)
    volatility = models.FloatField(default=glicko.START_VOLATILITY)
    attempts = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    best_streak = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "ruleset"],
                                               name="puzzle_rating_once")]

    def __str__(self) -> str:
        return f"{self.player} {self.ruleset} {self.rating:.0f}"


class PuzzleAttempt(models.Model):
    """An account's first attempt at a puzzle: the one that moves the ratings."""

    class Result(models.TextChoices):
        OPEN = "open", _("Started")
        SOLVED = "solved", _("Solved")
        HELPED = "helped", _("Solved after a hint")
        FAILED = "failed", _("Failed")

    player = models.ForeignKey(Player, on_delete=models.CASCADE,
                               related_name="puzzle_attempts")
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="attempts")
    result = models.CharField(max_length=8, choices=Result.choices, default=Result.OPEN)
    hinted = models.BooleanField(default=False)
    ply = models.PositiveSmallIntegerField(default=0)  # the solution's moves played so far
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [models.UniqueConstraint(fields=["player", "puzzle"],
                                               name="puzzle_attempt_once")]

    def __str__(self) -> str:
        return f"{self.player} {self.puzzle_id} {self.result}"


class DailyPuzzle(models.Model):
    """The puzzle of the day in one ruleset (chosen on the day's first visit)."""

    day = models.DateField()
    ruleset = models.CharField(max_length=32)
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="days")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["day", "ruleset"],
                                               name="daily_puzzle_once")]

    def __str__(self) -> str:
        return f"{self.day} {self.ruleset} {self.puzzle_id}"


class PuzzleFile(models.Model):
    """A shipped data file as last loaded: a file loads again only when it changed."""

    name = models.CharField(max_length=120, unique=True)
    digest = models.CharField(max_length=64)
    loaded = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.name


class GameScan(models.Model):
    """A finished game searched for puzzles (once: the task is idempotent)."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE,
                                related_name="puzzle_scan")
    found = models.PositiveIntegerField(default=0)
    done = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.game_id}: {self.found}"
