"""Games services against the real database: full games, refusals, actions, clocks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.forms.models import model_to_dict

from kondavo.games import selectors, services, wire
from kondavo.games.errors import GameError
from kondavo.games.models import Game, Seek
from kondavo.games.services import (
    game_abort,
    game_accept_draw,
    game_claim_draw,
    game_claim_victory,
    game_create,
    game_create_friend,
    game_create_vs_computer,
    game_decline_draw,
    game_flag_if_expired,
    game_heartbeats,
    game_join,
    game_offer_draw,
    game_open_for_viewer,
    game_play_move,
    game_presence_close,
    game_presence_open,
    game_rematch,
    game_resign,
    presence_member,
    seek_accept,
    seek_cancel,
    seek_create,
)
from kondavo.games.wire import game_state

pytestmark = pytest.mark.django_db

# Short literal games from positions near the end: (ruleset, start FEN, moves, winner, reason)
FULL_GAMES = [
    ("international", "W:W21,10:B26,42", ["10-4", "26x17", "4-22", "17x28"], "black",
     "no_pieces"),
    ("english", "B:W18,9:B10,1", ["10-14", "9-5", "14x23"], "black", "no_moves"),
    ("brazilian", "W:Wh2,f2:Ba7,g5", ["f2-e3", "g5-h4", "h2-g3", "h4xf2xd4"], "black",
     "no_pieces"),
    ("spanish", "W:W9,18:B13,29", ["18-21", "29-25", "9x18"], "white", "no_moves"),
    ("turkish", "W:Wb3,f5:Bf7,c3", ["b3xd3", "f7-f6", "f5xf7"], "white", "no_pieces"),
]



def _beat(*, game: Game, member: str) -> dict[str, Any]:
    """One socket's heartbeat through the batch service the sockets use: its presence."""
    answer = game_heartbeats([(game.id, member, game)])[0]
    assert answer is not None
    return answer[1]

def snapshot(game_id: str) -> dict[str, Any]:
    return model_to_dict(Game.objects.get(pk=game_id))


@pytest.fixture
def pair(guest_factory: Any) -> tuple[Any, Any]:
    return guest_factory(), guest_factory()


def new_game(pair: tuple[Any, Any], ruleset: str = "international", *,
             time_control: str = "untimed", start_fen: str | None = None) -> Game:
    a, b = pair
    return game_create(creator=a, opponent=b, ruleset=ruleset, color="white",
                       time_control=time_control, start_fen=start_fen)


def mover(game: Game) -> Any:
    game.refresh_from_db()
    return game.white if selectors.turn_of(game) == "white" else game.black


@pytest.mark.parametrize("ruleset,fen,moves,winner,reason", FULL_GAMES,
                         ids=[g[0] for g in FULL_GAMES])
def test_full_game_per_ruleset(pair: Any, ruleset: str, fen: str, moves: list[str],
                               winner: str, reason: str,
                               django_capture_on_commit_callbacks: Any) -> None:
    game = new_game(pair, ruleset, start_fen=fen, time_control="5+3")
    assert game.status == "active"
    for ply, text in enumerate(moves):
        with django_capture_on_commit_callbacks(execute=False):
            game_play_move(game_id=game.id, player=mover(game), ply=ply, move_text=text)
    game.refresh_from_db()
    assert game.status == "finished"
    assert (game.winner, game.reason) == (winner, reason)
    assert game.moves == moves and game.ply == len(moves)
    # one event per move, plus the end
    assert game.version == len(moves) + 1
    assert game.flag_at is None and game.turn_started_at is None
    state = game_state(game, pair[0])
    assert state["status"] == "finished" and state["legal"] == []
    assert state["result"]["winner"] == winner and state["result"]["reason"] == reason
    assert state["clocks"]["running"] is None
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[0], ply=len(moves), move_text="1-2")
    assert err.value.code == "game_over"


