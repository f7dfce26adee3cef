"""The puzzles app's service layer: loading puzzles, checking a player's moves, ratings,
streaks, the daily puzzle and puzzles found in finished games.

- Loading: ``puzzles_load`` upserts the generator's data files (``bots/puzzles/data/
  <ruleset>.jsonl``) by puzzle id, skipping a file whose digest is the one last loaded; a
  new install gets them from ``post_migrate`` (``apps.py``) and ``manage.py load_puzzles``.
  A puzzle a newer version of its file no longer holds is retired (kept, not served).
  A puzzle that does not replay in its ruleset (unknown ruleset, bad FEN, illegal move,
  wrong side to move) is skipped and counted, never stored.
- Solving: the server holds the solution. ``puzzle_move`` judges one move of the solver
  (sent as its notation or landing path at ``ply``) and answers with the opponent's reply;
  ``puzzle_hint`` names the piece to move; ``puzzle_solution`` shows the whole line.
- Ratings (Glicko-2, ``glicko.py``): the first attempt of a player at a puzzle moves both
  ratings once, when it ends: solved (score 1), solved after a hint (0.5), a wrong move or
  the solution asked for (0). Later tries are practice. Streak puzzles are not rated.
- Progress: an account's in the database (``AccountProgress``), a guest's in the session
  (``SessionProgress``), moved to the account when the guest logs in or signs up
  (``session_progress_claim``).
- Games: ``game_puzzles_store`` (the Celery task ``tasks.puzzles_from_game``) asks the
  generator for the puzzles of a finished game and stores them with their source game.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from django.conf import settings
from django.db import IntegrityError, close_old_connections, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from kondavo.accounts.models import Player
from kondavo.games.hooks import runs_without_workers
from variants import Color, Move, Position, Variant, VariantError, get_variant
from variants.errors import UnknownVariant

from . import glicko
from .errors import PuzzleDataError, PuzzleError
from .models import DailyPuzzle, GameScan, Puzzle, PuzzleAttempt, PuzzleFile, PuzzleRating

log = logging.getLogger(__name__)

MAX_SOLUTION = 40          # plies of a solution line
MAX_MOVE_TEXT = 200        # characters of one move sent by a client
SESSION_KEY = "kondavo_puzzles"
STREAK_KEY = "kondavo_puzzle_streak"
LAST_RULESET_KEY = "kondavo_puzzle_ruleset"
SESSION_ATTEMPTS_KEPT = 2000  # a guest's attempts remembered (the oldest go first)
STREAK_START = 800
STREAK_STEP = 60
STREAK_SEEN_KEPT = 300


# --------------------------------------------------------------------------- replaying

@dataclass(frozen=True)
class Line:
    """A puzzle's solution replayed: ``positions[i]`` is the position before ply ``i``."""

    variant: Variant
    positions: tuple[Position, ...]
    moves: tuple[Move, ...]


def _variant(key: str) -> Variant:
    try:
        return get_variant(str(key))
    except UnknownVariant:
        raise PuzzleDataError(f"unknown ruleset {key!r}") from None


def line_replay(*, ruleset: str, fen: str, solution: Sequence[str], solver: str) -> Line:
    """Replay a solution from ``fen``; raise ``PuzzleDataError`` saying what is wrong."""
    variant = _variant(ruleset)
    if not isinstance(fen, str) or not fen.strip() or len(fen) > 300:
        raise PuzzleDataError("the FEN is missing or too long")
    try:
        position = variant.parse_fen(fen)
    except VariantError as exc:
        raise PuzzleDataError(f"bad FEN {fen!r}: {exc}") from None
    if solver not in ("white", "black"):
        raise PuzzleDataError(f"solver must be white or black, not {solver!r}")
    if (position.turn is Color.WHITE) != (solver == "white"):
        raise PuzzleDataError("the solver is not the side to move")
    if (not isinstance(solution, list | tuple) or not solution
            or len(solution) > MAX_SOLUTION or len(solution) % 2 == 0
            or not all(isinstance(m, str) for m in solution)):
        raise PuzzleDataError("the solution must be an odd number of moves, solver first "
                              "and last")
    positions = [position]
    moves: list[Move] = []
    for ply, text in enumerate(solution):
        try:
            move = variant.parse_move(position, text)
        except VariantError as exc:
            raise PuzzleDataError(f"move {ply + 1} ({text!r}): {exc}") from None
        moves.append(move)
        position = variant.apply(position, move)
        positions.append(position)
    return Line(variant, tuple(positions), tuple(moves))


def puzzle_line(puzzle: Puzzle) -> Line:
    try:
        return line_replay(ruleset=puzzle.ruleset, fen=puzzle.fen, solution=puzzle.solution,
                           solver=puzzle.solver)
    except PuzzleDataError as exc:  # stored puzzles were checked; a ruleset may be gone
        raise PuzzleError("not_found", f"this puzzle cannot be played here: {exc}") from None


