"""Leaderboards and player profiles. Views only parse the request and call selectors."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from frontend.naming import ruleset_name
from kondavo.accounts.models import Player
from variants import get_variant

from . import selectors
from .charts import rating_history_svg

LEADERBOARD_LIMIT = 50


def _ruleset_name(key: str) -> str:
    try:
        variant = get_variant(key)
    except Exception:  # an uninstalled plugin's old ratings
        return key
    return ruleset_name(variant) or key


def _tabs() -> list[dict[str, str]]:
    return [{"key": k, "name": _ruleset_name(k)} for k in selectors.ruleset_keys()]


def _checked_ruleset(ruleset: str) -> str:
    if ruleset not in selectors.ruleset_keys():
        raise Http404(_("Unknown ruleset"))
    return ruleset


def _include_bots(request: HttpRequest) -> bool:
    return request.GET.get("bots", "1") != "0"


def _board_page(request: HttpRequest, ruleset: str) -> HttpResponse:
    include_bots = _include_bots(request)
    entries = selectors.leaderboard(ruleset, include_bots=include_bots, limit=LEADERBOARD_LIMIT)
    return render(
        request,
        "rating/leaderboard.html",
        {
            "tabs": _tabs(),
            "ruleset": ruleset,
            "ruleset_name": _ruleset_name(ruleset),
            "entries": entries,
            "include_bots": include_bots,
            "thresholds": selectors.leaderboard_thresholds(ruleset),
        },
    )


@require_GET
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    keys = selectors.ruleset_keys()
    if not keys:
        raise Http404(_("No rulesets installed"))
    return _board_page(request, keys[0])


@require_GET
def leaderboard_page(request: HttpRequest, ruleset: str) -> HttpResponse:
    return _board_page(request, _checked_ruleset(ruleset))


@require_GET
def leaderboard_json(request: HttpRequest, ruleset: str) -> JsonResponse:
    ruleset = _checked_ruleset(ruleset)
    include_bots = _include_bots(request)
    entries = selectors.leaderboard(ruleset, include_bots=include_bots, limit=LEADERBOARD_LIMIT)
    return JsonResponse(
        {
            "ruleset": ruleset,
            "name": _ruleset_name(ruleset),
            "include_bots": include_bots,
            "thresholds": selectors.leaderboard_thresholds(ruleset),
            "entries": [e.as_dict() for e in entries],
        }
    )


def _challenge_form(request: HttpRequest, player: Player) -> dict[str, Any] | None:
    """What the profile's "challenge" form needs, or None when it makes no sense (a bot,
    one's own profile): a friend game link the challenger sends, rated when both have an
    account."""
    me = getattr(request, "player", None)
    if player.is_bot or me is None or me == player:
        return None
    from kondavo.games.timecontrols import DEFAULT_TIME_CONTROL, TIME_CONTROLS
    from variants import default_registry

    return {
        "rulesets": [{"key": v.key, "name": _ruleset_name(v.key)} for v in default_registry()],
        "time_controls": [{"key": tc.key, "label": tc.label} for tc in TIME_CONTROLS],
        "default_time_control": DEFAULT_TIME_CONTROL,
        "can_rate": me.kind == Player.Kind.USER and player.kind == Player.Kind.USER,
        "action": _reverse_first(("games:challenge",), player.name) or "",
    }


def _reverse_first(names: tuple[str, ...], game_id: Any) -> str | None:
    for name in names:
        try:
            return reverse(name, args=[game_id])
        except NoReverseMatch:
            continue
    return None


def _result_for(game: Any, side: str) -> str:
    if game.status == "finished":
        if not game.winner:
            return _("draw")
        return _("win") if game.winner == side else _("loss")
    if game.status == "aborted":
        return _("aborted")
    if game.status == "waiting":
        return _("waiting for an opponent")
    return _("in progress")


def _game_row(game: Any, player: Player) -> dict[str, Any]:
    as_white = game.white_id == player.pk
    opponent = game.black if as_white else game.white
    return {
        "result": _result_for(game, "white" if as_white else "black"),
        "unfinished": game.status in ("waiting", "active"),
        "mode": _("rated") if game.rated else _("casual"),
        "game": game,
        "ruleset_name": _ruleset_name(getattr(game, "ruleset", "")),
        "colour": _("white") if as_white else _("black"),
        "opponent": opponent,
        "url": _reverse_first(("games:detail", "games:game", "game"), game.pk)
        or f"/game/{game.pk}/",
        "pdn_url": _reverse_first(("games:pdn",), game.pk),
    }


@require_GET
def profile(request: HttpRequest, name: str) -> HttpResponse:
    player = get_object_or_404(Player, name=name)
    sections = []
    for row in selectors.ratings_of_player(player):
        ruleset_name = _ruleset_name(row.ruleset)
        history = selectors.rating_history(player, row.ruleset)
        sections.append(
            {
                "rating": row,
                "ruleset_name": ruleset_name,
                "chart": rating_history_svg(
                    history,
                    title=_("%(player)s: rating history in %(ruleset)s")
                    % {"player": player.name, "ruleset": ruleset_name},
                ),
            }
        )
    games = [_game_row(g, player) for g in selectors.recent_games_of_player(player)]
    return render(
        request,
        "rating/profile.html",
        {"player": player, "sections": sections, "games": games,
         "is_me": getattr(request, "player", None) == player,
         "challenge": _challenge_form(request, player)},
    )