def test_draw_by_threefold_repetition(pair: Any) -> None:
    game = new_game(pair, start_fen="W:WK50:BK1")
    for ply, text in enumerate(["50-44", "1-7", "44-50", "7-1"] * 2):
        game_play_move(game_id=game.id, player=mover(game), ply=ply, move_text=text)
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("finished", None, "threefold")
    assert wire.result_payload(game) == {"winner": None, "reason": "threefold",
                                              "score": "1-1"}


def test_move_by_path_and_state_payload(pair: Any) -> None:
    game = new_game(pair)
    state = game_state(game, pair[0])
    assert state["you"] == "white" and state["turn"] == "white" and state["ply"] == 0
    assert state["board"]["rows"] == 10 and state["capture_rule"]
    assert {"notation": "32-28", "path": ["32", "28"], "captured": []} in state["legal"]
    game_play_move(game_id=game.id, player=pair[0], ply=0, path=["32", "28"])
    game.refresh_from_db()
    assert game.moves == ["32-28"] and game.ply == 1 and game.fen.startswith("B:")
    assert game_state(game, None)["you"] is None
    assert game_state(game, pair[1])["last_move"] == {"path": ["32", "28"], "captured": []}


def test_english_black_moves_first(pair: Any) -> None:
    game = new_game(pair, "english")
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=game.white, ply=0, move_text="22-18")
    assert err.value.code == "not_your_turn"
    game_play_move(game_id=game.id, player=game.black, ply=0, move_text="11-15")


@pytest.mark.parametrize("who,ply,kwargs,code", [
    ("black", 0, {"move_text": "19-23"}, "not_your_turn"),
    ("stranger", 0, {"move_text": "32-28"}, "not_a_player"),
    ("white", 1, {"move_text": "32-28"}, "stale_ply"),
    ("white", 0, {"move_text": "32-27x"}, "bad_request"),
    ("white", 0, {"move_text": "32-23"}, "illegal_move"),
    ("white", 0, {"move_text": "hello"}, "bad_request"),
    ("white", 0, {"move_text": ""}, "bad_request"),
    ("white", 0, {"move_text": "x" * 500}, "bad_request"),
    ("white", 0, {"path": ["32"]}, "bad_request"),
    ("white", 0, {"path": [32, 28]}, "bad_request"),
    ("white", 0, {}, "bad_request"),
    ("white", 0, {"move_text": "32-28", "path": ["32", "28"]}, "bad_request"),
    ("white", "0", {"move_text": "32-28"}, "bad_request"),
    ("white", -1, {"move_text": "32-28"}, "bad_request"),
])
def test_refused_moves_change_nothing(pair: Any, guest_factory: Any, who: str, ply: Any,
                                      kwargs: dict[str, Any], code: str) -> None:
    game = new_game(pair)
    player = {"white": pair[0], "black": pair[1], "stranger": guest_factory()}[who]
    before = snapshot(game.id)
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=player, ply=ply, **kwargs)
    assert err.value.code == code, err.value.message
    assert snapshot(game.id) == before


def test_foreign_game_and_unknown_game(pair: Any, guest_factory: Any) -> None:
    game = new_game(pair)
    other = new_game((guest_factory(), guest_factory()))
    before = snapshot(other.id)
    with pytest.raises(GameError) as err:
        game_play_move(game_id=other.id, player=pair[0], ply=0, move_text="32-28")
    assert err.value.code == "not_a_player"
    assert snapshot(other.id) == before
    with pytest.raises(GameError) as err:
        game_play_move(game_id="nosuchgm", player=pair[0], ply=0, move_text="32-28")
    assert err.value.code == "not_found"
    assert game.ply == 0


def test_ambiguous_move_lists_candidates(pair: Any) -> None:
    fen = "W:WK49:B44,24,12,23,9,45,15"  # 49x4 via 40-18 or via 35-13
    game = new_game(pair, start_fen=fen)
    before = snapshot(game.id)
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="49x4")
    assert err.value.code == "ambiguous_move"
    assert "49x40x18x4" in err.value.message and "49x35x13x4" in err.value.message
    assert snapshot(game.id) == before
    game_play_move(game_id=game.id, player=pair[0], ply=0, path=["49", "35", "13", "4"])
    game.refresh_from_db()
    assert game.moves == ["49x35x13x4"]


