"""Pages. Views only gather what the templates need; the games logic is in its services."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_POST

from bots.engine.ratings import nominal_rating
from kondavo.games import selectors as game_selectors
from kondavo.games import wire
from kondavo.games.errors import GameError
from kondavo.games.services import game_open_for_viewer
from kondavo.games.timecontrols import DEFAULT_TIME_CONTROL, TIME_CONTROLS
from kondavo.games.views import kept_form
from kondavo.limits import ClientInputError, Limits, decode_json_body
from kondavo.ratelimits import RateLimited, rate_limit
from kondavo.tournaments.services import game_page_info
from variants import get_variant
from variants.errors import UnknownVariant

from . import admission, analysis
from .jsi18n import js_strings
from .naming import ruleset_name
from .rulesets import capture_sentence, offered_variants, page_in_language, ruleset_entries

BOT_LEVELS = range(1, 9)
DEFAULT_BOT_LEVEL = 3


def _url(name: str, fallback: str) -> str:
    """Reverse ``name``; the fallback keeps pages up while another app is being built."""
    try:
        return reverse(name)
    except NoReverseMatch:
        return fallback


def _rulesets() -> list[dict[str, Any]]:
    """The rulesets the site offers, with their words (name, summary, rules page title)."""
    return ruleset_entries(get_language() or "en")


def _time_controls() -> list[dict[str, str]]:
    return [{"key": tc.key, "label": tc.label} for tc in TIME_CONTROLS]


def _variant_boards() -> dict[str, Any]:
    """Board description and start FEN of each ruleset (for the preview boards), and the
    computer's level names with their nominal rating in that ruleset where measured."""
    return {v.key: {"board": v.board.as_dict(), "fen": v.initial_fen,
                    "name": ruleset_name(v), "levels": _level_names(v.key)}
            for v in offered_variants()}


def _level_names(ruleset: str) -> dict[int, str]:
    names = {}
    for level in BOT_LEVELS:
        rating = nominal_rating(ruleset, level)
        names[level] = (_("Level %(n)s (rating %(rating)s)") % {"n": level, "rating": rating}
                        if rating is not None else _("Level %(n)s") % {"n": level})
    return names


def _selected_ruleset(request: HttpRequest, rulesets: list[dict[str, Any]],
                      kept: str = "") -> str:
    """The ruleset of a refused form (``kept``) or asked for in ``?ruleset=`` if the site
    offers it, else the first one."""
    asked = kept or request.GET.get("ruleset", "")
    if asked in {r["key"] for r in rulesets}:
        return asked
    return rulesets[0]["key"] if rulesets else ""


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    """The home page's form. After a refused game creation (a site form without scripts:
    ``kondavo.games.views._refused``) it comes back as the visitor filled it in."""
    kept = kept_form(request)
    rulesets = _rulesets()
    selected = _selected_ruleset(request, rulesets, kept.get("ruleset", ""))
    level = int(kept["level"]) if kept.get("level", "").isdigit() else DEFAULT_BOT_LEVEL
    time_control = kept.get("time_control", "")
    if time_control not in {tc.key for tc in TIME_CONTROLS}:
        time_control = DEFAULT_TIME_CONTROL
    color = kept.get("color", "")
    return render(request, "frontend/home.html", {
        "rulesets": rulesets,
        "selected": selected,
        "selected_has_rules": any(r["has_rules"] for r in rulesets if r["key"] == selected),
        "levels": BOT_LEVELS,
        "level": level if level in BOT_LEVELS else DEFAULT_BOT_LEVEL,
        "color": color if color in ("white", "black") else "random",
        "rated": kept.get("rated", "").lower() in ("1", "true", "on", "yes"),
        "time_controls": _time_controls(),
        "time_control": time_control,
        "home_i18n": {"generic": _("Something went wrong."),
                      "tryAgainIn": _("Try again in {s} s.")},
        "boards": _variant_boards(),
        "new_computer_url": _url("games:new_computer", "/games/new/computer/"),
        "new_friend_url": _url("games:new_friend", "/games/new/friend/"),
    })


