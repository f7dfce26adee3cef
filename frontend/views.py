"""Pages. Views only gather what the templates need; the games logic is in its services."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_language
from django.views.decorators.csrf import ensure_csrf_cookie

from kondavo.games.errors import GameError
from kondavo.games.services import game_open_for_viewer
from kondavo.games.timecontrols import DEFAULT_TIME_CONTROL, TIME_CONTROLS
from variants import default_registry, get_variant
from variants.errors import UnknownVariant

from .jsi18n import js_strings
from .naming import ruleset_name
from .rules_content import RULES, rules_text

BOT_LEVELS = range(1, 9)
DEFAULT_BOT_LEVEL = 3


def _url(name: str, fallback: str) -> str:
    """Reverse ``name``; the fallback keeps pages up while another app is being built."""
    try:
        return reverse(name)
    except NoReverseMatch:
        return fallback


def _rulesets() -> list[dict[str, Any]]:
    """Every registered ruleset, with the short summary of its rules page when there is one."""
    lang = get_language() or "en"
    out = []
    for variant in default_registry():
        name = ruleset_name(variant)
        summary = title = ""
        if variant.key in RULES:
            text, text_lang = rules_text(variant.key, lang)
            summary = text["summary"]
            # Where the rules fall back to English, keep the interface's own name.
            if text_lang == lang.split("-")[0].lower():
                title = text["title"]
        out.append({"key": variant.key, "name": name, "summary": summary,
                    "title": title or name, "has_rules": variant.key in RULES})
    return out


def _time_controls() -> list[dict[str, str]]:
    return [{"key": tc.key, "label": tc.label} for tc in TIME_CONTROLS]


def _variant_boards() -> dict[str, Any]:
    """Board description and start FEN of each ruleset (for the preview boards)."""
    return {v.key: {"board": v.board.as_dict(), "fen": v.initial_fen,
                    "name": ruleset_name(v)} for v in default_registry()}


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    rulesets = _rulesets()
    selected = request.GET.get("ruleset") or (rulesets[0]["key"] if rulesets else "")
    if selected not in {r["key"] for r in rulesets}:
        selected = rulesets[0]["key"] if rulesets else ""
    return render(request, "frontend/home.html", {
        "rulesets": rulesets,
        "selected": selected,
        "levels": BOT_LEVELS,
        "default_level": DEFAULT_BOT_LEVEL,
        "time_controls": _time_controls(),
        "default_time_control": DEFAULT_TIME_CONTROL,
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
        "config": {
            "id": found.id,
            "ws": f"/ws/game/{found.id}/",
            "pdn": _url_args("games:pdn", found.id, ""),
            "lobby": reverse("lobby"),
            "i18n": js_strings(),
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
    if variant.key not in RULES:
        raise Http404("no rules page for this ruleset")
    text, lang = rules_text(variant.key, get_language() or "en")
    return render(request, "frontend/rules.html", {
        "variant": variant,
        "rules": text,
        "rules_lang": lang,
        "fallback": lang != (get_language() or "en").split("-")[0],
        "rulesets": _rulesets(),
        "capture_rule": variant.precedence.description,
        "preview": {"board": variant.board.as_dict(), "fen": variant.initial_fen,
                    "i18n": js_strings()},
    })
