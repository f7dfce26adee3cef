"""The words the page scripts show, translated on the server and passed as one dictionary.

Templates embed ``js_strings()`` with ``json_script``; game.js / lobby.js / board.js read it
(``t("key")``). No JS i18n framework: placeholders are ``{name}`` and filled in by the script.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from kondavo.chat.strings import chat_error_strings, chat_js_strings
from kondavo.tournaments.strings import tournament_notify_strings

from .rulesets import capture_sentences, ruleset_reasons


def notify_strings() -> dict[str, object]:
    """The notification bell's words (notify.js, on every page of a player)."""
    return {
        "title": _("Notifications"),
        "empty": _("Nothing new."),
        "challenge": _(
            "{name} challenges you: {ruleset}, {time}, {mode}. You would play {colour}."),
        "accepted": _("Accepted"),
        "declined": _("Declined"),
        "expired": _("Expired"),
        "cancelled": _("Withdrawn"),
        "accept": _("Accept"),
        "decline": _("Decline"),
        "block": _("Block this player"),
        "answerAccepted": _("{name} accepted your challenge."),
        "answerDeclined": _("{name} declined your challenge."),
        "answerExpired": _("{name} did not answer your challenge in time."),
        "rematch": _("{name} offers a rematch."),
        "joined": _("{name} joined your game."),
        "turn": _("Your turn against {name}."),
        "open": _("Open the game"),
        "readAll": _("Mark all read"),
        "enableBrowser": _("Turn on browser notifications"),
        "close": _("Close"),
        "untimed": _("untimed"),
        "rated": _("rated"),
        "casual": _("casual"),
        "white": _("White"),
        "black": _("Black"),
        "random": _("a random colour"),
        "errors": {
            "not_allowed": _("That is not allowed now."),
            "not_found": _("No such challenge."),
            "rate_limited": _("Too many requests; slow down."),
            "generic": _("Something went wrong."),
        },
        **tournament_notify_strings(),
    }


