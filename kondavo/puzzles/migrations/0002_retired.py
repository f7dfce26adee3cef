"""Each puzzle records the data file that last loaded it, and is retired (kept, not served)
when a newer version of that file no longer holds it.

Puzzles loaded before this migration have no file yet. A shipped file is named after its
ruleset (``english.jsonl``), so the puzzles of a ruleset that were not found in a game are
given that file when it was loaded here; puzzles of other files are given theirs the next
time those files load.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models


def fill(apps: Any, schema_editor: Any) -> None:
    Puzzle = apps.get_model("puzzles", "Puzzle")
    PuzzleFile = apps.get_model("puzzles", "PuzzleFile")
    for name in PuzzleFile.objects.values_list("name", flat=True):
        if name.endswith(".jsonl"):
            Puzzle.objects.filter(ruleset=name.removesuffix(".jsonl"), file="",
                                  source_game__isnull=True).update(file=name)


class Migration(migrations.Migration):

    dependencies = [
        ('puzzles', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='puzzle',
            name='file',
            field=models.CharField(blank=True, default='', max_length=120),
        ),
        migrations.AddField(
            model_name='puzzle',
            name='retired',
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
