"""Template tags for what every page shows about the rulesets (the footer)."""

from __future__ import annotations

from django import template

from frontend.rulesets import ruleset_entries

register = template.Library()


@register.simple_tag
def site_ruleset_names() -> str:
    """The names of the rulesets the site offers, in order, in the current language."""
    return ", ".join(entry["name"] for entry in ruleset_entries())
