"""Endgame tables for the compiled core: every position with few pieces, solved exactly.

The core solves them on this machine from the ruleset's own rules (``bots/native/tables.c``:
retrograde analysis over its move generation, so capture precedence and promotion are the
ruleset's): with at most five pieces on an 8x8 board that is 374 MB and a few minutes of
one core, with four pieces on 10x10 94 MB (figures in ``docs/engine.md``). The cache file is
the table's bytes uncompressed, and a process maps it read-only rather than reading it:
every process of the machine shares one copy in the page cache, and only the pages its
searches touch are resident. A position in the tables is scored in the search as a win
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
- ``KONDAVO_ENGINE_TABLES_MB``: the largest tables per ruleset (default 400): the most
  pieces (at most 5) whose tables fit, i.e. five on 8x8, four on 10x10 and in Turkish.

A process that solves missing tables may be given a smaller ceiling
(:func:`solve_missing_with`): the embedded mode solves at most four pieces and 100 MB in its
analysis pool (seconds, not minutes) and uses larger files when the command below or a
worker wrote them.

Rulesets with outcome rules of their own in Python that the core cannot know
(``draw_outcome``, or a ``special_outcome`` not declared to need one piece a side with
``special_outcome_pieces``) get no tables: the tables know only the rules the core knows.
Turkish's king against a lone man is one piece a side: its tables end the game there.

    python -m bots.engine.tables                          # every registered ruleset's
    python -m bots.engine.tables build --ruleset english --pieces 5
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import logging
import mmap
import os
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.engine.guard import outcomes_in_core
from variants import get_variant, variant_keys
from variants.base import Variant

if TYPE_CHECKING:
    from bots.engine.native import NativeEngine

log = logging.getLogger(__name__)

FORMAT = 2  # bump when the layout in bots/native/tables.h or the file's changes
MAX_PIECES = 5
DEFAULT_MB = 400
MODE_ENV = "KONDAVO_ENGINE_TABLES"
DIR_ENV = "KONDAVO_ENGINE_TABLES_DIR"
MB_ENV = "KONDAVO_ENGINE_TABLES_MB"
MAGIC = b"KDT2"
HEADER = 16  # MAGIC, the data's length (8 bytes) and its CRC-32 (4 bytes), little-endian

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
_solver_pieces = MAX_PIECES
_solver_mb: float | None = None


def solve_missing_with(solver: Solver | None, max_pieces: int = MAX_PIECES,
                       max_mb: float | None = None) -> None:
    """How this process solves tables missing from the cache directory: ``solver(job)`` runs
    ``job`` in the background (e.g. a bounded executor's ``submit``) and returns a handle;
    None: never in this process (it uses the files on disk, or plays without tables).
    ``max_pieces`` and ``max_mb``: the largest tables it solves itself, in pieces and in MB
    (the solve's time and memory grow with the size; larger ones only from disk)."""
    global _solver, _solver_pieces, _solver_mb
    _solver = solver
    _solver_pieces = max_pieces
    _solver_mb = max_mb


def _solvable(engine: NativeEngine, wanted: int) -> int:
    """The most pieces, at most ``wanted``, whose tables this process solves itself."""
    for pieces in range(min(wanted, _solver_pieces), 1, -1):
        if _solver_mb is None or engine.core.tables_size(pieces) <= _solver_mb * 1e6:
            return pieces
    return 0


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
    for a ruleset that is not built in) and the core knows all its results (no outcome rules
    of its own in Python beyond special outcomes with one piece a side)."""
    from bots.engine.native import native_available, self_check_reason, unsupported_reason

    return (native_available() and unsupported_reason(variant) is None
            and self_check_reason(variant) is None and outcomes_in_core(variant))


def pieces_for(engine: NativeEngine) -> int:
    """The most pieces (2-5) whose tables fit ``KONDAVO_ENGINE_TABLES_MB``; 0: none fit."""
    budget = float(os.environ.get(MB_ENV, str(DEFAULT_MB))) * 1e6
    for pieces in range(MAX_PIECES, 1, -1):
        try:
            size = engine.core.tables_size(pieces)
        except ValueError:  # beyond what the core can lay out for this board
            continue
        if size <= budget:
            return pieces
    return 0


def cache_path(engine: NativeEngine, pieces: int) -> Path:
    """The file for these rules: a digest of the ruleset's rules specification
    (``Variant.spec``, what the core is built from) and of its special outcomes, so a
    ruleset whose rules change gets new tables."""
    spec = engine.variant.spec.digest()
    if engine.special:  # (none: the digest the files had before special outcomes counted)
        spec += ":" + hashlib.sha256(engine.special).hexdigest()
    digest = hashlib.sha256(f"{FORMAT}:{pieces}:{spec}".encode()).hexdigest()[:16]
    return cache_dir() / f"{engine.variant.key}-{pieces}p-{digest}.kdtb"


def _read(path: Path, size: int) -> memoryview | None:
    """The file's tables as a read-only memory map (None: missing, or not a whole file of
    these tables: its length and CRC-32 are checked, the file read in chunks so that the
    check leaves nothing resident in this process)."""
    try:
        with path.open("rb") as f:
            head = f.read(HEADER)
            if len(head) != HEADER or head[:4] != MAGIC:
                return None
            length = int.from_bytes(head[4:12], "little")
            if length != size or os.fstat(f.fileno()).st_size != HEADER + size:
                return None
            crc = 0
            while chunk := f.read(1 << 22):
                crc = zlib.crc32(chunk, crc)
            if crc != int.from_bytes(head[12:16], "little"):
                return None
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    return memoryview(mapped)[HEADER:]


def _write(path: Path, data: bytes) -> bool:
    """Writes the cache file (atomically); False when the directory is read-only."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with tmp.open("wb") as f:
            f.write(MAGIC + len(data).to_bytes(8, "little")
                    + zlib.crc32(data).to_bytes(4, "little"))
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:  # a read-only cache: the tables still serve this process
        log.warning("endgame tables not cached at %s: %s", path, exc)
        return False
    return True


