"""The built-in rulesets' rules pages, per ruleset and language (English, French, Italian).

Each built-in declares its pages as ``rules_pages = RULES_PAGES[key]`` (a plugin declares
its own the same way). A page is a title, a one-line summary and (heading, paragraphs)
sections; the site falls back to English for other languages and says so.
"""

from __future__ import annotations

from variants.base import RulesPage

_COMMON: dict[str, list[tuple[str, list[str]]]] = {
    "en": [
        ("End of the game", [
            "You win when your opponent has no pieces left, or when it is their turn and "
            "they have no legal move. You also win if your opponent resigns or runs out of "
            "time.",
            "The game is drawn by agreement (a draw offer accepted), automatically when the "
            "same position (with the same side to move) occurs for the third time, and "
            "automatically when each side has played 50 moves in a row with no capture and "
            "no man moving forward.",
        ]),
    ],
    "fr": [
        ("Fin de la partie", [
            "Vous gagnez quand votre adversaire n'a plus de pièces, ou quand c'est à lui de "
            "jouer et qu'il n'a aucun coup légal. Vous gagnez aussi s'il abandonne ou s'il "
            "dépasse son temps.",
            "La partie est nulle d'un commun accord (proposition de nulle acceptée), "
            "automatiquement quand la même position (avec le même camp au trait) se "
            "présente pour la troisième fois, et automatiquement quand chaque camp a joué "
            "50 coups d'affilée sans prise ni avancée d'un pion.",
        ]),
    ],
    "it": [
        ("Fine della partita", [
            "Vinci quando l'avversario non ha più pezzi, oppure quando tocca a lui e non ha "
            "mosse legali. Vinci anche se l'avversario abbandona o esaurisce il tempo.",
            "La partita è patta per accordo (proposta di patta accettata), automaticamente "
            "quando la stessa posizione (con lo stesso giocatore al tratto) si ripete per la "
            "terza volta, e automaticamente quando ciascun giocatore ha fatto 50 mosse di "
            "fila senza prese e senza far avanzare una pedina.",
        ]),
    ],
}

