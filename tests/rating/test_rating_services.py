"""rating_apply_game against the real database, and the can_be_rated policy."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import IntegrityError, connection, transaction

from kondavo.accounts.models import Player
from kondavo.games.models import Game
from rating.models import Rating, RatingChange
from rating.policy import can_be_rated
from rating.services import rating_apply_game

MakeGame = Callable[..., Game]


def rating_of(player: Player, ruleset: str = "international") -> Rating:
    return Rating.objects.get(player=player, ruleset=ruleset)


@pytest.mark.django_db
@pytest.mark.embedded
class TestApply:
    def test_rated_game_moves_both_ratings_in_its_ruleset_only(
        self, make_user: Callable[[str], Player], finished_game: MakeGame
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        game = finished_game(alice, bob, "white", ruleset="brazilian")
        rating_apply_game(game=game)

        a, b = rating_of(alice, "brazilian"), rating_of(bob, "brazilian")
        # Both new: K 40, expected 0.5 -> +20 / -20.
        assert (a.rating, a.games, a.wins, a.draws, a.losses) == (1520, 1, 1, 0, 0)
        assert (b.rating, b.games, b.wins, b.draws, b.losses) == (1480, 1, 0, 0, 1)
        assert a.last_played == game.finished
        assert a.provisional and a.display == "1520?"
        assert not Rating.objects.exclude(ruleset="brazilian").exists()
        changes = {c.player_id: c for c in RatingChange.objects.filter(game=game)}
        assert (changes[alice.pk].before, changes[alice.pk].after, changes[alice.pk].delta) == (
            1500, 1520, 20)
        assert (changes[bob.pk].before, changes[bob.pk].after, changes[bob.pk].delta) == (
            1500, 1480, -20)
        assert {c.ruleset for c in changes.values()} == {"brazilian"}

    def test_second_game_uses_new_ratings_and_draws(
        self, make_user: Callable[[str], Player], finished_game: MakeGame
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        rating_apply_game(game=finished_game(alice, bob, "white"))  # 1520 / 1480
        rating_apply_game(game=finished_game(bob, alice, None))  # draw, Bob is White
        # 40 * (0.5 - E(1480 vs 1520)); E = 1/(1+10^(40/400)) = 0.442688 -> +2.29 -> +2
        assert rating_of(bob).rating == 1482
        assert rating_of(alice).rating == 1518
        assert (rating_of(alice).draws, rating_of(bob).draws) == (1, 1)

    def test_replaying_changes_nothing(
        self, make_user: Callable[[str], Player], finished_game: MakeGame
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        game = finished_game(alice, bob, "black")
        rating_apply_game(game=game)
        rating_apply_game(game=game)
        game.refresh_from_db()
        rating_apply_game(game=game)
        assert (rating_of(alice).rating, rating_of(alice).games) == (1480, 1)
        assert (rating_of(bob).rating, rating_of(bob).games) == (1520, 1)
        assert RatingChange.objects.filter(game=game).count() == 2

    def test_rating_change_is_unique_per_game_and_player(
        self, make_user: Callable[[str], Player], finished_game: MakeGame
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        game = finished_game(alice, bob, "white")
        rating_apply_game(game=game)
        with pytest.raises(IntegrityError), transaction.atomic():
            RatingChange.objects.create(
                game=game, player=alice, ruleset="international", before=1, after=2, delta=1
            )

    def test_casual_game_changes_nothing(
        self, make_user: Callable[[str], Player], finished_game: MakeGame
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        rating_apply_game(game=finished_game(alice, bob, "white", rated=False))
        assert not Rating.objects.exists() and not RatingChange.objects.exists()

    def test_guest_game_changes_nothing_even_if_flagged_rated(
        self,
        make_user: Callable[[str], Player],
        make_guest: Callable[[], Player],
        finished_game: MakeGame,
    ) -> None:
        alice, guest = make_user("alice"), make_guest()
        rating_apply_game(game=finished_game(alice, guest, "white", rated=True))
        rating_apply_game(game=finished_game(guest, alice, "white", rated=True))
        assert not Rating.objects.exists() and not RatingChange.objects.exists()

    @pytest.mark.parametrize("status", [Game.Status.ACTIVE, Game.Status.ABORTED])
    def test_unfinished_or_aborted_game_changes_nothing(
        self, make_user: Callable[[str], Player], finished_game: MakeGame, status: str
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        rating_apply_game(game=finished_game(alice, bob, None, status=status))
        assert not Rating.objects.exists()

    def test_bot_seats_are_rated_per_level(
        self,
        make_user: Callable[[str], Player],
        make_bot: Callable[[int], Player],
        finished_game: MakeGame,
    ) -> None:
        alice, bot3, bot5 = make_user("alice"), make_bot(3), make_bot(5)
        rating_apply_game(game=finished_game(alice, bot3, "white", ruleset="turkish"))
        rating_apply_game(game=finished_game(bot5, alice, "white", ruleset="turkish"))
        assert rating_of(bot3, "turkish").rating == 1480
        # Level 5 (1500) beats Alice (1520): 40 * (1 - 1/(1 + 10^(20/400))) = 21.15 -> 21
        assert rating_of(bot5, "turkish").rating == 1521
        assert (rating_of(alice, "turkish").rating, rating_of(alice, "turkish").games) == (1499, 2)
        assert not Rating.objects.exclude(ruleset="turkish").exists()

    def test_k_drops_after_thirty_games(
        self, make_user: Callable[[str], Player], finished_game: MakeGame
    ) -> None:
        alice, bob = make_user("alice"), make_user("bob")
        for player in (alice, bob):
            Rating.objects.create(
                player=player, ruleset="english", rating=1500, games=30, wins=30
            )
        rating_apply_game(game=finished_game(alice, bob, "white", ruleset="english"))
        assert rating_of(alice, "english").rating == 1510  # K 20
        assert not rating_of(alice, "english").provisional


@pytest.mark.django_db
@pytest.mark.embedded
def test_can_be_rated(
    make_user: Callable[[str], Player],
    make_guest: Callable[[], Player],
    make_bot: Callable[[int], Player],
) -> None:
    alice, bob, guest, bot1, bot2 = (
        make_user("alice"), make_user("bob"), make_guest(), make_bot(1), make_bot(2)
    )
    assert can_be_rated(alice, bob)
    assert can_be_rated(alice, bot1) and can_be_rated(bot1, alice)
    assert not can_be_rated(alice, guest) and not can_be_rated(guest, alice)
    assert not can_be_rated(guest, bot1)
    assert not can_be_rated(bot1, bot2)
    assert not can_be_rated(alice, alice)
    assert not can_be_rated(alice, None) and not can_be_rated(None, bob)


@pytest.mark.django_db(transaction=True)
def test_concurrent_finishes_lose_no_update(
    make_user: Callable[[str], Player], finished_game: MakeGame
) -> None:
    """Games of the same players finish at the same time in different transactions: every
    update lands, and the players' changes form an unbroken chain."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite serialises writers: row locking is tested on PostgreSQL")
    hub = make_user("hub")
    others = [make_user(f"p{i}") for i in range(6)]
    pairs = [(hub, o) if i % 2 else (o, hub) for i, o in enumerate(others)]
    # A triangle among the others too: locks in player-id order prevent deadlocks.
    pairs += [(others[0], others[1]), (others[1], others[2]), (others[2], others[0])]
    games = [finished_game(w, b, "white") for w, b in pairs]

    barrier = threading.Barrier(len(games))
    errors: list[BaseException] = []

    def finish(game_id: str) -> None:
        try:
            barrier.wait(timeout=10)
            with transaction.atomic():
                game = Game.objects.select_for_update().get(pk=game_id)
                rating_apply_game(game=game)
        except BaseException as exc:  # noqa: B036 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(g.pk,)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert RatingChange.objects.count() == 2 * len(games)

    for player in [hub, *others]:
        row = rating_of(player)
        changes = list(RatingChange.objects.filter(player=player).order_by("id"))
        assert row.games == len(changes)
        assert row.rating == 1500 + sum(c.delta for c in changes)
        # Applied one after another (ids are taken while the row lock is held): each
        # change starts where the previous one ended, so none was computed from stale data.
        assert changes[0].before == 1500
        for prev, cur in zip(changes, changes[1:], strict=False):
            assert cur.before == prev.after
    assert rating_of(hub).games == 6
