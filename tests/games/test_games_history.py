"""The stored draw counter and repetition history (games/history.py) match a full replay."""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest

from kondavo.games.history import (
    is_irreversible,
    position_from_key,
    position_key,
    repetition_of,
    resume_record,
)
from kondavo.games.models import Game
from kondavo.games.selectors import game_record
from kondavo.games.services import game_create, game_play_move
from variants import GameRecord, get_variant, variant_keys

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


def _random_record(key: str, seed: int, plies: int,
                   start_fen: str | None = None) -> GameRecord:
    variant = get_variant(key)
    start = variant.parse_fen(start_fen) if start_fen else None
    record = GameRecord.new(variant, start)
    rng = random.Random(seed)
    for _ in range(plies):
        if record.outcome() is not None:
            break
        record.push(rng.choice(record.legal_moves()))
    return record


@pytest.mark.parametrize("key", variant_keys())
def test_resume_matches_replay_at_every_ply(key: str) -> None:
    """Carrying (position, quiet_plies, repetition keys) forward one move at a time gives the
    same draw counter, repetition count and outcome as the record that saw every move."""
    variant = get_variant(key)
    for seed in range(6):
        full = _random_record(key, seed, 160)
        replay = GameRecord.new(variant, full.start)
        keys = [position_key(full.start)]
        for played in full.moves:
            resumed = resume_record(variant, variant.format_fen(replay.position),
                                    replay.quiet_plies, keys)
            assert resumed is not None
            before = resumed.position
            resumed.push(played.move)
            replay.push(played.move)
            keys = ([position_key(resumed.position)]
                    if is_irreversible(variant, before, played.move)
                    else [*keys, position_key(resumed.position)])
            assert resumed.position == replay.position
            assert resumed.quiet_plies == replay.quiet_plies
            assert resumed.repetition_count() == replay.repetition_count()
            assert resumed.outcome() == replay.outcome()
        assert keys == repetition_of(full)


def test_king_shuffle_keeps_the_whole_history_and_finds_threefold() -> None:
    variant = get_variant("international")
    record = GameRecord.new(variant, variant.parse_fen("W:WK50:BK1"))
    for text in ["50-44", "1-7", "44-50", "7-1"] * 2:
        record.push_notation(text)
    keys = repetition_of(record)
    assert len(keys) == 9 and keys[0] == keys[4] == keys[8]
    resumed = GameRecord.resume(variant, position_from_key(keys[-1]), record.quiet_plies,
                                [position_from_key(k) for k in keys[:-1]])
    assert resumed.repetition_count() == 3 and resumed.moves == []
    assert resumed.outcome() == record.outcome() and resumed.outcome() is not None


def test_turkish_sideways_man_move_is_not_irreversible() -> None:
    variant = get_variant("turkish")
    position = variant.parse_fen("W:Wd4:Bh8")
    sideways = next(m for m in variant.legal_moves(position)
                    if variant.square_label(m.destination) == "c4")
    forward = next(m for m in variant.legal_moves(position)
                   if variant.square_label(m.destination) == "d5")
    assert not is_irreversible(variant, position, sideways)
    assert is_irreversible(variant, position, forward)


def test_position_key_round_trip() -> None:
    for key in variant_keys():
        record = _random_record(key, 3, 30)
        for position in record.positions:
            assert position_from_key(position_key(position)) == position


def test_service_stores_what_the_next_move_needs(guest_factory: Any) -> None:
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white")
    assert game.quiet_plies == 0 and game.repetition == [position_key(
        get_variant("international").initial_position())]
    rng = random.Random(7)
    for ply in range(60):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        record = game_record(game)
        move = rng.choice(record.legal_moves())
        text = record.variant.format_move(record.position, move, record.legal_moves())
        game_play_move(game_id=game.id, player=white if ply % 2 == 0 else black, ply=ply,
                       move_text=text)
        game.refresh_from_db()
        full = game_record(game)
        assert game.quiet_plies == full.quiet_plies
        assert game.repetition == repetition_of(full)


def test_row_without_history_is_replayed_once(guest_factory: Any) -> None:
    """Rows written before the history existed (or by other code) still play correctly."""
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white", start_fen="W:WK50:BK1")
    for ply, text in enumerate(["50-44", "1-7", "44-50", "7-1", "50-44", "1-7", "44-50"]):
        game_play_move(game_id=game.id, player=white if ply % 2 == 0 else black, ply=ply,
                       move_text=text)
    Game.objects.filter(pk=game.id).update(repetition=[], quiet_plies=0)
    game_play_move(game_id=game.id, player=black, ply=7, move_text="7-1")
    game.refresh_from_db()
    assert (game.status, game.reason) == ("finished", "threefold")
    assert game.quiet_plies == 8 and len(game.repetition) == 9


def test_migration_fills_existing_rows(guest_factory: Any) -> None:
    from django.apps import apps

    migration = importlib.import_module(
        "kondavo.games.migrations.0002_game_quiet_plies_repetition")
    white, black = guest_factory(), guest_factory()
    game = game_create(creator=white, opponent=black, ruleset="international",
                       color="white")
    for ply, text in enumerate(["32-28", "19-23", "28x19", "14x23", "37-32", "10-14"]):
        game_play_move(game_id=game.id, player=white if ply % 2 == 0 else black, ply=ply,
                       move_text=text)
    game.refresh_from_db()
    expected = (game.quiet_plies, game.repetition)
    Game.objects.filter(pk=game.id).update(repetition=[], quiet_plies=0)
    migration.fill(apps, None)
    game.refresh_from_db()
    assert (game.quiet_plies, game.repetition) == expected