@ensure_csrf_cookie
def game(request: HttpRequest, game_id: str) -> HttpResponse:
    player = getattr(request, "player", None)
    try:  # opening the page never takes a seat: the invited person presses "Join"
        found = game_open_for_viewer(game_id=game_id, player=None)
    except GameError as exc:
        if exc.code == "not_found":
            raise Http404("no such game") from None
        raise
    variant = get_variant(found.ruleset)
    can_join = found.status == "waiting" and (
        player is None or (found.side_of(player) is None and not player.is_bot))
    return render(request, "frontend/game.html", {
        "game_id": found.id,
        "join_url": _url_args("games:join", found.id, "") if can_join else "",
        "variant_name": ruleset_name(variant),
        "variant_key": variant.key,
        "has_rules": variant.rules_page() is not None,
        "config": {
            "id": found.id,
            "ws": f"/ws/game/{found.id}/",
            "pdn": _url_args("games:pdn", found.id, ""),
            "replay": reverse("game_replay", args=[found.id]),
            "analysis": reverse("analysis"),
            "lobby": reverse("lobby"),
            "i18n": js_strings(),
            "tournament": game_page_info(game_id=found.id, player=player),
        },
    })


def _url_args(name: str, arg: str, fallback: str) -> str:
    try:
        return reverse(name, args=[arg])
    except NoReverseMatch:
        return fallback


@ensure_csrf_cookie
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/lobby.html", {
        "rulesets": _rulesets(),
        "time_controls": _time_controls(),
        "default_time_control": DEFAULT_TIME_CONTROL,
        "config": {"ws": "/ws/lobby/", "guest": _url("accounts:guest", "/accounts/guest/"),
                   "i18n": js_strings()},
    })


def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/rules_index.html", {"rulesets": _rulesets()})


def rules(request: HttpRequest, key: str) -> HttpResponse:
    try:
        variant = get_variant(key)
    except UnknownVariant:
        raise Http404("no such ruleset") from None
    lang = get_language() or "en"
    found = variant.rules_page(lang)
    if found is None:
        raise Http404("no rules page for this ruleset")
    page, page_lang = found
    return render(request, "frontend/rules.html", {
        "variant": variant,
        "rules": page,
        "rules_lang": page_lang,
        "fallback": not page_in_language(page_lang, lang),
        "rulesets": _rulesets(),
        "capture_rule": capture_sentence(variant, lang),
        "preview": {"board": variant.board.as_dict(), "fen": variant.initial_fen,
                    "i18n": js_strings()},
    })


# --------------------------------------------------------------------------- replay, analysis

@require_GET
def game_replay(request: HttpRequest, game_id: str) -> HttpResponse:
    """Every ply of a game (positions and paths) for move navigation and the analysis board."""
    game = game_selectors.game_get(game_id=game_id)
    if game is None:
        return _json_error("not_found", "no such game", 404)
    record = game_selectors.game_record(game)
    result = (game_selectors.result_score(game)
              if game.status == game.Status.FINISHED else "*")
    payload = analysis.replay_payload(get_variant(game.ruleset), record, result=result)
    payload["game"] = {"id": game.id, "url": game_selectors.game_url(game.id),
                       "white": game.white.name if game.white else None,
                       "black": game.black.name if game.black else None,
                       "status": game.status}
    return JsonResponse(payload)


@ensure_csrf_cookie
def analysis_board(request: HttpRequest) -> HttpResponse:
    """The analysis board: a finished game (``?game=``), a pasted or uploaded PDN, a FEN or a
    position set up in the editor; the engine's evaluation and best line at every move."""
    rulesets = _rulesets()
    selected = _selected_ruleset(request, rulesets)
    return render(request, "frontend/analysis.html", {
        "rulesets": rulesets,
        "selected": selected,
        "levels": BOT_LEVELS,
        "default_level": DEFAULT_BOT_LEVEL,
        "config": {
            "replay": reverse("analysis_replay"),
            "eval": reverse("analysis_eval"),
            "gameReplay": reverse("game_replay", args=["GAME"]),
            "game": (request.GET.get("game") or "")[:12],
            "ruleset": selected,
            "boards": _variant_boards(),
            "newComputer": _url("games:new_computer", "/games/new/computer/"),
            "newFriend": _url("games:new_friend", "/games/new/friend/"),
            "i18n": js_strings(),
        },
    })


