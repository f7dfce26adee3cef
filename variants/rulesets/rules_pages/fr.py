"""The built-in rulesets' rules pages in French."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("Fin de la partie", [
        "Vous gagnez quand votre adversaire n'a plus de pièces, ou quand c'est à lui de "
        "jouer et qu'il n'a aucun coup légal. Vous gagnez aussi s'il abandonne ou s'il "
        "dépasse son temps.",
        "La partie est nulle d'un commun accord (proposition de nulle acceptée), "
        "automatiquement quand la même position (avec le même camp au trait) se "
        "présente pour la troisième fois, et automatiquement quand chaque camp a joué "
        "50 coups d'affilée sans prise ni avancée d'un pion.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
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
    "english": {
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
    "brazilian": {
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
    "spanish": {
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
    "turkish": {
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
                "droit ou tourner de 90 degrés, mais jamais revenir en arrière.",
                "Une dame seule contre un pion seul gagne aussitôt.",
            ]),
        ],
    },
}
