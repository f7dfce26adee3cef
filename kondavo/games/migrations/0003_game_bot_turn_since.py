"""``Game.bot_turn_since``: since when a bot is to move (for ``games.tasks.bot_move_sweep``).

Active games where a bot is to move get the migration's time, so a bot move lost before the
deploy is asked for again one stall period after it.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.utils import timezone


def fill(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    now = timezone.now()
    for game in Game.objects.filter(status="active").select_related("white", "black").only(
            "id", "fen", "white__kind", "black__kind").iterator(chunk_size=500):
        to_move = game.white if game.fen[:1].upper() == "W" else game.black
        if to_move is not None and to_move.kind == "bot":
            Game.objects.filter(pk=game.pk).update(bot_turn_since=now)


class Migration(migrations.Migration):
    dependencies = [("games", "0002_game_quiet_plies_repetition"), ("accounts", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="game", name="bot_turn_since",
            field=models.DateTimeField(blank=True, db_index=True, null=True)),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
