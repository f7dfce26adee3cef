"""Bot levels 1..8: search budgets plus controlled randomness at the low levels.

Levels 1-7 are bounded by depth and nodes, so they play the same on any machine (and the
same move for the same seed); their time limit (``EngineConfig.max_time``) is only a safety
net. Level 8 thinks for the configured time per move (:class:`EngineConfig`, default 1 s,
passed in by the caller: the engine never reads Django settings), so it is the only level
whose strength depends on the machine and the clock.

Level 8 plays from the ruleset's opening book while the game is in it
(:mod:`bots.engine.book`): a weighted random choice among near-equal analysed moves, so it
varies its openings; levels 1-7 never use it (their variety comes from their noise, and
their measured strength stays what it was).

Randomness: ``noise`` (centi-men, uniform +-noise per root move) blurs the root scores, and
``random_move`` is the probability of playing a uniformly random legal move instead. Level 1
is meant to be beatable by a beginner: it looks one move ahead, sees big noise and plays a
random move one time in three.

Spacing: levels 1-4 are full-width searches of depth 1-4 with decreasing noise; levels 5-7
grow 3-5x in nodes (12k, 40k, 200k) and shed their root noise (16, 0, 0 centi-men: noise
also turns off the root's null-window search, so a noisy level reaches a little less deep
for its nodes). Level 6 was 25k nodes with noise 8 until a 12-game ladder showed it level
with level 5 in Turkish (5-2-5); level 7 was 100k until 16-game matches showed it not ahead of
the new level 6 in Turkish (5-2-9). On the compiled core (1.4-2.7M nodes/s on the busy
2-core development machine) level 7 answers in about 0.07-0.13 s and level 8 searches about
7-13x level 7's nodes in its second;
on the pure-Python fallback (rulesets the core cannot run, ~50-100k nodes/s) level 7 takes
2-4 s (capped by ``EngineConfig.max_time``) and level 8 searches less than level 7. Node
budgets do not buy the same depth in every ruleset: Turkish (orthogonal, men also step
sideways) branches most. Measured ladder and nominal ratings: ``bench/results/strength.md``,
``bots/engine/data/ratings.json``.

The pure-Python search (rulesets the compiled core cannot run, ``KONDAVO_ENGINE=python``)
has levels of its own, :data:`PYTHON_LEVELS`: the same levels 1-4 (depth-bounded, cheap in
any engine) and level 8 (time-bounded), and node budgets for levels 5-7 cut to what the
fallback searches in about a second at most (8k, 20k, 50k nodes at its 50-100k nodes/s, each
about 2.5x the one below), so a plugin's level 7 answers within about a second (not 2-4 s) and
level 8 still searches more than level 7. :func:`get_level` takes ``python=True`` for them.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_LEVEL = 1
MAX_LEVEL = 8


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Deployment knobs, passed in as an argument (e.g. built from Django settings).

    ``move_time``: seconds per move for the time-bounded level(s) (level 8) in an untimed
    game.
    ``max_move_time``: their cap in a timed game, where the clock decides how much of it to
    spend (:mod:`bots.engine.timing`); at least ``move_time``.
    ``max_time``: safety cap in seconds for the node-bounded levels.
    ``node_limit``: optional hard cap on nodes for every level (None: no extra cap).
    """

    move_time: float = 1.0
    max_time: float = 5.0
    node_limit: int | None = None
    max_move_time: float = 1.5


DEFAULT_CONFIG = EngineConfig()


@dataclass(frozen=True, slots=True)
class Level:
    number: int
    max_depth: int
    node_limit: int | None  # None: bounded by time (and depth) only
    time_share: float  # fraction of EngineConfig.move_time; 0: node-bounded (max_time cap)
    noise: int  # +- centi-men added to each root move's score
    random_move: float  # probability of a uniformly random legal move
    book: bool = False  # plays from the opening book while the game is in it

    def time_limit(self, config: EngineConfig, *, timed: bool = False) -> float:
        """Seconds of the level's search: its share of ``move_time`` (``max_move_time``
        in a timed game, as a cap), or the safety cap of a node-bounded level."""
        if not self.time_share:
            return max(0.01, config.max_time)
        per_move = max(config.move_time, config.max_move_time) if timed else config.move_time
        return max(0.01, per_move * self.time_share)

    def nodes(self, config: EngineConfig) -> int | None:
        limits = [n for n in (self.node_limit, config.node_limit) if n is not None]
        return min(limits) if limits else None


LEVELS: dict[int, Level] = {
    1: Level(1, max_depth=1, node_limit=1_000, time_share=0, noise=150, random_move=0.33),
    2: Level(2, max_depth=2, node_limit=1_500, time_share=0, noise=80, random_move=0.12),
    3: Level(3, max_depth=3, node_limit=2_000, time_share=0, noise=35, random_move=0.03),
    4: Level(4, max_depth=4, node_limit=6_000, time_share=0, noise=20, random_move=0.0),
    5: Level(5, max_depth=64, node_limit=12_000, time_share=0, noise=16, random_move=0.0),
    6: Level(6, max_depth=64, node_limit=40_000, time_share=0, noise=0, random_move=0.0),
    7: Level(7, max_depth=64, node_limit=200_000, time_share=0, noise=0, random_move=0.0),
    8: Level(8, max_depth=64, node_limit=None, time_share=1.0, noise=0, random_move=0.0,
             book=True),
}


PYTHON_LEVELS: dict[int, Level] = {
    **LEVELS,
    5: Level(5, max_depth=64, node_limit=8_000, time_share=0, noise=16, random_move=0.0),
    6: Level(6, max_depth=64, node_limit=20_000, time_share=0, noise=0, random_move=0.0),
    7: Level(7, max_depth=64, node_limit=50_000, time_share=0, noise=0, random_move=0.0),
}


def get_level(level: int, *, python: bool = False) -> Level:
    """The level's budget; ``python``: the pure-Python search's (:data:`PYTHON_LEVELS`)."""
    if level not in LEVELS:
        raise ValueError(f"bot level must be {MIN_LEVEL}..{MAX_LEVEL}, not {level!r}")
    return (PYTHON_LEVELS if python else LEVELS)[level]
