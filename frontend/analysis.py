"""Replays and engine analysis for the analysis board and the game page's move navigation.

Reads only (the frontend app's selectors): a game, a PDN text or a position becomes a list of
plies (the position after each move, with the move's path). A position is analysed off the web
process, within hard bounds: :func:`analysis_job` turns the request into plain data (ruleset,
start FEN, moves, depth, time) and :func:`analysis_answer` awaits the answer of
``bots.analysis.analyse_request`` run by the ``analysis`` Celery queue's worker (production)
or by the embedded mode's small thread pool (``KONDAVO_BOT_INPROCESS``), never in the
event loop and at most ``KONDAVO_ANALYSIS_WAIT_SECONDS``. Bad input raises
:class:`AnalysisInputError` with a message a player can act on; an answer that does not come
in time raises :class:`AnalysisUnavailable`. Admission (how many, how often) is
``frontend.admission``'s.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils.translation import gettext as _

from bots import analysis as engine_analysis
from kondavo.games.engine_errors import engine_error_text
from variants import GameRecord, Position, Variant, VariantError, get_variant
from variants.errors import UnknownVariant
from variants.pdn import read_pdn

log = logging.getLogger(__name__)

# Bounds of one analysis request (settings may lower them, never raise past these).
MAX_DEPTH = engine_analysis.REQUEST_MAX_DEPTH
MAX_TIME = engine_analysis.REQUEST_MAX_TIME
MAX_PDN_CHARS = 64_000
MAX_PLIES = engine_analysis.REQUEST_MAX_PLIES


class AnalysisInputError(ValueError):
    """The ruleset, FEN, PDN or ply of a request is not usable; the message says why."""


class AnalysisUnavailable(Exception):
    """No answer in time (the engine's queue is long, or its worker is down)."""

    def __init__(self, message: str, retry_after: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Replay:
    variant: Variant
    record: GameRecord
    tags: dict[str, str]
    result: str

    def as_dict(self) -> dict[str, Any]:
        return replay_payload(self.variant, self.record, tags=self.tags, result=self.result)


def ruleset_get(key: str) -> Variant:
    try:
        return get_variant(str(key or ""))
    except UnknownVariant:
        raise AnalysisInputError(_("This ruleset is not known here.")) from None


def replay_payload(variant: Variant, record: GameRecord, *, tags: dict[str, str] | None = None,
                   result: str = "*") -> dict[str, Any]:
    """Every ply of ``record``: ply 0 is the start, ply n the position after move n."""
    label = variant.square_label
    plies: list[dict[str, Any]] = [{"fen": variant.format_fen(record.start), "notation": None,
                                    "path": None, "captured": []}]
    for played, position in zip(record.moves, record.positions[1:], strict=True):
        plies.append({
            "fen": variant.format_fen(position),
            "notation": played.notation,
            "path": [label(s) for s in played.move.path],
            "captured": [label(s) for s in played.move.captured],
        })
    return {"ruleset": variant.key, "board": variant.board.as_dict(),
            "start_fen": plies[0]["fen"], "plies": plies, "tags": tags or {},
            "result": result}


def replay_from_pdn(*, ruleset: str, text: str) -> Replay:
    """The first game of a PDN text. A GameType tag may name the ruleset; else ``ruleset``."""
    if len(text) > MAX_PDN_CHARS:
        raise AnalysisInputError(_("The PDN is too long (the limit is %(limit)s characters).")
                                 % {"limit": MAX_PDN_CHARS})
    if not text.strip():
        raise AnalysisInputError(_("The PDN is empty."))
    variant = ruleset_get(ruleset)
    try:
        games = read_pdn(text, variant)
    except VariantError as exc:
        raise AnalysisInputError(_("The PDN could not be read. %(reason)s")
                                 % {"reason": engine_error_text(exc)}) from None
    if not games:
        raise AnalysisInputError(_("The PDN holds no game."))
    game = games[0]
    if len(game.record.moves) > MAX_PLIES:
        raise AnalysisInputError(_("The game is too long (the limit is %(limit)s moves).")
                                 % {"limit": MAX_PLIES})
    return Replay(game.variant, game.record, dict(game.tags), game.result)


def replay_from_fen(*, ruleset: str, fen: str) -> Replay:
    variant = ruleset_get(ruleset)
    return Replay(variant, GameRecord.new(variant, position_from_fen(variant, fen)), {}, "*")


def position_from_fen(variant: Variant, fen: str) -> Position:
    fen = str(fen or "").strip()
    if not fen:
        raise AnalysisInputError(_("The FEN is empty."))
    if len(fen) > 1000:
        raise AnalysisInputError(_("The FEN is too long."))
    try:
        return variant.parse_fen(fen)
    except VariantError as exc:
        raise AnalysisInputError(_("The FEN could not be read. %(reason)s")
                                 % {"reason": engine_error_text(exc)}) from None


def analysis_bounds() -> tuple[int, float]:
    depth = min(int(getattr(settings, "KONDAVO_ANALYSIS_MAX_DEPTH", MAX_DEPTH)), MAX_DEPTH)
    limit = min(float(getattr(settings, "KONDAVO_ANALYSIS_MAX_SECONDS", MAX_TIME)), MAX_TIME)
    return max(1, depth), max(0.05, limit)


def analysis_job(replay: Replay, ply: int | None = None, *, depth: int | None = None,
                 time_limit: float | None = None) -> dict[str, Any]:
    """The request as plain data for ``bots.analysis.analyse_request``: the position after
    ``ply`` moves of ``replay`` (default: its start), depth and time within the bounds."""
    max_depth, max_time = analysis_bounds()
    depth = max_depth if depth is None else max(1, min(int(depth), max_depth))
    time_limit = max_time if time_limit is None else max(0.05, min(float(time_limit), max_time))
    moves = [m.notation for m in replay.record.moves]
    if ply is not None:
        if not 0 <= ply <= len(moves):
            raise AnalysisInputError(_("The move number must be 0 to %(n)s.")
                                     % {"n": len(moves)})
        moves = moves[:ply]
    else:
        moves = []
    return {"ruleset": replay.variant.key,
            "fen": replay.variant.format_fen(replay.record.start),
            "moves": moves, "depth": depth, "time_limit": time_limit}


def wait_seconds() -> float:
    return max(1.0, float(getattr(settings, "KONDAVO_ANALYSIS_WAIT_SECONDS", 10.0)))


def run_inprocess() -> bool:
    """The embedded mode: no worker, the thread pool searches."""
    return bool(getattr(settings, "KONDAVO_BOT_INPROCESS", False))


async def analysis_answer(job: dict[str, Any]) -> dict[str, Any]:
    """The answer to ``job`` (:func:`analysis_job`), awaited on the event loop: no thread
    searches, polls or sleeps for it in this process. (While the site's sync-only
    middleware wraps the view, Django's adapter still parks the request's own thread until
    the view returns; the site-wide cap bounds how many.)"""
    timeout = wait_seconds()
    if run_inprocess():
        future = engine_analysis.background_pool().submit(_run_job, job)
        try:
            data = await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            future.cancel()  # still queued: never searched
            raise AnalysisUnavailable(_("The engine is busy: try again in a moment.")) from None
    else:
        task_id = await sync_to_async(_send, thread_sensitive=False)(job, timeout)
        data = await _celery_result(task_id, timeout)
    error = data.get("error")
    if isinstance(error, dict):
        raise AnalysisInputError(_("The engine could not analyse this position."))
    return data


def _run_job(job: dict[str, Any]) -> dict[str, Any]:
    try:
        return engine_analysis.analyse_request(**job)
    except engine_analysis.AnalysisRequestError as exc:
        return {"error": {"code": "bad_request", "message": str(exc)}}


def _send(job: dict[str, Any], timeout: float) -> str:
    from bots.tasks import analysis_eval

    # ``expires``: a message still queued when the visitor stopped waiting is dropped.
    result = analysis_eval.apply_async(kwargs=job, queue="analysis", expires=timeout)
    return str(result.id)


_CLIENTS: WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = WeakKeyDictionary()


def _result_client() -> Any:
    """An asyncio Redis client on the result backend, one per event loop."""
    import redis.asyncio

    loop = asyncio.get_running_loop()
    client = _CLIENTS.get(loop)
    if client is None:
        from kondavo.redis_clients import connection_options

        client = _CLIENTS[loop] = redis.asyncio.Redis.from_url(
            str(settings.CELERY_RESULT_BACKEND), **connection_options(asyncio=True))
    return client


async def _celery_result(task_id: str, timeout: float) -> dict[str, Any]:
    """The task's result from the Redis result backend, awaited on the event loop: the
    backend publishes each result on its key's channel as it stores it, so this subscribes,
    then reads the key (a result stored before the subscription), then waits for the
    message."""
    from kondavo.celery import app

    backend = app.backend
    key = backend.get_key_for_task(task_id)
    client = _result_client()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(key)
        raw = await client.get(key)
        while raw is None:
            left = deadline - loop.time()
            if left <= 0:
                raise AnalysisUnavailable(_("The engine is busy: try again in a moment."))
            message = await pubsub.get_message(ignore_subscribe_messages=True,
                                               timeout=min(left, 1.0))
            if message is not None and message.get("type") == "message":
                raw = message["data"]
    finally:
        await pubsub.aclose()
    await client.delete(key)
    meta = backend.decode_result(raw)
    if meta.get("status") != "SUCCESS" or not isinstance(meta.get("result"), dict):
        log.warning("analysis task %s: %s", task_id, meta.get("status"))
        raise AnalysisUnavailable(_("The engine could not answer: try again."), 2)
    return dict(meta["result"])
