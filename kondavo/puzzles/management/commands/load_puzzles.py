"""``manage.py load_puzzles [FILE ...] [--force]``: load puzzle files (default: the shipped
ones, which ``migrate`` also loads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kondavo.puzzles.services import puzzles_load


class Command(BaseCommand):
    help = "Load puzzle files (JSON lines) into the database; unchanged files are skipped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", help="puzzle files (default: the shipped ones)")
        parser.add_argument("--force", action="store_true",
                            help="load files even when unchanged since the last load")

    def handle(self, *args: Any, **options: Any) -> None:
        paths = [Path(f) for f in options["files"]] or None
        for path in paths or []:
            if not path.is_file():
                raise CommandError(f"no such file: {path}")
        report = puzzles_load(paths=paths, force=options["force"])
        for error in report.errors:
            self.stderr.write(f"skipped: {error}")
        self.stdout.write(f"{report.files} files ({report.unchanged} unchanged): "
                          f"{report.created} puzzles new, {report.updated} updated, "
                          f"{report.retired} retired, {report.skipped} skipped")