def solve(engine: NativeEngine, pieces: int) -> bytes:
    """The tables solved by the core (the GIL is released while it works)."""
    started = time.perf_counter()
    data: bytes = engine.core.build_tables(pieces)
    log.info("endgame tables for %s, %d pieces: %.1f MB in %.1f s", engine.variant.key,
             pieces, len(data) / 1e6, time.perf_counter() - started)
    return data


@contextlib.contextmanager
def _solving(path: Path) -> Iterator[None]:
    """Held while this process solves the tables of ``path``: an exclusive lock on a file
    beside it, so that several workers starting together (each solves what is missing)
    solve each table once; the others wait, then read the file. The lock goes with its
    process if that dies. Without a writable directory there is no lock (nor a file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_name(f"{path.name}.lock"), "a+b")  # noqa: SIM115
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def load_or_solve(engine: NativeEngine, pieces: int) -> bytes | memoryview:
    """The tables from the cache, or solved and cached (then mapped from the file, so the
    solved bytes are not kept in this process's memory). A table another process is
    solving is waited for (``_solving``), not solved twice."""
    path = cache_path(engine, pieces)
    size = int(engine.core.tables_size(pieces))
    data = _read(path, size)
    if data is not None:
        return data
    with _solving(path):
        data = _read(path, size)  # solved by another process while this one waited
        if data is not None:
            return data
        solved = solve(engine, pieces)
        if _write(path, solved):
            data = _read(path, size)
    return solved if data is None else data


def _cached(engine: NativeEngine, most: int) -> tuple[int, memoryview | None]:
    """The largest tables of at most ``most`` pieces in the cache directory that are larger
    than the engine's (0, None: none)."""
    for pieces in range(most, max(engine.table_pieces, 1), -1):
        data = _read(cache_path(engine, pieces), int(engine.core.tables_size(pieces)))
        if data is not None:
            return pieces, data
    return 0, None


def attach(engine: NativeEngine, how: str | None = None) -> Any:
    """Give ``engine`` its tables (``how``: ``auto``, ``wait`` or ``off``, default from the
    environment): from the cache directory, else solved as this process's solver says.
    Returns the solver's handle (e.g. a thread) when they are being solved in the
    background, else None."""
    how = how or mode()
    if how == "off" or not outcomes_in_core(engine.variant) or not engine.tables_exact:
        return None
    wanted = pieces_for(engine)
    if wanted <= engine.table_pieces:
        return None
    have, data = _cached(engine, wanted)
    if data is not None:
        engine.set_tables(have, data)
    have = max(have, engine.table_pieces)
    if have == wanted:
        return None
    submit = _solver
    pieces = _solvable(engine, wanted)
    if submit is None or pieces <= have:  # e.g. a web process: only what is on disk
        return None
    if how == "wait":
        engine.set_tables(pieces, load_or_solve(engine, pieces))
        return None
    key = id(engine)

    def work() -> None:
        try:
            if engine.table_pieces < pieces:
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
    """An engine without its largest tables looks for them again (at most every
    ``RECHECK_SECONDS``): a worker or the image may have written them since."""
    if engine.table_pieces >= engine.tables_wanted:
        return
    now = time.monotonic()
    if now < engine.tables_recheck_at:
        return
    engine.tables_recheck_at = now + RECHECK_SECONDS
    if mode() != "off":
        engine.tables_wanted = pieces_for(engine)
        attach(engine)


def ensure_cached(key: str, pieces: int | None = None) -> str:
    """Solve and cache the tables of ruleset ``key`` (``pieces``, default the most the
    budget allows) unless a good file is there; returns a line saying what was done."""
    from bots.engine.native import NativeEngine

    variant = get_variant(key)
    try:
        engine = NativeEngine(variant, tt_mb=1) if tables_supported(variant) else None
    except (ValueError, OverflowError, MemoryError, RuntimeError):
        engine = None
    if engine is not None and pieces is None:
        pieces = pieces_for(engine)
    if engine is None or not pieces:
        return f"{key}: no tables (outcome rules of its own, not on the core, or too big)"
    started = time.perf_counter()
    size = int(engine.core.tables_size(pieces))
    load_or_solve(engine, pieces)
    path = cache_path(engine, pieces)
    return (f"{key}: {pieces} pieces, {size / 1e6:.1f} MB, {path.name} in {path.parent} "
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
    parser = argparse.ArgumentParser(
        description="Solve and cache the engine's endgame tables "
                    "(`build` is optional: `python -m bots.engine.tables english`).")
    parser.add_argument("rulesets", nargs="*", help="ruleset keys (default: every registered)")
    parser.add_argument("--ruleset", action="append", default=[], help="a ruleset key")
    parser.add_argument("--pieces", type=int, choices=range(2, MAX_PIECES + 1),
                        help="pieces (default: the most KONDAVO_ENGINE_TABLES_MB allows)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    keys = [k for k in args.rulesets if k != "build"] + args.ruleset
    known = set(variant_keys())
    unknown = [k for k in keys if k not in known]
    if unknown:
        parser.error(f"unknown ruleset(s): {', '.join(unknown)}")
    for key in keys or variant_keys():
        print(ensure_cached(key, args.pieces), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
