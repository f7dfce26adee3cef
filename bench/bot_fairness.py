"""How long a level-1 bot reply waits while a crowd's level-8 searches are queued: all
levels on one queue (as before), the cheap levels on the ``bots-fast`` queue taken first by
one worker, and ``bots-fast`` with a worker of its own (docker-compose.yml).

Run from the repository root with the project's virtualenv:

    .venv/bin/python bench/bot_fairness.py                  # 8 players x 3 level-8 games
    .venv/bin/python bench/bot_fairness.py --crowd 12 --move-time 1.0

It starts a throwaway Redis and PostgreSQL and one Daphne (bots on Celery workers), then
for each setup: the crowd starts its games against the level-8 bot (the bot moves first,
so every search is queued at once), then one more visitor starts a level-1 game; it prints
how long that visitor waited for the bot's first move and how many deep searches were still
waiting then.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import Http, free_port, start_postgres, start_redis, wait_port  # noqa: E402


def game_ply(env: dict[str, str], game_ids: list[str]) -> dict[str, int]:
    import psycopg

    url = env["DATABASE_URL"]
    with psycopg.connect(url.replace("postgres://", "postgresql://")) as conn:
        rows = conn.execute("SELECT id, ply FROM games_game WHERE id = ANY(%s)",
                            [game_ids]).fetchall()
    return {str(i): int(p) for i, p in rows}


def worker(stack: ExitStack, env: dict[str, str], tmp: Path, name: str,
           queues: str) -> None:
    log = open(tmp / f"worker-{name}.log", "wb")  # noqa: SIM115
    stack.callback(log.close)
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "kondavo", "worker", "-Q", queues,
         "--pool=solo", "--without-gossip", "--without-mingle", "--without-heartbeat",
         "-n", f"{name}@%h", "--loglevel=INFO"], cwd=REPO, env=env, stdout=log,
        stderr=subprocess.STDOUT)

    def stop() -> None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()

    stack.callback(stop)
    deadline = time.monotonic() + 60
    while b" ready." not in (tmp / f"worker-{name}.log").read_bytes():
        if time.monotonic() > deadline or proc.poll() is not None:
            sys.exit(f"worker {name} did not start")
        time.sleep(0.2)


def computer_game(base: str, level: int, visitor: Http | None = None) -> tuple[Http, str]:
    visitor = visitor or Http(base)
    game = visitor.post_json("/games/new/computer", {
        "ruleset": "international", "level": str(level), "color": "black",
        "time_control": "untimed"})
    return visitor, str(game["id"])


def scenario(label: str, base: str, env: dict[str, str], crowd: int) -> None:
    deep: list[str] = []
    for _ in range(crowd):
        visitor = None
        for _ in range(3):  # the most games against the computer one player may have
            visitor, game_id = computer_game(base, 8, visitor)
            deep.append(game_id)
    asked = time.monotonic()
    _, mine = computer_game(base, 1)
    while game_ply(env, [mine]).get(mine, 0) < 1:
        if time.monotonic() - asked > 300:
            sys.exit("the level-1 bot did not answer in 300 s")
        time.sleep(0.02)
    waited = time.monotonic() - asked
    plies = game_ply(env, deep)
    left = sum(1 for g in deep if plies.get(g, 0) == 0)
    print(f"{label:<44} level-1 reply after {waited:6.2f} s; "
          f"{left}/{len(deep)} level-8 searches still waiting")
    while any(p == 0 for p in game_ply(env, deep).values()):  # drain before the next setup
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crowd", type=int, default=8, help="players with 3 level-8 games")
    parser.add_argument("--move-time", type=float, default=0.5,
                        help="KONDAVO_BOT_MOVE_TIME (level 8's seconds per move)")
    args = parser.parse_args()
    setups = (  # label, worker queues, KONDAVO_BOT_FAST_MAX_LEVEL
        ("one queue, one worker (before)", ["bots"], "0"),
        ("bots-fast first, one worker on both", ["bots-fast,bots"], "4"),
        ("bots-fast with its own worker (compose)", ["bots-fast", "bots"], "4"),
    )
    for label, queues, fast_max in setups:
        with ExitStack() as stack:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kondavo-bf-")))
            tmp.chmod(0o755)
            env = {**os.environ, "REDIS_URL": start_redis(stack, tmp),
                   "DATABASE_URL": start_postgres(stack, tmp),
                   "DJANGO_SETTINGS_MODULE": "kondavo.settings.local", "DEBUG": "false",
                   "LOG_LEVEL": "WARNING", "KONDAVO_BOT_INPROCESS": "false",
                   "KONDAVO_BOT_MOVE_TIME": str(args.move_time),
                   "KONDAVO_BOT_FAST_MAX_LEVEL": fast_max,
                   # every simulated player comes from 127.0.0.1
                   "KONDAVO_GUEST_RATE": "", "KONDAVO_CREATE_RATE_IP": ""}
            subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                           cwd=REPO, env=env, check=True)
            port = free_port()
            log = open(tmp / "daphne.log", "wb")  # noqa: SIM115
            stack.callback(log.close)
            daphne = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1",
                                       "-p", str(port), "kondavo.asgi:application"],
                                      cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
            stack.callback(lambda p=daphne: (p.terminate(), p.wait()))
            wait_port(port, daphne)
            for i, q in enumerate(queues):
                worker(stack, env, tmp, f"w{i}", q)
            scenario(label, f"http://127.0.0.1:{port}", env, args.crowd)


if __name__ == "__main__":
    main()