def test_resign(pair: Any) -> None:
    game = new_game(pair)
    game_resign(game_id=game.id, player=pair[1])
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("finished", "white", "resign")
    with pytest.raises(GameError) as err:
        game_resign(game_id=game.id, player=pair[0])
    assert err.value.code == "game_over"


def test_draw_offer_accept_decline(pair: Any) -> None:
    white, black = pair
    game = new_game(pair)
    with pytest.raises(GameError) as err:
        game_accept_draw(game_id=game.id, player=black)
    assert err.value.code == "not_allowed"
    game_offer_draw(game_id=game.id, player=white)
    game.refresh_from_db()
    assert game.draw_offer == "white" and game.version == 1
    game_offer_draw(game_id=game.id, player=white)  # repeated: no new event
    game.refresh_from_db()
    assert game.version == 1
    with pytest.raises(GameError):
        game_accept_draw(game_id=game.id, player=white)  # cannot accept one's own offer
    game_decline_draw(game_id=game.id, player=black)
    game.refresh_from_db()
    assert game.draw_offer is None and game.version == 2
    game_offer_draw(game_id=game.id, player=black)
    game_accept_draw(game_id=game.id, player=white)
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("finished", None, "agreement")


def test_moving_declines_the_opponents_draw_offer(pair: Any) -> None:
    game = new_game(pair)
    game_offer_draw(game_id=game.id, player=pair[1])
    game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="32-28")
    game.refresh_from_db()
    assert game.draw_offer is None and game.version == 3  # offer, move, offer withdrawn


def test_abort_only_before_both_sides_moved(pair: Any) -> None:
    game = new_game(pair)
    game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="32-28")
    game_abort(game_id=game.id, player=pair[1])
    game.refresh_from_db()
    assert game.status == "aborted" and game.reason == "by_player" and game.winner is None
    game2 = new_game(pair)
    game_play_move(game_id=game2.id, player=pair[0], ply=0, move_text="32-28")
    game_play_move(game_id=game2.id, player=pair[1], ply=1, move_text="19-23")
    with pytest.raises(GameError) as err:
        game_abort(game_id=game2.id, player=pair[0])
    assert err.value.code == "not_allowed"


def test_rematch_swaps_colours(pair: Any) -> None:
    white, black = pair
    game = new_game(pair, time_control="3+2")
    with pytest.raises(GameError) as err:
        game_rematch(game_id=game.id, player=white)
    assert err.value.code == "not_allowed"
    game_resign(game_id=game.id, player=white)
    game_rematch(game_id=game.id, player=white)
    game.refresh_from_db()
    assert game.rematch_offer == "white" and game.rematch_id is None
    game_rematch(game_id=game.id, player=black)
    game.refresh_from_db()
    new = game.rematch
    assert new is not None and new.status == "active"
    assert (new.white_id, new.black_id) == (black.pk, white.pk)
    assert new.time_control == "3+2" and new.ruleset == game.ruleset
    assert game_state(game, white)["rematch"]["game_id"] == new.id
    game_rematch(game_id=game.id, player=black)  # idempotent
    game.refresh_from_db()
    assert game.rematch_id == new.id


def test_friend_link_join(pair: Any, guest_factory: Any) -> None:
    creator, friend = pair
    game = game_create_friend(player=creator, ruleset="turkish", time_control="10+5",
                              color="black")
    assert game.status == "waiting" and game.black_id == creator.pk and game.white_id is None
    assert game_open_for_viewer(game_id=game.id, player=creator).status == "waiting"
    # Opening the link never takes the seat (a link preview must not): joining does.
    assert game_open_for_viewer(game_id=game.id, player=friend).status == "waiting"
    opened = game_join(game_id=game.id, player=friend)
    assert opened.status == "active" and opened.white_id == friend.pk
    assert opened.version == 1 and opened.turn_started_at is not None
    spectator = guest_factory()
    assert game_open_for_viewer(game_id=game.id, player=spectator).side_of(spectator) is None
    with pytest.raises(GameError) as err:
        game_join(game_id=game.id, player=spectator)
    assert err.value.code == "not_allowed"


