"""English checkers (Classic / American), 8x8, PDN GameType 21. Black moves first."""

from __future__ import annotations

from variants.base import DiagonalVariant, Precedence, PromotionRule, RulesSpec
from variants.rulesets.rules_pages import RULES_PAGES
from variants.types import Color


class English(DiagonalVariant):
    key = "english"
    name = "English checkers"
    aliases = ("checkers", "american")
    pdn_gametype = "21,B,8,8,N1,0"
    perft_suite = "../perft/english.perft"
    display_names = {
        "fr": "Dames anglaises",
        "it": "Dama inglese",
        "es": "Damas inglesas",
        "pt-br": "Damas inglesas",
        "tr": "İngiliz daması",
        "pl": "Warcaby angielskie",
    }
    rules_pages = RULES_PAGES["english"]
    scoring = "1-0"
    side_names = ("White", "Black")
    rules = RulesSpec(
        initial_fen="B:W21-32:B1-12",
        first_to_move=Color.BLACK,
        # Men move and capture forward only; kings step one square and jump short.
        flying_kings=False,
        precedence=Precedence.FREE.criteria,
        mid_capture_promotion=PromotionRule.ENDS_MOVE,
    )


ENGLISH = English()
