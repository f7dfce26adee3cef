"""The themes a puzzle can carry (the generator's words) and their names for players."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

# The generator's themes (bots.puzzles.THEMES): a shot sacrifices, then takes two or more;
# a breakthrough makes a king; an ending has few pieces; a forced capture is a reply that the
# capture precedence rule imposes; material is won by force otherwise.
THEME_NAMES: dict[str, Promise] = {
    "shot": _("Shot"),
    "sacrifice": _("Sacrifice"),
    "breakthrough": _("Breakthrough"),
    "ending": _("Ending"),
    "forced_capture": _("Forced capture"),
    "material": _("Winning material"),
}
FORCED_CAPTURE = "forced_capture"


def theme_name(key: str) -> str:
    """A theme's name in the current language (an unknown theme: its key, readable)."""
    name = THEME_NAMES.get(key)
    return str(name) if name is not None else key.replace("-", " ").capitalize()