def test_waiting_game_refuses_moves_and_can_be_aborted(pair: Any) -> None:
    game = game_create_friend(player=pair[0], ruleset="international", color="white")
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="32-28")
    assert err.value.code == "not_allowed"
    game_abort(game_id=game.id, player=pair[0])
    assert Game.objects.get(pk=game.id).status == "aborted"


def test_vs_computer_requests_bot_move_when_bot_starts(
        guest_factory: Any, recorded_side_effects: dict[str, list[Any]],
        django_capture_on_commit_callbacks: Any) -> None:
    human = guest_factory()
    with django_capture_on_commit_callbacks(execute=True):
        game = game_create_vs_computer(player=human, ruleset="international", level=2,
                                       color="black")
    assert game.white.is_bot and game.white.bot_level == 2
    assert recorded_side_effects["bot"] == [(game.id, 0)]
    with django_capture_on_commit_callbacks(execute=True):
        game2 = game_create_vs_computer(player=human, ruleset="international", level=2,
                                        color="white")
    assert recorded_side_effects["bot"] == [(game.id, 0)]  # the human starts game2
    with django_capture_on_commit_callbacks(execute=True):
        game_play_move(game_id=game2.id, player=human, ply=0, move_text="32-28")
    assert recorded_side_effects["bot"][-1] == (game2.id, 1)
    with pytest.raises(GameError):
        game_create_vs_computer(player=human, ruleset="international", level=9)


def test_rated_game_calls_rating_hook(monkeypatch: pytest.MonkeyPatch, pair: Any) -> None:
    import rating.services

    calls: list[str] = []
    monkeypatch.setattr(rating.services, "rating_apply_game",
                        lambda *, game: calls.append(game.id))
    game = new_game(pair)
    Game.objects.filter(pk=game.id).update(rated=True)
    game_resign(game_id=game.id, player=pair[0])
    assert calls == [game.id]
    unrated = new_game(pair)
    game_resign(game_id=unrated.id, player=pair[0])
    assert calls == [game.id]


def test_guests_never_play_rated(pair: Any) -> None:
    game = game_create(creator=pair[0], opponent=pair[1], ruleset="international", rated=True)
    assert game.rated is False


# --------------------------------------------------------------------------- clocks

OPENING = ["31-27", "20-24"]  # each side's first move: no clock ran before them


def opened(pair: Any, fake_clock: Any, time_control: str) -> Game:
    """A game whose two first moves were played (now the clock of White runs)."""
    game = new_game(pair, time_control=time_control)
    for ply, text in enumerate(OPENING):
        game_play_move(game_id=game.id, player=pair[ply % 2], ply=ply, move_text=text)
    return Game.objects.get(pk=game.id)


def test_clocks_start_after_each_sides_first_move(pair: Any, fake_clock: Any) -> None:
    game = new_game(pair, time_control="5+3")
    start = fake_clock.current
    state = game_state(game, None)
    assert state["clocks"]["running"] is None
    assert state["abort_at"] == int((start.timestamp() + 30) * 1000)
    fake_clock.advance(seconds=10)
    game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="31-27")
    game.refresh_from_db()
    assert game.white_ms == 300_000  # no clock ran, so no time used and no increment
    fake_clock.advance(seconds=20)
    state = game_state(game, None)
    assert state["clocks"]["running"] is None and state["clocks"]["black"] == 300_000
    assert state["abort_at"] == int((start.timestamp() + 10 + 30) * 1000)
    game_play_move(game_id=game.id, player=pair[1], ply=1, move_text="20-24")
    game.refresh_from_db()
    assert game.black_ms == 300_000
    assert game_state(game, None)["abort_at"] is None
    fake_clock.advance(seconds=10)
    game_play_move(game_id=game.id, player=pair[0], ply=2, move_text="36-31")
    game.refresh_from_db()
    assert game.white_ms == 300_000 - 10_000 + 3_000
    fake_clock.advance(seconds=4)
    clocks = game_state(game, None)["clocks"]
    assert clocks == {"white": 293_000, "black": 296_000, "running": "black",
                      "initial": 300_000, "increment": 3_000}


