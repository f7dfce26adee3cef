"""The compiled core (``bots.native._kdcore``, and ``_kdcore64``) seen from Python.

A ruleset reaches the core as data: :func:`rules_spec` turns a :class:`~variants.base.Variant`
into the dict the core reads (geometry, the men's directions per colour, declared rules),
:func:`eval_params` gives the flat evaluation array described in ``bots/native/eval.h``
(the fitted evaluation of :mod:`bots.engine.features`). :func:`native_supported` says whether
the core can play a ruleset exactly like the reference engine in ``variants``: it is False
(and the pure-Python engine is used) when the extension is not built, when
``KONDAVO_ENGINE=python`` is set, when the ruleset is not fully declarative
(:func:`variants.spec.declarative_reason`: a generation override, a history hook, a rule the
spec cannot say), when it declares a rule value the core does not implement, or, for a
ruleset that is not built in, when the quick self-check against the reference finds a
difference the first time this server would use it (:mod:`bots.engine.core_check`).
:func:`core_reason` says which.

:func:`native_engine` returns the per-process engine of a ruleset (its transposition table
survives between the searches of a game; it gets the ruleset's endgame tables from the cache
directory, or as this process's solver says, :mod:`bots.engine.tables`);
:meth:`NativeEngine.search` returns the same :class:`~bots.engine.search.SearchResult` as the
pure-Python search, with moves taken from ``variant.legal_moves`` so they are the
reference's own objects.

The core is built twice from the same sources: ``_kdcore`` with 128-bit boards (any board up
to 128 squares) and ``_kdcore64`` with 64-bit boards, which search the same trees 1.3-1.4
times faster (``bench/results/strength.md``, "64-bit boards"). :func:`core_module` gives a
ruleset the 64-bit build when its board has at most 64 squares (every built-in ruleset).

Special outcomes (``Variant.special_outcome``) are known to the compiled search for
positions with one piece per side (:func:`special_table` probes the ruleset's hook on every
such position once); a ruleset whose special outcomes need more pieces is searched without
those. Game results are always decided by ``variants``.
"""

from __future__ import annotations

import functools
import json
import os
import random
import threading
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any
from weakref import WeakKeyDictionary

from bots.engine.features import DATA_DIR, native_params
from bots.engine.search import MATE, SearchResult
from variants.base import Precedence, PromotionRule, Variant
from variants.game import GameRecord
from variants.registry import BUILTINS
from variants.spec import declarative_reason
from variants.types import Color, Move, Position

_kdcore: ModuleType | None
try:  # the extension is built by `pip install`; without it everything runs in Python
    import bots.native._kdcore as _kdcore
except ImportError:  # pragma: no cover - exercised by the fallback test in a subprocess
    _kdcore = None
_kdcore64: ModuleType | None
try:  # the same core with 64-bit boards (setup.py builds both)
    import bots.native._kdcore64 as _kdcore64
except ImportError:  # pragma: no cover - an install whose 64-bit build failed
    _kdcore64 = None

ENGINE_ENV = "KONDAVO_ENGINE"
TT_MB = int(os.environ.get("KONDAVO_ENGINE_TT_MB", "16"))

_PROMOTION = {PromotionRule.STAYS_MAN: 0, PromotionRule.ENDS_MOVE: 1,
              PromotionRule.CONTINUES_AS_KING: 2}

# Capture precedence: criterion names (in the declared order) -> the core's codes.
_CRITERION_CODES = {"MOST_PIECES": 1, "MOST_KINGS": 2, "WITH_KING": 3, "EARLIEST_KING": 4,
                    "MOST_VALUE": 5}
_PRECEDENCE_NAMES: dict[Precedence, tuple[str, ...]] = {
    Precedence.FREE: (), Precedence.MAX_PIECES: ("MOST_PIECES",),
    Precedence.MAX_PIECES_THEN_KINGS: ("MOST_PIECES", "MOST_KINGS"),
}


def native_available() -> bool:
    """The extension is built and not switched off with ``KONDAVO_ENGINE=python``."""
    return _kdcore is not None and os.environ.get(ENGINE_ENV, "").lower() != "python"


