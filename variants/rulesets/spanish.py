"""Spanish draughts, 8x8 played on the light squares, PDN GameType 24."""

from __future__ import annotations

from variants.base import DiagonalVariant, Precedence, PromotionRule, RulesSpec
from variants.rulesets.rules_pages import RULES_PAGES


class Spanish(DiagonalVariant):
    key = "spanish"
    name = "Spanish"
    aliases = ("damas",)
    pdn_gametype = "24,W,8,8,N1,1"
    perft_suite = "../perft/spanish.perft"
    display_names = {
        "fr": "Dames espagnoles",
        "it": "Dama spagnola",
        "es": "Damas españolas",
        "pt-br": "Damas espanholas",
        "tr": "İspanyol daması",
        "pl": "Warcaby hiszpańskie",
    }
    rules_pages = RULES_PAGES["spanish"]
    playing_squares_dark = False  # the played squares are the light ones
    rules = RulesSpec(
        playable_parity=1,  # a1 is not a playing square; h1 is
        number_from_bottom_right=True,  # 1 = h1, 2 = f1 ... 32 = a8
        initial_fen="W:W1-12:B21-32",
        flying_kings=True,
        precedence=Precedence.MAX_PIECES_THEN_KINGS.criteria,
        # Men capture forward only, so a man on the far row can never continue: crowning
        # ends it.
        mid_capture_promotion=PromotionRule.ENDS_MOVE,
    )


SPANISH = Spanish()
