"""HTTP endpoints of the games app (mounted at /games/). Thin: parse, call a service, answer.

POST endpoints are CSRF protected (Django's middleware) and answer with a redirect to the game
page, or with JSON (``{"id", "url"}``) when the request sends ``Accept: application/json``.
Parameters come from the form body, or from a JSON body (``Content-Type: application/json``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from kondavo.accounts.middleware import player_required
from kondavo.accounts.models import Player
from kondavo.games import selectors, services, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game
from kondavo.games.timecontrols import DEFAULT_TIME_CONTROL
from kondavo.limits import ClientInputError, client_ip, decode_json_body, int_field
from kondavo.ratelimits import creation_limit

STATUS_FOR_CODE = {"not_found": 404, "not_a_player": 403, "not_allowed": 409,
                   "limit_reached": 409, "rate_limited": 429, "too_large": 413}


def _player(request: HttpRequest) -> Player:
    """The visitor's Player, made now if they have none (these views need an identity)."""
    return player_required(request)


def _viewer(request: HttpRequest) -> Player | None:
    return getattr(request, "player", None)


def _creation_limit(request: HttpRequest, player: Player) -> None:
    """Games and seeks created: per player and per client address (``KONDAVO_CREATE_RATE_*``)."""
    creation_limit(player_id=player.pk, ip=client_ip(request))


def _params(request: HttpRequest) -> dict[str, Any]:
    if request.content_type == "application/json":
        try:  # size, depth, numbers and strings checked before parsing (kondavo.limits)
            return decode_json_body(request.body)
        except ClientInputError as exc:
            raise GameError(exc.code, exc.message) from None
        except RequestDataTooBig:
            raise GameError("too_large", "the body is too large") from None
    return request.POST.dict()


def _checked(params: dict[str, Any], name: str) -> bool:
    """A checkbox-style field: "1", "true", "on" or "yes" (any case) is True."""
    return str(params.get(name, "")).lower() in ("1", "true", "on", "yes")


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _error(exc: GameError) -> JsonResponse:
    response = JsonResponse({"error": exc.as_dict()}, status=STATUS_FOR_CODE.get(exc.code, 400))
    retry_after = getattr(exc, "retry_after", None)
    if isinstance(retry_after, int | float) and retry_after > 0:  # a rate limit: when to retry
        response["Retry-After"] = str(max(1, int(retry_after)))
    return response


KEPT_FIELDS = ("ruleset", "level", "color", "time_control", "rated")
_KEPT = "kondavo_refused_form"


def kept_form(request: HttpRequest) -> dict[str, str]:
    """The choices of the last refused creation form, once (``_refused`` keeps them): the
    page that shows the refusal fills its form in with them instead of its defaults."""
    kept = request.session.pop(_KEPT, None) if hasattr(request, "session") else None
    return {k: str(v) for k, v in kept.items() if k in KEPT_FIELDS} \
        if isinstance(kept, dict) else {}


