"""The compiled core checked against the reference generator, for one ruleset.

The core (``bots/native``) reads a ruleset's rules as data and must list exactly the moves
``variant.legal_moves`` lists, the moves the site accepts. Two checks compare them:

* :func:`check_core`, the full check ``python -m variants check RULESET`` runs after the
  reference's own checks: the ruleset's perft suite counted by the core, perft from the
  start position by both (with the speed ratio), and random games in which the core must
  give the exact legal moves of every position and the same perft every few plies. It
  raises :class:`~variants.conformance.ConformanceError` on the first difference; a ruleset
  the core does not play gets the reason instead.
* :func:`self_check`, the quick check a server runs the first time it would search a
  ruleset that is not built in (a plugin or a ruleset file) on the core
  (:func:`bots.engine.native.native_supported`): perft to depth 3 from the start and a few
  short random games, about a second. Its result is kept per rules digest (the rules the
  core reads and the core's build) in this process and in a cache directory
  (``KONDAVO_ENGINE_SELF_CHECK_DIR``, default ``$XDG_CACHE_HOME/kondavo/self-check`` or
  ``~/.cache/kondavo/self-check``), so the next process does not repeat it. When the core
  disagrees, the ruleset is played by the pure-Python engine and the reason is logged.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from variants.base import Variant
from variants.conformance import (
    ConformanceError,
    check_implementation,
    check_perft_file,
)

log = logging.getLogger(__name__)

SELF_CHECK_DEPTH = 3  # perft from the start position, both implementations
SELF_CHECK_GAMES = 4  # random games compared move list by move list
SELF_CHECK_PLIES = 80
DIR_ENV = "KONDAVO_ENGINE_SELF_CHECK_DIR"


def _engine(variant: Variant) -> Any:
    from bots.engine.native import NativeEngine

    return NativeEngine(variant, tt_mb=1)


def check_core(variant: Variant, suite: str | Path | None = None, *, games: int = 20,
               seed: int = 1, max_nodes: int = 2_000_000,
               max_plies: int = 200) -> dict[str, object]:
    """Compare the core with ``variant``'s own generator; returns what was checked.

    ``{"core": "not used: <why>"}`` when the core does not play the ruleset (nothing else
    runs). Otherwise ``core_perft_cases`` (cases of ``suite`` up to ``max_nodes`` nodes),
    ``core_start_perft_depth`` and ``core_start_perft_nodes`` (perft from the start, deepest
    depth whose reference count stays within ``max_nodes`` / 10), ``core_positions``,
    ``core_moves`` and ``core_perft_checks`` (random games), and ``core_speed_ratio`` (the
    reference's perft time over the core's at that depth). Raises ``ConformanceError`` on
    the first difference.
    """
    from bots.engine.native import unsupported_reason

    reason = unsupported_reason(variant)
    if reason is not None:
        return {"core": f"not used: {reason}"}
    try:
        engine = _engine(variant)
    except (ValueError, OverflowError, MemoryError, RuntimeError) as exc:
        return {"core": f"not used: the core refuses these rules ({exc})"}
    summary: dict[str, object] = {"core": "used"}
    if suite is not None:
        summary["core_perft_cases"] = check_perft_file(variant, suite, max_nodes=max_nodes,
                                                       implementation=engine)
    start = variant.initial_position()
    depth, nodes, ref_time, core_time = 0, 0, 0.0, 0.0
    while depth < 12:
        t0 = time.perf_counter()
        expected = variant.perft(start, depth + 1)
        t1 = time.perf_counter()
        got = engine.perft(start, depth + 1)
        t2 = time.perf_counter()
        if got != expected:
            raise ConformanceError(f"{variant.key} perft from the start, depth {depth + 1}: "
                                   f"reference {expected}, compiled core {got}")
        depth, nodes, ref_time, core_time = depth + 1, expected, t1 - t0, t2 - t1
        if expected * 10 > max_nodes or ref_time > 5.0:
            break
    summary["core_start_perft_depth"] = depth
    summary["core_start_perft_nodes"] = nodes
    stats = check_implementation(variant, engine, games=games, seed=seed,
                                 max_plies=max_plies, perft_every=10)
    summary["core_positions"] = stats["positions"]
    summary["core_moves"] = stats["moves"]
    summary["core_perft_checks"] = stats["perft_checks"]
    summary["core_speed_ratio"] = round(ref_time / max(core_time, 1e-7), 1)
    return summary


# --- the quick check on first use ----------------------------------------------------------

_RESULTS: dict[str, str | None] = {}
_LOCK = threading.Lock()


def _spec_text(variant: Variant) -> str:
    """The rules the core reads for ``variant``, as canonical text."""
    from bots.engine import native

    return json.dumps(native.rules_spec(variant), sort_keys=True, default=str)


def rules_digest(variant: Variant) -> str:
    """The digest the self-check is kept under: the rules the core reads and the core's
    build (a rebuilt core is checked again)."""
    from bots.engine import native

    spec = _spec_text(variant)
    core = getattr(native.core_module(variant), "__file__", "") or ""
    try:
        stat = os.stat(core)
        build = f"{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        build = core
    return hashlib.sha256(f"{spec}|{build}".encode()).hexdigest()[:24]


def cache_dir() -> Path:
    """Where self-check results are kept between processes."""
    given = os.environ.get(DIR_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kondavo" / "self-check"


def _marker(digest: str) -> Path:
    return cache_dir() / f"{digest}.json"


def _read_marker(digest: str) -> tuple[bool, str | None]:
    try:
        data = json.loads(_marker(digest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, None
    if not isinstance(data, dict) or data.get("digest") != digest:
        return False, None
    failure = data.get("failure")
    return True, failure if isinstance(failure, str) else None


def _write_marker(digest: str, variant: Variant, failure: str | None) -> None:
    path = _marker(digest)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"digest": digest, "ruleset": variant.key,
                                   "failure": failure}), encoding="utf-8")
        tmp.replace(path)
    except OSError:  # a read-only cache only costs the next process the check again
        pass


def run_self_check(variant: Variant) -> str | None:
    """The quick check itself (no cache): None when the core agrees, else what differs."""
    try:
        engine = _engine(variant)
        start = variant.initial_position()
        for depth in range(1, SELF_CHECK_DEPTH + 1):
            expected, got = variant.perft(start, depth), engine.perft(start, depth)
            if expected != got:
                return (f"perft from the start, depth {depth}: reference {expected}, "
                        f"compiled core {got}")
        # The games depend on the rules only, not on the core's build: a ruleset meets the
        # same games on every server (a seed from the build made what the quick check
        # catches change with each compilation).
        seed = int(hashlib.sha256(_spec_text(variant).encode()).hexdigest()[:8], 16)
        check_implementation(variant, engine, games=SELF_CHECK_GAMES, seed=seed,
                             max_plies=SELF_CHECK_PLIES, perft_every=16)
    except ConformanceError as exc:
        return str(exc).splitlines()[0]
    except (ValueError, OverflowError, MemoryError, RuntimeError) as exc:
        return f"the core failed: {exc}"
    return None


def self_check(variant: Variant) -> str | None:
    """The quick check, once per rules digest: None when the core may play ``variant``,
    else why not (logged once, as a warning, when it is found)."""
    digest = rules_digest(variant)
    if digest in _RESULTS:
        return _RESULTS[digest]
    with _LOCK:
        if digest in _RESULTS:
            return _RESULTS[digest]
        known, failure = _read_marker(digest)
        if not known:
            started = time.perf_counter()
            failure = run_self_check(variant)
            _write_marker(digest, variant, failure)
            log.info("compiled core self-check of %s: %s in %.2f s", variant.key,
                     "ok" if failure is None else "FAILED", time.perf_counter() - started)
        if failure is not None:
            log.warning("the compiled core disagrees with the reference for ruleset %s (%s); "
                        "it is played by the pure-Python engine", variant.key, failure)
        _RESULTS[digest] = failure
        return failure


def forget_self_checks() -> None:
    """Drop this process's kept results (tests)."""
    with _LOCK:
        _RESULTS.clear()


__all__ = ["cache_dir", "check_core", "forget_self_checks", "rules_digest", "run_self_check",
           "self_check"]