def js_strings() -> dict[str, object]:
    return {
        # board (assistive text)
        "white-man": _("white man"),
        "white-king": _("white king"),
        "black-man": _("black man"),
        "black-king": _("black king"),
        "empty": _("empty"),
        "board": _("Draughts board"),
        "mustChoose": _("choose the next landing square"),
        # sides
        "White": _("White"),
        "Black": _("Black"),
        # status
        "connecting": _("Connecting…"),
        "reconnecting": _("Connection lost. Reconnecting…"),
        "yourTurn": _("Your turn"),
        "theirTurn": _("Waiting for your opponent"),
        "toMove": _("{side} to move"),
        "waiting": _("Waiting for an opponent. Send this link to a friend:"),
        "copy": _("Copy link"),
        "copied": _("Copied"),
        "spectator": _("You are watching this game."),
        "spectatorToMove": _("You are watching this game: {side} to move."),
        "chooseCapture": _("Several captures are possible: click the next landing square."),
        "captureBanner": _("Capture is mandatory: {rule}"),
        "aborted": _("Game aborted"),
        "draw": _("Draw"),
        "wins": _("{side} wins"),
        "youWin": _("You win!"),
        "youLose": _("You lose"),
        "drawOfferedBy": _("{side} offers a draw."),
        "youOfferedDraw": _("You offered a draw."),
        "rematchOffered": _("{side} wants a rematch."),
        "youOfferedRematch": _("Rematch offered."),
        "opponentLeft": _("Your opponent has left the game."),
        "opponentLeftCountdown": _(
            "Your opponent left the game. You can claim victory in {s} s."),
        "opponentLeftClaim": _(
            "Your opponent left the game. Claim victory, call it a draw, or wait."),
        "drawDeclined": _("Your draw offer was declined."),
        "spectators": _("Spectators: {n}"),
        "online": _("online"),
        "offline": _("offline"),
        "level": _("level {n}"),
        "abortedUnrated": _("No move was played in time: the game is not rated."),
        "abortedNoFirstMove": _("{side} did not make a first move in time: no result, unrated."),
        "firstMoveYou": _("Your turn: {s} s for your first move"),
        "firstMoveThem": _("{side} has {s} s for a first move"),
        "reviewing": _("Move {n} of {total}."),
        "reviewingLive": _("Move {n} of {total}. Press ↓ or » to return to the game."),
        # why a click on the board played nothing
        "spectatorNoMoves": _("You are watching: only the players can move."),
        "waitingNoMoves": _("The game starts when your opponent arrives."),
        "mustCapture": _("A capture is mandatory: play one of the marked pieces."),
        "notALandingSquare": _("That piece cannot go there."),
        "notYourPiece": _("That is your opponent's piece."),
        "pieceCannotMove": _("That piece cannot move now: try a marked one."),
        "noMoves": _("No moves yet."),
        "premoveSet": _("Premove {move}: played when your turn comes. Tap the board to cancel it."),
        "untimed": _("Untimed"),
        "rated": _("Rated"),
        "casual": _("Casual"),
        "bot": _("computer"),
        "guest": _("guest"),
        # buttons
        "resign": _("Resign"),
        "offerDraw": _("Offer draw"),
        "accept": _("Accept"),
        "decline": _("Decline"),
        "abort": _("Abort"),
        "rematch": _("Rematch"),
        "flip": _("Flip board"),
        "claimVictory": _("Claim victory"),
        "soundOn": _("Sound: on"),
        "soundOff": _("Sound: off"),
        "confirmResign": _("Resign this game?"),
        "confirmResignYes": _("Yes, resign"),
        "newGame": _("New game"),
        "toRematch": _("Go to the rematch"),
        "acceptRematch": _("Accept the rematch"),
        "withdraw": _("Withdraw"),
        "callDraw": _("Call it a draw"),
        "analyse": _("Analyse"),
        "takeback": _("Take back"),
        "offerTakeback": _("Propose a takeback"),
        "youOfferedTakeback": _("You asked to take back your last move."),
        "takebackOfferedBy": _("{side} asks to take back their last move."),
        "takebackDeclined": _("Your takeback request was declined."),
        "ratingChange": _("Rating: {change}"),
        # result reasons
        "reasons": {
            "no_pieces": _("no pieces left"),
            "no_moves": _("no legal moves left"),
            "threefold": _("the same position occurred three times"),
            "fifty_moves": _("50 moves each without a capture or a man moving forward"),
            "agreement": _("draw agreed"),
            "king_vs_man": _("a lone king against a lone man"),
            "resign": _("resignation"),
            "timeout": _("time ran out"),
            "abandoned": _("the opponent left the game"),
            **ruleset_reasons(),
        },
        # capture rules: the server sends the rule in English (``capture_rule``); the banner
        # says why in the ruleset's own words, or the site's for the shared rules
        "captureRules": capture_sentences(),
        # errors
        "errors": {
            "not_your_turn": _("It is not your turn."),
            "stale_ply": _("The position changed; your move was not played."),
            "illegal_move": _("That move is not legal."),
            "ambiguous_move": _("That move is ambiguous."),
            "game_over": _("The game is over."),
            "not_allowed": _("That is not allowed now."),
            "not_a_player": _("You are not playing in this game."),
            "not_found": _("No such game."),
            "rate_limited": _("Too many requests; slow down."),
            # the socket's own words are English: every code a page can meet has its sentence
            "limit_reached": _("You have reached the limit: finish, cancel or resign one "
                               "first."),
            "bad_request": _("That request was refused."),
            "unavailable": _("Not available just now: try again in a moment."),
            "too_large": _("That is too large."),
            "generic": _("Something went wrong."),
            **chat_error_strings(),  # the chat app's error codes
        },
        "chat": chat_js_strings(),  # chat.js (kondavo/chat/strings.py)
        # analysis board
        "analysisNothing": _("Paste a PDN or a FEN first."),
        "analysisTooLarge": _("That file is too large for a game."),
        "whiteWon": _("White has won"),
        "blackWon": _("Black has won"),
        "winIn": _("{side} wins in {n}"),
        "thinking": _("The engine is thinking…"),
        "depth": _("depth {n}"),
        "bestLine": _("Best line"),
        "reviewProgress": _("Reviewing position {n} of {total}…"),
        "reviewDone": _("Review done. Moves marked ? or ??: {n}."),
        "tryAgainIn": _("Try again in {s} s."),
        "inaccuracies": _("Inaccuracies"),
        "mistakes": _("Mistakes"),
        "blunders": _("Blunders"),
        "editorHint": _("Set up the position, then press “Analyse this position”."),
        # lobby
        "randomColour": _("Random"),
        "challengedBy": _("{name} challenges you to a game of {ruleset}."),
        "openGame": _("Open the game"),
        "seekWaiting": _("Waiting for someone to accept your seek…"),
        "noSeeks": _("No open seeks right now. Create one!"),
        "join": _("Play"),
        "cancel": _("Cancel"),
        "you": _("you"),
        "gameStarting": _("Game found! Opening the board…"),
        "challengeWaiting": _("Challenge sent to {name}: waiting for an answer…"),
        "challengeSentTo": _("Challenge sent: waiting for an answer…"),
        "challengeDeclined": _("{name} declined your challenge."),
        "challengeExpired": _("{name} did not answer in time."),
        "notify": notify_strings(),
    }
