"""Russian draughts (shashki) as a Kondavo ruleset plugin.

8x8 on the dark squares (a1 dark), White on a1..h3 moves first. Men move one square forward
and capture forward and backward; kings fly. Capturing is mandatory but any capture may be
chosen (no maximum rule); a chosen chain must be completed. Captured pieces leave when the
move ends. A man that reaches the far row during a capture is crowned at once and goes on
capturing as a king. Notation is algebraic (``c3-d4``, ``c3:e5`` is read too); PDN GameType 25.
"""

from __future__ import annotations

from variants import DiagonalVariant, Notation, Precedence, PromotionRule, RulesSpec
from variants.geometry import DIAGONAL


class Russian(DiagonalVariant):
    key = "russian"
    name = "Russian"
    aliases = ("shashki",)
    pdn_gametype = "25,W,8,8,A0,0"
    perft_suite = "russian.perft"
    summary = {"en": "8x8, flying kings, men capture backward, free choice of capture; a man "
                     "crowned during a capture goes on as a king.",
               "fr": "8x8, dames volantes, les pions prennent en arrière, prise au choix ; un "
                     "pion promu pendant une prise continue comme dame."}
    display_names = {"fr": "Dames russes", "it": "Dama russa"}
    notation = Notation.ALGEBRAIC
    rules = RulesSpec(
        initial_fen="W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
        man_capture_vectors=DIAGONAL,  # men capture backward too
        flying_kings=True,
        precedence=Precedence.FREE.criteria,
        mid_capture_promotion=PromotionRule.CONTINUES_AS_KING,
    )


RUSSIAN = Russian()

__all__ = ["RUSSIAN", "Russian"]