def core_module(variant: Variant) -> ModuleType | None:
    """The build of the core that plays ``variant``: the 64-bit one when its board fits in
    64 squares, else the 128-bit one (None: the core is not built)."""
    if _kdcore is None:
        return None
    if _kdcore64 is not None and variant.move_geometry.size <= _kdcore64.MAX_SQUARES:
        return _kdcore64
    return _kdcore


def unsupported_reason(variant: Variant) -> str | None:
    """Why ``variant`` cannot run on the compiled core, or None when it can: first whether
    it is fully declarative (:func:`variants.spec.declarative_reason`), then the core's own
    limits."""
    if _kdcore is None:
        return "the compiled core is not built"
    reason = declarative_reason(variant)
    if reason is not None:
        return reason
    if _criteria_codes(variant) is None:
        return f"precedence {variant.precedence!r}"
    if variant.mid_capture_promotion not in _PROMOTION:
        return f"mid-capture promotion {variant.mid_capture_promotion!r}"
    board = set(variant.geometry.vectors)
    odd = [v for v in variant.spec.man_move_vectors if tuple(v) not in board]
    if odd:  # the evaluation's men's mobility follows the board's lines only
        return (f"men step along {list(odd[0])}, off the board's lines: the compiled core's "
                "evaluation does not know such steps yet")
    g = variant.move_geometry
    if g.size > _kdcore.MAX_SQUARES or len(g.vectors) > 8:
        return (f"{g.size} squares / {len(g.vectors)} directions exceed the core's limits "
                f"({_kdcore.MAX_SQUARES} squares, 8 directions)")
    if any(len(ray) >= 16 for rays in g.rays for ray in rays):
        return "rays longer than the core's limit"
    return None


def _criteria_codes(variant: Variant) -> list[int] | None:
    """The declared capture precedence as the core's criterion codes, in order (None: a
    criterion the core does not know)."""
    criteria: object = getattr(variant, "capture_criteria", None)
    if criteria is None:
        precedence: object = variant.precedence
        criteria = _PRECEDENCE_NAMES.get(precedence) if isinstance(precedence, Precedence) \
            else precedence
    if not isinstance(criteria, tuple):
        return None
    names = [str(getattr(c, "name", c)) for c in criteria]
    if any(name not in _CRITERION_CODES for name in names) or len(names) > 8:
        return None
    return [_CRITERION_CODES[name] for name in names]


def native_supported(variant: Variant) -> bool:
    """Whether the compiled core plays ``variant`` (else the pure-Python engine does):
    :func:`core_reason` is None. The answer is kept per ruleset object."""
    if not native_available():
        return False
    known = _SUPPORTED.get(variant)
    if known is None:
        known = core_reason(variant) is None
        _SUPPORTED[variant] = known
    return known


def core_reason(variant: Variant) -> str | None:
    """Why the compiled core does not play ``variant`` on this server, or None when it does.

    :func:`unsupported_reason` first; then, for a ruleset that is not built in (a plugin or
    a ruleset file), the quick self-check against the reference
    (:func:`bots.engine.core_check.self_check`, once per rules digest: a difference is
    logged and the ruleset is played in Python); last, the ruleset's engine must build (the
    core refuses tables beyond its limits).
    """
    reason = unsupported_reason(variant) or self_check_reason(variant)
    if reason is not None:
        return reason
    try:
        native_engine(variant)
    except (ValueError, OverflowError, MemoryError, RuntimeError) as exc:
        return f"the core refuses these rules: {exc}"
    return None


def self_check_reason(variant: Variant) -> str | None:
    """None for a built-in ruleset (the project's tests check those); for any other, the
    result of the quick self-check of the core against the reference, run the first time
    it is asked for these rules (:func:`bots.engine.core_check.self_check`)."""
    if type(variant) in {type(builtin) for builtin in BUILTINS}:
        return None
    from bots.engine.core_check import self_check

    failure = self_check(variant)
    if failure is None:
        return None
    return f"the self-check against the reference failed: {failure}"


