"""Turkish draughts (Dama): orthogonal, every square, PDN GameType 30."""

from __future__ import annotations

from variants.base import OrthogonalVariant, Precedence, RulesSpec
from variants.rulesets.rules_pages import RULES_PAGES
from variants.types import Outcome, Position, Reason

_FORWARD_AND_SIDEWAYS = ((1, 0), (0, -1), (0, 1))


class Turkish(OrthogonalVariant):
    key = "turkish"
    name = "Turkish (Dama)"
    aliases = ("dama",)
    pdn_gametype = "30,W,8,8,A0,0"
    perft_suite = "../perft/turkish.perft"
    display_names = {
        "fr": "Dames turques (Dama)",
        "it": "Dama turca",
        "es": "Damas turcas (Dama)",
        "pt-br": "Damas turcas (Dama)",
        "tr": "Türk daması",
        "pl": "Warcaby tureckie (Dama)",
    }
    rules_pages = RULES_PAGES["turkish"]
    scoring = "1-0"
    full_capture_path = True  # b3xd3xd5
    rules = RulesSpec(
        board="orthogonal",
        initial_fen=("W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3"
                     ":Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7"),
        man_move_vectors=_FORWARD_AND_SIDEWAYS,
        man_capture_vectors=_FORWARD_AND_SIDEWAYS,
        flying_kings=True,
        precedence=Precedence.MAX_PIECES.criteria,
        immediate_removal=True,  # each jumped piece leaves at once
        no_reversal=True,  # never straight back along the line just travelled
        # A man reaching the far row mid-capture goes on as a man (STAYS_MAN, the default).
    )
    # A sideways man move is not an advance: is_advance compares ranks, so it already is not.
    special_outcome_pieces = 2  # its special outcome: one king against one man

    def special_outcome(self, position: Position) -> Outcome | None:
        """One king against one lone man: the king's side wins at once."""
        for color in (position.turn, position.turn.opponent):
            other = color.opponent
            if (not position.men(color) and _single(position.kings(color))
                    and not position.kings(other) and _single(position.men(other))):
                return Outcome(color, Reason.KING_VS_MAN)
        return None


def _single(bb: int) -> bool:
    return bb != 0 and bb & (bb - 1) == 0


TURKISH = Turkish()
