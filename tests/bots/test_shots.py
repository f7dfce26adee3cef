"""Shots the selective search must still find within a bounded budget.

A shot is a quiet move that offers a capture (captures are compulsory, so the opponent must
take) and wins material with the combination that follows. The compiled core's search
reduces and prunes quiet moves, so this is the check that it still sees them: every
position below is searched by the core at 10,000 nodes (less than level 5's budget; level 8
searches millions in its second) without the endgame tables, and it must play the shot.

The positions are literal, eight per ruleset, taken from the project's puzzle collection
(``bots/puzzles/data``): each was found in self-play and proven by the puzzle prover (the
only move that wins, by a margin, searched deeper than the scan), and chosen here as the
longest forced lines whose first move is a quiet sacrifice. At this budget the search
before the selective one (plain late-move reductions) missed one of them (International
22-27: it played another move at depth 5; the selective search plays the shot at depth 7).
"""

from __future__ import annotations

import pytest

from bots.engine.native import NativeEngine, native_available
from variants import get_variant

pytestmark = pytest.mark.skipif(not native_available(), reason="the compiled core is not built")

NODES = 10_000

SHOTS = [
    ("brazilian", "B:Wc5,d4,h4,a3,c3,e3,g3,d2,h2,a1,e1:Bh8,a7,c7,e7,g7,b6,f6,h6,a5,e5,g5", "a5-b4"),
    ("brazilian", "W:Wa5,b4,a3,b2,d2,h2,e1,g1:Bd8,f8,c7,g7,d6,c5,d4,f4", "d2-e3"),
    ("brazilian",
     "B:Wc5,d4,h4,a3,c3,g3,d2,f2,h2,a1,c1,g1:Bb8,d8,f8,h8,a7,c7,e7,f6,a5,e5,g5,f4",
     "a5-b4"),
    ("brazilian", "W:Wa5,a3,c3,e3,g3,d2,c1,e1,g1:Bb8,d8,h8,a7,c7,e7,f6,c5,g5", "a5-b6"),
    ("brazilian", "W:Wg5,h4,a3,g3,b2,g1:Be7,g7,b6,d6,f6,d2", "b2-c3"),
    ("brazilian", "W:Wg5,h4,a3,g3,b2,g1:Be7,g7,b6,d6,e5,e3", "g5-f6"),
    ("brazilian", "W:Wa3,c3,d2,h2,c1,e1:Ba7,e7,g7,b6,a5,c5,f4,h4", "c3-b4"),
    ("brazilian", "B:Wd4,f4,a3,f2,h2,a1,c1,e1:Bd8,f8,h8,c7,e7,g7,d6,f6,h6", "f6-e5"),
    ("english", "B:W12,17,21,22,23,24,25,26,28,30,31:B1,2,3,6,7,9,11,13,15,16,19", "16-20"),
    ("english", "B:W12,17,21,22,23,24,25,26,28,29,31:B1,2,3,6,7,9,11,13,15,16,19", "16-20"),
    ("english", "B:W13,17,18,25,27,28:B1,2,5,6,10,12", "10-14"),
    ("english", "W:W9,13,15,21,22,28:B2,5,7,8,12,20", "22-17"),
    ("english", "W:WK4,21,24,25,26:B10,13,18,20", "26-22"),
    ("english", "W:W9,14,20,26,28,31:B1,5,7,11,18,19", "26-23"),
    ("english", "B:W13,17,18,24,25,32:B1,2,5,6,10,12", "10-14"),
    ("english", "W:WK4,K8,11,25,30:B1,2,5,K19,K27", "11-7"),
    ("international",
     "B:W28,29,31,32,33,36,37,38,40,41,42,43,44,45,46,49,50:B1,2,4,5,6,7,8,10,11,12,14,15,"
     "17,19,20,21,22,35",
     "22-27"),
    ("international",
     "B:W24,29,30,31,34,36,37,38,39,44,46,47,49,50:B1,2,4,5,7,8,9,11,12,15,18,20,25,28",
     "18-23"),
    ("international",
     "B:W26,28,30,32,35,36,37,38,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,"
     "11,12,13,14,15,16,19,20,21",
     "20-25"),
    ("international",
     "B:W22,28,29,31,33,36,38,39,40,41,42,43,44,45,46,48,49,50:B1,2,4,5,6,7,8,9,10,11,12,"
     "13,15,16,17,19,25,30",
     "30-34"),
    ("international",
     "B:W26,32,33,34,35,36,37,38,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,"
     "12,13,14,15,16,19,20,22,23",
     "23-28"),
    ("international",
     "W:W18,23,25,28,32,33,36,38,39,40,43,44,46,47,48,49,50:B1,2,4,5,6,7,9,10,11,12,14,15,"
     "16,17,19,24",
     "25-20"),
    ("international",
     "B:W26,31,33,34,35,36,38,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,"
     "12,13,15,18,20,23,27",
     "12-17"),
    ("international",
     "B:W23,28,33,34,36,37,38,39,40,43,44,45,46,47,48,49:B2,4,5,7,8,10,12,13,14,15,16,17,"
     "20,22,24",
     "24-29"),
    ("spanish", "W:W2,6,8,10,11,12,16:B13,17,19,20,23,24,27,29", "11-15"),
    ("spanish", "W:W2,3,4,5,6,7,10,12,18:B17,20,21,23,24,25,27,28,30", "12-16"),
    ("spanish", "W:W1,2,4,5,7,8,11,14,15:B20,21,22,23,24,25,26,29,32", "14-19"),
    ("spanish", "W:W3,4,6,7,8,10,11,12,18:B17,19,23,24,25,26,28,31,32", "18-21"),
    ("spanish", "B:W3,4,5,6,7,9,12,15:B14,22,23,24,26,29,30,31", "14-11"),
    ("spanish", "B:W1,3,4,5,6,8,9,11,12,14,15:B18,20,21,22,23,24,25,27,29,30,32", "23-19"),
    ("spanish", "W:W1,6,9,11,13,14,15,17:B18,20,21,22,23,24,26,30", "15-19"),
    ("spanish", "W:W1,5,7,8,9,12,15,19:B13,16,18,21,24,25,26,27", "19-22"),
    ("turkish",
     "B:Wa2,a3,c3,d3,f3,h3,a4,b4,d4,f4,h4,h5:Ba5,c5,e5,a6,b6,c6,e6,g6,h6,c7,h7",
     "c5-c4"),
    ("turkish",
     "B:Wa2,f2,g2,b3,c3,d3,e3,a4,d4,e4,h4,h5:Bb5,c5,d5,a6,b6,c6,f6,h6,c7,f7,h7",
     "b5-a5"),
    ("turkish", "B:Wa2,b2,e2,g2,h2,a3,b3,e3,b4,h4:Ba5,b5,d5,g5,d6,e6,h6,a7,e7,h7", "g5-h5"),
    ("turkish",
     "W:Wa2,c2,d2,f2,g2,h2,a3,c3,d3,f3,g3,h3,a4,b4,f4:Bb5,f5,g5,h5,a6,b6,c6,f6,h6,a7,b7,"
     "c7,d7,e7,h7",
     "f4-g4"),
    ("turkish",
     "B:Wa2,e2,g2,h2,a3,b3,c3,d3,e3,f3,h3,a4,b4,g4:Ba5,c5,f5,h5,a6,c6,d6,e6,h6,a7,b7,d7,"
     "e7,h7",
     "h5-h4"),
    ("turkish",
     "B:Wa2,d2,g2,h2,a3,b3,c3,e3,f3,h3,a4,b4,d4:Bh4,a5,c5,f5,a6,b6,d6,e6,a7,b7,d7,e7,h7",
     "c5-d5"),
    ("turkish",
     "B:Wa2,g2,h2,a3,b3,c3,d3,e3,f3,g3,a4,b4,d4:Bh4,a5,c5,f5,a6,b6,d6,e6,a7,b7,d7,e7,h7",
     "h4-g4"),
    ("turkish",
     "B:Wa2,d2,g2,h2,a3,c3,e3,f3,g3,a4,b4,c4,d4:Bh4,a5,c5,f5,a6,c6,d6,e6,a7,b7,d7,e7,h7",
     "h4-g4"),
]