def _refused(request: HttpRequest, exc: GameError) -> HttpResponse:
    """A refused creation: JSON clients get the 4xx with ``{"error": {code, message}}``; the
    site's own forms (no JSON) go back to the page they came from, which shows the message
    and the visitor's choices as they were (``kept_form``)."""
    if _wants_json(request):
        return _error(exc)
    messages.error(request, exc.message)
    if request.content_type != "application/json" and hasattr(request, "session"):
        request.session[_KEPT] = {k: str(request.POST.get(k, ""))[:40]
                                  for k in KEPT_FIELDS if k in request.POST}
    back = request.headers.get("Referer", "")
    if not back or not url_has_allowed_host_and_scheme(
            back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = "/"
    return HttpResponseRedirect(back, status=303)


def _to_game(request: HttpRequest, game: Game, status: int = 201) -> HttpResponse:
    url = selectors.game_url(game.id)
    if _wants_json(request):
        return JsonResponse({"id": game.id, "url": url}, status=status)
    return HttpResponseRedirect(url)


@require_POST
def new_computer(request: HttpRequest) -> HttpResponse:
    try:
        p = _params(request)
        try:
            level = int_field({"level": p.get("level", 1)}, "level", low=1, high=8)
        except ClientInputError:
            raise GameError("bad_request", _("Choose a level from the list.")) from None
        player = _player(request)
        _creation_limit(request, player)
        game = services.game_create_vs_computer(
            player=player, ruleset=str(p.get("ruleset", "")), level=level,
            color=str(p.get("color", "random")),
            time_control=str(p.get("time_control", DEFAULT_TIME_CONTROL)),
            start_fen=str(p.get("start_fen") or "") or None)
    except GameError as exc:
        return _refused(request, exc)
    return _to_game(request, game)


@require_POST
def new_friend(request: HttpRequest) -> HttpResponse:
    try:
        p = _params(request)
        player = _player(request)
        _creation_limit(request, player)
        game = services.game_create_friend(
            player=player, ruleset=str(p.get("ruleset", "")),
            color=str(p.get("color", "random")),
            time_control=str(p.get("time_control", DEFAULT_TIME_CONTROL)),
            rated=_checked(p, "rated"), start_fen=str(p.get("start_fen") or "") or None)
    except GameError as exc:
        return _refused(request, exc)
    return _to_game(request, game)


@require_POST
def challenge(request: HttpRequest, name: str) -> HttpResponse:
    """Send a challenge: nobody is seated until the challenged player accepts. JSON:
    201 ``{"challenge", "status", "expires_at", "opponent"}``; the site's form goes to the
    lobby, which waits for the answer (``/lobby/?challenge=<id>``)."""
    try:
        p = _params(request)
        player = _player(request)
        created = services.challenge_create(
            player=player, opponent_name=name, ruleset=str(p.get("ruleset", "")),
            color=str(p.get("color", "random")),
            time_control=str(p.get("time_control", DEFAULT_TIME_CONTROL)),
            rated=_checked(p, "rated"), address=client_ip(request))
    except GameError as exc:
        return _refused(request, exc)
    if _wants_json(request):
        return JsonResponse(wire.challenge_sent(created), status=201)
    return HttpResponseRedirect(f"/lobby/?challenge={created.pk}", status=303)


_ANSWERS = ("accept", "decline", "block", "cancel")


@require_POST
def challenge_answer(request: HttpRequest, challenge_id: int, answer: str) -> HttpResponse:
    """``accept`` (to the game), ``decline``, ``block`` (decline, and refuse this sender from
    now on) or ``cancel`` (the challenger withdraws). JSON: the game ``{"id", "url"}`` or
    ``{"challenge", "status"}``."""
    if answer not in _ANSWERS:
        return _error(GameError("not_found", "no such answer"))
    try:
        player = _player(request)
        if answer == "accept":
            game = services.challenge_accept(challenge_id=challenge_id, player=player)
            return _to_game(request, game, status=200)
        if answer == "cancel":
            done = services.challenge_cancel(challenge_id=challenge_id, player=player)
        else:
            done = services.challenge_decline(challenge_id=challenge_id, player=player,
                                              block=answer == "block")
    except GameError as exc:
        return _refused(request, exc)
    if _wants_json(request):
        return JsonResponse({"challenge": done.pk, "status": done.status})
    return HttpResponseRedirect("/lobby/", status=303)


@require_POST
def block_list(request: HttpRequest, name: str, *, change: Callable[..., None]) -> HttpResponse:
    """``block/<name>`` and ``unblock/<name>``: refuse challenges from ``name``, or take them
    again (``change``: ``services.player_block`` or ``services.player_unblock``, given by the
    URL); answers ``{"blocked": [names]}``."""
    try:
        player = _player(request)
        change(player=player, name=name)
    except GameError as exc:
        return _refused(request, exc)
    return JsonResponse({"blocked": services.blocked_names(player=player)})


@require_POST
def seek(request: HttpRequest) -> HttpResponse:
    try:
        p = _params(request)
        player = _player(request)
        _creation_limit(request, player)
        created = services.seek_create(
            player=player, ruleset=str(p.get("ruleset", "")),
            time_control=str(p.get("time_control", DEFAULT_TIME_CONTROL)),
            rated=_checked(p, "rated"))
    except GameError as exc:
        return _refused(request, exc)
    if _wants_json(request):
        return JsonResponse({"seek": created.pk}, status=201)
    return HttpResponseRedirect(f"/?seek={created.pk}")


@require_POST
def join(request: HttpRequest, game_id: str) -> HttpResponse:
    try:
        game = services.game_join(game_id=game_id, player=_player(request))
    except GameError as exc:
        if not _wants_json(request) and exc.code != "not_found":  # the page's Join form:
            return HttpResponseRedirect(selectors.game_url(game_id))  # back to the game
        return _error(exc)
    return _to_game(request, game, status=200)


@require_GET
def state(request: HttpRequest, game_id: str) -> HttpResponse:
    services.game_flag_if_expired(game_id=game_id)
    game = selectors.game_get(game_id=game_id)
    if game is None:
        return _error(GameError("not_found", "no such game"))
    payload = wire.game_state(game, _viewer(request))
    return JsonResponse(wire.frame("state", payload, v=game.version))


@require_GET
def pdn(request: HttpRequest, game_id: str) -> HttpResponse:
    game = selectors.game_get(game_id=game_id)
    if game is None:
        return _error(GameError("not_found", "no such game"))
    text = selectors.game_pdn(game)
    response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="kondavo-{game.id}.pdn"'
    return response
