"""The built-in rulesets' rules pages in English."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("End of the game", [
        "You win when your opponent has no pieces left, or when it is their turn and "
        "they have no legal move. You also win if your opponent resigns or runs out of "
        "time.",
        "The game is drawn by agreement (a draw offer accepted), automatically when the "
        "same position (with the same side to move) occurs for the third time, and "
        "automatically when each side has played 50 moves in a row with no capture and "
        "no man moving forward.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
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
    "english": {
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
    "brazilian": {
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
    "spanish": {
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
    "turkish": {
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
}