@pytest.mark.parametrize("time_control", ["untimed", "1+0"])
def test_no_first_move_aborts_unrated(pair: Any, fake_clock: Any, time_control: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import rating.services

    calls: list[str] = []
    monkeypatch.setattr(rating.services, "rating_apply_game",
                        lambda *, game: calls.append(game.id))
    from kondavo.games.tasks import game_flag_sweep

    game = new_game(pair, time_control=time_control)
    Game.objects.filter(pk=game.id).update(rated=True)
    fake_clock.advance(seconds=29)
    assert game_flag_sweep() == 0
    game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="31-27")
    fake_clock.advance(seconds=29)  # Black's first move is due 30 s after White's
    assert game_flag_if_expired(game_id=game.id) is False
    fake_clock.advance(seconds=1)
    assert game_flag_sweep() == 1
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("aborted", None, "no_first_move")
    assert game_state(game, None)["abort"] == {"reason": "no_first_move", "side": "black"}
    assert calls == []
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[1], ply=1, move_text="20-24")
    assert err.value.code == "game_over"


def test_late_first_move_is_refused_and_aborts(pair: Any, fake_clock: Any,
                                               django_capture_on_commit_callbacks: Any,
                                               recorded_side_effects: dict[str, Any]) -> None:
    from kondavo.games import events

    sent: list[Any] = []
    game = new_game(pair)
    fake_clock.advance(seconds=30)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(events, "publish_game", lambda game_id, frames: sent.extend(frames))
        with pytest.raises(GameError) as err, \
                django_capture_on_commit_callbacks(execute=True):
            game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="31-27")
    assert err.value.code == "game_over"
    assert sent == [{"v": 1, "t": "end", "d": {
        "status": "aborted", "result": None,
        "abort": {"reason": "no_first_move", "side": "white"}}}]


def test_the_computer_is_never_hurried_but_the_human_is(guest_factory: Any,
                                                        fake_clock: Any) -> None:
    human = guest_factory()
    game = game_create_vs_computer(player=human, ruleset="international", level=1,
                                   color="black", time_control="5+3")  # the bot starts
    assert game.flag_at is None and game_state(game, None)["abort_at"] is None
    fake_clock.advance(seconds=120)
    assert game_flag_if_expired(game_id=game.id) is False
    bot = Game.objects.select_related("white").get(pk=game.id).white
    game_play_move(game_id=game.id, player=bot, ply=0, move_text="31-27")
    game.refresh_from_db()
    assert game.flag_at == fake_clock.current + timedelta(seconds=30)
    fake_clock.advance(seconds=30)
    assert game_flag_if_expired(game_id=game.id) is True
    game.refresh_from_db()
    assert game.status == "aborted"


def test_flag_with_no_client_connected(pair: Any, fake_clock: Any,
                                       recorded_side_effects: dict[str, list[Any]],
                                       django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = opened(pair, fake_clock, "1+0")
    # the embedded mode checks each deadline (a worker: the beat sweep): both first moves,
    # then White's clock
    assert recorded_side_effects["flag"] == [(game.id, 30.0), (game.id, 30.0),
                                             (game.id, 60.0)]
    fake_clock.advance(seconds=59)
    assert game_flag_if_expired(game_id=game.id) is False
    fake_clock.advance(seconds=1)
    # what the beat sweep / the in-process timer run:
    from kondavo.games.tasks import game_flag_check, game_flag_sweep

    assert game_flag_sweep() == 1
    assert game_flag_check(game.id) is False  # already flagged: idempotent
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("finished", "black", "timeout")
    assert game.white_ms == 0 and game.black_ms == 60_000


def test_late_move_is_refused_and_flags(pair: Any, fake_clock: Any) -> None:
    game = opened(pair, fake_clock, "1+0")
    fake_clock.advance(seconds=61)
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[0], ply=2, move_text="36-31")
    assert err.value.code == "game_over"
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason, game.moves) == (
        "finished", "black", "timeout", OPENING)