_RULES: dict[str, dict[str, RulesPage]] = {
    "international": {
        "en": {
            "title": "International draughts",
            "summary": "10x10 board, 20 men each, flying kings, the longest capture is "
                       "mandatory.",
            "sections": [
                ("Board and start", [
                    "The board has 10x10 squares; play is on the 50 dark squares, numbered "
                    "1 to 50 from Black's side. Each player has a dark square in their "
                    "near-left corner.",
                    "White has 20 men on squares 31-50, Black 20 men on squares 1-20. White "
                    "moves first.",
                ]),
                ("Men", [
                    "A man moves one square diagonally forward. It captures by jumping over "
                    "an adjacent enemy piece to the empty square just behind, forward or "
                    "backward.",
                ]),
                ("Kings", [
                    "A man that ends its move on the far row becomes a king. A man that only "
                    "passes over the far row during a capture stays a man and must go on "
                    "capturing.",
                    "Kings fly: they move any distance along a diagonal over empty squares, "
                    "and capture a piece at any distance, landing on any empty square beyond "
                    "it (where the capture can continue, if it can).",
                ]),
                ("Captures", [
                    "Capturing is mandatory, and you must take the largest number of pieces "
                    "(men and kings count the same). Among equally long captures you choose "
                    "freely.",
                    "Captured pieces are removed only after the whole move; a piece cannot "
                    "be jumped twice.",
                ]),
            ],
        },
        "fr": {
            "title": "Dames internationales",
            "summary": "Damier 10x10, 20 pions chacun, dames volantes, la prise majoritaire "
                       "est obligatoire.",
            "sections": [
                ("Damier et position de départ", [
                    "Le damier compte 10x10 cases ; on joue sur les 50 cases foncées, "
                    "numérotées de 1 à 50 depuis le côté des Noirs. Chaque joueur a une case "
                    "foncée dans son coin inférieur gauche.",
                    "Les Blancs ont 20 pions sur les cases 31 à 50, les Noirs 20 pions sur "
                    "les cases 1 à 20. Les Blancs commencent.",
                ]),
                ("Pions", [
                    "Un pion avance d'une case en diagonale. Il prend en sautant par-dessus "
                    "une pièce adverse voisine pour atterrir sur la case libre juste "
                    "derrière, vers l'avant ou vers l'arrière.",
                ]),
                ("Dames", [
                    "Un pion qui termine son coup sur la dernière rangée devient dame. Un "
                    "pion qui ne fait que passer par la dernière rangée pendant une rafle "
                    "reste pion et doit continuer à prendre.",
                    "Les dames volent : elles se déplacent d'autant de cases libres qu'elles "
                    "veulent sur une diagonale et prennent une pièce à distance, en "
                    "atterrissant sur n'importe quelle case libre au-delà (celle d'où la "
                    "rafle peut continuer, s'il y en a une).",
                ]),
                ("Prises", [
                    "La prise est obligatoire et il faut prendre le plus grand nombre de "
                    "pièces (pions et dames comptent pareil). Entre des rafles de même "
                    "longueur, le choix est libre.",
                    "Les pièces prises ne sont retirées qu'à la fin du coup ; une pièce ne "
                    "peut pas être sautée deux fois.",
                ]),
            ],
        },
        "it": {
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
    },
    "english": {
        "en": {
            "title": "English checkers",
            "summary": "8x8 board, 12 men each, short kings, Black moves first, any capture "
                       "may be chosen.",
            "sections": [
                ("Board and start", [
                    "The board has 8x8 squares; play is on the 32 dark squares, numbered "
                    "1 to 32 with Black at the top. Each player has a dark square in their "
                    "near-left corner.",
                    "Black (the dark pieces) has 12 men on squares 1-12, White 12 men on "
                    "squares 21-32. Black moves first.",
                ]),
                ("Men", [
                    "A man moves one square diagonally forward and captures forward only, by "
                    "jumping an adjacent enemy piece to the empty square behind it.",
                ]),
                ("Kings", [
                    "A man that reaches the far row becomes a king, and if it got there by "
                    "capturing, the move ends there.",
                    "A king moves one square diagonally, forward or backward, and captures "
                    "short jumps in all four directions.",
                ]),
                ("Captures", [
                    "Capturing is mandatory, but you may choose any capture, not necessarily "
                    "the longest. Once started, a capture sequence must be completed.",
                    "Captured pieces leave the board after the move; a piece cannot be "
                    "jumped twice.",
                ]),
            ],
        },
        "fr": {
            "title": "Dames anglaises (checkers)",
            "summary": "Damier 8x8, 12 pions chacun, dames non volantes, les Noirs "
                       "commencent, toute prise peut être choisie.",
            "sections": [
                ("Damier et position de départ", [
                    "Le damier compte 8x8 cases ; on joue sur les 32 cases foncées, "
                    "numérotées de 1 à 32 avec les Noirs en haut. Chaque joueur a une case "
                    "foncée dans son coin inférieur gauche.",
                    "Les Noirs (pièces foncées) ont 12 pions sur les cases 1 à 12, les "
                    "Blancs 12 pions sur les cases 21 à 32. Les Noirs commencent.",
                ]),
                ("Pions", [
                    "Un pion avance d'une case en diagonale et ne prend que vers l'avant, en "
                    "sautant une pièce adverse voisine vers la case libre derrière elle.",
                ]),
                ("Dames", [
                    "Un pion qui atteint la dernière rangée devient dame ; s'il y arrive en "
                    "prenant, le coup s'arrête là.",
                    "La dame se déplace d'une seule case en diagonale, vers l'avant ou vers "
                    "l'arrière, et prend par sauts courts dans les quatre directions.",
                ]),
                ("Prises", [
                    "La prise est obligatoire, mais vous pouvez choisir n'importe quelle "
                    "prise, pas forcément la plus longue. Une rafle commencée doit être "
                    "terminée.",
                    "Les pièces prises sont retirées après le coup ; une pièce ne peut pas "
                    "être sautée deux fois.",
                ]),
            ],
        },
        "it": {
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
    },
    "brazilian": {
        "en": {
            "title": "Brazilian draughts",
            "summary": "International rules on an 8x8 board: flying kings, men capture "
                       "backward, the longest capture is mandatory.",
            "sections": [
                ("Board and start", [
                    "The board has 8x8 squares; play is on the 32 dark squares, with a dark "
                    "square (a1) in each player's near-left corner. Squares are named like "
                    "chess squares (c3-d4); numbers are accepted too.",
                    "White has 12 men on the first three rows (a1 to h3), Black 12 men on "
                    "the last three (b6 to h8). White moves first.",
                ]),
                ("Men", [
                    "A man moves one square diagonally forward and captures forward or "
                    "backward by jumping an adjacent enemy piece.",
                ]),
                ("Kings", [
                    "A man that ends its move on the far row becomes a king; passing over it "
                    "during a capture is not enough.",
                    "Kings fly: any distance along a diagonal, and they capture at a "
                    "distance, landing on any empty square beyond.",
                ]),
                ("Captures", [
                    "Capturing is mandatory and the capture taking the most pieces must be "
                    "played (men and kings count the same); among equal ones you choose.",
                    "Captured pieces are removed at the end of the move; a piece cannot be "
                    "jumped twice.",
                ]),
            ],
        },
        "fr": {
            "title": "Dames brésiliennes",
            "summary": "Les règles internationales sur un damier 8x8 : dames volantes, les "
                       "pions prennent en arrière, la prise majoritaire est obligatoire.",
            "sections": [
                ("Damier et position de départ", [
                    "Le damier compte 8x8 cases ; on joue sur les 32 cases foncées, avec une "
                    "case foncée (a1) dans le coin inférieur gauche de chaque joueur. Les "
                    "cases se nomment comme aux échecs (c3-d4) ; les numéros sont aussi "
                    "acceptés.",
                    "Les Blancs ont 12 pions sur les trois premières rangées (a1 à h3), les "
                    "Noirs 12 pions sur les trois dernières (b6 à h8). Les Blancs commencent.",
                ]),
                ("Pions", [
                    "Un pion avance d'une case en diagonale et prend vers l'avant ou vers "
                    "l'arrière en sautant une pièce adverse voisine.",
                ]),
                ("Dames", [
                    "Un pion qui termine son coup sur la dernière rangée devient dame ; y "
                    "passer pendant une rafle ne suffit pas.",
                    "Les dames volent : elles parcourent toute distance sur une diagonale et "
                    "prennent à distance, en atterrissant sur n'importe quelle case libre "
                    "au-delà.",
                ]),
                ("Prises", [
                    "La prise est obligatoire et il faut jouer la rafle qui prend le plus de "
                    "pièces (pions et dames comptent pareil) ; entre rafles égales, le choix "
                    "est libre.",
                    "Les pièces prises sont retirées à la fin du coup ; une pièce ne peut "
                    "pas être sautée deux fois.",
                ]),
            ],
        },
        "it": {
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
    },
    "spanish": {
        "en": {
            "title": "Spanish draughts",
            "summary": "8x8 board played on the light squares, flying kings, men capture "
                       "forward only, the longest capture then the most kings.",
            "sections": [
                ("Board and start", [
                    "The board has 8x8 squares; play is on the 32 light squares, so each "
                    "player has a playing square in their near-RIGHT corner (a1 is not used). "
                    "Squares are numbered from 1 (h1, White's near right) to 32 (a8).",
                    "White has 12 men on squares 1-12, Black 12 men on squares 21-32. White "
                    "moves first.",
                ]),
                ("Men", [
                    "A man moves one square diagonally forward and captures forward only.",
                ]),
                ("Kings", [
                    "A man reaching the far row becomes a king and its move ends there.",
                    "Kings fly: any distance along a diagonal, capturing at a distance and "
                    "landing on any empty square beyond.",
                ]),
                ("Captures", [
                    "Capturing is mandatory. You must take the most pieces; among captures "
                    "taking the same number, the one taking the most kings. Otherwise the "
                    "choice is free (a capturing king has no priority over a man).",
                    "Captured pieces are removed at the end of the move; a piece cannot be "
                    "jumped twice.",
                ]),
            ],
        },
        "fr": {
            "title": "Dames espagnoles",
            "summary": "Damier 8x8 joué sur les cases claires, dames volantes, les pions ne "
                       "prennent que vers l'avant, la prise la plus longue puis celle qui "
                       "prend le plus de dames.",
            "sections": [
                ("Damier et position de départ", [
                    "Le damier compte 8x8 cases ; on joue sur les 32 cases claires, donc "
                    "chaque joueur a une case jouable dans son coin inférieur DROIT (a1 "
                    "n'est pas utilisée). Les cases sont numérotées de 1 (h1, à droite des "
                    "Blancs) à 32 (a8).",
                    "Les Blancs ont 12 pions sur les cases 1 à 12, les Noirs 12 pions sur "
                    "les cases 21 à 32. Les Blancs commencent.",
                ]),
                ("Pions", [
                    "Un pion avance d'une case en diagonale et ne prend que vers l'avant.",
                ]),
                ("Dames", [
                    "Un pion qui atteint la dernière rangée devient dame et son coup "
                    "s'arrête là.",
                    "Les dames volent : toute distance sur une diagonale, avec prise à "
                    "distance et arrivée sur n'importe quelle case libre au-delà.",
                ]),
                ("Prises", [
                    "La prise est obligatoire. Il faut prendre le plus de pièces ; à nombre "
                    "égal, la rafle qui prend le plus de dames. Sinon le choix est libre "
                    "(une dame qui prend n'a pas de priorité sur un pion).",
                    "Les pièces prises sont retirées à la fin du coup ; une pièce ne peut "
                    "pas être sautée deux fois.",
                ]),
            ],
        },
        "it": {
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
    },
    "turkish": {
        "en": {
            "title": "Turkish draughts (Dama)",
            "summary": "8x8 board, all 64 squares, pieces move straight (never diagonally), "
                       "captured pieces leave at once, the longest capture is mandatory.",
            "sections": [
                ("Board and start", [
                    "All 64 squares are used and nothing moves diagonally. Squares are named "
                    "like chess squares, a1 being White's near-left corner.",
                    "White has 16 men on rows 2 and 3, Black 16 men on rows 6 and 7; rows 1 "
                    "and 8 start empty. White moves first.",
                ]),
                ("Men", [
                    "A man moves one square forward or sideways, never backward, and "
                    "captures forward or sideways by jumping an adjacent enemy piece.",
                ]),
                ("Kings", [
                    "A man that ends its move on the far row becomes a king. If it reaches "
                    "the far row during a capture it goes on capturing as a man (sideways "
                    "along that row) and is crowned when the move ends there.",
                    "Kings fly along rows and columns in all four directions and capture at "
                    "a distance, landing on any empty square beyond.",
                ]),
                ("Captures", [
                    "Capturing is mandatory and you must take the most pieces (men and "
                    "kings count the same).",
                    "Each captured piece leaves the board at once, so its square is free for "
                    "the rest of the move. Between two captures a piece may go straight on "
                    "or turn 90 degrees, but never reverse.",
                    "A single king against a single man wins at once for the king's side.",
                ]),
            ],
        },
        "fr": {
            "title": "Dames turques (Dama)",
            "summary": "Damier 8x8, les 64 cases, les pièces se déplacent en ligne droite "
                       "(jamais en diagonale), les pièces prises disparaissent aussitôt, la "
                       "prise majoritaire est obligatoire.",
            "sections": [
                ("Damier et position de départ", [
                    "Les 64 cases sont utilisées et rien ne se déplace en diagonale. Les "
                    "cases se nomment comme aux échecs, a1 étant le coin inférieur gauche "
                    "des Blancs.",
                    "Les Blancs ont 16 pions sur les rangées 2 et 3, les Noirs 16 pions sur "
                    "les rangées 6 et 7 ; les rangées 1 et 8 sont vides au départ. Les "
                    "Blancs commencent.",
                ]),
                ("Pions", [
                    "Un pion avance d'une case vers l'avant ou sur le côté, jamais en "
                    "arrière, et prend vers l'avant ou sur le côté en sautant une pièce "
                    "adverse voisine.",
                ]),
                ("Dames", [
                    "Un pion qui termine son coup sur la dernière rangée devient dame. S'il "
                    "l'atteint pendant une rafle, il continue à prendre comme un pion (sur "
                    "le côté, le long de cette rangée) et n'est couronné qu'à la fin du coup.",
                    "Les dames volent sur les rangées et les colonnes dans les quatre "
                    "directions et prennent à distance, en atterrissant sur n'importe quelle "
                    "case libre au-delà.",
                ]),
                ("Prises", [
                    "La prise est obligatoire et il faut prendre le plus de pièces (pions et "
                    "dames comptent pareil).",
                    "Chaque pièce prise quitte le damier aussitôt : sa case est libre pour "
                    "la suite du coup. Entre deux prises, une pièce peut continuer tout "
                    "droit ou tourner à angle droit, mais jamais revenir en arrière.",
                    "Une dame seule contre un pion seul gagne aussitôt.",
                ]),
            ],
        },
        "it": {
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
                    "o girare ad angolo retto, ma mai tornare indietro.",
                    "Una dama sola contro una pedina sola vince subito.",
                ]),
            ],
        },
    },
}


RULES_PAGES: dict[str, dict[str, RulesPage]] = {
    key: {lang: {**page, "sections": [*page["sections"], *_COMMON[lang]]}
          for lang, page in pages.items()}
    for key, pages in _RULES.items()
}