def move_payload(variant: Variant, position: Position, move: Move) -> dict[str, Any]:
    label = variant.square_label
    return {"notation": variant.format_move(position, move),
            "path": [label(s) for s in move.path],
            "captured": [label(s) for s in move.captured]}


def legal_payload(variant: Variant, position: Position) -> list[dict[str, Any]]:
    legal = variant.legal_moves(position)
    label = variant.square_label
    return [{"notation": variant.format_move(position, m, legal),
             "path": [label(s) for s in m.path],
             "captured": [label(s) for s in m.captured]} for m in legal]


# --------------------------------------------------------------------------- loading

@dataclass
class LoadReport:
    files: int = 0
    unchanged: int = 0
    created: int = 0
    updated: int = 0
    skipped: int = 0
    retired: int = 0  # dropped by a newer version of their file
    errors: list[str] = field(default_factory=list)


class Stored(NamedTuple):
    """What ``puzzles_store`` did: counts, refusals and the ids it holds now."""

    created: int
    updated: int
    skipped: int
    errors: list[str]
    ids: set[str]


def data_dirs() -> list[Path]:
    """Where shipped puzzle files are: ``KONDAVO_PUZZLE_DIRS`` or ``bots/puzzles/data``."""
    configured = getattr(settings, "KONDAVO_PUZZLE_DIRS", None)
    if configured:
        return [Path(p) for p in configured]
    import bots

    return [Path(bots.__file__).resolve().parent / "puzzles" / "data"]


def data_files() -> list[Path]:
    return sorted(p for d in data_dirs() if d.is_dir() for p in d.glob("*.jsonl"))


