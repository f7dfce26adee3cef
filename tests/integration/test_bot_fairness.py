"""Issue 9 item 4, with a real broker and real workers: one crowd's deep searches cannot
delay another player's cheap bot reply. Levels 1-4 search on the ``bots-fast`` queue, served
by a worker of its own (as docker-compose.yml's ``worker-fast``); the caps keep any one
player to three games against the computer."""

from __future__ import annotations

import time
from urllib.error import HTTPError

import pytest
from integration_stack import Stack, Visitor

from kondavo.games.models import Game

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

CROWD = 6  # visitors, each with the most level-8 games allowed (3): 18 deep searches queued


def start_computer_game(visitor: Visitor, level: int) -> str:
    # The human takes Black: the bot (White) starts, so its search is queued at once.
    return str(visitor.post_json("/games/new/computer", {
        "ruleset": "international", "level": level, "color": "black",
        "time_control": "untimed"})["id"])


@pytest.mark.timing
def test_a_level_1_reply_does_not_wait_behind_deep_searches(stack: Stack) -> None:
    stack.worker("deep", queues="bots", KONDAVO_BOT_MOVE_TIME="0.5")
    stack.worker("fast", queues="bots-fast", KONDAVO_BOT_MOVE_TIME="0.5")
    deep_games = []
    crowd = [Visitor(stack.base) for _ in range(CROWD)]
    for visitor in crowd:
        visitor.get("/")
        deep_games += [start_computer_game(visitor, 8) for _ in range(3)]
    with pytest.raises(HTTPError) as refused:  # a fourth game at once is over the cap
        start_computer_game(crowd[0], 8)
    assert refused.value.code == 409

    me = Visitor(stack.base)
    me.get("/")
    asked = time.monotonic()
    mine = start_computer_game(me, 1)
    while Game.objects.get(pk=mine).ply < 1:
        assert time.monotonic() - asked < 20, "the level-1 bot never answered"
        time.sleep(0.05)
    waited = time.monotonic() - asked
    deep_left = Game.objects.filter(pk__in=deep_games, ply=0).count()
    print(f"level-1 reply after {waited:.2f} s with {deep_left}/{len(deep_games)} "
          f"level-8 searches still waiting")
    assert deep_left >= 5, "the deep searches were not queued ahead of the level-1 game"
    assert waited < 3.0