def _json_error(code: str, message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def _json_body(request: HttpRequest) -> dict[str, Any]:
    limit = analysis.MAX_PDN_CHARS + 4096
    if len(request.body) > limit:
        raise analysis.AnalysisInputError(
            _("The request is too large (the limit is %(limit)s bytes).") % {"limit": limit})
    if request.content_type == "application/json":
        try:  # depth, numbers and sizes checked before parsing (kondavo.limits)
            return decode_json_body(request.body, Limits(max_bytes=limit,
                                                          max_string=analysis.MAX_PDN_CHARS))
        except ClientInputError as exc:  # its words are the protocol's, in English
            if exc.code == "too_large":  # the only long strings are a PDN or a FEN
                raise analysis.AnalysisInputError(
                    _("The PDN is too long (the limit is %(limit)s characters).")
                    % {"limit": analysis.MAX_PDN_CHARS}) from None
            raise analysis.AnalysisInputError(_("The request could not be read.")) from None
    return request.POST.dict()


def _refused(status: int, code: str, message: str, retry_after: int) -> JsonResponse:
    """A refused engine request: the JSON error the analysis page shows, and when to retry."""
    response = _json_error(code, message, status)
    response["Retry-After"] = str(max(1, int(retry_after)))
    # An expected refusal, not a server fault: not one log line per refused request (Django
    # logs every 5xx response as an error unless it was logged already).
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def _replay_of(body: dict[str, Any]) -> analysis.Replay:
    ruleset = str(body.get("ruleset", ""))
    if body.get("pdn"):
        return analysis.replay_from_pdn(ruleset=ruleset, text=str(body["pdn"]))
    if body.get("fen"):
        return analysis.replay_from_fen(ruleset=ruleset, fen=str(body["fen"]))
    raise analysis.AnalysisInputError(_("Paste a PDN or a FEN first."))


@require_POST
def analysis_replay(request: HttpRequest) -> HttpResponse:
    """POST ``ruleset`` + ``pdn`` (or ``fen``) -> every ply of the game, or a 400 saying why."""
    try:  # no search here: only the visitor's rate (kondavo.ratelimits)
        rate_limit(action="analysis-replay", keys=admission.visitor_keys(request)[1],
                   setting="KONDAVO_ANALYSIS_RATE")
    except RateLimited as exc:
        return _refused(429, "rate_limited", exc.message, exc.retry_after)
    try:
        replay = _replay_of(_json_body(request))
    except analysis.AnalysisInputError as exc:
        return _json_error("bad_request", str(exc))
    return JsonResponse(replay.as_dict())


def _eval_job(request: HttpRequest) -> dict[str, Any]:
    """The engine request in ``request``'s body as plain data (``analysis.analysis_job``)."""
    body = _json_body(request)
    replay = _replay_of(body)
    ply: int | None = None
    if body.get("pdn"):
        try:
            ply = len(replay.record.moves) if body.get("ply") in (None, "") \
                else int(body["ply"])
        except (TypeError, ValueError):
            raise analysis.AnalysisInputError(_("The move number must be a number.")) from None
    try:
        depth = int(body["depth"]) if body.get("depth") not in (None, "") else None
        seconds = float(body["time"]) if body.get("time") not in (None, "") else None
    except (TypeError, ValueError, OverflowError):
        raise analysis.AnalysisInputError(_("The depth and the time must be numbers.")) \
            from None
    return analysis.analysis_job(replay, ply, depth=depth, time_limit=seconds)


@require_POST
async def analysis_eval(request: HttpRequest) -> HttpResponse:
    """POST ``ruleset`` + ``fen``, or ``ruleset`` + ``pdn`` + ``ply`` (optional ``depth``,
    ``time``, both capped) -> the engine's evaluation and best line of that position.

    Admitted first (``frontend.admission``: one request in flight per visitor, the rate,
    the site-wide cap; 429/503 with ``Retry-After``), then searched off this process
    (``analysis.analysis_answer``) and awaited on the event loop."""
    try:
        ticket = await sync_to_async(admission.admit)(request)
    except admission.Refused as refused:
        return _refused(refused.status, refused.code, refused.message, refused.retry_after)
    try:
        job = await sync_to_async(_eval_job)(request)
        result = await analysis.analysis_answer(job)
    except analysis.AnalysisInputError as exc:
        return _json_error("bad_request", str(exc))
    except analysis.AnalysisUnavailable as exc:
        return _refused(503, "unavailable", exc.message, exc.retry_after)
    finally:
        await sync_to_async(admission.release)(ticket)
    return JsonResponse(result)


# --------------------------------------------------------------------------- watch

def _live_games(ruleset: str | None) -> list[dict[str, Any]]:
    games = wire.live_games(game_selectors.games_live(ruleset=ruleset or None), limit=30)
    for g in games:
        g["variant_name"] = ruleset_name(get_variant(g["ruleset"]))
    return games


def watch(request: HttpRequest) -> HttpResponse:
    """Games being played now, the highest rated first, per ruleset (``?ruleset=``)."""
    rulesets = _rulesets()
    selected = request.GET.get("ruleset") or ""
    if selected not in {r["key"] for r in rulesets}:
        selected = ""
    games = _live_games(selected)
    if request.GET.get("format") == "json":
        return JsonResponse({"games": games})
    return render(request, "frontend/watch.html", {
        "rulesets": rulesets,
        "selected": selected,
        "games": games,
        "config": {"games": games, "boards": _variant_boards(), "i18n": js_strings(),
                   "refresh": request.get_full_path()},
    })