def rules_spec(variant: Variant) -> dict[str, Any]:
    """The ruleset as the data ``bots/native/kd_core.h`` (KdRules) describes: its
    :class:`~variants.spec.RulesSpec` (``variant.spec``) over its board's geometry. The
    tables cover the generator's directions (``move_geometry``: the board's lines first,
    then the ones only the pieces' declared vectors use)."""
    g = variant.move_geometry
    spec = variant.spec
    vec = {v: i for i, v in enumerate(g.vectors)}
    flying_captures = spec.flying_kings if spec.flying_captures is None \
        else spec.flying_captures

    def dirs(vectors: Sequence[tuple[int, int]], color: Color) -> list[int]:
        sign = 1 if color is Color.WHITE else -1
        return [vec[(dr * sign, dc)] for dr, dc in vectors]

    return {
        "squares": g.size,
        "directions": len(variant.geometry.vectors),
        "all_directions": len(g.vectors),
        "rows": spec.rows,
        "neighbour": [list(row) for row in g.neighbour],
        "opposite": list(g.opposite),
        "rank": [r for r, _c in g.coords],
        "promotion": [variant.promotion_squares(Color.WHITE),
                      variant.promotion_squares(Color.BLACK)],
        "man_moves": [dirs(spec.man_move_vectors, c) for c in Color],
        "man_captures": [dirs(spec.man_capture_vectors, c) for c in Color],
        "king_moves": [vec[v] for v in spec.king_move_vectors or spec.vectors],
        "king_captures": [vec[v] for v in spec.king_capture_vectors or spec.vectors],
        "flying_kings": int(spec.flying_kings),
        "flying_captures": int(flying_captures),
        "king_landing_next": int(spec.king_landing == "next"),
        "criteria": _criteria_codes(variant),
        "piece_values": list(spec.piece_values),
        "men_capture_kings": int(spec.men_capture_kings),
        "immediate_removal": int(spec.immediate_removal),
        "no_reversal": int(spec.no_reversal),
        "promotion_rule": _PROMOTION[spec.mid_capture_promotion],
        "draw_plies": spec.draw_plies,
        "repetitions": spec.repetitions,
    }


def special_table(variant: Variant) -> bytes:
    """The ruleset's special outcomes with one piece per side, probed from its hook (the
    layout of ``kd_engine_set_special`` in ``bots/native/search.h``); empty when the
    ruleset has no special outcomes."""
    if type(variant).special_outcome is Variant.special_outcome:
        return b""
    n = variant.geometry.size
    codes = {None: 0, Color.WHITE: 1, Color.BLACK: 2}
    table = bytearray(8 * n * n)
    index = 0
    for turn in Color:
        for white_king in (0, 1):
            for ws in range(n):
                wbit = 1 << ws
                for black_king in (0, 1):
                    for bs in range(n):
                        if bs != ws:
                            bbit = 1 << bs
                            position = Position(0 if white_king else wbit,
                                                wbit if white_king else 0,
                                                0 if black_king else bbit,
                                                bbit if black_king else 0, turn)
                            outcome = variant.special_outcome(position)
                            if outcome is not None:
                                table[index] = 3 if outcome.winner is None else \
                                    codes[outcome.winner]
                        index += 1
    return bytes(table) if any(table) else b""


SEARCH_PROFILES = DATA_DIR / "search.json"
# The core's selective schemes by name, in the order of KD_SELECT_* (bots/native/search.h).
SELECTIVITY = ("scan", "scan-calm", "calm")


@functools.cache
def _profiles() -> dict[str, dict[str, str]]:
    data = json.loads(SEARCH_PROFILES.read_text(encoding="utf-8"))
    profiles = {key: value for key, value in data.items() if isinstance(value, dict)}
    for key, value in profiles.items():
        if value.get("selectivity") not in SELECTIVITY:
            raise ValueError(f"{SEARCH_PROFILES.name}: {key}: selectivity must be one of "
                             f"{', '.join(SELECTIVITY)}")
    return profiles


def search_profile(variant: Variant) -> dict[str, str]:
    """How selective the compiled search is for ``variant`` (``KdSearchProfile`` in
    ``bots/native/search.h``): the ruleset's entry in ``bots/engine/data/search.json``, else
    that file's ``default`` (a plugin ruleset gets the default)."""
    profiles = _profiles()
    entry = profiles.get(variant.key, profiles["default"])
    return {"selectivity": entry["selectivity"]}


def eval_params(variant: Variant) -> list[int]:
    """The flat evaluation array of ``bots/native/eval.h``: the fitted evaluation's tables
    (:func:`bots.engine.features.native_params`)."""
    return native_params(variant)