def test_untimed_games_never_flag(pair: Any, fake_clock: Any) -> None:
    game = opened(pair, fake_clock, "untimed")
    assert game.flag_at is None
    fake_clock.advance(seconds=10**6)
    assert game_flag_if_expired(game_id=game.id) is False
    assert game_state(game, None)["clocks"] is None


# --------------------------------------------------------------------------- presence

def _open(game: Game, player: Any, socket: str) -> tuple[str, dict[str, Any]]:
    game = Game.objects.select_related("white", "black").get(pk=game.id)
    member = presence_member(game=game, player=player, socket_id=socket)
    return member, game_presence_open(game=game, member=member, publish=False)


def test_presence_expires_without_a_close(pair: Any, fake_clock: Any, settings: Any) -> None:
    """A socket that is never closed (its process was killed) counts as gone ``ttl``
    seconds after its last heartbeat; the opponent may then claim after the claim time."""
    settings.KONDAVO_FIRST_MOVE_SECONDS = 3600  # no first-move abort here
    settings.KONDAVO_PRESENCE_TTL_SECONDS = 12
    settings.KONDAVO_CLAIM_VICTORY_SECONDS = 60
    white, black = pair
    game = new_game(pair)
    w, _ = _open(game, white, "w1")
    b, seen = _open(game, black, "b1")
    assert (seen["white"], seen["black"]) == (True, True)
    assert seen["claim_at"] == {"white": None, "black": None}
    fake_clock.advance(seconds=5)
    game = Game.objects.select_related("white", "black").get(pk=game.id)
    _beat(game=game, member=b)
    last_black = fake_clock.current.timestamp()
    with pytest.raises(GameError) as err:
        game_claim_victory(game_id=game.id, player=white)
    assert err.value.code == "not_allowed"
    fake_clock.advance(seconds=11)  # black's socket dies silently: no close, no heartbeat
    assert _beat(game=game, member=w)["black"] is True
    fake_clock.advance(seconds=2)
    seen = _beat(game=game, member=w)
    expired = int((last_black + 12) * 1000)
    assert seen["black"] is False and seen["left_at"]["black"] == expired
    assert seen["claim_at"]["black"] == expired + 60_000
    assert seen["white"] is True and seen["claim_at"]["white"] is None
    fake_clock.advance(seconds=50)
    with pytest.raises(GameError) as err:
        game_claim_victory(game_id=game.id, player=white)
    assert err.value.code == "not_allowed" and "claim the game in" in err.value.message
    fake_clock.advance(seconds=9)  # black expired at 5 + 12 = 17 s; 17 + 60 = 77 s
    game_claim_victory(game_id=game.id, player=white)
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("finished", "white", "abandoned")


def test_claim_draw_and_tabs_and_spectators(pair: Any, fake_clock: Any, settings: Any,
                                            guest_factory: Any) -> None:
    settings.KONDAVO_FIRST_MOVE_SECONDS = 3600  # no first-move abort here
    settings.KONDAVO_CLAIM_VICTORY_SECONDS = 60
    white, black = pair
    game = new_game(pair)
    _open(game, white, "w1")
    b1, _ = _open(game, black, "b1")
    b2, _ = _open(game, black, "b2")  # a second tab
    _open(game, guest_factory(), "s1")
    _, seen = _open(game, None, "s2")
    assert seen["spectators"] == 2
    game = Game.objects.select_related("white", "black").get(pk=game.id)
    assert game_presence_close(game=game, member=b1)["black"] is True  # b2 still open
    seen = game_presence_close(game=game, member=b2)
    assert seen["black"] is False
    assert seen["left_at"]["black"] == int(fake_clock.current.timestamp() * 1000)
    with pytest.raises(GameError):
        game_claim_draw(game_id=game.id, player=white)
    with pytest.raises(GameError) as err:
        game_claim_draw(game_id=game.id, player=black)  # white is here
    assert err.value.message == "your opponent is connected"
    fake_clock.advance(seconds=60)
    game_claim_draw(game_id=game.id, player=white)
    game.refresh_from_db()
    assert (game.status, game.winner, game.reason) == ("finished", None, "abandoned")
    assert game_state(game, None)["result"]["score"] == "1-1"


