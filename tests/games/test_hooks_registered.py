"""The apps built on games reach it through ``kondavo.games.hooks``, registered in their
``AppConfig.ready``: the bots' nominal ratings and the front end's ruleset choices (the
offered-rulesets policy itself is games': ``kondavo.games.moderation``)."""

from __future__ import annotations

from typing import Any

import pytest

from bots.engine.ratings import nominal_rating
from frontend.models import RulesetChoice
from kondavo.games import hooks, moderation
from kondavo.games.errors import GameError
from kondavo.games.services import game_create_vs_computer, seek_create

pytestmark = pytest.mark.django_db


def test_the_bots_app_registers_its_nominal_ratings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hooks.registry.bot_rating_reader is nominal_rating
    measured = [(r, level) for r in ("international", "english", "brazilian", "spanish",
                                     "turkish") for level in range(1, 9)
                if nominal_rating(r, level) is not None]
    assert measured, "no measured level at all"
    for ruleset, level in measured:
        assert hooks.bot_rating(ruleset, level) == nominal_rating(ruleset, level)
    assert hooks.bot_rating("no-such-ruleset", 3) is None
    monkeypatch.setattr(hooks.registry, "bot_rating_reader", None)
    assert hooks.bot_rating(*measured[0]) is None  # no bots app: the level alone


def test_the_admins_choices_reach_the_games_policy(guest_factory: Any, settings: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    settings.KONDAVO_RULESETS = ["international", "english", "spanish"]
    assert [v.key for v in moderation.offered_variants()] == [
        "international", "english", "spanish"]
    RulesetChoice.objects.create(key="english", enabled=False)
    RulesetChoice.objects.create(key="spanish", position=-1)
    assert [v.key for v in moderation.offered_variants()] == ["spanish", "international"]
    me = guest_factory()
    for refused in (
        lambda: game_create_vs_computer(player=me, ruleset="english", level=1),
        lambda: seek_create(player=me, ruleset="english", time_control="5+3"),
        lambda: seek_create(player=me, ruleset="turkish", time_control="5+3"),
    ):
        with pytest.raises(GameError) as err:
            refused()
        assert err.value.code == "bad_request" and "not offered" in err.value.message
    game_create_vs_computer(player=me, ruleset="spanish", level=1)
    monkeypatch.setattr(hooks.registry, "ruleset_choices_reader", None)
    assert moderation.is_offered("english")  # without the front end: the setting alone