def _history_of(target: GameRecord | Position) -> tuple[Position, list[Position], int]:
    """Root, the earlier positions that can still repeat, and the draw counter."""
    if isinstance(target, GameRecord):
        positions = target.positions
        quiet = target.quiet_plies
        earlier = list(positions[:-1])
        return positions[-1], earlier[len(earlier) - min(quiet, len(earlier)):], quiet
    return target, [], 0


def _key(raw: Sequence[int]) -> tuple[int, int, int]:
    return (int(raw[0]), int(raw[1]), int(raw[2]))


def _args(p: Position) -> tuple[int, int, int, int, int]:
    return p.white_men, p.white_kings, p.black_men, p.black_kings, int(p.turn)


class NativeEngine:
    """One ruleset on the compiled core: move generation, perft, evaluation and search.

    The transposition table persists between searches; :meth:`clear` empties it. Searches
    on one engine are serialised; a search that finds the engine busy (another thread) runs
    on a temporary engine with a small table instead of waiting.
    """

    def __init__(self, variant: Variant, tt_mb: int = TT_MB,
                 params: Sequence[int] | None = None, module: ModuleType | None = None) -> None:
        """``params``: evaluation parameters other than the ruleset's committed ones
        (:func:`eval_params`), e.g. for the strength lab or the training data. ``module``:
        another build of the extension (the strength lab's build against build)."""
        built = module or core_module(variant)
        if built is None:
            raise RuntimeError("the compiled core is not built")
        reason = unsupported_reason(variant)
        if reason is None and variant.move_geometry.size > built.MAX_SQUARES:
            reason = f"this build holds boards of at most {built.MAX_SQUARES} squares"
        if reason is not None:
            raise ValueError(f"{variant!r} cannot run on the compiled core: {reason}")
        self.variant = variant
        self._spec = rules_spec(variant)
        self._params = list(params) if params is not None else eval_params(variant)
        self._module: ModuleType = built
        self._special = special_table(variant)
        self.profile = search_profile(variant)
        self.table_pieces = 0
        self.tables_wanted = 0  # the pieces the budget allows (bots.engine.tables.refresh)
        self._tables: bytes | memoryview = b""
        self.tables_recheck_at = 0.0  # monotonic time of the next look for tables on disk
        self.core = self._new_core(tt_mb)
        self._lock = threading.Lock()

    def _new_core(self, tt_mb: int) -> Any:
        core = self._module.Core(self._spec, self._params, tt_mb)
        # an older build (the lab's --against-build) may have no set_profile, or one that
        # takes a flag (calm_only), which any scheme but scan sets
        if hasattr(core, "set_profile"):
            core.set_profile(SELECTIVITY.index(self.profile["selectivity"]))
        if self._special:
            core.set_special(self._special)
        if self.table_pieces:  # a temporary core (a second thread) shares the tables
            core.set_tables(self.table_pieces, self._tables)
        return core

    # --- move generation ------------------------------------------------------------------
    def legal_moves(self, position: Position) -> list[Move]:
        return [Move(path, captured, promotes, mask)
                for path, captured, promotes, mask in self.core.legal_moves(*_args(position))]

    def perft(self, position: Position, depth: int) -> int:
        return int(self.core.perft(*_args(position), depth))

    def evaluate(self, position: Position) -> int:
        return int(self.core.evaluate(*_args(position)))

    def hash(self, position: Position) -> int:
        return int(self.core.hash(*_args(position)))

    def clear(self) -> None:
        with self._lock:
            self.core.clear()

    # --- endgame tables (bots.engine.tables) --------------------------------------------
    @property
    def special(self) -> bytes:
        """The special outcomes with one piece a side the core knows (:func:`special_table`;
        empty: none): its search and its endgame tables end the game there."""
        return self._special

    @property
    def tables_exact(self) -> bool:
        """Whether this build of the core solves this ruleset's tables exactly: a build
        older than special outcomes in the tables (the strength lab's ``--against-build``)
        would solve them without, so it gets none for such a ruleset."""
        return not self._special or bool(getattr(self._module, "TABLES_WITH_SPECIAL", 0))

    def set_tables(self, pieces: int, data: bytes | memoryview) -> None:
        """Endgame tables solved for ``pieces`` (``b""`` removes them; a memory map of the
        cache file is read in place); waits for a running search to end."""
        with self._lock:
            self.core.set_tables(pieces, data)  # read in place: kept alive in self._tables
            self._tables = data
            self.table_pieces = pieces if data else 0

    def probe(self, position: Position) -> int:
        """The tables' byte for ``position`` (``bots/native/tables.h``: 0 draw, else 1 +
        plies to the end, odd = the side to move wins), -1 when it is not in them."""
        return int(self.core.probe(*_args(position)))

    # --- search ---------------------------------------------------------------------------
    def search(self, target: GameRecord | Position, *, max_depth: int = 64,
               time_limit: float | None = None, node_limit: int | None = None,
               seed: int | None = None, noise: int = 0,
               reuse_table: bool | None = None, tables: bool | None = None,
               target_time: float | None = None) -> SearchResult:
        """Search like :func:`bots.engine.search.search`.

        ``reuse_table``: let what earlier searches left in the transposition table guide
        this one (default: only for searches without a node limit; a node-bounded search
        then gives the same move for the same seed whatever ran before, as the levels
        promise). ``tables``: score positions in the endgame tables exactly, when the
        engine has them (default: likewise only without a node limit). ``target_time``: a
        clock's share; the search may end after an iteration before ``time_limit``
        (``bots/native/search.c``, Time).
        """
        started = time.perf_counter()
        variant = self.variant
        root, earlier, quiet = _history_of(target)
        legal = variant.legal_moves(root)
        if not legal:
            return SearchResult(None, -MATE, 0, 0, time.perf_counter() - started)
        history = [self.hash(p) for p in earlier]
        seed_value = random.Random(seed).getrandbits(64)
        fresh = node_limit is not None if reuse_table is None else not reuse_table
        use_tables = node_limit is None if tables is None else tables
        args = (*_args(root), max_depth, time_limit or 0.0, node_limit or 0, max(0, noise),
                seed_value, quiet, history, fresh, use_tables)
        # by name and only when given: a build of the core from before it (the strength
        # lab's --against-build) takes the other arguments
        extra = {"soft_time": target_time} if target_time else {}
        if self._lock.acquire(blocking=False):
            try:
                raw = self.core.search(*args, **extra)
            finally:
                self._lock.release()
        else:
            raw = self._new_core(4).search(*args, **extra)
        best_key, score, depth, nodes, stopped, pv_keys = raw
        by_key = {m.key: m for m in legal}
        best = by_key.get(_key(best_key)) if best_key is not None else None
        if best is None:  # cannot happen with a correct core; never play an illegal move
            raise RuntimeError(f"compiled core returned a move not legal in "
                               f"{variant.format_fen(root)}: {best_key}")
        pv: list[Move] = []
        pos = root
        for key in pv_keys:
            moves = {m.key: m for m in variant.legal_moves(pos)}
            move = moves.get(_key(key))
            if move is None:
                break
            pv.append(move)
            pos = variant.apply(pos, move)
        if not pv or pv[0] != best:
            pv = [best]
        return SearchResult(best, int(score), int(depth), int(nodes),
                            time.perf_counter() - started, tuple(pv), bool(stopped))


_ENGINES: WeakKeyDictionary[Variant, NativeEngine] = WeakKeyDictionary()
_SUPPORTED: WeakKeyDictionary[Variant, bool] = WeakKeyDictionary()
_ENGINES_LOCK = threading.Lock()


def native_engine(variant: Variant) -> NativeEngine:
    """The process's engine for ``variant`` (created on first use, then reused)."""
    engine = _ENGINES.get(variant)
    if engine is None:
        created = False
        with _ENGINES_LOCK:
            engine = _ENGINES.get(variant)
            if engine is None:
                engine = _ENGINES[variant] = NativeEngine(variant)
                created = True
        if created:  # outside the lock: reading them takes a while
            from bots.engine import tables

            engine.tables_recheck_at = time.monotonic() + tables.RECHECK_SECONDS
            engine.tables_wanted = tables.pieces_for(engine)
            tables.attach(engine)
            return engine
    if engine.table_pieces < engine.tables_wanted:  # written since by a worker?
        from bots.engine import tables

        tables.refresh(engine)
    return engine


def clear_native_engines() -> None:
    """Empty every engine's transposition table (e.g. between unrelated test games)."""
    for engine in list(_ENGINES.values()):
        engine.clear()