@pytest.mark.embedded  # the in-process store too
def test_lost_presence_data_never_makes_a_player_claimable_at_once(
        pair: Any, fake_clock: Any, settings: Any) -> None:
    """Redis restarted (or the embedded process): every entry is gone, but a player it has
    not seen since counts as gone only from then, and is back at their next heartbeat."""
    from kondavo.games import presence

    settings.KONDAVO_FIRST_MOVE_SECONDS = 3600
    settings.KONDAVO_CLAIM_VICTORY_SECONDS = 60
    white, black = pair
    game = new_game(pair)
    _open(game, white, "w1")
    b, _ = _open(game, black, "b1")
    fake_clock.advance(seconds=600)
    store = presence.store()
    if isinstance(store, presence.RedisPresence):
        store._redis.delete(presence.KEY_PREFIX + game.id)
    else:
        store._games.pop(game.id, None)
    w, seen = _open(game, white, "w2")  # White's heartbeat after the loss
    assert seen["black"] is False
    assert seen["claim_at"]["black"] == int(fake_clock.current.timestamp() * 1000) + 60_000
    with pytest.raises(GameError):
        game_claim_victory(game_id=game.id, player=white)
    game = Game.objects.select_related("white", "black").get(pk=game.id)
    assert _beat(game=game, member=b)["black"] is True


def test_never_connected_opponent_counts_from_the_start(pair: Any, fake_clock: Any,
                                                       settings: Any) -> None:
    settings.KONDAVO_FIRST_MOVE_SECONDS = 3600  # no first-move abort here
    settings.KONDAVO_CLAIM_VICTORY_SECONDS = 60
    game = new_game(pair)
    _open(game, pair[0], "w1")
    fake_clock.advance(seconds=59)
    with pytest.raises(GameError):
        game_claim_victory(game_id=game.id, player=pair[0])
    fake_clock.advance(seconds=1)
    game_claim_victory(game_id=game.id, player=pair[0])


def test_the_computer_never_leaves(guest_factory: Any, fake_clock: Any, settings: Any) -> None:
    settings.KONDAVO_FIRST_MOVE_SECONDS = 7200
    human = guest_factory()
    game = game_create_vs_computer(player=human, ruleset="international", level=1,
                                   color="white")
    _, seen = _open(game, human, "h1")
    assert seen["black"] is True and seen["claim_at"]["black"] is None
    fake_clock.advance(seconds=3600)
    with pytest.raises(GameError) as err:
        game_claim_victory(game_id=game.id, player=human)
    assert err.value.message == "the computer never leaves"


# --------------------------------------------------------------------------- lobby

def test_seek_create_accept_cancel(pair: Any, guest_factory: Any) -> None:
    a, b = pair
    seek = seek_create(player=a, ruleset="brazilian", time_control="3+2")
    assert seek_create(player=a, ruleset="brazilian", time_control="3+2").pk == seek.pk
    assert [s["id"] for s in wire.lobby_seeks(selectors.seeks_open())] == [seek.pk]
    with pytest.raises(GameError) as err:
        seek_accept(seek_id=seek.pk, player=a)
    assert err.value.code == "not_allowed"
    game = seek_accept(seek_id=seek.pk, player=b)
    assert game.status == "active" and {game.white_id, game.black_id} == {a.pk, b.pk}
    assert game.time_control == "3+2" and game.ruleset == "brazilian"
    seek.refresh_from_db()
    assert seek.status == Seek.Status.ACCEPTED and seek.game_id == game.id
    with pytest.raises(GameError) as err:
        seek_accept(seek_id=seek.pk, player=guest_factory())
    assert err.value.code == "not_found"
    other = seek_create(player=b, ruleset="international", time_control="untimed")
    with pytest.raises(GameError):
        seek_cancel(seek_id=other.pk, player=a)
    seek_cancel(seek_id=other.pk, player=b)
    assert wire.lobby_seeks(selectors.seeks_open()) == []
    assert selectors.lobby_version() == 4
    with pytest.raises(GameError) as err:
        seek_create(player=a, ruleset="nope", time_control="3+2")
    assert err.value.code == "bad_request"
    with pytest.raises(GameError):
        seek_create(player=a, ruleset="international", time_control="7+7")


