"""Move generation speed: perft nodes/s per ruleset, and the ratio against peers.

    python bench/movegen.py              # every ruleset, then the peers
    python bench/movegen.py --quick      # smaller depths
    python bench/movegen.py --no-peers

Kondavo has two move generators: the compiled core (``bots/native``, used by the bots) and
the pure-Python reference (``variants``). Both run per ruleset at the same depth, with the
ratio compiled / Python. Then International against the peers at equal depth, and finally
search speed: level 8 (1 s per move) on the compiled core and on the pure-Python engine,
next to dame-rs's engine given the same second.

- dame-rs (PyPI ``dame-rs``, Rust; ``pip install -e '.[bench]'``): ``dame.perft(Board(),
  depth)`` and ``dame.Engine().search(board, time=...)``, in this process.

Peers (benchmark-only, never runtime dependencies):

- py-draughts (PyPI ``py-draughts``): International perft through its public Board API
  (``Board()``, ``board.legal_moves``, ``push``/``pop``), the same bulk counting at the last
  ply as Kondavo's perft; its internal ``draughts.engines.turbo.perft`` is shown for context.
- pydraughts (PyPI ``pydraughts``): International (``Board(variant="standard")``,
  ``legal_moves()``, ``push``/``pop``) at a small depth.

Both install a top-level package named ``draughts``, so they cannot share one environment:
install each into its own directory and point this script at the parent directory
(``make bench-peers`` does this; default: ``.venv/bench-peers`` under the repository,
override with ``--peers-dir`` or ``KONDAVO_BENCH_PEERS``)::

    pip install --target .venv/bench-peers/py-draughts py-draughts
    pip install --target .venv/bench-peers/pydraughts pydraughts

Each peer runs in a subprocess with only its own directory added to ``sys.path``. Times are
CPU time of the process (``time.process_time``), so a busy machine skews them less. Ratios are
Kondavo nodes/s divided by the peer's nodes/s at the same depth; every count is checked.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# Depths that take from a fraction of a second to a few seconds each.
DEPTHS = {"international": 8, "english": 9, "brazilian": 9, "spanish": 9, "turkish": 7}
QUICK_DEPTHS = {"international": 7, "english": 8, "brazilian": 8, "spanish": 8, "turkish": 6}
PEER_DEPTH = {"py-draughts": 7, "pydraughts": 3}
QUICK_PEER_DEPTH = {"py-draughts": 6, "pydraughts": 2}
INTERNATIONAL_PERFT = {1: 9, 2: 81, 3: 658, 4: 4265, 5: 27117, 6: 167140, 7: 1049442}


def timed(fn: Callable[[], int], min_seconds: float = 0.0, repeat: int = 1) -> tuple[int, float]:
    """(nodes, best seconds per run); small runs are looped until ``min_seconds`` pass."""
    best = float("inf")
    nodes = 0
    for _ in range(repeat):
        runs = 0
        start = time.process_time()
        while True:
            nodes = fn()
            runs += 1
            elapsed = time.process_time() - start
            if elapsed >= min_seconds:
                break
        best = min(best, elapsed / runs)
    return nodes, best


def expected_nodes(key: str, depth: int) -> int | None:
    from variants.conformance import read_perft_file

    path = REPO / "variants" / "perft" / f"{key}.perft"
    if not path.exists():
        return None
    for case in read_perft_file(path):
        if case.name == "start" and case.depth == depth:
            return case.nodes
    return None


def kondavo_perft(key: str, depth: int, repeat: int = 1,
                  min_seconds: float = 0.0) -> tuple[int, float]:
    from variants import get_variant

    variant = get_variant(key)
    start = variant.initial_position()
    return timed(lambda: variant.perft(start, depth), min_seconds, repeat)


def compiled_perft(key: str, depth: int, repeat: int = 1,
                   min_seconds: float = 0.0) -> tuple[int, float] | None:
    """Perft on the compiled core, or None when it cannot play ``key`` here."""
    from bots.engine.native import native_engine, native_supported
    from variants import get_variant

    variant = get_variant(key)
    if not native_supported(variant):
        return None
    engine = native_engine(variant)
    start = variant.initial_position()
    return timed(lambda: engine.perft(start, depth), min_seconds, repeat)


def dame_perft(depth: int, repeat: int = 1, min_seconds: float = 0.0) -> tuple[int, float] | None:
    try:
        import dame  # type: ignore[import-not-found]
    except ImportError:
        return None
    return timed(lambda: int(dame.perft(dame.Board(), depth)), min_seconds, repeat)


def search_speed(seconds: float) -> None:
    """Level 8 from the International start: nodes/s on both engines and dame-rs's."""
    from bots.engine import EngineConfig, search_level
    from bots.engine.native import native_supported
    from variants import get_variant

    variant = get_variant("international")
    config = EngineConfig(move_time=seconds)
    print(f"\nSearch, International start position, {seconds:g} s (wall clock)")
    rows: dict[str, float] = {}
    for engine in ("native", "python"):
        if engine == "native" and not native_supported(variant):
            print("  compiled core: not available")
            continue
        if engine == "native":
            from bots.engine.native import native_engine

            native_engine(variant).clear()
        result = search_level(variant, variant.initial_position(), level=8, seed=1, book=False,
                              config=config, engine=engine)
        nps = result.nodes / result.elapsed
        rows[engine] = nps
        label = "Kondavo level 8, compiled" if engine == "native" else \
            "Kondavo level 8, Python"
        print(f"  {label:<28} depth {result.depth:>2}  {result.nodes:>10,} nodes  "
              f"{nps:>12,.0f} nodes/s")
    try:
        import dame
    except ImportError:
        print("  dame-rs: not installed (pip install -e '.[bench]')")
        return
    started = time.perf_counter()
    found = dame.Engine().search(dame.Board(), time=seconds)
    elapsed = time.perf_counter() - started
    nps = found.nodes / elapsed
    print(f"  {'dame-rs engine':<28} depth {found.depth:>2}  {found.nodes:>10,} nodes  "
          f"{nps:>12,.0f} nodes/s")
    if "native" in rows:
        print(f"  compiled / dame-rs nodes/s: {rows['native'] / nps:.2f}x; compiled / Python: "
              f"{rows['native'] / rows.get('python', 1):.0f}x")


