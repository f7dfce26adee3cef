"""Store the draw counter and the repetition history on the game row (games/history.py).

Existing rows get them by replaying their moves. The computation is written out here (with
the ``variants`` engine only) so that this migration keeps meaning what it meant.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models


def _key(p: Any) -> str:
    return (f"{p.turn.letter}{p.white_men:x}.{p.white_kings:x}."
            f"{p.black_men:x}.{p.black_kings:x}")


def _irreversible(variant: Any, before: Any, move: Any) -> bool:
    if move.is_capture or move.promotes:
        return True
    if not (before.men(before.turn) >> move.origin) & 1:
        return False
    return (all(v[0] >= 0 for v in variant.man_move_vectors)
            and variant.is_advance(before, move))


def fill(apps: Any, schema_editor: Any) -> None:
    from variants import GameRecord, VariantError, get_variant

    Game = apps.get_model("games", "Game")
    for game in Game.objects.exclude(fen="").only(
            "id", "ruleset", "moves", "start_fen", "fen").iterator(chunk_size=500):
        try:
            variant = get_variant(game.ruleset)
            record = GameRecord.from_notation(variant, game.moves or [], game.start_fen)
        except (VariantError, ValueError):
            continue  # left empty: the next move replays the game instead
        keep = 0
        for i, played in enumerate(record.moves):
            if _irreversible(variant, played.before, played.move):
                keep = i + 1
        repetition = [_key(p) for p in record.positions[keep:]]
        Game.objects.filter(pk=game.pk).update(quiet_plies=record.quiet_plies,
                                               repetition=repetition)


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="game", name="quiet_plies",
            field=models.PositiveIntegerField(default=0)),
        migrations.AddField(
            model_name="game", name="repetition",
            field=models.JSONField(blank=True, default=list)),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
