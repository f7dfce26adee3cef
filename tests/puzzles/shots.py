"""Literal puzzles for the tests, one shot per built-in ruleset: the solver's quiet move
forces a capture, and the solver's capture back takes more. Each line was checked with the
rulesets' own move generation (the tests replay it: ``line_replay``)."""

from __future__ import annotations

from typing import Any

SHOTS: dict[str, dict[str, Any]] = {
    "international": {"fen": "B:W8,12,18,22,40,43,45:B7,15,26,29,32,42",
                      "solution": ["42-48", "12x1", "48x3"], "solver": "black"},
    "english": {"fen": "W:W11,15,23,25,32:B6,9,10,27",
                "solution": ["23-18", "10x19", "32x16"], "solver": "white"},
    "brazilian": {"fen": "W:Wf6,e5,e3,b2,g1:Bc7,b6,d6,f2",
                  "solution": ["e3-d4", "d6xf4", "g1xe3xg5"], "solver": "white"},
    "spanish": {"fen": "B:W3,8,9,13,20:B7,21,27,28",
                "solution": ["28-23", "3x12", "23x7"], "solver": "black"},
    "turkish": {"fen": "W:We1,d2,d5,g5,h5,b7:Bg4,b5,e5,f5,f8",
                "solution": ["b7-b8", "e5xc5", "b8xb4xh4"], "solver": "white"},
}


def shot(ruleset: str, *, pid: str | None = None, rating: int = 1500,
         themes: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """The generator's dict for ``ruleset``'s shot (``bots.puzzles`` format)."""
    return {"id": pid or f"{ruleset}-00000000aa", "ruleset": ruleset, "rating": rating,
            "themes": themes if themes is not None else ["shot", "forced_capture"],
            "source": {"kind": "selfplay", "ply": 30}, "proof": {"depth": 12},
            **SHOTS[ruleset], **extra}
