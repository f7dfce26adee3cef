"""Canadian draughts as a Kondavo ruleset plugin: International rules on a 12x12 board.

Play is on the 72 dark squares (a dark square in each player's near-left corner), numbered
1 to 72 from Black's side as in International draughts. White has 30 men on 43-72, Black 30
on 1-30; White moves first. Men move forward and capture forward and backward, kings fly,
the longest capture is compulsory, a man passing the far row during a capture stays a man.
PDN GameType 27.

A ruleset that only sets data (its rules are one ``RulesSpec``): about twenty lines.
"""

from __future__ import annotations

from variants import DiagonalVariant, Precedence, RulesSpec
from variants.geometry import DIAGONAL


class Canadian(DiagonalVariant):
    key = "canadian"
    name = "Canadian"
    aliases = ("12x12",)
    display_names = {"fr": "Dames canadiennes", "it": "Dama canadese", "es": "Damas canadienses",
                     "pt-br": "Damas canadenses", "tr": "Kanada daması",
                     "pl": "Warcaby kanadyjskie"}
    summary = {"en": "12x12 board, 30 men each, flying kings, the longest capture is "
                     "mandatory.",
               "fr": "Damier de 12x12, 30 pions chacun, dames volantes, la prise majoritaire "
                     "est obligatoire."}
    pdn_gametype = "27,W,12,12,N2,0"
    perft_suite = "canadian.perft"
    rules = RulesSpec(
        rows=12, cols=12,
        initial_fen="W:W43-72:B1-30",
        man_capture_vectors=DIAGONAL,  # men capture backward too
        flying_kings=True,
        precedence=Precedence.MAX_PIECES.criteria,
    )


CANADIAN = Canadian()

__all__ = ["CANADIAN", "Canadian"]
