"""The puzzle pages and their JSON endpoints (docs/protocol.md, "Puzzles"). Views gather
and answer; the rules of solving are in ``services``."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_POST

from frontend.jsi18n import js_strings
from frontend.naming import ruleset_name
from frontend.rulesets import capture_sentence, offered_variants, ruleset_entries
from kondavo.limits import ClientInputError, Limits, client_ip, decode_json_body
from kondavo.ratelimits import RateLimited, rate_limit
from variants import get_variant

from . import selectors, services
from .errors import PuzzleError
from .models import Puzzle
from .strings import puzzle_strings

BODY_LIMITS = Limits(max_bytes=2048, max_depth=3, max_string=200, max_items=40)
MODES = ("rated", "streak", "mine")


def _progress(request: HttpRequest) -> services.Progress:
    return services.progress_for(user=getattr(request, "user", None),
                                 player=getattr(request, "player", None),
                                 session=request.session)


def _json_error(code: str, message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def _limit(request: HttpRequest) -> None:
    """The visitor's rate (per account, else per session, else per address) and the
    address's: ``KONDAVO_PUZZLE_RATE``, ``KONDAVO_PUZZLE_RATE_IP``."""
    ip = f"ip:{client_ip(request)}"
    player = getattr(request, "player", None)
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and player is not None:
        key = f"player:{player.pk}"
    elif request.session.session_key:
        key = f"session:{request.session.session_key}"
    else:
        key = ip
    rate_limit(action="puzzle", keys=[key], setting="KONDAVO_PUZZLE_RATE")
    rate_limit(action="puzzle-ip", keys=[ip], setting="KONDAVO_PUZZLE_RATE_IP")


class BodyTooLarge(ClientInputError):
    """A body over ``BODY_LIMITS.max_bytes``: 413."""


def _body(request: HttpRequest) -> dict[str, Any]:
    if len(request.body) > BODY_LIMITS.max_bytes:
        raise BodyTooLarge("too_large",
                           f"the request is too large (limit {BODY_LIMITS.max_bytes} bytes)")
    return decode_json_body(request.body, BODY_LIMITS)