# --- peers (run in a subprocess: ``movegen.py --peer NAME --depth N``) -------------------------

def _push_pop_perft(board: Any, depth: int, legal: Callable[[Any], Any]) -> int:
    """Perft through a peer's public board API, bulk-counting the last ply as Kondavo does."""
    moves = list(legal(board))
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += _push_pop_perft(board, depth - 1, legal)
        board.pop()
    return total


def _peer_py_draughts(depth: int) -> dict[str, Any]:
    from draughts import Board  # type: ignore[import-not-found]

    nodes, seconds = timed(lambda: _push_pop_perft(Board(), depth, lambda b: b.legal_moves))
    out: dict[str, Any] = {"nodes": nodes, "seconds": seconds}
    try:
        from draughts.engines.turbo import perft_from_board  # type: ignore[import-not-found]

        t_nodes, t_seconds = timed(lambda: int(perft_from_board(Board(), depth)))
        out["turbo"] = {"nodes": t_nodes, "seconds": t_seconds}
    except ImportError:
        pass
    return out


def _peer_pydraughts(depth: int) -> dict[str, Any]:
    from draughts import Board

    nodes, seconds = timed(lambda: _push_pop_perft(Board(variant="standard"), depth,
                                                   lambda b: b.legal_moves()))
    return {"nodes": nodes, "seconds": seconds}


PEERS: dict[str, Callable[[int], dict[str, Any]]] = {
    "py-draughts": _peer_py_draughts,
    "pydraughts": _peer_pydraughts,
}


