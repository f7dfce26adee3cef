"""Brazilian draughts: International rules on the 8x8 board, PDN GameType 26."""

from __future__ import annotations

from dataclasses import replace

from variants.base import Notation
from variants.rulesets.international import INTERNATIONAL, International
from variants.rulesets.rules_pages import RULES_PAGES


class Brazilian(International):
    key = "brazilian"
    name = "Brazilian"
    aliases = ("brazil",)
    pdn_gametype = "26,W,8,8,A0,0"
    perft_suite = "../perft/brazilian.perft"
    display_names = {
        "fr": "Dames brésiliennes",
        "it": "Dama brasiliana",
        "es": "Damas brasileñas",
        "pt-br": "Damas brasileiras",
        "tr": "Brezilya daması",
        "pl": "Warcaby brazylijskie",
    }
    rules_pages = RULES_PAGES["brazilian"]
    rules = replace(  # International's rules on the 8x8 board
        INTERNATIONAL.spec, rows=8, cols=8,
        initial_fen="W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8")
    notation = Notation.ALGEBRAIC
    accepts_numeric_input = True  # International-style numbers: 1 = b8, 32 = g1
    full_capture_path = True  # official notation: c3xe5xg7


BRAZILIAN = Brazilian()
