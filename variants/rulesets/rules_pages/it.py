"""The built-in rulesets' rules pages in Italian."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("Fine della partita", [
        "Vinci quando l'avversario non ha più pezzi, oppure quando tocca a lui e non ha "
        "mosse legali. Vinci anche se l'avversario abbandona o esaurisce il tempo.",
        "La partita è patta per accordo (proposta di patta accettata), automaticamente "
        "quando la stessa posizione (con lo stesso giocatore al tratto) si ripete per la "
        "terza volta, e automaticamente quando ciascun giocatore ha fatto 50 mosse di "
        "fila senza prese e senza far avanzare una pedina.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
        "title": "Dama internazionale",
        "summary": "Damiera 10x10, 20 pedine ciascuno, dame volanti, è obbligatoria la "
                   "presa più lunga.",
        "sections": [
            ("Damiera e posizione iniziale", [
                "La damiera ha 10x10 caselle; si gioca sulle 50 caselle scure, numerate "
                "da 1 a 50 dal lato del Nero. Ogni giocatore ha una casella scura "
                "nell'angolo in basso a sinistra.",
                "Il Bianco ha 20 pedine sulle caselle 31-50, il Nero 20 pedine sulle "
                "caselle 1-20. Muove per primo il Bianco.",
            ]),
            ("Pedine", [
                "La pedina avanza di una casella in diagonale. Cattura saltando un pezzo "
                "avversario adiacente e atterrando sulla casella libera subito dietro, "
                "in avanti o all'indietro.",
            ]),
            ("Dame", [
                "Una pedina che termina la mossa sull'ultima riga diventa dama. Una "
                "pedina che passa soltanto sull'ultima riga durante una presa resta "
                "pedina e deve continuare a catturare.",
                "Le dame volano: si muovono di quante caselle libere vogliono lungo una "
                "diagonale e catturano un pezzo a distanza, atterrando su una qualsiasi "
                "casella libera oltre di esso (quella da cui la presa può continuare, "
                "se esiste).",
            ]),
            ("Prese", [
                "La presa è obbligatoria e bisogna catturare il maggior numero di pezzi "
                "(pedine e dame valgono uguale). Tra prese ugualmente lunghe la scelta è "
                "libera.",
                "I pezzi catturati si tolgono solo alla fine della mossa; un pezzo non "
                "può essere saltato due volte.",
            ]),
        ],
    },
    "english": {
        "title": "Dama inglese (checkers)",
        "summary": "Damiera 8x8, 12 pedine ciascuno, dame corte, muove per primo il "
                   "Nero, si può scegliere qualsiasi presa.",
        "sections": [
            ("Damiera e posizione iniziale", [
                "La damiera ha 8x8 caselle; si gioca sulle 32 caselle scure, numerate da "
                "1 a 32 con il Nero in alto. Ogni giocatore ha una casella scura "
                "nell'angolo in basso a sinistra.",
                "Il Nero (i pezzi scuri) ha 12 pedine sulle caselle 1-12, il Bianco 12 "
                "pedine sulle caselle 21-32. Muove per primo il Nero.",
            ]),
            ("Pedine", [
                "La pedina avanza di una casella in diagonale e cattura solo in avanti, "
                "saltando un pezzo avversario adiacente sulla casella libera dietro.",
            ]),
            ("Dame", [
                "Una pedina che raggiunge l'ultima riga diventa dama; se ci arriva "
                "catturando, la mossa finisce lì.",
                "La dama si muove di una sola casella in diagonale, avanti o indietro, e "
                "cattura con salti corti in tutte e quattro le direzioni.",
            ]),
            ("Prese", [
                "La presa è obbligatoria, ma si può scegliere qualsiasi presa, non "
                "necessariamente la più lunga. Una presa iniziata va completata.",
                "I pezzi catturati si tolgono dopo la mossa; un pezzo non può essere "
                "saltato due volte.",
            ]),
        ],
    },
    "brazilian": {
        "title": "Dama brasiliana",
        "summary": "Le regole internazionali su una damiera 8x8: dame volanti, le pedine "
                   "catturano all'indietro, è obbligatoria la presa più lunga.",
        "sections": [
            ("Damiera e posizione iniziale", [
                "La damiera ha 8x8 caselle; si gioca sulle 32 caselle scure, con una "
                "casella scura (a1) nell'angolo in basso a sinistra di ogni giocatore. "
                "Le caselle si chiamano come negli scacchi (c3-d4); si accettano anche i "
                "numeri.",
                "Il Bianco ha 12 pedine sulle prime tre righe (da a1 a h3), il Nero 12 "
                "pedine sulle ultime tre (da b6 a h8). Muove per primo il Bianco.",
            ]),
            ("Pedine", [
                "La pedina avanza di una casella in diagonale e cattura in avanti o "
                "all'indietro saltando un pezzo avversario adiacente.",
            ]),
            ("Dame", [
                "Una pedina che termina la mossa sull'ultima riga diventa dama; passarci "
                "durante una presa non basta.",
                "Le dame volano: percorrono qualsiasi distanza in diagonale e catturano "
                "a distanza, atterrando su qualsiasi casella libera oltre il pezzo.",
            ]),
            ("Prese", [
                "La presa è obbligatoria e va giocata quella che cattura più pezzi "
                "(pedine e dame valgono uguale); tra prese uguali si sceglie liberamente.",
                "I pezzi catturati si tolgono alla fine della mossa; un pezzo non può "
                "essere saltato due volte.",
            ]),
        ],
    },
    "spanish": {
        "title": "Dama spagnola",
        "summary": "Damiera 8x8 giocata sulle caselle chiare, dame volanti, le pedine "
                   "catturano solo in avanti, la presa più lunga e poi quella con più "
                   "dame.",
        "sections": [
            ("Damiera e posizione iniziale", [
                "La damiera ha 8x8 caselle; si gioca sulle 32 caselle chiare, quindi "
                "ogni giocatore ha una casella di gioco nell'angolo in basso a DESTRA "
                "(a1 non si usa). Le caselle sono numerate da 1 (h1, a destra del "
                "Bianco) a 32 (a8).",
                "Il Bianco ha 12 pedine sulle caselle 1-12, il Nero 12 pedine sulle "
                "caselle 21-32. Muove per primo il Bianco.",
            ]),
            ("Pedine", [
                "La pedina avanza di una casella in diagonale e cattura solo in avanti.",
            ]),
            ("Dame", [
                "Una pedina che raggiunge l'ultima riga diventa dama e la sua mossa "
                "finisce lì.",
                "Le dame volano: qualsiasi distanza in diagonale, con presa a distanza "
                "e arrivo su qualsiasi casella libera oltre il pezzo.",
            ]),
            ("Prese", [
                "La presa è obbligatoria. Bisogna catturare più pezzi possibile; a "
                "parità, la presa che cattura più dame. Per il resto la scelta è libera "
                "(una dama che cattura non ha precedenza su una pedina).",
                "I pezzi catturati si tolgono alla fine della mossa; un pezzo non può "
                "essere saltato due volte.",
            ]),
        ],
    },
    "turkish": {
        "title": "Dama turca",
        "summary": "Damiera 8x8, tutte le 64 caselle, i pezzi si muovono in linea retta "
                   "(mai in diagonale), i pezzi catturati escono subito, è obbligatoria "
                   "la presa più lunga.",
        "sections": [
            ("Damiera e posizione iniziale", [
                "Si usano tutte le 64 caselle e niente si muove in diagonale. Le caselle "
                "si chiamano come negli scacchi, a1 è l'angolo in basso a sinistra del "
                "Bianco.",
                "Il Bianco ha 16 pedine sulle righe 2 e 3, il Nero 16 pedine sulle righe "
                "6 e 7; le righe 1 e 8 sono vuote all'inizio. Muove per primo il Bianco.",
            ]),
            ("Pedine", [
                "La pedina si muove di una casella in avanti o di lato, mai indietro, e "
                "cattura in avanti o di lato saltando un pezzo avversario adiacente.",
            ]),
            ("Dame", [
                "Una pedina che termina la mossa sull'ultima riga diventa dama. Se la "
                "raggiunge durante una presa continua a catturare come pedina (di lato, "
                "lungo quella riga) ed è promossa solo alla fine della mossa.",
                "Le dame volano lungo righe e colonne nelle quattro direzioni e catturano "
                "a distanza, atterrando su qualsiasi casella libera oltre il pezzo.",
            ]),
            ("Prese", [
                "La presa è obbligatoria e bisogna catturare più pezzi possibile (pedine "
                "e dame valgono uguale).",
                "Ogni pezzo catturato esce subito dalla damiera: la sua casella è libera "
                "per il resto della mossa. Tra due catture un pezzo può proseguire dritto "
                "o girare di 90 gradi, ma mai tornare indietro.",
                "Una dama sola contro una pedina sola vince subito.",
            ]),
        ],
    },
}
