"""Czech draughts (česká dáma) as a Kondavo ruleset plugin.

8x8 on the dark squares (a1 dark, on White's left), White on a1..h3 moves first. Men move
and capture forward only; kings fly. Capturing is mandatory, and when a king can capture, a
king must capture; otherwise any capture may be chosen (no maximum rule), and a chosen
chain must be completed. Captured pieces leave when the move ends. A man reaching the far
row during a capture is crowned and the move ends. Algebraic notation; PDN GameType 29.

Every rule is declared data: the king-first rule is the criterion ``WITH_KING``.
"""

from __future__ import annotations

from variants import Criterion, DiagonalVariant, Notation, PromotionRule, RulesPage, RulesSpec

_RULES_EN: RulesPage = {
    "title": "Czech draughts",
    "summary": "8x8, men capture forward only, flying kings, a king must capture first.",
    "sections": [
        ("Board and start", [
            "The board has 8x8 squares; play is on the dark squares, with a dark square in "
            "each player's near-left corner (a1 for White). Squares are named a1 to h8.",
            "White has 12 men on a1-h3, Black 12 men on a6-h8. White moves first.",
        ]),
        ("Men", [
            "A man moves one square diagonally forward and captures forward only, by "
            "jumping over an adjacent enemy piece (man or king) to the empty square just "
            "behind. A man that reaches the far row becomes a king; if that happens during a "
            "capture, the move ends there.",
        ]),
        ("Kings", [
            "Kings fly: they move any distance along a diagonal over empty squares, and "
            "capture a piece at any distance, landing on any empty square beyond it (where "
            "the capture can continue, if it can).",
        ]),
        ("Capturing", [
            "Capturing is mandatory and a capture sequence must be completed. If a king can "
            "capture, a king must capture; otherwise any capture may be chosen, short or "
            "long. Captured pieces are removed when the move ends.",
        ]),
        ("End of the game", [
            "You win when your opponent has no pieces left, or when it is their turn and "
            "they have no legal move. The game is drawn by agreement, when the same "
            "position occurs for the third time, or after 50 moves each with no capture and "
            "no man moving forward.",
        ]),
    ],
}


class Czech(DiagonalVariant):
    key = "czech"
    name = "Czech"
    aliases = ("ceska-dama",)
    display_names = {"fr": "Dames tchèques", "it": "Dama ceca", "es": "Damas checas",
                     "pt-br": "Damas tchecas", "tr": "Çek daması", "pl": "Warcaby czeskie"}
    summary = _RULES_EN["summary"]
    capture_explanation = {  # the banner shown when a capture is forced
        "en": "Capture is mandatory: a king must capture if it can; otherwise any capture "
              "may be chosen.",
        "fr": "La prise est obligatoire : une dame doit prendre si elle le peut ; sinon, "
              "toute prise est permise.",
    }
    rules_pages = {"en": _RULES_EN}
    pdn_gametype = "29,W,8,8,A0,0"
    perft_suite = "czech.perft"
    notation = Notation.ALGEBRAIC
    rules = RulesSpec(
        initial_fen="W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
        flying_kings=True,
        precedence=(Criterion.WITH_KING,),
        mid_capture_promotion=PromotionRule.ENDS_MOVE,
    )


CZECH = Czech()

__all__ = ["CZECH", "Czech"]
