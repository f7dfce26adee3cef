"""The words of the puzzle page's script (puzzles.js), translated on the server."""

from __future__ import annotations

from django.utils.translation import gettext as _


def puzzle_strings() -> dict[str, str]:
    return {
        "pzYourMove": _("Your move: find the best line for {side}."),
        "pzWhite": _("White"),
        "pzBlack": _("Black"),
        "pzRight": _("Right! Keep going."),
        "pzSolved": _("Solved!"),
        "pzSolvedHint": _("Solved, with a hint."),
        "pzWrong": _("Not this move. Try again, or see the solution."),
        "pzPractice": _("Solved again (this try is not rated)."),
        "pzReplyForced": _("{move}: forced. {rule}"),
        "pzReply": _("Reply: {move}"),
        "pzHintShown": _("Move the highlighted piece."),
        "pzSolutionShown": _("The solution: {line}"),
        "pzRatingChange": _("Your puzzle rating: {before} → {after} ({delta})"),
        "pzPuzzleRating": _("Puzzle rating {rating}"),
        "pzNone": _("No puzzle left here: choose another ruleset or theme."),
        "pzStreakCount": _("Streak: {count}"),
        "pzStreakOver": _("Streak over: {count} solved (best {best})."),
        "pzStreakDone": _("You solved every puzzle of this streak: {count}!"),
        "pzBusy": _("Too many requests; slow down."),
        "pzError": _("Something went wrong."),
        "pzFromGame": _("From your game: you played {played} here."),
    }
