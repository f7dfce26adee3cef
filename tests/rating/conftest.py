"""Fixtures for the rating tests: accounts, bots, guests and finished games."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from kondavo.accounts.models import Player
from kondavo.accounts.services import (
    player_for_user,
    player_get_or_create_bot,
    player_get_or_create_guest,
)
from kondavo.games.models import Game


@pytest.fixture
def make_user() -> Callable[[str], Player]:
    def make(name: str) -> Player:
        user = User.objects.create_user(name, password=f"pw-{name}-Xy9!")
        return player_for_user(user=user)

    return make


@pytest.fixture
def make_guest() -> Callable[[], Player]:
    return lambda: player_get_or_create_guest(request_session={})


@pytest.fixture
def make_bot() -> Callable[[int], Player]:
    return lambda level: player_get_or_create_bot(level=level)


@pytest.fixture
def finished_game() -> Callable[..., Game]:
    """A finished game row; ``winner`` is "white", "black" or None (a draw)."""

    def make(
        white: Player,
        black: Player,
        winner: str | None,
        *,
        ruleset: str = "international",
        rated: bool = True,
        status: str = Game.Status.FINISHED,
        finished: datetime | None = None,
    ) -> Game:
        extra: dict[str, Any] = {}
        if status == Game.Status.FINISHED:
            extra["reason"] = Game.Reason.RESIGN if winner else Game.Reason.AGREEMENT
        return Game.objects.create(
            ruleset=ruleset,
            white=white,
            black=black,
            status=status,
            winner=winner,
            rated=rated,
            fen="",
            finished=finished or timezone.now(),
            **extra,
        )

    return make


@pytest.fixture(autouse=True)
def _plain_elo(settings: Any) -> None:
    """These tests check the Elo arithmetic: the fair-play weights (kondavo/fairplay/rules.py,
    tested in tests/fairplay/) are off here."""
    settings.KONDAVO_FAIRPLAY_RATING_RULES = False