def test_games_of_player(pair: Any) -> None:
    g1 = new_game(pair)
    g2 = new_game(pair)
    assert {g.id for g in selectors.games_of_player(player=pair[0])} == {g1.id, g2.id}


def test_pdn_download_text(pair: Any) -> None:
    game = new_game(pair)
    game_play_move(game_id=game.id, player=pair[0], ply=0, move_text="32-28")
    text = selectors.game_pdn(game_open_for_viewer(game_id=game.id, player=None))
    assert '[White "' in text and "32-28" in text


def test_services_module_exports() -> None:
    for name in services.__all__:
        assert callable(getattr(services, name))


# --------------------------------------------------------------------------- hooks

def test_without_a_bot_mover_a_bot_game_fails_loudly(
        guest_factory: Any, monkeypatch: pytest.MonkeyPatch,
        django_capture_on_commit_callbacks: Any) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from kondavo.games import hooks

    monkeypatch.setattr(hooks.registry, "bot_mover", None)
    with pytest.raises(ImproperlyConfigured), \
            django_capture_on_commit_callbacks(execute=True):
        game_create_vs_computer(player=guest_factory(), ruleset="international", level=1,
                                color="black")


def test_a_failing_finish_hook_rolls_the_finish_back(pair: Any) -> None:
    from kondavo.games import hooks

    def broken(sender: Any, **kwargs: Any) -> None:
        raise RuntimeError("rating is down")

    game = new_game(pair)
    hooks.game_finished.connect(broken, dispatch_uid="test.broken")
    try:
        with pytest.raises(RuntimeError):
            game_resign(game_id=game.id, player=pair[0])
    finally:
        hooks.game_finished.disconnect(dispatch_uid="test.broken")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.version == 0


def test_move_as_a_variants_move_and_as_a_path(pair: Any) -> None:
    from variants import get_variant

    game = new_game(pair)
    variant = get_variant("international")
    legal = variant.legal_moves(variant.initial_position())
    move = next(m for m in legal if variant.format_move(variant.initial_position(), m) == "32-28")
    game_play_move(game_id=game.id, player=pair[0], ply=0, move=move)
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[1], ply=1, move=move)  # White's move
    assert err.value.code == "illegal_move"
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[1], ply=1, path=["18", "29"])
    assert err.value.code == "illegal_move"
    with pytest.raises(GameError) as err:
        game_play_move(game_id=game.id, player=pair[1], ply=1, path=["19", "zz"])
    assert err.value.code == "bad_request"
    game = game_play_move(game_id=game.id, player=pair[1], ply=1, path=["19", "23"])
    assert game.moves == ["32-28", "19-23"]


@pytest.mark.parametrize(("ruleset", "winner", "score"), [
    ("international", "white", "2-0"), ("brazilian", None, "1-1"), ("spanish", "black", "0-2"),
    ("english", "white", "1-0"), ("english", None, "1/2-1/2"), ("turkish", "black", "0-1"),
])
def test_result_score_in_the_rulesets_notation(ruleset: str, winner: str | None,
                                               score: str) -> None:
    game = Game(ruleset=ruleset, winner=winner, status=Game.Status.FINISHED, reason="resign")
    assert wire.result_payload(game) == {"winner": winner, "reason": "resign",
                                              "score": score}
