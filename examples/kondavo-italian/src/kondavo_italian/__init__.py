"""Italian draughts (dama italiana) as a Kondavo ruleset plugin.

8x8; the corner square on each player's left is light and not played on (the board is
turned a quarter from the English one), play is on the dark squares, numbered 1 (top left
as White sees it) to 32 (bottom right). White moves first. Men move and capture forward
only and may not capture kings. Kings move and capture one square in every direction. A
man reaching the far row during a capture is crowned and the move ends. Captures are
mandatory, in this order of precedence: the most pieces; then, with equal pieces, with a
king rather than a man; then the most kings; then the capture that meets a king first.
PDN GameType 22.

Every rule is declared data: no hook is overridden.
"""

from __future__ import annotations

from variants import Criterion, DiagonalVariant, PromotionRule, RulesPage, RulesSpec

_RULES_EN: RulesPage = {
    "title": "Italian draughts",
    "summary": "8x8, men capture forward only and never kings, short kings, strict capture "
               "precedence.",
    "sections": [
        ("Board and start", [
            "The board has 8x8 squares and is set so that the corner square on each "
            "player's left is light: play is on the dark squares, numbered 1 to 32 from "
            "the top left as White sees it.",
            "White has 12 men on squares 21-32, Black 12 men on squares 1-12. White moves "
            "first.",
        ]),
        ("Men", [
            "A man moves one square diagonally forward and captures forward only, by "
            "jumping over an adjacent enemy man to the empty square just behind. A man may "
            "never capture a king.",
            "A man that reaches the far row is crowned; if that happens during a capture, "
            "the move ends there.",
        ]),
        ("Kings", [
            "A king moves one square diagonally in any direction and captures the same way, "
            "forward or backward, over an adjacent piece.",
        ]),
        ("Capturing", [
            "Capturing is mandatory, and a capture sequence must be completed. When there "
            "is a choice, these rules apply in order: take the most pieces; with the same "
            "number of pieces, capture with a king rather than with a man; then take the "
            "most kings; then take the sequence in which a king is met first.",
            "Captured pieces are removed when the move ends.",
        ]),
        ("End of the game", [
            "You win when your opponent has no pieces left, or when it is their turn and "
            "they have no legal move. The game is drawn by agreement, when the same "
            "position occurs for the third time, or after 50 moves each with no capture and "
            "no man moving forward.",
        ]),
    ],
}

_RULES_IT: RulesPage = {
    "title": "Dama italiana",
    "summary": "8x8, le pedine prendono solo in avanti e mai le dame, dame corte, "
               "precedenze di presa rigorose.",
    "sections": [
        ("Damiera e posizione iniziale", [
            "La damiera ha 8x8 caselle ed è disposta in modo che la casella d'angolo alla "
            "sinistra di ciascun giocatore sia chiara: si gioca sulle caselle scure, "
            "numerate da 1 a 32 a partire dall'alto a sinistra dal lato del Bianco.",
            "Il Bianco ha 12 pedine sulle caselle 21-32, il Nero 12 pedine sulle caselle "
            "1-12. Muove per primo il Bianco.",
        ]),
        ("Pedine", [
            "La pedina si muove di una casella in diagonale in avanti e prende solo in "
            "avanti, saltando un pezzo avversario adiacente verso la casella vuota subito "
            "dietro. Una pedina non può mai prendere una dama.",
            "La pedina che raggiunge l'ultima riga diventa dama; se succede durante una "
            "presa, la mossa finisce lì.",
        ]),
        ("Dame", [
            "La dama si muove di una casella in diagonale in ogni direzione e prende allo "
            "stesso modo, in avanti o all'indietro.",
        ]),
        ("Prese", [
            "La presa è obbligatoria e va completata. Se ci sono più prese si applicano, in "
            "ordine, queste regole: prendere il maggior numero di pezzi; a parità, prendere "
            "con la dama anziché con la pedina; poi prendere il maggior numero di dame; poi "
            "la presa in cui si incontra prima una dama.",
            "I pezzi presi si tolgono alla fine della mossa.",
        ]),
        ("Fine della partita", [
            "Vinci quando l'avversario non ha più pezzi, oppure quando tocca a lui e non ha "
            "mosse legali. La partita è patta per accordo, quando la stessa posizione si "
            "ripete per la terza volta, o dopo 50 mosse ciascuno senza prese e senza "
            "avanzare una pedina.",
        ]),
    ],
}


class Italian(DiagonalVariant):
    key = "italian"
    name = "Italian"
    aliases = ("dama-italiana",)
    display_names = {"fr": "Dames italiennes", "it": "Dama italiana", "es": "Damas italianas",
                     "pt-br": "Damas italianas", "tr": "İtalyan daması", "pl": "Warcaby włoskie"}
    summary = {"en": _RULES_EN["summary"], "it": _RULES_IT["summary"]}
    capture_explanation = {  # the banner shown when a capture is forced
        "en": "Capture is mandatory: take the most pieces; with equal pieces, capture with a "
              "king; then take the most kings; then the king met first.",
        "it": "La presa è obbligatoria: prendi più pezzi possibile; a parità, prendi con la "
              "dama; poi più dame possibile; poi la dama incontrata per prima.",
    }
    rules_pages = {"en": _RULES_EN, "it": _RULES_IT}
    pdn_gametype = "22,W,8,8,N2,1"
    perft_suite = "italian.perft"
    playing_squares_dark = True
    rules = RulesSpec(
        playable_parity=1,  # a1, the corner on White's left, is not played on
        initial_fen="W:W21-32:B1-12",
        men_capture_kings=False,
        flying_kings=False,
        precedence=(Criterion.MOST_PIECES, Criterion.WITH_KING, Criterion.MOST_KINGS,
                    Criterion.EARLIEST_KING),
        mid_capture_promotion=PromotionRule.ENDS_MOVE,
    )


ITALIAN = Italian()

__all__ = ["ITALIAN", "Italian"]
