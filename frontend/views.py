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
from variants import get_variant
from variants.errors import UnknownVariant

from .jsi18n import js_strings
from .naming import ruleset_name
from .rulesets import capture_sentence, offered_variants, ruleset_entries

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
    """Board description and start FEN of each ruleset (for the preview boards)."""
    return {v.key: {"board": v.board.as_dict(), "fen": v.initial_fen,
                    "name": ruleset_name(v)} for v in offered_variants()}


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    rulesets = _rulesets()
    selected = request.GET.get("ruleset") or (rulesets[0]["key"] if rulesets else "")
    if selected not in {r["key"] for r in rulesets}:
        selected = rulesets[0]["key"] if rulesets else ""
    return render(request, "frontend/home.html", {
        "rulesets": rulesets,
        "selected": selected,
        "selected_has_rules": any(r["has_rules"] for r in rulesets if r["key"] == selected),
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
    try:
        found = game_open_for_viewer(game_id=game_id, player=player)
    except GameError as exc:
        if exc.code == "not_found":
            raise Http404("no such game") from None
        raise
    variant = get_variant(found.ruleset)
    return render(request, "frontend/game.html", {
        "game_id": found.id,
        "variant_name": ruleset_name(variant),
        "variant_key": variant.key,
        "has_rules": variant.rules_page() is not None,
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
        "config": {"ws": "/ws/lobby/", "i18n": js_strings()},
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
        "fallback": page_lang != lang.split("-")[0].lower(),
        "rulesets": _rulesets(),
        "capture_rule": capture_sentence(variant, lang),
        "preview": {"board": variant.board.as_dict(), "fen": variant.initial_fen,
                    "i18n": js_strings()},
    })
