"""Endgame tables for the compiled core: every position with few pieces, solved exactly.

The core solves them on this machine from the ruleset's own rules (``bots/native/tables.c``:
retrograde analysis over its move generation, so capture precedence and promotion are the
ruleset's): with at most four pieces on an 8x8 board that is 15 MB and about five seconds,
with three pieces on 10x10 2 MB. A position in the tables is scored in the search as a win
or loss in its exact number of plies, or as a draw, so level 8 converts the endings it can
win, draws the ones it cannot lose and no longer plays on in dead draws.

The process's engine of a ruleset (:func:`bots.engine.native.native_engine`) gets them on
creation from the cache directory when a file for these rules is there, and looks again every
``RECHECK_SECONDS`` while it has none (a worker may be writing them). What a process does
when the file is missing is its *solver* (:func:`solve_missing_with`): by default a
background thread solves them (the GIL is released; searches go on without tables until they
are ready) and saves them for the next process; a Django process that serves requests sets
none (``bots.apps``): it only ever uses files already on disk, so no web request, and no web
process, ever solves tables. They are solved in the Docker image build
(``python -m bots.engine.tables``), by the Celery workers of the engine queues when they
start (:func:`solve_all`, from ``kondavo.celery``) and, in the embedded mode, as a job of the
bounded background executor of the analysis board (``bots.analysis.background_pool``). Only
searches without a node budget (level 8 and analysis) use them: node-bounded levels 1-7 keep
the strength the lab measured.

Environment:

- ``KONDAVO_ENGINE_TABLES``: ``auto`` (default: load, or solve through the process's solver),
  ``wait`` (solve before the first search when the process may solve; the strength lab and
  tools), ``off``.
- ``KONDAVO_ENGINE_TABLES_DIR``: the cache directory (default
  ``$XDG_CACHE_HOME/kondavo/tables`` or ``~/.cache/kondavo/tables``).
- ``KONDAVO_ENGINE_TABLES_MB``: the largest tables per ruleset in memory (default 32): the
  most pieces (at most 4) whose tables fit.

Rulesets with outcome rules of their own in Python (``special_outcome``, ``draw_outcome``,
e.g. Turkish) get no tables: the tables know only the rules the core knows.

    python -m bots.engine.tables             # solve and cache every registered ruleset's
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import sys
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.engine.guard import needs_guard
from variants import get_variant, variant_keys
from variants.base import Variant

if TYPE_CHECKING:
    from bots.engine.native import NativeEngine

log = logging.getLogger(__name__)

FORMAT = 1  # bump when the layout in bots/native/tables.h changes
MAX_PIECES = 4
MODE_ENV = "KONDAVO_ENGINE_TABLES"
DIR_ENV = "KONDAVO_ENGINE_TABLES_DIR"
MB_ENV = "KONDAVO_ENGINE_TABLES_MB"
MAGIC = b"KDTB"

RECHECK_SECONDS = 10.0  # an engine without tables looks at the cache directory again

Job = Callable[[], None]
Solver = Callable[[Job], Any]

_LOCK = threading.Lock()
_PENDING = object()
_BUILDING: dict[int, Any] = {}  # by id() of the engine being given tables: its job's handle


def in_thread(job: Job) -> threading.Thread:
    """The default solver: ``job`` in a daemon thread of its own."""
    thread = threading.Thread(target=job, name="tables", daemon=True)
    thread.start()
    return thread


_solver: Solver | None = in_thread


def solve_missing_with(solver: Solver | None) -> None:
    """How this process solves tables missing from the cache directory: ``solver(job)`` runs
    ``job`` in the background (e.g. a bounded executor's ``submit``) and returns a handle;
    None: never in this process (it uses the files on disk, or plays without tables)."""
    global _solver
    _solver = solver


def solver() -> Solver | None:
    return _solver


def mode() -> str:
    value = os.environ.get(MODE_ENV, "auto").strip().lower()
    return value if value in ("auto", "wait", "off") else "auto"


def cache_dir() -> Path:
    given = os.environ.get(DIR_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kondavo" / "tables"


def tables_supported(variant: Variant) -> bool:
    """Whether ``variant`` can have tables: it runs on the core (its self-check included,
    for a ruleset that is not built in) and has no outcome rules of its own in Python."""
    from bots.engine.native import native_available, self_check_reason, unsupported_reason

    return (native_available() and unsupported_reason(variant) is None
            and self_check_reason(variant) is None and not needs_guard(variant))


def pieces_for(engine: NativeEngine) -> int:
    """The most pieces (2-4) whose tables fit ``KONDAVO_ENGINE_TABLES_MB``; 0: none fit."""
    budget = float(os.environ.get(MB_ENV, "32")) * 1e6
    for pieces in range(MAX_PIECES, 1, -1):
        if engine.core.tables_size(pieces) <= budget:
            return pieces
    return 0


def cache_path(engine: NativeEngine, pieces: int) -> Path:
    """The file for these rules: a digest of the ruleset's rules specification
    (``Variant.spec``, what the core is built from), so a ruleset whose rules change gets
    new tables."""
    spec = engine.variant.spec.digest()
    digest = hashlib.sha256(f"{FORMAT}:{pieces}:{spec}".encode()).hexdigest()[:16]
    return cache_dir() / f"{engine.variant.key}-{pieces}p-{digest}.kdtb"


def _read(path: Path, size: int) -> bytes | None:
    try:
        raw = path.read_bytes()
        if raw[:4] != MAGIC:
            return None
        data = zlib.decompress(raw[4:])
    except (OSError, zlib.error):
        return None
    return data if len(data) == size else None


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(MAGIC + zlib.compress(data, 6))
        os.replace(tmp, path)
    except OSError as exc:  # a read-only cache: the tables still serve this process
        log.warning("endgame tables not cached at %s: %s", path, exc)


def solve(engine: NativeEngine, pieces: int) -> bytes:
    """The tables solved by the core (the GIL is released while it works)."""
    started = time.perf_counter()
    data: bytes = engine.core.build_tables(pieces)
    log.info("endgame tables for %s, %d pieces: %.1f MB in %.1f s", engine.variant.key,
             pieces, len(data) / 1e6, time.perf_counter() - started)
    return data


def load_or_solve(engine: NativeEngine, pieces: int) -> bytes:
    """The tables from the cache, or solved and cached."""
    path = cache_path(engine, pieces)
    size = int(engine.core.tables_size(pieces))
    data = _read(path, size)
    if data is None:
        data = solve(engine, pieces)
        _write(path, data)
    return data


def attach(engine: NativeEngine, how: str | None = None) -> Any:
    """Give ``engine`` its tables (``how``: ``auto``, ``wait`` or ``off``, default from the
    environment): from the cache directory, else solved as this process's solver says.
    Returns the solver's handle (e.g. a thread) when they are being solved in the
    background, else None."""
    how = how or mode()
    if how == "off" or needs_guard(engine.variant):  # the engine exists: on the core
        return None
    pieces = pieces_for(engine)
    if not pieces:
        return None
    data = _read(cache_path(engine, pieces), int(engine.core.tables_size(pieces)))
    if data is not None:
        engine.set_tables(pieces, data)
        return None
    submit = _solver
    if submit is None:  # e.g. a web process: only what is on disk
        return None
    if how == "wait":
        engine.set_tables(pieces, load_or_solve(engine, pieces))
        return None
    key = id(engine)

    def work() -> None:
        try:
            if not engine.table_pieces:
                engine.set_tables(pieces, load_or_solve(engine, pieces))
        except (MemoryError, ValueError) as exc:
            log.warning("endgame tables for %s failed: %s", engine.variant.key, exc)
        finally:
            with _LOCK:
                _BUILDING.pop(key, None)

    with _LOCK:
        if key in _BUILDING:
            return _BUILDING[key]
        _BUILDING[key] = _PENDING
    try:
        handle = submit(work)
    except RuntimeError as exc:  # the executor is shutting down
        with _LOCK:
            _BUILDING.pop(key, None)
        log.info("endgame tables for %s not solved: %s", engine.variant.key, exc)
        return None
    with _LOCK:
        if _BUILDING.get(key) is _PENDING:
            _BUILDING[key] = handle
    return handle


def refresh(engine: NativeEngine) -> None:
    """An engine still without tables looks for them again (at most every
    ``RECHECK_SECONDS``): a worker or the image may have written them since."""
    if engine.table_pieces:
        return
    now = time.monotonic()
    if now < engine.tables_recheck_at:
        return
    engine.tables_recheck_at = now + RECHECK_SECONDS
    if mode() != "off":
        attach(engine)


def ensure_cached(key: str) -> str:
    """Solve and cache the tables of ruleset ``key`` unless a good file is there; returns
    a line saying what was done."""
    from bots.engine.native import NativeEngine

    variant = get_variant(key)
    try:
        engine = NativeEngine(variant, tt_mb=1) if tables_supported(variant) else None
    except (ValueError, OverflowError, MemoryError, RuntimeError):
        engine = None
    pieces = pieces_for(engine) if engine is not None else 0
    if engine is None or not pieces:
        return f"{key}: no tables (outcome rules of its own, not on the core, or too big)"
    started = time.perf_counter()
    load_or_solve(engine, pieces)
    return (f"{key}: {pieces} pieces, {cache_path(engine, pieces)} "
            f"({time.perf_counter() - started:.1f} s)")


def solve_all(keys: Sequence[str] | None = None) -> None:
    """Every registered ruleset's tables (or ``keys``'), solved and cached one at a time:
    a worker calls this in a thread when it starts (``kondavo.celery``)."""
    if mode() == "off":
        return
    for key in keys or variant_keys():
        try:
            log.info("%s", ensure_cached(key))
        except (OSError, MemoryError, ValueError) as exc:
            log.warning("endgame tables for %s not solved: %s", key, exc)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Solve and cache the engine's endgame tables.")
    parser.add_argument("rulesets", nargs="*", help="ruleset keys (default: every registered)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for key in args.rulesets or variant_keys():
        print(ensure_cached(key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
