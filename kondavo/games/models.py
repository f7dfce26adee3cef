"""Games and lobby seeks. Data and database constraints only: logic is in the services package."""

from __future__ import annotations

import secrets

from django.db import models
from django.db.models import Q

from kondavo.accounts.models import Player

GAME_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l
GAME_ID_LENGTH = 8


def new_game_id() -> str:
    return "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(GAME_ID_LENGTH))


class Side(models.TextChoices):
    WHITE = "white", "White"
    BLACK = "black", "Black"


class Game(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for an opponent"
        ACTIVE = "active", "Active"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    class Reason(models.TextChoices):
        NO_PIECES = "no_pieces", "No pieces left"
        NO_MOVES = "no_moves", "No legal moves"
        THREEFOLD = "threefold", "Threefold repetition"
        FIFTY_MOVES = "fifty_moves", "No-progress rule"
        AGREEMENT = "agreement", "Draw by agreement"
        KING_VS_MAN = "king_vs_man", "King against man"
        RESIGN = "resign", "Resignation"
        TIMEOUT = "timeout", "Time out"
        ABANDONED = "abandoned", "Opponent left"
        # Reasons of aborted games (no result):
        NO_FIRST_MOVE = "no_first_move", "No first move in time"
        BY_PLAYER = "by_player", "Aborted by a player"
        BY_STAFF = "by_staff", "Aborted by the staff"

    id = models.CharField(primary_key=True, max_length=12, default=new_game_id, editable=False)
    ruleset = models.CharField(max_length=32)  # a stable key of the variants registry
    white = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="games_as_white"
    )
    black = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="games_as_black"
    )
    creator = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="games_created"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    winner = models.CharField(max_length=5, choices=Side.choices, null=True, blank=True)
    reason = models.CharField(max_length=16, choices=Reason.choices, blank=True, default="")

    moves = models.JSONField(default=list, blank=True)  # notations, in order
    ply = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)  # event version (docs/protocol.md)
    start_fen = models.CharField(max_length=300, null=True, blank=True)
    fen = models.CharField(max_length=300)  # cached current position
    # What the next move needs without replaying ``moves`` (see games/history.py): the
    # no-progress draw counter, and the keys of the positions since the last irreversible
    # move, oldest first, the current one last (for the repetition rule).
    quiet_plies = models.PositiveIntegerField(default=0)
    repetition = models.JSONField(default=list, blank=True)

    time_control = models.CharField(max_length=16, default="untimed")
    clock_initial_ms = models.PositiveIntegerField(null=True, blank=True)  # null: untimed
    clock_increment_ms = models.PositiveIntegerField(default=0)
    # Remaining time; for the side whose clock runs, as of ``turn_started_at``.
    white_ms = models.IntegerField(null=True, blank=True)
    black_ms = models.IntegerField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # When the running clock reaches zero (indexed for the flag sweep). Null unless a clock
    # runs in an active game.
    flag_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Since when a bot is to move (indexed for the bot move sweep, which asks for the move
    # again when it is overdue). Null unless a bot is to move in an active game.
    bot_turn_since = models.DateTimeField(null=True, blank=True, db_index=True)

    draw_offer = models.CharField(max_length=5, choices=Side.choices, null=True, blank=True)
    rematch_offer = models.CharField(max_length=5, choices=Side.choices, null=True, blank=True)
    # A takeback offer between people (casual games): the side offering and the ply it was
    # made at. It lives at that ply only: any move ends it (services/takeback.py).
    takeback_offer = models.CharField(max_length=5, choices=Side.choices, null=True,
                                      blank=True)
    takeback_offer_ply = models.PositiveIntegerField(null=True, blank=True)
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    rated = models.BooleanField(default=False)

    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["status", "created"], name="game_status_created")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["waiting", "active", "finished", "aborted"]),
                name="game_status_valid",
            ),
            models.CheckConstraint(condition=Q(ply__gte=0), name="game_ply_nonnegative"),
            models.CheckConstraint(
                condition=Q(winner__isnull=True) | Q(winner__in=["white", "black"]),
                name="game_winner_valid",
            ),
            models.CheckConstraint(
                condition=Q(reason="") | Q(status__in=["finished", "aborted"]),
                name="game_reason_only_when_over",
            ),
            models.CheckConstraint(
                condition=~Q(status="active")
                | Q(white__isnull=False, black__isnull=False),
                name="game_active_has_both_players",
            ),
            models.CheckConstraint(
                condition=Q(draw_offer__isnull=True) | Q(draw_offer__in=["white", "black"]),
                name="game_draw_offer_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.ruleset}, {self.status})"

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)

    @property
    def timed(self) -> bool:
        return self.clock_initial_ms is not None

    def player_of(self, side: str) -> Player | None:
        return self.white if side == Side.WHITE else self.black

    def side_of(self, player: Player | None) -> str | None:
        """``"white"``/``"black"`` if ``player`` sits at this board, else None."""
        if player is None:
            return None
        if self.white_id == player.pk:
            return "white"
        if self.black_id == player.pk:
            return "black"
        return None


class Seek(models.Model):
    """An open challenge in the lobby; ``game`` is set when someone accepts it."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        CANCELLED = "cancelled", "Cancelled"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seeks")
    ruleset = models.CharField(max_length=32)
    time_control = models.CharField(max_length=16)
    rated = models.BooleanField(default=False)
    # The colour the seek's author plays: "white", "black" or "random".
    color = models.CharField(max_length=6, default="random")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created = models.DateTimeField(auto_now_add=True)
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="seek"
    )

    class Meta:
        ordering = ["created"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["open", "accepted", "cancelled"]),
                name="seek_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(status="accepted") | Q(game__isnull=False),
                name="seek_accepted_has_game",
            ),
        ]

    def __str__(self) -> str:
        return f"seek {self.pk} {self.ruleset} {self.time_control} by {self.player_id}"


class LobbyState(models.Model):
    """One row (pk=1) holding the lobby's event version."""

    version = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"lobby v{self.version}"


class Challenge(models.Model):
    """One player's invitation to another (from a profile or the lobby). Nobody is seated
    before the challenged player accepts: accepting creates the game (``game``); an
    unanswered challenge expires at ``expires_at``."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for an answer"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        CANCELLED = "cancelled", "Withdrawn"
        EXPIRED = "expired", "Expired"

    challenger = models.ForeignKey(Player, on_delete=models.CASCADE,
                                   related_name="challenges_sent")
    opponent = models.ForeignKey(Player, on_delete=models.CASCADE,
                                 related_name="challenges_received")
    ruleset = models.CharField(max_length=32)
    time_control = models.CharField(max_length=16)
    # The colour the challenger plays: "white", "black" or "random".
    color = models.CharField(max_length=6, default="random")
    rated = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)
    answered = models.DateTimeField(null=True, blank=True)
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="challenge")

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["challenger", "status"], name="challenge_sender_status"),
                   models.Index(fields=["opponent", "status"], name="challenge_target_status")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "accepted", "declined", "cancelled",
                                        "expired"]),
                name="challenge_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(status="accepted") | Q(game__isnull=False),
                name="challenge_accepted_has_game",
            ),
            models.CheckConstraint(condition=~Q(challenger=models.F("opponent")),
                                   name="challenge_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"challenge {self.pk} {self.challenger_id} -> {self.opponent_id} ({self.status})"


class Block(models.Model):
    """``blocker`` refuses challenges from ``blocked`` (a player's block list)."""

    blocker = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="blocked_by")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(condition=~Q(blocker=models.F("blocked")),
                                   name="block_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"
