"""Draughts puzzles found and proven by the engine, for every ruleset (no Django here).

    python -m bots.puzzles generate --ruleset english --count 500 --seconds 900
    python -m bots.puzzles verify bots/puzzles/data/english.jsonl
    python -m bots.puzzles stats

A puzzle is a position where exactly one move keeps a decisive advantage, with the forced
line after it (:mod:`bots.puzzles.prover`); self-play and finished games are searched for
them (:mod:`bots.puzzles.generate`). Shipped data: ``bots/puzzles/data/<ruleset>.jsonl``,
one JSON object a line, sorted keys::

    {"id": "<ruleset>-<first 10 hex of sha1(fen + ' ' + ' '.join(solution))>",
     "ruleset": "english", "fen": "<variant.format_fen, solver to move>",
     "solution": ["<solver move>", "<reply>", ..., "<solver move>"],
     "solver": "white" | "black", "themes": [...], "rating": 1350,
     "source": {"kind": "selfplay", "seed": 12, "ply": 31} | {"kind": "game", "ply": 31},
     "proof": {"depth": 10, "margin": 240, "nodes": 812345, "verified": 12}}

``proof``: the depth (plies from the position) of the searches that proved it, the margin
(centi-men) by which every alternative was worse (10000: a won game against no win), the
nodes searched, and the depth at which it was proven again (``verify``). Moves are in the
ruleset's notation (``variant.format_move`` / ``parse_move``). Themes
(:data:`THEMES`): ``shot`` (a sacrifice, then a capture of two or more), ``sacrifice``
(the first move gives material), ``breakthrough`` (a solver move makes a king),
``ending`` (few pieces, or the start is in the endgame tables), ``forced_capture`` (an
opponent reply is forced by the capture precedence rule: a capture it could start is not
allowed), ``material`` (none of those: material won by force). Puzzles from a finished
game (:func:`puzzles_from_game`) also carry ``played``, the move played instead of the
solution, when it differed. Design and figures: docs/puzzles.md,
bench/results/puzzles.md.
"""

from __future__ import annotations

from bots.puzzles.generate import puzzles_from_game
from bots.puzzles.prover import THEMES, Prover, Settings

__all__ = ["THEMES", "Prover", "Settings", "puzzles_from_game"]