@pytest.mark.parametrize(("key", "fen", "shot"), SHOTS,
                         ids=[f"{k}-{s}-{i}" for i, (k, _f, s) in enumerate(SHOTS)])
def test_the_search_plays_the_shot_within_a_bounded_budget(key: str, fen: str,
                                                           shot: str) -> None:
    variant = get_variant(key)
    position = variant.parse_fen(fen)
    legal = variant.legal_moves(position)
    move = next(m for m in legal if variant.format_move(position, m) == shot)
    # a shot: nothing to capture now, a quiet move after which the opponent must capture
    assert not legal[0].captured and not move.captured
    replies = variant.legal_moves(variant.apply(position, move))
    assert replies and all(r.captured for r in replies)
    found = NativeEngine(variant, tt_mb=4).search(position, node_limit=NODES, seed=0,
                                                  tables=False)
    assert found.move is not None and found.nodes <= NODES + 1024
    assert variant.format_move(position, found.move) == shot, (found.score, found.depth)


def test_there_are_shots_for_every_built_in_ruleset() -> None:
    counts: dict[str, int] = {}
    for key, _fen, _shot in SHOTS:
        counts[key] = counts.get(key, 0) + 1
    assert counts == {k: 8 for k in ("brazilian", "english", "international", "spanish",
                                       "turkish")}
