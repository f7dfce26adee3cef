"""``{% tournament_links games %}``: adds ``tournament`` (name, url) to each row of a
profile's game list whose game was a tournament's (one query for the list)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.simple_tag
def tournament_links(rows: list[dict[str, Any]]) -> str:
    from kondavo.tournaments.services import display_name, tournaments_of_games

    found = tournaments_of_games(str(r["game"].pk) for r in rows if r.get("game") is not None)
    for r in rows:
        t = found.get(str(r["game"].pk)) if r.get("game") is not None else None
        if t is not None:
            r["tournament"] = {"name": display_name(t), "url": f"/tournaments/{t.pk}/"}
    return ""
