"""Tournaments, their players and their games. Data and constraints only: the logic is in
``services`` (and the pure pairing modules ``arena``, ``swiss``, ``roundrobin``)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kondavo.accounts.models import Player
from kondavo.games.models import Game


class Tournament(models.Model):
    class Kind(models.TextChoices):
        ARENA = "arena", "Arena"
        SWISS = "swiss", "Swiss"
        ROUND_ROBIN = "roundrobin", "Round-robin"

    class Status(models.TextChoices):
        CREATED = "created", "Starting soon"
        STARTED = "started", "In progress"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.ARENA)
    ruleset = models.CharField(max_length=32)
    time_control = models.CharField(max_length=16)
    rated = models.BooleanField(default=True)
    berserk = models.BooleanField(default=True)  # arenas only, never untimed
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CREATED)
    starts_at = models.DateTimeField(db_index=True)
    # Arenas: how long it lasts (ends_at = starts_at + duration). Swiss: ends when its last
    # round does (ends_at set then).
    duration_minutes = models.PositiveIntegerField(default=60)
    ends_at = models.DateTimeField(null=True, blank=True, db_index=True)
    rounds = models.PositiveIntegerField(default=0)  # Swiss and round-robin
    current_round = models.PositiveIntegerField(default=0)
    seeds = models.JSONField(default=list, blank=True)  # Swiss, round-robin: ids by seed
    created_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="tournaments_created")
    private = models.BooleanField(default=False)
    entry_code = models.CharField(max_length=32, blank=True, default="")
    # Scheduled tournaments: what the schedule made it for (unique: creating it twice is a
    # no-op), e.g. "hourly:english:3+2:2026-12-01T10:00".
    schedule_key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["starts_at", "pk"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_status_start")]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=["arena", "swiss", "roundrobin"]),
                                   name="tournament_kind_valid"),
            models.CheckConstraint(
                condition=Q(status__in=["created", "started", "finished", "cancelled"]),
                name="tournament_status_valid"),
            models.CheckConstraint(condition=~Q(private=True) | ~Q(entry_code=""),
                                   name="tournament_private_has_code"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}, {self.ruleset}, {self.status})"

    @property
    def is_arena(self) -> bool:
        return self.kind == self.Kind.ARENA

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class Entry(models.Model):
    """A player in a tournament, with their running score."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE,
                               related_name="tournament_entries")
    joined = models.DateTimeField(auto_now_add=True)
    rating = models.IntegerField(default=1500)  # when joining: the seed of Swiss pairings
    withdrawn = models.BooleanField(default=False)
    paused = models.BooleanField(default=False)  # arenas: not paired until back
    # Score in points: arenas count 2/1/0 (and the bonuses), Swiss and round-robin count
    # half points as 1 (a win 2, a draw 1, a bye 2) so every score is an integer.
    score = models.IntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)  # arena: wins in a row
    sheet = models.JSONField(default=list, blank=True)  # per game: see services.sheet_item
    colours = models.CharField(max_length=200, blank=True, default="")  # "w"/"b"/"-" per game
    last_opponent = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    free_since = models.DateTimeField(null=True, blank=True)  # arena: waiting to be paired
    had_bye = models.BooleanField(default=False)
    tiebreak1 = models.FloatField(default=0)  # Swiss and round-robin: Buchholz (points)
    tiebreak2 = models.FloatField(default=0)  # Swiss and round-robin: Sonneborn-Berger
    rank = models.PositiveIntegerField(null=True, blank=True)  # final, once finished

    class Meta:
        ordering = ["-score", "pk"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"],
                                               name="entry_once_per_tournament")]
        indexes = [models.Index(fields=["tournament", "-score"], name="entry_standing")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.tournament_id}: {self.score}"


class Pairing(models.Model):
    """A tournament game (``game``), or a Swiss bye (``black`` and ``game`` null)."""

    class Result(models.TextChoices):
        WHITE = "white", "White won"
        BLACK = "black", "Black won"
        DRAW = "draw", "Draw"
        BYE = "bye", "Bye"
        VOID = "void", "Not counted"  # aborted, or finished after the arena's end

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="pairings")
    round = models.PositiveIntegerField(default=0)  # 0 in arenas
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="tournament_pairing")
    white = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    black = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+")
    result = models.CharField(max_length=5, choices=Result.choices, blank=True, default="")
    white_points = models.IntegerField(default=0)
    black_points = models.IntegerField(default=0)
    white_berserk = models.BooleanField(default=False)
    black_berserk = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "pk"]
        indexes = [models.Index(fields=["tournament", "result"], name="pairing_open")]
        constraints = [
            models.CheckConstraint(
                condition=Q(result__in=["", "white", "black", "draw", "bye", "void"]),
                name="pairing_result_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} r{self.round}: {self.white_id}-{self.black_id}"
