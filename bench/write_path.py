"""The games' write path on PostgreSQL: the precompiled SQL of ``kondavo.games.services.store``
against the same statements through the ORM, measured through ``game_play_move``.

Run from the repository root with the project's virtualenv:

    DATABASE_URL=postgres://.../scratch .venv/bin/python bench/write_path.py
    .venv/bin/python bench/write_path.py --games 20 --plies 40 --rounds 5

Without ``DATABASE_URL`` (or ``--database-url``) a throwaway PostgreSQL is started. The
database is migrated, then each round creates ``--games`` timed games between two guests per
implementation and plays the same ``--plies`` moves in each, game after game, one
transaction per move as a player would; the two implementations alternate which goes first.
Only the two statements differ (``store.select_locked``: the locked ``SELECT`` with both
players' kinds, ``store.update_guarded``: the version-guarded ``UPDATE``); everything else
(rules, clocks, events, on-commit publishing) is the same code. Prints, per round and as
medians, moves/s (wall clock) and this process's CPU milliseconds per move (steadier on a
shared machine) for each, their ratios, and the queries one move makes with each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

Impl = tuple[Callable[..., Any], Callable[..., int]]


def orm_impl() -> Impl:
    """The same two statements through the ORM: ``select_for_update(of=("self",))`` with the
    players' kinds annotated (one query, the same joins), and a ``filter().update()``."""
    from django.db.models import F

    from kondavo.games.models import Game

    def select_locked(game_id: str) -> tuple[Any, dict[str, str | None]] | None:
        try:
            row = (Game.objects.select_for_update(of=("self",))
                   .annotate(white_kind=F("white__kind"), black_kind=F("black__kind"))
                   .order_by().get(pk=str(game_id)[:12]))
        except Game.DoesNotExist:
            return None
        return row, {"white": row.white_kind, "black": row.black_kind}

    def update_guarded(game: Any, fields: tuple[str, ...], read_version: int) -> int:
        meta = Game._meta
        values = {meta.get_field(name).attname: getattr(game, meta.get_field(name).attname)
                  for name in fields}
        return int(Game.objects.filter(pk=game.pk, version=read_version).update(**values))

    return select_locked, update_guarded


def move_line(plies: int) -> list[str]:
    """A deterministic International game of ``plies`` moves that does not end."""
    from variants import GameRecord, get_variant

    variant = get_variant("international")
    record = GameRecord.new(variant)
    out: list[str] = []
    for i in range(plies):
        legal = record.legal_moves()
        played = record.push(legal[(i * 7) % len(legal)], legal)
        out.append(played.notation)
        if record.outcome() is not None:
            sys.exit(f"the line ends at ply {i + 1}: ask for fewer plies")
    return out


def play_round(impl: Impl, players: tuple[Any, Any], games: int,
               line: list[str]) -> tuple[float, float]:
    """(moves/s, CPU ms of this process per move) for ``games`` games of ``line`` with
    ``impl`` in place. The CPU figure leaves out PostgreSQL's own work (the same statements
    for both) and the waits of a busy machine."""
    from kondavo.games.services import game_create, game_play_move, store

    white, black = players
    ids = [game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3").id for _ in range(games)]
    saved = store.select_locked, store.update_guarded
    store.select_locked, store.update_guarded = impl
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        for game_id in ids:
            for ply, text in enumerate(line):
                game_play_move(game_id=game_id, player=white if ply % 2 == 0 else black,
                               ply=ply, move_text=text)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        store.select_locked, store.update_guarded = saved
    moves = games * len(line)
    return moves / elapsed, 1000 * cpu / moves


def queries_per_move(impl: Impl, players: tuple[Any, Any], line: list[str]) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kondavo.games.services import game_create, game_play_move, store

    white, black = players
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    saved = store.select_locked, store.update_guarded
    store.select_locked, store.update_guarded = impl
    try:
        game_play_move(game_id=game.id, player=white, ply=0, move_text=line[0])
        with CaptureQueriesContext(connection) as ctx:
            game_play_move(game_id=game.id, player=black, ply=1, move_text=line[1])
    finally:
        store.select_locked, store.update_guarded = saved
    return len(ctx.captured_queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    args = parser.parse_args()

    with ExitStack() as stack:
        url = args.database_url
        if not url:
            from bench.load import start_postgres

            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-wp-")))
            tmp.chmod(0o755)  # the postgres user runs the server in it
            url = start_postgres(stack, tmp)
        if not url.startswith(("postgres://", "postgresql://")):
            sys.exit("the write path is measured on PostgreSQL: give a postgres:// URL")
        os.environ["DATABASE_URL"] = url
        for name in ("REDIS_URL", "CELERY_TEST_REDIS_URL"):  # in-memory layer, eager Celery
            os.environ.pop(name, None)
        os.environ["DJANGO_SETTINGS_MODULE"] = "kondavo.settings.test"
        import django
        from django.conf import settings

        django.setup()
        settings.KONDAVO_FLAG_TIMERS = False  # no embedded timer threads per move
        from django.core.management import call_command

        from kondavo.accounts.services import player_get_or_create_guest
        from kondavo.games.services import store

        call_command("migrate", verbosity=0)
        players = (player_get_or_create_guest(request_session={}),
                   player_get_or_create_guest(request_session={}))
        line = move_line(args.plies)
        impls = {"raw": (store.select_locked, store.update_guarded), "orm": orm_impl()}
        for impl in impls.values():  # warm up: connections, caches, imports
            play_round(impl, players, 2, line[:10])
        print(f"queries per move: raw {queries_per_move(impls['raw'], players, line)}, "
              f"orm {queries_per_move(impls['orm'], players, line)}")
        rates: dict[str, list[float]] = {"raw": [], "orm": []}
        cpus: dict[str, list[float]] = {"raw": [], "orm": []}
        print(f"{args.games} games x {args.plies} moves per implementation and round")
        print("round  raw moves/s  orm moves/s  raw/orm  raw CPU ms/move  orm CPU ms/move  "
              "orm/raw CPU")
        for r in range(args.rounds):
            order = ["raw", "orm"] if r % 2 == 0 else ["orm", "raw"]
            got = {name: play_round(impls[name], players, args.games, line) for name in order}
            for name, (rate, cpu) in got.items():
                rates[name].append(rate)
                cpus[name].append(cpu)
            (raw, raw_cpu), (orm, orm_cpu) = got["raw"], got["orm"]
            print(f"{r + 1:>5} {raw:>12.1f} {orm:>12.1f} {raw / orm:>8.3f} {raw_cpu:>16.2f} "
                  f"{orm_cpu:>16.2f} {orm_cpu / raw_cpu:>12.3f}")
        raw, orm = statistics.median(rates["raw"]), statistics.median(rates["orm"])
        raw_cpu, orm_cpu = statistics.median(cpus["raw"]), statistics.median(cpus["orm"])
        print(f"median {raw:>11.1f} {orm:>12.1f} {raw / orm:>8.3f} {raw_cpu:>16.2f} "
              f"{orm_cpu:>16.2f} {orm_cpu / raw_cpu:>12.3f}")


if __name__ == "__main__":
    main()