def _guarded(view: Any) -> Any:
    """JSON endpoints: the rate first, then the body; errors as ``{"error": {code,
    message}}`` with 400/404/413/429."""
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            _limit(request)
        except RateLimited as exc:
            response = _json_error("rate_limited", exc.message, 429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        try:
            return view(request, *args, **kwargs)
        except ClientInputError as exc:
            return _json_error(exc.code, exc.message, 413 if isinstance(exc, BodyTooLarge) else 400)
        except PuzzleError as exc:
            return _json_error(exc.code, exc.message, exc.status)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def _offered_keys() -> list[str]:
    return [v.key for v in offered_variants()]


def _payload(request: HttpRequest, puzzle: Puzzle | None) -> dict[str, Any] | None:
    if puzzle is None:
        return None
    if request.session.session_key:  # reading a page never makes a session (a move does)
        request.session[services.LAST_RULESET_KEY] = puzzle.ruleset
    variant = get_variant(puzzle.ruleset)
    lang = get_language() or "en"
    return selectors.puzzle_payload(puzzle, progress=_progress(request),
                                    capture_rule=capture_sentence(variant, lang),
                                    ruleset_name=ruleset_name(variant))


def _choose_ruleset(request: HttpRequest, asked: str, fallback: str | None = None) -> str:
    offered = _offered_keys()
    for key in (asked, fallback, request.session.get(services.LAST_RULESET_KEY)):
        if key and key in offered:
            return str(key)
    return offered[0] if offered else ""


def _theme(request: HttpRequest, ruleset: str) -> str:
    theme = str(request.GET.get("theme", ""))[:40]
    return theme if theme in {t["key"] for t in selectors.themes_available(ruleset=ruleset)} \
        else ""


def _mode(value: Any) -> str:
    return value if value in MODES else "rated"


def _next(request: HttpRequest, *, ruleset: str, theme: str, mode: str,
          exclude: list[str]) -> tuple[Puzzle | None, dict[str, Any] | None]:
    progress = _progress(request)
    if mode == "streak":
        return services.streak_next(session=request.session)
    if mode == "mine":
        mine = services.puzzles_of_player(player=getattr(request, "player", None),
                                          ruleset=ruleset).exclude(pk__in=exclude)
        tried = progress.attempted_ids(ruleset)
        return (mine.exclude(pk__in=tried).first() or mine.first()), None
    return services.puzzle_next(ruleset=ruleset, theme=theme, progress=progress,
                                exclude=exclude), None


@ensure_csrf_cookie
def index(request: HttpRequest, puzzle_id: str | None = None) -> HttpResponse:
    """The puzzle page: ``/puzzles/`` (``?ruleset=``, ``?theme=``, ``?mode=rated|streak|
    mine``) or one puzzle, ``/puzzles/<id>/``."""
    shown: Puzzle | None = None
    if puzzle_id is not None:
        shown = Puzzle.objects.served().filter(pk=puzzle_id[:80]).first()
        if shown is None:
            raise Http404("no such puzzle")
    ruleset = _choose_ruleset(request, str(request.GET.get("ruleset", ""))[:32],
                              shown.ruleset if shown else None)
    if shown is not None and shown.ruleset not in _offered_keys():
        raise Http404("no such puzzle")
    mode = "rated" if shown is not None else _mode(request.GET.get("mode"))
    theme = _theme(request, ruleset) if ruleset else ""
    progress = _progress(request)
    puzzle = shown
    if puzzle is None and ruleset and mode != "streak":
        puzzle, _streak = _next(request, ruleset=ruleset, theme=theme, mode=mode, exclude=[])
    player = getattr(request, "player", None)
    lang = get_language() or "en"
    return render(request, "puzzles/puzzles.html", {
        "rulesets": ruleset_entries(lang),
        "selected": ruleset,
        "themes": selectors.themes_available(ruleset=ruleset) if ruleset else [],
        "theme": theme,
        "mode": mode,
        "count": services.served_puzzles(ruleset=ruleset).count() if ruleset else 0,
        "mine_count": services.puzzles_of_player(player=player, ruleset=ruleset).count(),
        "rating": selectors.player_rating(progress=progress, ruleset=ruleset),
        "config": {
            "puzzle": _payload(request, puzzle),
            "ruleset": ruleset, "theme": theme, "mode": mode,
            "rating": selectors.player_rating(progress=progress, ruleset=ruleset),
            "urls": {"next": reverse("puzzles:next"), "streak": reverse("puzzles:streak")},
            "i18n": {**js_strings(), **puzzle_strings()},
        },
    })


@require_GET
@_guarded
def next_puzzle(request: HttpRequest) -> HttpResponse:
    """GET ``?ruleset=&theme=&mode=&after=<id>`` -> ``{puzzle, rating, streak}``."""
    ruleset = _choose_ruleset(request, str(request.GET.get("ruleset", ""))[:32])
    if not ruleset:
        raise PuzzleError("bad_request", "no ruleset is offered")
    mode = _mode(request.GET.get("mode"))
    after = str(request.GET.get("after", ""))[:80]
    puzzle, streak = _next(request, ruleset=ruleset, theme=_theme(request, ruleset),
                           mode=mode, exclude=[after] if after else [])
    return JsonResponse({"puzzle": _payload(request, puzzle), "streak": streak,
                         "rating": selectors.player_rating(progress=_progress(request),
                                                           ruleset=ruleset)})


@require_POST
@_guarded
def move(request: HttpRequest, puzzle_id: str) -> HttpResponse:
    """POST ``{ply, move, mode}`` -> the judgement (``services.Judged``) and the rating."""
    body = _body(request)
    progress = _progress(request)
    judged = services.puzzle_move(puzzle_id=puzzle_id, ply=body.get("ply"),
                                  move=body.get("move"), progress=progress,
                                  session=request.session, streak=body.get("mode") == "streak")
    ruleset = selectors.ruleset_of(puzzle_id) or ""
    request.session[services.LAST_RULESET_KEY] = ruleset
    return JsonResponse({**judged.as_dict(),
                         "player": selectors.player_rating(progress=progress, ruleset=ruleset)})


@require_POST
@_guarded
def hint(request: HttpRequest, puzzle_id: str) -> HttpResponse:
    """POST ``{ply}`` -> ``{square}``: the piece to move."""
    body = _body(request)
    return JsonResponse(services.puzzle_hint(puzzle_id=puzzle_id, ply=body.get("ply"),
                                             progress=_progress(request)))


@require_POST
@_guarded
def solution(request: HttpRequest, puzzle_id: str) -> HttpResponse:
    """POST ``{mode}`` -> ``{line, rating, streak, player}``."""
    body = _body(request)
    progress = _progress(request)
    out = services.puzzle_solution(puzzle_id=puzzle_id, progress=progress,
                                   session=request.session,
                                   streak=body.get("mode") == "streak")
    ruleset = selectors.ruleset_of(puzzle_id) or ""
    return JsonResponse({**out, "player": selectors.player_rating(progress=progress,
                                                                  ruleset=ruleset)})


@require_POST
@_guarded
def streak(request: HttpRequest) -> HttpResponse:
    """POST ``{ruleset}`` -> a new streak and its first puzzle: ``{streak, puzzle}``."""
    body = _body(request)
    ruleset = str(body.get("ruleset", ""))[:32]
    if ruleset not in _offered_keys():
        raise PuzzleError("bad_request", f"unknown ruleset {ruleset!r}")
    services.streak_start(session=request.session, ruleset=ruleset,
                          progress=_progress(request))
    puzzle, state = services.streak_next(session=request.session)
    return JsonResponse({"streak": state, "puzzle": _payload(request, puzzle)})
