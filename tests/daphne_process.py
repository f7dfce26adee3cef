"""Start a real Daphne on the test database: shared by the fixtures and the e2e tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

REPO_DIR = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def database_url_for(settings_dict: dict[str, Any]) -> str:
    """A DATABASE_URL pointing at exactly this Django database (e.g. the test database)."""
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        name = str(settings_dict["NAME"])
        if name == ":memory:" or name.startswith("file:"):
            raise RuntimeError("an in-memory SQLite database cannot be shared with a subprocess")
        return "sqlite:///" + str(Path(name).resolve())
    if engine.endswith("postgresql"):
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or "127.0.0.1"
        port = settings_dict.get("PORT") or 5432
        return f"postgres://{auth}{host}:{port}/{quote(str(settings_dict['NAME']), safe='')}"
    raise RuntimeError(f"unsupported database engine {engine}")


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited early with code {proc.returncode}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"daphne did not listen on port {port} within {timeout}s")


@contextmanager
def running_daphne(settings_dict: dict[str, Any], log_path: Path,
                   **env_overrides: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A Daphne child on the database of ``settings_dict``; yields (process, base URL).

    The child gets the test settings, unbuffered logs in ``log_path`` and ``env_overrides``;
    it is terminated (killed after 10 s) on exit.
    """
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url_for(settings_dict),
           "DJANGO_SETTINGS_MODULE": "kondavo.settings.test", "PYTHONUNBUFFERED": "1",
           **env_overrides}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    cmd = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
           "kondavo.asgi:application"]
    with open(log_path, "ab") as log:
        log.write(f"\n===== daphne on port {port}\n".encode())
        log.flush()
        proc = subprocess.Popen(cmd, cwd=REPO_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        try:
            wait_for_port(port, proc)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n--- {log_path} ---\n"
                               f"{log_path.read_text(errors='replace')[-3000:]}") from None
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
