"""``{% daily_puzzle %}``: the home page's card with the day's puzzle."""

from __future__ import annotations

from typing import Any

from django import template

from frontend.naming import ruleset_name
from frontend.rulesets import offered_variants
from variants import get_variant

from .. import services
from ..selectors import puzzle_payload

register = template.Library()


@register.inclusion_tag("puzzles/_daily.html", takes_context=True)
def daily_puzzle(context: dict[str, Any]) -> dict[str, Any]:
    """The visitor's last puzzle ruleset, else ``KONDAVO_PUZZLE_DAILY_RULESET``, else the
    rulesets the site offers in order: the first of them that has puzzles."""
    from django.conf import settings

    request = context.get("request")
    offered = [v.key for v in offered_variants()]
    chosen = [request.session.get(services.LAST_RULESET_KEY) if request is not None else None,
              getattr(settings, "KONDAVO_PUZZLE_DAILY_RULESET", ""), *offered]
    puzzle = None
    ruleset = ""
    for key in dict.fromkeys(k for k in chosen if k and k in offered):  # in order, once
        puzzle = services.puzzle_daily(ruleset=key)
        if puzzle is not None:
            ruleset = key
            break
    if puzzle is None:
        return {"daily": None}
    payload = puzzle_payload(puzzle)
    return {"daily": {"url": payload["url"], "ruleset": ruleset_name(get_variant(ruleset)),
                      "solver": puzzle.solver, "rating": payload["rating"],
                      "preview": {"board": payload["board"], "fen": payload["fen"],
                                  "orientation": puzzle.solver}}}
