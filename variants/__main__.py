"""Command line for the rules engine. Tools outside the team depend on this contract::

    python -m variants list                 # one key per line; broken ruleset files of
                                            # KONDAVO_RULESET_DIRS on stderr (exit 0)
    python -m variants perft VARIANT DEPTH [--fen FEN] [--divide]
                                            # last line printed: the node count
    python -m variants moves VARIANT [--fen FEN] [--json]
        # without --fen: one FEN per stdin line, one output line per FEN line
    python -m variants check VARIANT [--perft FILE] [--max-nodes N] [--games N] [--seed S]
                             [--no-core]
        # the conformance kit; exit 0 when every check passes, 1 when one fails. Then,
        # when the project's engine (bots) is installed, the compiled core against the
        # reference for that ruleset (core_* lines), or why the core does not play it
        # (core: not used: ...); --no-core skips that.
    python -m variants export VARIANT       # the ruleset as a data-only ruleset file (TOML)

Everywhere, VARIANT is a ruleset key or alias, or the path of a data-only ruleset file
(``*.toml``) to try it before installing it.

``moves`` prints the notations space-separated and sorted, or with ``--json`` a JSON array of
``{"notation": str, "path": [sq...], "captured": [sq...]}`` where squares are labels as in
the ruleset's notation (JSON numbers for numeric rulesets, strings for algebraic ones).
Errors go to stderr with exit code 2; in stdin mode a bad line prints an error line for that
line on stdout (``error: ...``, or ``{"error": "..."}`` with ``--json``) so output stays one
line per input line, and the exit code is 2 at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from variants.base import Notation, Variant
from variants.conformance import ConformanceError, perft_divide, run_all
from variants.errors import VariantError
from variants.reference import covers
from variants.registry import _env_dirs, get_variant, variant_keys
from variants.spec import declarative_reason
from variants.toml_rulesets import load_ruleset_file, scan_ruleset_dir
from variants.types import Position, Square

EXIT_ERROR = 2


def _square_value(variant: Variant, square: Square) -> int | str:
    label = variant.square_label(square)
    return int(label) if variant.notation is Notation.NUMERIC else label


def move_dicts(variant: Variant, position: Position) -> list[dict[str, object]]:
    """The legal moves of ``position`` as JSON-ready dicts, sorted by notation."""
    legal = variant.legal_moves(position)
    out: list[dict[str, object]] = []
    for move in legal:
        out.append({
            "notation": variant.format_move(position, move, legal),
            "path": [_square_value(variant, s) for s in move.path],
            "captured": [_square_value(variant, s) for s in move.captured],
        })
    out.sort(key=lambda d: str(d["notation"]))
    return out


def moves_line(variant: Variant, fen: str, as_json: bool) -> str:
    position = variant.parse_fen(fen)
    if as_json:
        return json.dumps(move_dicts(variant, position))
    legal = variant.legal_moves(position)
    return " ".join(sorted(variant.format_move(position, m, legal) for m in legal))


def _ruleset(name: str) -> Variant:
    """A registered ruleset by key or alias, or the ruleset a ``*.toml`` file declares."""
    if name.endswith(".toml"):
        return load_ruleset_file(name)  # RulesetFileError names the file and the field
    return get_variant(name)


def _cmd_list(out: TextIO, err: TextIO) -> int:
    for key in variant_keys():
        print(key, file=out)
    for directory in _env_dirs():
        for exc in scan_ruleset_dir(directory)[1]:
            print(f"error: skipped: {exc}", file=err)
    return 0


def _cmd_perft(args: argparse.Namespace, out: TextIO) -> int:
    variant = _ruleset(args.variant)
    position = variant.parse_fen(args.fen) if args.fen else variant.initial_position()
    if args.depth < 0:
        raise VariantError("DEPTH must be 0 or more")
    if args.divide and args.depth >= 1:
        total = 0
        for notation, nodes in perft_divide(variant, position, args.depth):
            print(f"{notation} {nodes}", file=out)
            total += nodes
        print(total, file=out)
    else:
        print(variant.perft(position, args.depth), file=out)
    return 0


def _cmd_moves(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    variant = _ruleset(args.variant)
    if args.fen is not None:
        print(moves_line(variant, args.fen, args.json), file=out)
        return 0
    status = 0
    for number, line in enumerate(stdin, 1):
        fen = line.strip()
        try:
            if not fen:
                raise VariantError("empty line, expected a FEN")
            print(moves_line(variant, fen, args.json), file=out)
        except VariantError as exc:
            status = EXIT_ERROR
            message = f"line {number}: {exc}"
            if args.json:
                print(json.dumps({"error": message}), file=out)
            else:
                print(f"error: {message}", file=out)
            print(f"error: {message}", file=err)
        out.flush()
    return status


def _cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    variant = _ruleset(args.variant)
    suite = args.perft or variant.perft_suite_path()
    print(f"checking {variant.key} ({variant.name})", file=out)
    if suite is None:
        print("warning: the ruleset declares no reference perft suite (perft_suite); "
              "only the self-consistency checks run", file=out)
    else:
        print(f"reference perft: {suite} (cases up to {args.max_nodes} nodes)", file=out)
    try:
        summary = run_all(variant, suite, games=args.games, seed=args.seed,
                          max_nodes=args.max_nodes)
    except ConformanceError as exc:
        print(f"FAILED: {exc}", file=out)
        return 1
    except (OSError, ValueError) as exc:  # unreadable or malformed perft suite
        print(f"error: {exc}", file=err)
        return EXIT_ERROR
    for name, value in summary.items():
        print(f"  {name}: {value}", file=out)
    reason = declarative_reason(variant)
    print("  declarative: " + ("yes (its moves follow from its rules specification)"
                               if reason is None else f"no: {reason}"), file=out)
    if not covers(variant):
        print(f"  reference generator: not compared ({reason})", file=out)
    if not args.no_core:
        try:
            core = _core_summary(variant, suite, args)
        except ConformanceError as exc:
            print(f"FAILED (compiled core): {exc}", file=out)
            return 1
        for name, result in core.items():
            print(f"  {name}: {result}", file=out)
    print("ok", file=out)
    return 0


def _cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from variants.export import ruleset_to_toml

    out.write(ruleset_to_toml(_ruleset(args.variant)))
    return 0


def _core_summary(variant: Variant, suite: str | Path | None,
                  args: argparse.Namespace) -> dict[str, object]:
    """The compiled core checked against this ruleset's generator, when the engine is
    installed (``bots.engine.core_check``; this library does not need it)."""
    try:
        from bots.engine.core_check import check_core
    except ImportError:
        return {"core": "not checked (the engine package, bots, is not installed)"}
    return check_core(variant, suite, games=args.games, seed=args.seed,
                      max_nodes=args.max_nodes)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m variants",
                                     description="Kondavo draughts rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print the ruleset keys, one per line")
    p = sub.add_parser("perft", help="count leaf nodes; the last line is the node count")
    p.add_argument("variant", help="a ruleset key, or the path of a ruleset .toml file")
    p.add_argument("depth", type=int)
    p.add_argument("--fen", help="start position (default: the initial position)")
    p.add_argument("--divide", action="store_true", help="one line per root move first")
    m = sub.add_parser("moves", help="legal moves of a FEN (or of each stdin line)")
    m.add_argument("variant", help="a ruleset key, or the path of a ruleset .toml file")
    m.add_argument("--fen", help="the position (default: read one FEN per stdin line)")
    m.add_argument("--json", action="store_true", help="a JSON array per position")
    c = sub.add_parser("check", help="run the conformance kit on a ruleset")
    c.add_argument("variant", help="a ruleset key, or the path of a ruleset .toml file")
    c.add_argument("--perft", help="perft suite file (default: the ruleset's perft_suite)")
    c.add_argument("--max-nodes", type=int, default=2_000_000,
                   help="skip perft cases with more nodes than this (default 2000000)")
    c.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    c.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    c.add_argument("--no-core", action="store_true",
                   help="skip the compiled core's check against the reference")
    e = sub.add_parser("export", help="print a ruleset as a data-only ruleset file (TOML)")
    e.add_argument("variant", help="a ruleset key, or the path of a ruleset .toml file")
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None, stdin: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    stdin = sys.stdin if stdin is None else stdin
    args = build_parser().parse_args(argv)
    try:
        if args.command == "list":
            return _cmd_list(out, err)
        if args.command == "perft":
            return _cmd_perft(args, out)
        if args.command == "check":
            return _cmd_check(args, out, err)
        if args.command == "export":
            return _cmd_export(args, out)
        return _cmd_moves(args, out, err, stdin)
    except VariantError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
