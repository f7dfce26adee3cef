"""The games' write path on PostgreSQL, measured through ``game_play_move``: the optimistic
write a move takes outside a transaction, the locked write, and the locked write's two
statements through the ORM.

Run from the repository root with the project's virtualenv:

    DATABASE_URL=postgres://.../scratch .venv/bin/python bench/write_path.py
    .venv/bin/python bench/write_path.py --games 20 --plies 40 --rounds 5

Without ``DATABASE_URL`` (or ``--database-url``) a throwaway PostgreSQL is started. The
database is migrated, then each round creates ``--games`` timed games between two guests per
way of writing and plays the same ``--plies`` moves in each, game after game, as a player
would (each move on its own, outside any transaction); the ways alternate which goes first:

- ``optimistic``: the site's path (``GameWrite.read``: the row as last committed and one
  version-guarded ``UPDATE``, no transaction);
- ``locked``: every move under the row lock (``BEGIN``, the locked ``SELECT``, the
  ``UPDATE``, ``COMMIT``), the path of a move that ends a game or meets a conflict;
- ``orm``: the locked path with its two statements built through the ORM
  (``select_for_update(of=("self",))`` + ``annotate``, ``filter().update()``) instead of
  ``store``'s precompiled SQL.

Everything else (rules, clocks, events, publishing) is the same code. Also prints the CPU
per heartbeat of reading a game's version: batched as the site does (one read for 50
games, ``selectors.games_version_status``) against one ORM read per heartbeat. Prints, per
round and as medians, moves/s (wall clock), this process's CPU milliseconds per move and the
PostgreSQL backend's (both steadier than wall time on a shared machine), and the statements
one move sends with each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

Impl = Callable[[], Any]  # a context manager that puts a way of writing in place


@contextmanager
def optimistic() -> Iterator[None]:
    yield


@contextmanager
def locked() -> Iterator[None]:
    from kondavo.games.services import store

    def refuse(cls: Any, game_id: str, now: Any) -> Any:
        raise store.NeedsLock

    saved = store.GameWrite.read
    store.GameWrite.read = classmethod(refuse)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        store.GameWrite.read = saved  # type: ignore[method-assign]


@contextmanager
def orm() -> Iterator[None]:
    """The locked path's two statements through the ORM: ``select_for_update(of=("self",))``
    with the players' kinds annotated (one query, the same joins), and a
    ``filter().update()``."""
    from django.db.models import F

    from kondavo.games.models import Game
    from kondavo.games.services import store

    def select_row(game_id: str, *, lock: bool) -> tuple[Any, dict[str, str | None]] | None:
        query = Game.objects.select_for_update(of=("self",)) if lock else Game.objects
        try:
            row = (query.annotate(white_kind=F("white__kind"), black_kind=F("black__kind"))
                   .order_by().get(pk=str(game_id)[:12]))
        except Game.DoesNotExist:
            return None
        return row, {"white": row.white_kind, "black": row.black_kind}

    def update_guarded(game: Any, fields: tuple[str, ...], read_version: int) -> int:
        meta = Game._meta
        values = {meta.get_field(name).attname: getattr(game, meta.get_field(name).attname)
                  for name in fields}
        return int(Game.objects.filter(pk=game.pk, version=read_version).update(**values))

    saved = store.select_row, store.update_guarded
    store.select_row, store.update_guarded = select_row, update_guarded
    try:
        with locked():
            yield
    finally:
        store.select_row, store.update_guarded = saved


IMPLS: dict[str, Impl] = {"optimistic": optimistic, "locked": locked, "orm": orm}


def backend_cpu_ms() -> float:
    """CPU milliseconds so far of the PostgreSQL backend serving this process's connection
    (a local server: its process is read from /proc)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()
    return 1000 * (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
               line: list[str]) -> tuple[float, float, float]:
    """(moves/s, CPU ms of this process per move, CPU ms of the PostgreSQL backend per move)
    for ``games`` games of ``line`` written with ``impl``."""
    from kondavo.games.services import game_create, game_play_move

    white, black = players
    ids = [game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3").id for _ in range(games)]
    with impl():
        b0 = backend_cpu_ms()
        t0, c0 = time.perf_counter(), time.process_time()
        for game_id in ids:
            for ply, text in enumerate(line):
                game_play_move(game_id=game_id, player=white if ply % 2 == 0 else black,
                               ply=ply, move_text=text)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        backend = backend_cpu_ms() - b0
    moves = games * len(line)
    return moves / elapsed, 1000 * cpu / moves, backend / moves


def heartbeat_reads(players: tuple[Any, Any], calls: int = 2000,
                    batch: int = 50) -> tuple[float, float]:
    """CPU ms of this process per heartbeat's read of a game's version and status: in
    batches of ``batch`` games (``selectors.games_version_status``, as
    ``kondavo.games.heartbeats`` does), and one ORM read per heartbeat."""
    from kondavo.games import selectors
    from kondavo.games.models import Game
    from kondavo.games.services import game_create

    white, black = players
    ids = [game_create(creator=white, opponent=black, ruleset="international",
                       color="white").id for _ in range(batch)]

    def batched() -> Any:
        return selectors.games_version_status(game_ids=ids)

    def one_each() -> Any:
        return [Game.objects.filter(pk=game_id).values_list("version", "status").first()
                for game_id in ids]

    out = []
    for read in (batched, one_each):
        read()
        c0 = time.process_time()
        for _ in range(max(1, calls // batch)):
            read()
        out.append(1000 * (time.process_time() - c0) / (max(1, calls // batch) * batch))
    return out[0], out[1]


def statements_per_move(impl: Impl, players: tuple[Any, Any], line: list[str]) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kondavo.games.services import game_create, game_play_move

    white, black = players
    game = game_create(creator=white, opponent=black, ruleset="international", color="white",
                       time_control="5+3")
    with impl():
        game_play_move(game_id=game.id, player=white, ply=0, move_text=line[0])
        with CaptureQueriesContext(connection) as ctx:
            game_play_move(game_id=game.id, player=black, ply=1, move_text=line[1])
    return [q["sql"].split()[0] + (" ... FOR UPDATE" if "FOR UPDATE" in q["sql"] else "")
            for q in ctx.captured_queries]


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

        call_command("migrate", verbosity=0)
        players = (player_get_or_create_guest(request_session={}),
                   player_get_or_create_guest(request_session={}))
        line = move_line(args.plies)
        names = list(IMPLS)
        for name in names:  # warm up: connections, caches, imports
            play_round(IMPLS[name], players, 2, line[:10])
        for name in names:
            sent = ", ".join(statements_per_move(IMPLS[name], players, line))
            print(f"statements per move, {name}: {sent}")
        batched_ms, each_ms = heartbeat_reads(players)
        print(f"heartbeat read (version, status) per heartbeat: {batched_ms:.3f} CPU ms "
              f"batched by 50, {each_ms:.3f} one ORM read each ({each_ms / batched_ms:.1f}x)")
        got: dict[str, list[tuple[float, float, float]]] = {name: [] for name in names}
        print(f"{args.games} games x {args.plies} moves per way of writing and round")
        print("round  " + "  ".join(f"{n:>10} moves/s  CPU ms/move  PG ms/move" for n in names))
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                got[name].append(play_round(IMPLS[name], players, args.games, line))
            print(f"{r + 1:>5}  " + "  ".join(
                f"{got[n][-1][0]:>18.1f} {got[n][-1][1]:>12.2f} {got[n][-1][2]:>11.2f}"
                for n in names))
        med = {n: [statistics.median(x[k] for x in got[n]) for k in range(3)] for n in names}
        print("median " + "  ".join(f"{med[n][0]:>18.1f} {med[n][1]:>12.2f} {med[n][2]:>11.2f}"
                                    for n in names))
        base = med["optimistic"]
        for name in names[1:]:
            print(f"{name} / optimistic: moves/s {med[name][0] / base[0]:.2f}, "
                  f"CPU per move {med[name][1] / base[1]:.2f}, "
                  f"PostgreSQL CPU per move {med[name][2] / base[2]:.2f}")


if __name__ == "__main__":
    main()
