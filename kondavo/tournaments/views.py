"""Tournament pages: the list per ruleset, a tournament's page (join, withdraw, pause:
forms; standings and pairings live over ``/ws/tournament/<id>/``), and the creation form
for players with an account. The logic is in ``services``."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from kondavo.accounts.middleware import player_required
from kondavo.accounts.models import Player
from kondavo.games.errors import GameError
from kondavo.games.moderation import offered_variants
from kondavo.games.timecontrols import TIME_CONTROLS
from kondavo.tournaments import services
from kondavo.tournaments.models import Tournament
from kondavo.tournaments.strings import tournament_js_strings


def _player(request: HttpRequest) -> Player | None:
    return getattr(request, "player", None)


def _ruleset_names(variants: list[Any]) -> dict[str, str]:
    """Ruleset names in the page's language (the site's naming, as the menu shows them)."""
    from frontend.naming import ruleset_name

    return {v.key: ruleset_name(v) for v in variants}


def _kind_names() -> dict[str, str]:
    return {"arena": _("Arena"), "swiss": _("Swiss"), "roundrobin": _("Round-robin")}


def _card(t: Tournament, names: dict[str, str]) -> dict[str, Any]:
    return {"t": t, "name": services.display_name(t), "kind_name": _kind_names()[t.kind],
            "ruleset_name": names.get(t.ruleset, t.ruleset)}


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    variants = offered_variants()
    names = _ruleset_names(variants)
    ruleset = request.GET.get("ruleset") or ""
    if ruleset not in names:
        ruleset = ""
    if services._eager():  # the embedded mode has no beat: create the next hourly ones here
        services.schedule_upcoming()
    lists = services.tournament_lists(ruleset=ruleset or None)
    return render(request, "tournaments/list.html", {
        "rulesets": [{"key": v.key, "name": names[v.key]} for v in variants],
        "ruleset": ruleset,
        "running": [_card(t, names) for t in lists["started"]],
        "upcoming": [_card(t, names) for t in lists["created"]],
        "finished": [_card(t, names) for t in lists["finished"]],
        "can_create": (_player(request) is not None
                       and _player(request).kind == Player.Kind.USER),  # type: ignore[union-attr]
    })


@require_GET
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = services.tournament_get(tournament_id=tournament_id)
    if t is None:
        raise Http404("no such tournament")
    t = services.tick_if_due(t)
    player = _player(request)
    me = services.me_payload(t, player)
    names = _ruleset_names(offered_variants())
    open_to_join = (not t.is_over and (me is None or me["withdrawn"])
                    and (t.status == Tournament.Status.CREATED or t.is_arena))
    has_account = player is not None and player.kind == Player.Kind.USER
    return render(request, "tournaments/detail.html", {
        **_card(t, names),
        "me": me,
        "can_join": open_to_join and (has_account or not t.rated),
        "login_to_join": open_to_join and t.rated and not has_account,
        "config": {"ws": f"/ws/tournament/{t.pk}/", "id": t.pk, "kind": t.kind,
                   "player": player.pk if player is not None else None,
                   "chat_room": f"tournament.{t.pk}"},
        "i18n": tournament_js_strings(),
        "show_code": t.private and t.created_by_id is not None and player is not None
        and t.created_by_id == player.pk,
    })


@require_GET
def tournament_standings(request: HttpRequest, tournament_id: int) -> JsonResponse:
    """More of the standings than the socket sends (``?offset=50``)."""
    t = services.tournament_get(tournament_id=tournament_id)
    if t is None:
        raise Http404("no such tournament")
    try:
        offset = max(0, min(int(request.GET.get("offset", 0)), 100_000))
    except ValueError:
        offset = 0
    return JsonResponse(services.standings_payload(t, offset=offset))


def _back(t_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(f"/tournaments/{t_id}/")


STATUS_FOR_CODE = {"not_found": 404, "not_a_player": 403, "not_allowed": 409,
                   "rate_limited": 429}


def _checked(request: HttpRequest, name: str) -> bool:
    """A checkbox: "1", "true", "on" or "yes" (any case) is ticked; absent or else not."""
    return str(request.POST.get(name, "")).lower() in ("1", "true", "on", "yes")


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _json_error(code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}},
                        status=STATUS_FOR_CODE.get(code, 400))


@require_POST
def tournament_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    """``join``, ``withdraw``, ``pause``, ``resume`` (the page's forms: back to the page, a
    refusal shown there; with ``Accept: application/json``: ``{"me": ...}``, the ``me``
    frame's payload, or ``{"error": {code, message}}`` with a 4xx) and ``berserk`` (the game
    page's fetch: ``{"ok": true}``, or 409 with ``{"error", "message"}``)."""
    try:
        player = player_required(request)
        if action == "join":
            services.tournament_join(tournament_id=tournament_id, player=player,
                                     code=request.POST.get("code", ""))
        elif action == "withdraw":
            services.tournament_withdraw(tournament_id=tournament_id, player=player)
        elif action == "berserk":  # the game page's button (fetch): no redirect
            services.tournament_berserk(tournament_id=tournament_id, player=player)
            return JsonResponse({"ok": True})
        elif action in ("pause", "resume"):
            services.tournament_pause(tournament_id=tournament_id, player=player,
                                      paused=action == "pause")
        else:
            raise Http404("no such action")
    except GameError as exc:
        if action == "berserk":
            return JsonResponse({"error": exc.code, "message": exc.message}, status=409)
        if _wants_json(request):
            return _json_error(exc.code, exc.message)
        messages.error(request, exc.message)
    except Exception as exc:  # the guest rate limit
        if type(exc).__name__ != "GuestRateLimited":
            raise
        if _wants_json(request):
            return _json_error("rate_limited", str(exc))
        messages.error(request, str(exc))
    else:
        if _wants_json(request):
            t = services.tournament_get(tournament_id=tournament_id)
            return JsonResponse({"me": services.me_payload(t, player) if t else None})
    return _back(tournament_id)


def tournament_new(request: HttpRequest) -> HttpResponse:
    player = _player(request)
    if player is None or player.kind != Player.Kind.USER:
        if _wants_json(request):
            return _json_error("not_allowed", _("Log in to create a tournament."))
        messages.error(request, _("Log in to create a tournament."))
        return HttpResponseRedirect("/accounts/login/?next=/tournaments/new/")
    variants = offered_variants()
    form: dict[str, Any] = {"kind": "arena", "ruleset": variants[0].key if variants else "",
                            "time_control": "3+2", "minutes": 60, "rounds": 5,
                            "starts_in": 10, "name": ""}
    if request.method == "POST":
        form.update({k: request.POST.get(k, form.get(k, "")) for k in
                     ("kind", "ruleset", "time_control", "minutes", "rounds", "starts_in",
                      "name", "code")})
        try:
            starts_in = max(1, min(int(form["starts_in"]), 7 * 24 * 60))
            when = parse_datetime(request.POST.get("starts_at", "") or "")
            if when is not None and timezone.is_naive(when):  # no offset given: UTC
                when = timezone.make_aware(when, UTC)
            starts = when if when is not None and when > timezone.now() else (
                timezone.now() + timedelta(minutes=starts_in))
            t = services.tournament_create(
                creator=player, name=str(form["name"]), kind=str(form["kind"]),
                ruleset=str(form["ruleset"]), time_control=str(form["time_control"]),
                starts_at=starts, duration_minutes=int(form["minutes"] or 60),
                rounds=int(form["rounds"] or 0), rated=_checked(request, "rated"),
                private=_checked(request, "private"),
                entry_code=str(form.get("code") or ""),
                berserk=_checked(request, "berserk"))
            services.tournament_join(tournament_id=t.pk, player=player, code=t.entry_code)
            if _wants_json(request):
                return JsonResponse({"id": t.pk, "url": f"/tournaments/{t.pk}/",
                                     "code": t.entry_code or None}, status=201)
            return _back(t.pk)
        except (GameError, ValueError) as exc:
            if _wants_json(request):
                return _json_error(getattr(exc, "code", "bad_request"),
                                   getattr(exc, "message", str(exc)))
            messages.error(request, getattr(exc, "message", str(exc)))
    names = _ruleset_names(variants)
    return render(request, "tournaments/new.html", {
        "form": form, "rulesets": [{"key": v.key, "name": names[v.key]} for v in variants],
        "time_controls": [tc.key for tc in TIME_CONTROLS],
        "kinds": _kind_names(),
    })
