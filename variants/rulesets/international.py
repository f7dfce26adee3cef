"""International (Polish) draughts, 10x10, PDN GameType 20."""

from __future__ import annotations

from typing import ClassVar

from variants.base import DiagonalVariant, Precedence, RulesSpec
from variants.geometry import DIAGONAL
from variants.rulesets.rules_pages import RULES_PAGES


class International(DiagonalVariant):
    key = "international"
    name = "International"
    aliases: ClassVar[tuple[str, ...]] = ("polish", "10x10")
    pdn_gametype = "20,W,10,10,N2,0"
    perft_suite = "../perft/international.perft"
    display_names = {
        "fr": "Dames internationales",
        "it": "Dama internazionale",
        "es": "Damas internacionales",
        "pt-br": "Damas internacionais",
        "tr": "Uluslararası dama",
        "pl": "Warcaby międzynarodowe",
    }
    rules_pages = RULES_PAGES["international"]
    rules = RulesSpec(
        rows=10, cols=10,
        initial_fen="W:W31-50:B1-20",
        man_capture_vectors=DIAGONAL,  # men capture backward too
        flying_kings=True,
        precedence=Precedence.MAX_PIECES.criteria,
        # A man passing the far row mid-capture stays a man and goes on; it is crowned only
        # when the move ends there (mid_capture_promotion stays STAYS_MAN).
    )


INTERNATIONAL = International()
