"""Drive ``python -m bots.engine.hub`` with pydraughts' ``HubEngine`` (an independent client
and rules implementation) for a few plies, checking each move against pydraughts' own legal
moves. Run in a process of its own with pydraughts on ``PYTHONPATH`` (its package is named
``draughts``); prints one JSON object. Used by tests/bots/test_hub.py.

    python tests/bots/hub_peer.py VARIANT PLIES NODES
"""

from __future__ import annotations

import json
import sys

from draughts import Board
from draughts.engine import HubEngine, Limit


def main() -> int:
    variant, plies, nodes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    engine = HubEngine([sys.executable, "-m", "bots.engine.hub", "--ruleset", variant])
    engine.setoption("variant", variant)
    engine.init()
    board = Board(variant=variant)
    played, illegal = [], []
    for _ in range(plies):
        if board.is_over():
            break
        result = engine.play(board, Limit(nodes=nodes), ponder=False)
        legal = {m.hub_position_move for m in board.legal_moves()}
        if result.move.hub_position_move not in legal:
            illegal.append(result.move.hub_move)
            break
        played.append(result.move.hub_move)
        board.push(result.move)
    engine.ping()
    engine.quit()
    engine.p.wait(timeout=30)
    print(json.dumps({"moves": played, "illegal": illegal, "fen": board._game.get_fen(),
                      "id": engine.id, "variants": sorted(engine.variants),
                      "last_info": {k: v for k, v in engine.info.items() if k != "pv"},
                      "returncode": engine.p.returncode}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