def puzzle_fields(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The model fields of one generator dict (``bots.puzzles``'s format), checked by
    replaying its line; ``PuzzleDataError`` when it does not replay."""
    if not isinstance(raw, Mapping):
        raise PuzzleDataError("a puzzle must be a JSON object")
    pid = raw.get("id")
    ruleset = raw.get("ruleset")
    if not isinstance(pid, str) or not 3 <= len(pid) <= 80:
        raise PuzzleDataError(f"bad id {pid!r}")
    if not isinstance(ruleset, str):
        raise PuzzleDataError(f"{pid}: bad ruleset {ruleset!r}")
    solution = list(raw.get("solution") or [])
    try:
        line_replay(ruleset=ruleset, fen=raw.get("fen", ""), solution=solution,
                    solver=str(raw.get("solver", "")))
    except PuzzleDataError as exc:
        raise PuzzleDataError(f"{pid}: {exc}") from None
    themes = [str(t)[:40] for t in raw.get("themes") or [] if isinstance(t, str)][:12]
    try:
        rating = float(raw.get("rating", glicko.START_RATING))
    except (TypeError, ValueError):
        raise PuzzleDataError(f"{pid}: bad rating {raw.get('rating')!r}") from None
    found = raw.get("source")
    source: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    ply = source.get("ply")
    return {
        "id": pid, "ruleset": ruleset, "fen": str(raw["fen"]).strip(), "solution": solution,
        "solver": str(raw["solver"]), "themes": themes,
        "theme_tags": "," + ",".join(themes) + "," if themes else "",
        "rating": min(glicko.MAX_RATING, max(glicko.MIN_RATING, rating)),
        "source_kind": str(source.get("kind") or "selfplay")[:16],
        "source_ply": ply if isinstance(ply, int) and 0 <= ply < 100_000 else None,
        "data": {"source": dict(source), "proof": raw.get("proof") or {}},
    }


# Fields a new version of a shipped file may change; ratings, plays and "enabled" (the
# staff's choice) stay as the site made them.
CONTENT_FIELDS = ("ruleset", "fen", "solution", "solver", "themes", "theme_tags",
                  "source_kind", "source_ply", "data")


def puzzles_store(rows: Iterable[Mapping[str, Any]], *,
                  extra: Mapping[str, Any] | None = None) -> Stored:
    """Upsert generator dicts by id; ``extra`` fields are set on every one (and compared
    with the stored puzzle's like the content fields)."""
    checked: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    for raw in rows:
        try:
            fields = puzzle_fields(raw)
        except PuzzleDataError as exc:
            errors.append(str(exc))
            continue
        fields.update(extra or {})
        checked[fields["id"]] = fields
    names = CONTENT_FIELDS + tuple(extra or ())
    with transaction.atomic():
        existing = Puzzle.objects.in_bulk(list(checked))
        new = [Puzzle(**f) for pid, f in checked.items() if pid not in existing]
        Puzzle.objects.bulk_create(new, batch_size=500)
        changed = []
        for pid, puzzle in existing.items():
            fields = checked[pid]
            if any(getattr(puzzle, name) != fields[name] for name in names):
                for name in names:
                    setattr(puzzle, name, fields[name])
                changed.append(puzzle)
        if changed:
            Puzzle.objects.bulk_update(changed, names, batch_size=500)
    return Stored(len(new), len(changed), len(errors), errors, set(checked))


def _read_jsonl(path: Path, errors: list[str]) -> list[Any]:
    rows = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            rows.append(json.loads(text))
        except ValueError as exc:
            errors.append(f"{path.name}:{number}: not JSON ({exc})")
    return rows


def puzzles_load(*, paths: Sequence[Path] | None = None, force: bool = False) -> LoadReport:
    """Load puzzle files (default: the shipped ones). A file whose content is the one last
    loaded is skipped unless ``force``: running this again costs one hash per file.

    Each puzzle records the file that loaded it. A puzzle that file held before and its new
    version does not (``bots.puzzles verify --drop`` removes puzzles whose proof no longer
    holds) is retired: kept with its attempts and ratings, no longer served. A puzzle that
    comes back is served again; the staff's "enabled" is never touched."""
    report = LoadReport()
    for path in (data_files() if paths is None else list(paths)):
        report.files += 1
        content = path.read_bytes()
        digest = hashlib.sha256(content).hexdigest()
        name = path.name
        known = PuzzleFile.objects.filter(name=name).first()
        if known is not None and known.digest == digest and not force:
            report.unchanged += 1
            continue
        errors: list[str] = []
        rows = _read_jsonl(path, errors)
        with transaction.atomic():
            stored = puzzles_store(rows, extra={"file": name, "retired": False})
            held = Puzzle.objects.filter(file=name, retired=False).values_list("pk", flat=True)
            gone = sorted(set(held) - stored.ids)
            for start in range(0, len(gone), 500):
                Puzzle.objects.filter(pk__in=gone[start:start + 500]).update(retired=True)
            PuzzleFile.objects.update_or_create(name=name, defaults={
                "digest": digest, "loaded": stored.created + stored.updated,
                "skipped": stored.skipped + len(errors)})
        errors += stored.errors
        report.created += stored.created
        report.updated += stored.updated
        report.retired += len(gone)
        report.skipped += len(errors)
        report.errors += [f"{name}: {e}" for e in errors]
    for error in report.errors[:20]:
        log.warning("puzzle skipped: %s", error)
    return report


# --------------------------------------------------------------------------- progress

class Progress(Protocol):
    """Where one visitor's puzzle ratings and first attempts are kept."""

    def rating(self, ruleset: str) -> tuple[glicko.Rating, int]: ...
    def attempt(self, puzzle_id: str) -> tuple[str, bool, int] | None: ...
    def attempt_save(self, puzzle: Puzzle, result: str, hinted: bool, ply: int) -> None: ...
    def rating_save(self, ruleset: str, rating: glicko.Rating, won: bool) -> None: ...
    def attempted_ids(self, ruleset: str) -> QuerySet[Any] | list[str]: ...
    def best_streak(self, ruleset: str, count: int) -> int: ...
    def lock(self) -> None: ...


class AccountProgress:
    """An account's progress in the database (``PuzzleRating``, ``PuzzleAttempt``)."""

    def __init__(self, player: Player) -> None:
        self.player = player

    def lock(self) -> None:
        """Serialise one account's puzzle writes (two tabs sending the same first move must
        not rate the attempt twice): the player's row, locked until the commit."""
        Player.objects.select_for_update().filter(pk=self.player.pk).values_list("pk").first()

    def _row(self, ruleset: str, lock: bool = False) -> PuzzleRating | None:
        rows = PuzzleRating.objects.filter(player=self.player, ruleset=ruleset)
        return (rows.select_for_update() if lock else rows).first()

    def rating(self, ruleset: str) -> tuple[glicko.Rating, int]:
        row = self._row(ruleset)
        if row is None:
            return glicko.Rating(), 0
        return glicko.Rating(row.rating, row.deviation, row.volatility), row.attempts

    def attempt(self, puzzle_id: str) -> tuple[str, bool, int] | None:
        row = (PuzzleAttempt.objects.filter(player=self.player, puzzle_id=puzzle_id)
               .values_list("result", "hinted", "ply").first())
        return (str(row[0]), bool(row[1]), int(row[2])) if row else None

    def attempt_save(self, puzzle: Puzzle, result: str, hinted: bool, ply: int) -> None:
        PuzzleAttempt.objects.update_or_create(
            player=self.player, puzzle=puzzle,
            defaults={"result": result, "hinted": hinted, "ply": ply,
                      "finished": None if result == "open" else timezone.now()})

    def rating_save(self, ruleset: str, rating: glicko.Rating, won: bool) -> None:
        row = self._row(ruleset, lock=True) or PuzzleRating(player=self.player,
                                                            ruleset=ruleset)
        row.rating, row.deviation, row.volatility = (rating.rating, rating.deviation,
                                                     rating.volatility)
        row.attempts += 1
        row.wins += int(won)
        row.save()

    def attempted_ids(self, ruleset: str) -> QuerySet[Any]:
        return PuzzleAttempt.objects.filter(player=self.player,
                                            puzzle__ruleset=ruleset).values("puzzle_id")

    def best_streak(self, ruleset: str, count: int) -> int:
        row, _created = PuzzleRating.objects.get_or_create(player=self.player,
                                                           ruleset=ruleset)
        if count > row.best_streak:
            PuzzleRating.objects.filter(pk=row.pk).update(best_streak=count)
            return count
        return row.best_streak


class SessionProgress:
    """A guest's progress in the session: ``{"r": {ruleset: [rating, deviation,
    volatility, attempts, wins, best streak]}, "a": {puzzle id: [result, hinted, ply]}}``
    (the last ``SESSION_ATTEMPTS_KEPT`` attempts)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def lock(self) -> None:
        """Nothing to lock: a session is written once, at the end of its request."""

    def _data(self) -> dict[str, Any]:
        data = self.session.get(SESSION_KEY)
        if not isinstance(data, dict):
            data = {"r": {}, "a": {}}
        data.setdefault("r", {})
        data.setdefault("a", {})
        return data

    def _save(self, data: dict[str, Any]) -> None:
        self.session[SESSION_KEY] = data
        self.session.modified = True

    def _row(self, ruleset: str) -> list[Any]:
        row = self._data()["r"].get(ruleset)
        if not isinstance(row, list) or len(row) != 6:
            return [glicko.START_RATING, glicko.START_DEVIATION, glicko.START_VOLATILITY,
                    0, 0, 0]
        return row

    def rating(self, ruleset: str) -> tuple[glicko.Rating, int]:
        row = self._row(ruleset)
        return glicko.Rating(float(row[0]), float(row[1]), float(row[2])), int(row[3])

    def attempt(self, puzzle_id: str) -> tuple[str, bool, int] | None:
        row = self._data()["a"].get(puzzle_id)
        if not isinstance(row, list) or len(row) != 3:
            return None
        return str(row[0]), bool(row[1]), int(row[2])

    def attempt_save(self, puzzle: Puzzle, result: str, hinted: bool, ply: int) -> None:
        data = self._data()
        attempts = data["a"]
        attempts.pop(puzzle.id, None)
        attempts[puzzle.id] = [result, hinted, ply]
        while len(attempts) > SESSION_ATTEMPTS_KEPT:
            attempts.pop(next(iter(attempts)))
        self._save(data)

    def rating_save(self, ruleset: str, rating: glicko.Rating, won: bool) -> None:
        data = self._data()
        row = self._row(ruleset)
        data["r"][ruleset] = [round(rating.rating, 3), round(rating.deviation, 3),
                              round(rating.volatility, 6), int(row[3]) + 1,
                              int(row[4]) + int(won), int(row[5])]
        self._save(data)

    def attempted_ids(self, ruleset: str) -> list[str]:
        prefix = f"{ruleset}-"
        return [pid for pid in self._data()["a"] if pid.startswith(prefix)]

    def best_streak(self, ruleset: str, count: int) -> int:
        data = self._data()
        row = self._row(ruleset)
        if count > int(row[5]):
            row[5] = count
            data["r"][ruleset] = row
            self._save(data)
        return int(row[5])


def progress_for(*, user: Any, player: Player | None, session: Any) -> Progress:
    """An account's progress when logged in, else the session's."""
    if user is not None and user.is_authenticated and player is not None:
        return AccountProgress(player)
    return SessionProgress(session)


@transaction.atomic
def session_progress_claim(*, session: Any, player: Player) -> int:
    """A guest who logs in or signs up keeps their puzzle progress: the session's ratings
    go to the account where it has none in that ruleset yet, and its attempts become the
    account's first attempts (those it had already are kept). Returns how many attempts
    moved; the session's progress is then emptied."""
    data = session.get(SESSION_KEY)
    if not isinstance(data, dict):
        return 0
    for ruleset, row in (data.get("r") or {}).items():
        if not isinstance(row, list) or len(row) != 6 or not int(row[3]):
            continue
        values = {"rating": float(row[0]), "deviation": float(row[1]),
                  "volatility": float(row[2]), "attempts": int(row[3]), "wins": int(row[4])}
        found, created = PuzzleRating.objects.get_or_create(
            player=player, ruleset=str(ruleset)[:32],
            defaults={**values, "best_streak": int(row[5])})
        if not created and found.attempts == 0:  # a row with no rated attempt yet
            for name, value in values.items():
                setattr(found, name, value)
            found.best_streak = max(found.best_streak, int(row[5]))
            found.save()
    moved = 0
    attempts = data.get("a") or {}
    known = set(Puzzle.objects.filter(pk__in=list(attempts)).values_list("pk", flat=True))
    have = set(PuzzleAttempt.objects.filter(player=player, puzzle_id__in=known)
               .values_list("puzzle_id", flat=True))
    rows = []
    for pid, row in attempts.items():
        if pid in known and pid not in have and isinstance(row, list) and len(row) == 3:
            result = str(row[0])
            if result not in PuzzleAttempt.Result.values:
                continue
            rows.append(PuzzleAttempt(player=player, puzzle_id=pid, result=result,
                                      hinted=bool(row[1]), ply=int(row[2]),
                                      finished=None if result == "open" else timezone.now()))
    PuzzleAttempt.objects.bulk_create(rows)
    moved = len(rows)
    session.pop(SESSION_KEY, None)
    return moved


# --------------------------------------------------------------------------- solving

def puzzle_get(*, puzzle_id: Any) -> Puzzle:
    if not isinstance(puzzle_id, str) or not 0 < len(puzzle_id) <= 80:
        raise PuzzleError("not_found", "no such puzzle")
    puzzle = Puzzle.objects.served().filter(pk=puzzle_id).first()
    if puzzle is None:
        raise PuzzleError("not_found", "no such puzzle")
    return puzzle


def _ply_of(value: Any, line: Line) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PuzzleError("bad_request", "ply must be an integer")
    if not 0 <= value < len(line.moves) or value % 2:
        raise PuzzleError("bad_request",
                          f"ply must be an even number from 0 to {len(line.moves) - 1}")
    return value


def _rate(*, puzzle: Puzzle, progress: Progress, score: float) -> dict[str, Any]:
    """Finish a first attempt: both ratings move (the puzzle row locked)."""
    locked = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
    before, _n = progress.rating(puzzle.ruleset)
    puzzle_before = glicko.Rating(locked.rating, locked.deviation, locked.volatility)
    after, puzzle_after = glicko.rate_attempt(before, puzzle_before, score)
    locked.rating, locked.deviation, locked.volatility = (
        puzzle_after.rating, puzzle_after.deviation, puzzle_after.volatility)
    locked.plays += 1
    locked.wins += int(score == 1.0)
    locked.save(update_fields=["rating", "deviation", "volatility", "plays", "wins"])
    progress.rating_save(puzzle.ruleset, after, score == 1.0)
    return {"before": round(before.rating), "after": round(after.rating),
            "delta": round(after.rating) - round(before.rating),
            "puzzle": round(puzzle_after.rating)}


@dataclass
class Judged:
    """What ``puzzle_move`` answers (``as_dict`` is the protocol's JSON)."""

    correct: bool
    done: bool
    move: dict[str, Any]
    fen: str
    reply: dict[str, Any] | None = None
    legal: list[dict[str, Any]] = field(default_factory=list)
    rating: dict[str, Any] | None = None
    result: str | None = None
    streak: dict[str, Any] | None = None
    forced: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "done": self.done, "move": self.move,
                "fen": self.fen, "reply": self.reply, "legal": self.legal,
                "rating": self.rating, "result": self.result, "streak": self.streak,
                "forced": self.forced}


def _parse_sent(line: Line, ply: int, text: Any) -> Move:
    if isinstance(text, list):  # a landing path, as the board reports it
        if not 2 <= len(text) <= 40 or not all(isinstance(s, str) and len(s) <= 4
                                               for s in text):
            raise PuzzleError("bad_request", "a move path is a list of squares")
        text = "x".join(text) if len(text) > 2 else "-".join(text)
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
        raise PuzzleError("bad_request", "move must be a move's notation")
    position = line.positions[ply]
    try:
        return line.variant.parse_move(position, text)
    except VariantError as exc:
        # A path joined with "-" may be a capture's ("x") in this notation: try it once.
        if "-" in text and "x" not in text:
            try:
                return line.variant.parse_move(position, text.replace("-", "x"))
            except VariantError:
                pass
        raise PuzzleError("illegal_move", str(exc)) from None


@transaction.atomic
def puzzle_move(*, puzzle_id: Any, ply: Any, move: Any, progress: Progress,
                session: Any = None, streak: bool = False) -> Judged:
    """Judge the solver's ``move`` at ``ply`` (an even index of the solution).

    Right: the reply is played (the next position and its legal moves returned), or the
    puzzle is solved. Wrong: nothing is played. The first attempt's end moves the ratings
    (``rating``); a streak puzzle (``streak``, the session's current one) moves the streak
    instead."""
    progress.lock()
    puzzle = puzzle_get(puzzle_id=puzzle_id)
    line = puzzle_line(puzzle)
    k = _ply_of(ply, line)
    played = _parse_sent(line, k, move)
    variant = line.variant
    before = line.positions[k]
    expected = line.moves[k]
    correct = played == expected
    after = variant.apply(before, played)
    judged = Judged(correct=correct, done=False,
                    move=move_payload(variant, before, played),
                    fen=variant.format_fen(after))
    last = k + 1 >= len(line.moves)
    if correct and not last:
        reply = line.moves[k + 1]
        judged.reply = move_payload(variant, after, reply)
        judged.forced = bool(reply.captured)
        judged.fen = variant.format_fen(line.positions[k + 2])
        judged.legal = legal_payload(variant, line.positions[k + 2])
    judged.done = correct and last
    streak_state = _streak_get(session) if streak and session is not None else None
    if streak_state is not None and streak_state.get("current") == puzzle.id \
            and streak_state.get("alive"):
        if not correct:
            streak_state["alive"] = False
        elif last:
            streak_state["count"] = int(streak_state.get("count", 0)) + 1
            streak_state["current"] = None
        streak_state["best"] = progress.best_streak(puzzle.ruleset,
                                                    int(streak_state.get("count", 0)))
        _streak_put(session, streak_state)
        judged.streak = _streak_public(streak_state)
        judged.result = "solved" if judged.done else ("failed" if not correct else None)
        return judged
    state = progress.attempt(puzzle.id)
    if state is None or state[0] == "open":
        result, hinted, done_ply = state or ("open", False, 0)
        if not correct:
            judged.rating = _rate(puzzle=puzzle, progress=progress, score=0.0)
            progress.attempt_save(puzzle, "failed", hinted, done_ply)
            judged.result = "failed"
        elif last and done_ply == k:
            score = 0.5 if hinted else 1.0
            judged.rating = _rate(puzzle=puzzle, progress=progress, score=score)
            judged.result = "helped" if hinted else "solved"
            progress.attempt_save(puzzle, judged.result, hinted, k + 1)
        elif done_ply == k:
            progress.attempt_save(puzzle, "open", hinted, k + 2)
        elif last:  # right, but the earlier moves were not sent in this attempt
            judged.result = "practice"
    else:
        judged.result = "practice" if correct and last else (None if correct else "retry")
    return judged


@transaction.atomic
def puzzle_hint(*, puzzle_id: Any, ply: Any, progress: Progress) -> dict[str, Any]:
    """The square of the piece the solver moves at ``ply``. During a first attempt the
    solve then counts half (0.5)."""
    progress.lock()
    puzzle = puzzle_get(puzzle_id=puzzle_id)
    line = puzzle_line(puzzle)
    k = _ply_of(ply, line)
    state = progress.attempt(puzzle.id)
    if state is None or state[0] == "open":
        done_ply = state[2] if state else 0
        progress.attempt_save(puzzle, "open", True, done_ply)
    return {"square": line.variant.square_label(line.moves[k].origin)}


@transaction.atomic
def puzzle_solution(*, puzzle_id: Any, progress: Progress, session: Any = None,
                    streak: bool = False) -> dict[str, Any]:
    """The whole line (each move with the position after it). Asked during the first
    attempt, it ends that attempt as failed (the ratings move); in a streak, the streak."""
    progress.lock()
    puzzle = puzzle_get(puzzle_id=puzzle_id)
    line = puzzle_line(puzzle)
    variant = line.variant
    steps = [{**move_payload(variant, line.positions[i], m),
              "fen": variant.format_fen(line.positions[i + 1])}
             for i, m in enumerate(line.moves)]
    out: dict[str, Any] = {"line": steps, "rating": None, "streak": None}
    streak_state = _streak_get(session) if streak and session is not None else None
    if streak_state is not None and streak_state.get("current") == puzzle.id:
        streak_state["alive"] = False
        _streak_put(session, streak_state)
        out["streak"] = _streak_public(streak_state)
        return out
    state = progress.attempt(puzzle.id)
    if state is None or state[0] == "open":
        out["rating"] = _rate(puzzle=puzzle, progress=progress, score=0.0)
        progress.attempt_save(puzzle, "failed", bool(state and state[1]),
                              state[2] if state else 0)
    return out


# --------------------------------------------------------------------------- choosing

def served_puzzles(*, ruleset: str, theme: str = "") -> QuerySet[Puzzle]:
    rows = Puzzle.objects.served().filter(ruleset=ruleset)
    if theme:
        rows = rows.filter(theme_tags__contains=f",{theme},")
    return rows


def puzzle_next(*, ruleset: str, theme: str = "", progress: Progress,
                exclude: Sequence[str] = ()) -> Puzzle | None:
    """A puzzle near the visitor's rating they have not tried, in ``ruleset`` (and
    ``theme``): within 100, then 250, 500 points; then any untried; then any."""
    rating, _n = progress.rating(ruleset)
    base = served_puzzles(ruleset=ruleset, theme=theme).exclude(pk__in=list(exclude))
    untried = base.exclude(pk__in=progress.attempted_ids(ruleset))
    for window in (100, 250, 500, None):
        rows = untried if window is None else untried.filter(
            rating__gte=rating.rating - window, rating__lte=rating.rating + window)
        found = _pick(rows)
        if found is not None:
            return found
    return _pick(base)


def _pick(rows: QuerySet[Puzzle]) -> Puzzle | None:
    count = rows.count()
    if not count:
        return None
    return rows.order_by("pk")[random.randrange(count)]


def puzzles_of_player(*, player: Player | None, ruleset: str | None = None) -> QuerySet[Puzzle]:
    """Puzzles found in ``player``'s own games, where ``player`` had the solver's side and
    played another move than the solution's."""
    if player is None:
        return Puzzle.objects.none()
    rows = Puzzle.objects.served().filter(source_game__isnull=False).exclude(played="")
    rows = rows.filter(Q(source_game__white=player, solver="white")
                       | Q(source_game__black=player, solver="black"))
    if ruleset:
        rows = rows.filter(ruleset=ruleset)
    return rows.order_by("-created")


def puzzle_daily(*, ruleset: str, day: date | None = None) -> Puzzle | None:
    """The day's puzzle in ``ruleset``: chosen once a day among puzzles rated 1200 to 1900
    (any, when none is), kept for the day."""
    day = day or timezone.localdate()
    found = DailyPuzzle.objects.filter(day=day, ruleset=ruleset).select_related("puzzle").first()
    if found is not None and found.puzzle.served:
        return found.puzzle
    rows = served_puzzles(ruleset=ruleset)
    middle = rows.filter(rating__gte=1200, rating__lte=1900)
    pool = middle if middle.exists() else rows
    count = pool.count()
    if not count:
        return None
    seed = int(hashlib.sha256(f"{day.isoformat()}:{ruleset}".encode()).hexdigest()[:12], 16)
    puzzle = pool.order_by("pk")[seed % count]
    try:
        with transaction.atomic():
            DailyPuzzle.objects.update_or_create(day=day, ruleset=ruleset,
                                                 defaults={"puzzle": puzzle})
    except IntegrityError:  # another request chose it at the same time
        pass
    return puzzle


# --------------------------------------------------------------------------- streak

def _streak_get(session: Any) -> dict[str, Any] | None:
    state = session.get(STREAK_KEY) if session is not None else None
    return dict(state) if isinstance(state, dict) else None


def _streak_put(session: Any, state: dict[str, Any]) -> None:
    session[STREAK_KEY] = state
    session.modified = True


def _streak_public(state: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": state.get("ruleset"), "count": int(state.get("count", 0)),
            "alive": bool(state.get("alive")), "best": int(state.get("best", 0))}


def streak_start(*, session: Any, ruleset: str, progress: Progress) -> dict[str, Any]:
    """A new streak in ``ruleset``: puzzles of rising rating until a miss."""
    _variant_or_error(ruleset)
    state = {"ruleset": ruleset, "count": 0, "alive": True, "current": None, "seen": [],
             "best": progress.best_streak(ruleset, 0)}
    _streak_put(session, state)
    return _streak_public(state)


def streak_next(*, session: Any) -> tuple[Puzzle | None, dict[str, Any]]:
    """The streak's current puzzle (a new one after a solve): the lowest-rated unseen
    puzzle at or above ``STREAK_START + count * STREAK_STEP`` (one of the five nearest)."""
    state = _streak_get(session)
    if state is None or not state.get("alive"):
        raise PuzzleError("bad_request", "no streak is running: start one")
    current = state.get("current")
    if current:
        puzzle = Puzzle.objects.served().filter(pk=current).first()
        if puzzle is not None:
            return puzzle, _streak_public(state)
    seen = list(state.get("seen") or [])
    rows = served_puzzles(ruleset=str(state["ruleset"])).exclude(pk__in=seen)
    target = STREAK_START + int(state.get("count", 0)) * STREAK_STEP
    near = list(rows.filter(rating__gte=target).order_by("rating", "pk")[:5])
    if not near:
        near = list(rows.order_by("-rating", "pk")[:1])
    if not near:  # every puzzle of the ruleset seen: the streak is complete
        state["alive"] = False
        _streak_put(session, state)
        return None, _streak_public(state)
    puzzle = random.choice(near)
    state["current"] = puzzle.id
    state["seen"] = (seen + [puzzle.id])[-STREAK_SEEN_KEPT:]
    _streak_put(session, state)
    return puzzle, _streak_public(state)


def _variant_or_error(ruleset: str) -> Variant:
    try:
        return get_variant(str(ruleset))
    except UnknownVariant:
        raise PuzzleError("bad_request", f"unknown ruleset {str(ruleset)[:32]!r}") from None


# --------------------------------------------------------------------------- games

def _generator() -> Any:
    """``bots.puzzles.puzzles_from_game``, or None while the generator is not installed."""
    try:
        from bots.puzzles import puzzles_from_game
    except ImportError:
        return None
    return puzzles_from_game


def games_enabled() -> bool:
    return bool(getattr(settings, "KONDAVO_PUZZLES_FROM_GAMES", True))


def on_game_finished(*, game: Any) -> None:
    """In the transaction that ended ``game``: after the commit, search it for puzzles (on
    the ``analysis`` queue; on a server without workers in a thread of its own), never in
    the request. Aborted and short games are not searched."""
    if not games_enabled() or game.status != "finished":
        return
    if len(game.moves or []) < int(getattr(settings, "KONDAVO_PUZZLES_MIN_PLIES", 12)):
        return
    transaction.on_commit(partial(schedule_game_puzzles, game.pk))


# The embedded mode's searches of finished games: one thread of their own at the lowest CPU
# priority (never the analysis board's pool, which a 20 s search would hold up), and at most
# EMBEDDED_QUEUE games waiting (more are not searched: the mode serves a few players).
EMBEDDED_QUEUE = 50
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
_WAITING = 0


def _embedded_submit(game_id: str) -> bool:
    global _POOL, _WAITING
    with _POOL_LOCK:
        if _WAITING >= EMBEDDED_QUEUE:
            return False
        _WAITING += 1
        if _POOL is None:
            from bots.analysis import lower_thread_priority

            _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kondavo-puzzles",
                                       initializer=partial(lower_thread_priority, 19))
        pool = _POOL

    def run() -> None:
        global _WAITING
        with _POOL_LOCK:
            _WAITING -= 1
        _game_puzzles_in_thread(game_id)

    pool.submit(run)
    return True


def schedule_game_puzzles(game_id: str) -> None:
    try:
        if runs_without_workers():
            if not _embedded_submit(game_id):
                log.warning("puzzles of game %s not searched: %s games waiting", game_id,
                            EMBEDDED_QUEUE)
            return
        from .tasks import puzzles_from_game

        puzzles_from_game.delay(game_id)
    except Exception:  # a broker outage: the game is over anyway
        log.warning("puzzles of game %s not requested", game_id, exc_info=True)


def _game_puzzles_in_thread(game_id: str) -> None:
    close_old_connections()
    try:
        game_puzzles_store(game_id=game_id)
    except Exception:
        log.exception("puzzles of game %s failed", game_id)
    finally:
        close_old_connections()


def _played_differs(fields: Mapping[str, Any], played: Any) -> str:
    """The move played in the game at the puzzle's ply, when it is not the solution's."""
    if not isinstance(played, str) or not played.strip():
        return ""
    variant = get_variant(fields["ruleset"])
    position = variant.parse_fen(fields["fen"])
    try:
        move = variant.parse_move(position, played)
        first = variant.parse_move(position, fields["solution"][0])
    except VariantError:
        return ""
    return "" if move == first else variant.format_move(position, move)[:120]


def game_puzzles_store(*, game_id: str, seconds: float | None = None) -> int:
    """Search one finished game for puzzles and store them, linked to the game. Idempotent:
    a game is searched once (``GameScan``); returns how many puzzles the game gave."""
    from kondavo.games.models import Game

    done = GameScan.objects.filter(game_id=game_id).first()
    if done is not None:
        return done.found
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.FINISHED:
        return 0
    generate = _generator()
    if generate is None:
        log.info("puzzles of game %s: the generator (bots.puzzles) is not installed", game_id)
        return 0
    budget = float(seconds if seconds is not None
                   else getattr(settings, "KONDAVO_PUZZLES_GAME_SECONDS", 20.0))
    start = game.start_fen or get_variant(game.ruleset).initial_fen
    found = list(generate(game.ruleset, start, list(game.moves), seconds=budget))
    stored = 0
    with transaction.atomic():
        scan, created = GameScan.objects.get_or_create(game=game)
        if not created:
            return scan.found
        for raw in found:
            if not isinstance(raw, Mapping):
                continue
            try:
                fields = puzzle_fields(raw)
            except PuzzleDataError as exc:
                log.warning("game %s: puzzle refused: %s", game_id, exc)
                continue
            fields.update(source_kind="game", source_game=game,
                          played=_played_differs(fields, raw.get("played")))
            fields.pop("id")
            _obj, new = Puzzle.objects.get_or_create(id=str(raw["id"]), defaults=fields)
            stored += int(new)
        scan.found = stored
        scan.save(update_fields=["found"])
    return stored
