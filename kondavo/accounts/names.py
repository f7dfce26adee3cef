"""Public player names: which ones a person may not take.

A sign-up name must not pass for a bot ("Kondavo AI 8", "Kondavo.AI.8"), a guest
("Guest-ABCD") or the site's staff ("admin", "Moderator"). Names are compared after folding
case, dropping separators and mapping look-alike digits to letters, so "K0ndavo_ai" and
"GUEST.abcd" are caught as well.
"""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# A folded name starting with one of these is reserved.
RESERVED_PREFIXES = ("kondavo", "guest", "admin", "moderator", "staff", "official")
# A folded name equal to one of these is reserved.
RESERVED_NAMES = frozenset({
    "mod", "mods", "root", "system", "support", "help", "info", "bot", "bots", "computer",
    "ai", "anonymous", "anon", "null", "none", "undefined", "webmaster", "security",
    "abuse", "postmaster", "team", "owner", "sysop", "operator",
})
_LOOKALIKES = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t",
                             "$": "s", "@": "a", "|": "i", "!": "i"})
_SEPARATORS = re.compile(r"[\s._+\-]+")


def fold_name(name: str) -> str:
    """``name`` reduced for comparison: compatibility-normalised, case-folded, without
    separators, look-alike digits mapped to letters."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return _SEPARATORS.sub("", text).translate(_LOOKALIKES)


def name_is_reserved(name: str) -> bool:
    folded = fold_name(name)
    return folded in RESERVED_NAMES or folded.startswith(RESERVED_PREFIXES)


def validate_public_name(name: str) -> None:
    """Django validator: refuses a reserved name."""
    if name_is_reserved(name):
        raise ValidationError(
            _("This name is reserved (it could be mistaken for a bot, a guest or the "
              "site's staff). Please choose another."),
            code="reserved_name",
        )