def run_peer(name: str, depth: int, peers_dir: Path) -> dict[str, Any] | None:
    where = peers_dir / name
    if not where.is_dir():
        print(f"  {name}: not installed in {where} (see the module docstring)")
        return None
    env = dict(os.environ, PYTHONPATH=str(where))
    proc = subprocess.run([sys.executable, "-B", str(Path(__file__)),
                           "--peer", name, "--depth", str(depth)],
                          capture_output=True, text=True, env=env, cwd=str(where))
    if proc.returncode != 0:
        print(f"  {name}: failed\n{proc.stderr.strip()[-2000:]}")
        return None
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--no-search", action="store_true", help="skip the search speed part")
    parser.add_argument("--move-time", type=float, default=1.0,
                        help="seconds per search in the search part")
    parser.add_argument("--repeat", type=int, default=2, help="best of N runs (Kondavo)")
    parser.add_argument("--peers-dir", type=Path,
                        default=Path(os.environ.get("KONDAVO_BENCH_PEERS",
                                                    REPO / ".venv" / "bench-peers")))
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    parser.add_argument("--depth", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.peer:  # subprocess mode
        print(json.dumps(PEERS[args.peer](args.depth)))
        return 0

    from variants import variant_keys

    depths = QUICK_DEPTHS if args.quick else DEPTHS
    print(f"Kondavo perft from the start position (Python {sys.version.split()[0]}, "
          f"best of {args.repeat}): pure-Python reference, then the compiled core")
    status = 0
    for key in variant_keys():
        depth = depths.get(key, 6)
        nodes, seconds = kondavo_perft(key, depth, args.repeat)
        want = expected_nodes(key, depth)
        check = "" if want is None else (" ok" if want == nodes else f" WRONG (want {want})")
        if want is not None and want != nodes:
            status = 1
        print(f"  {key:<14} depth {depth}  {nodes:>11,} nodes  {seconds:7.2f} s  "
              f"{nodes / seconds:>12,.0f} nodes/s  Python{check}")
        compiled = compiled_perft(key, depth, args.repeat, min_seconds=0.3)
        if compiled is None:
            print(f"  {key:<14} compiled core not available for this ruleset")
            continue
        c_nodes, c_seconds = compiled
        c_check = " ok" if c_nodes == nodes else f" WRONG (Python counts {nodes})"
        if c_nodes != nodes:
            status = 1
        print(f"  {'':<14} depth {depth}  {c_nodes:>11,} nodes  {c_seconds:7.3f} s  "
              f"{c_nodes / c_seconds:>12,.0f} nodes/s  compiled, "
              f"{(c_nodes / c_seconds) / (nodes / seconds):,.0f}x Python{c_check}")
    if args.no_peers:
        if not args.no_search:
            search_speed(args.move_time)
        return status

    peer_depths = QUICK_PEER_DEPTH if args.quick else PEER_DEPTH
    dame_depth = 8 if args.quick else 9
    print(f"\nInternational against dame-rs (Rust), depth {dame_depth}")
    theirs_dame = dame_perft(dame_depth, args.repeat)
    ours_c = compiled_perft("international", dame_depth, args.repeat)
    if theirs_dame is None:
        print("  dame-rs: not installed (pip install -e '.[bench]')")
    elif ours_c is None:
        print("  compiled core: not available")
    else:
        expected = expected_nodes("international", dame_depth)
        for label, (n, sec) in (("dame-rs perft", theirs_dame), ("Kondavo compiled", ours_c)):
            ok = "" if n == expected else f"  (count {n:,} != {expected})"
            print(f"  {label:<28} {n:>11,} nodes  {sec:7.3f} s  {n / sec:>12,.0f} nodes/s{ok}")
        print(f"  ratio compiled / dame-rs: "
              f"{(ours_c[0] / ours_c[1]) / (theirs_dame[0] / theirs_dame[1]):.2f}x")
        if ours_c[0] != expected:
            status = 1

    print(f"\nInternational against Python peers (same depth, peers in {args.peers_dir})")
    for name, depth in peer_depths.items():
        peer = run_peer(name, depth, args.peers_dir)
        if peer is None:
            continue
        ours_nodes, ours_seconds = kondavo_perft("international", depth, args.repeat,
                                                 min_seconds=0.5)
        ours = ours_nodes / ours_seconds
        compiled = compiled_perft("international", depth, args.repeat, min_seconds=0.5)
        ours_c_nps = compiled[0] / compiled[1] if compiled else None
        expected = INTERNATIONAL_PERFT[depth]
        for label, data in ((name + " (Board API)", peer), (name + " (turbo perft)",
                                                            peer.get("turbo"))):
            if data is None:
                continue
            theirs = data["nodes"] / data["seconds"]
            ok = "" if data["nodes"] == expected else f"  (their count {data['nodes']:,} " \
                                                      f"!= {expected:,})"
            print(f"  {label:<28} depth {depth}: {theirs:>12,.0f} nodes/s; Kondavo Python "
                  f"{ours:>12,.0f} nodes/s ({ours / theirs:,.1f}x){ok}")
            if ours_c_nps is not None:
                print(f"  {'':<28}          Kondavo compiled {ours_c_nps:>12,.0f} nodes/s "
                      f"({ours_c_nps / theirs:,.0f}x)")
        if ours_nodes != expected:
            status = 1
    if not args.no_search:
        search_speed(args.move_time)
    return status


if __name__ == "__main__":
    sys.exit(main())
