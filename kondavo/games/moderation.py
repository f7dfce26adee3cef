"""Moderation: what banned players may not do and which rulesets new games may use (the
staff's abort of any game is ``services.actions.game_abort_by_staff``).

``require_not_banned`` is called by the game services before anything a player starts
(creating, joining or accepting a game, posting a seek, playing a move);
``require_offered`` before a new game or seek (the operator's choice of rulesets).

Which rulesets the site offers, in what order (``offered_variants``, used by every page and
menu too): ``KONDAVO_RULESETS`` (setting and environment variable, a comma-separated list of
keys; empty means every installed ruleset, built-ins first), then the admin's "rulesets
offered by the site" rows (enable/disable, position), read through
``hooks.ruleset_choices`` (the front end registers the reader of its rows).
``game_abort_by_staff`` ends any unfinished game with no result, for the Django admin.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils.translation import gettext as _

from kondavo.accounts.models import Player
from kondavo.games import hooks
from kondavo.games.errors import GameError
from variants import Variant, default_registry

log = logging.getLogger(__name__)


def require_not_banned(*players: Player | None) -> None:
    """Refuse (``not_allowed``) when any of ``players`` is banned."""
    for player in players:
        if player is not None and player.banned:
            raise GameError("not_allowed", _("This account is banned from playing."))


def _configured() -> list[Variant]:
    registry = default_registry()
    keys = [k.strip() for k in getattr(settings, "KONDAVO_RULESETS", None) or [] if k.strip()]
    if not keys:
        return list(registry)
    chosen: list[Variant] = []
    for key in keys:
        if key in registry:
            variant = registry.get(key)
            if variant not in chosen:
                chosen.append(variant)
        else:
            log.warning("KONDAVO_RULESETS names %r, which is not installed; skipped", key)
    return chosen


def offered_variants() -> list[Variant]:
    """The rulesets the site offers, in the operator's order."""
    chosen = _configured()
    rows = hooks.ruleset_choices()
    order = {v.key: i for i, v in enumerate(chosen)}
    kept = [v for v in chosen if v.key not in rows or rows[v.key][0]]
    kept.sort(key=lambda v: (0, rows[v.key][1], order[v.key]) if v.key in rows
              else (1, 0, order[v.key]))
    return kept


def is_offered(key: str) -> bool:
    return any(v.key == key for v in offered_variants())


def require_offered(key: str) -> None:
    """Refuse (``bad_request``) a new game or seek in a ruleset the site does not offer
    (``KONDAVO_RULESETS`` and the admin's choices). Games already started are unaffected."""
    if not is_offered(key):
        raise GameError("bad_request", _("This ruleset is not offered on this site."))
