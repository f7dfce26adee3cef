"""The pure pairing rules (no database): arena points and pairing, Swiss pairings on
hand-built examples with known results, byes, tie-breaks, and the Berger tables."""

from __future__ import annotations

import pytest

from kondavo.tournaments import arena, roundrobin, swiss
from kondavo.tournaments.swiss import SwissPlayer, pair_round

pytestmark = [pytest.mark.embedded]

# --------------------------------------------------------------------------- arena


def test_arena_points_streak_and_berserk() -> None:
    assert arena.game_points(outcome="win", streak=0, berserk=False).points == 2
    assert arena.game_points(outcome="draw", streak=0, berserk=False).points == 1
    assert arena.game_points(outcome="loss", streak=0, berserk=True).points == 0
    second = arena.game_points(outcome="win", streak=1, berserk=False)
    assert (second.points, second.fire, second.streak) == (2, False, 2)
    third = arena.game_points(outcome="win", streak=2, berserk=False)
    assert (third.points, third.fire, third.streak) == (4, True, 3)
    assert arena.game_points(outcome="win", streak=3, berserk=True).points == 5
    broken = arena.game_points(outcome="draw", streak=3, berserk=False)
    assert (broken.points, broken.fire, broken.streak) == (1, True, 0)
    assert arena.game_points(outcome="win", streak=0, berserk=True).points == 3


def _free(pid: int, score: int, last: int | None = None, colours: str = "") -> arena.Free:
    return arena.Free(pid, score, 1500, last, colours)


def test_arena_pairs_close_scores_and_avoids_an_immediate_rematch() -> None:
    pairs = arena.pair([_free(1, 10, last=2), _free(2, 9, last=1), _free(3, 8), _free(4, 0)])
    as_sets = [set(p) for p in pairs]
    assert {1, 3} in as_sets and {2, 4} in as_sets  # not 1-2 again while 3 and 4 are free
    # Two players alone may meet again; an odd one out waits.
    assert len(arena.pair([_free(1, 2, last=2), _free(2, 0, last=1)])) == 1
    assert len(arena.pair([_free(1, 2), _free(2, 0), _free(3, 0)])) == 1
    # Closest scores meet.
    pairs = arena.pair([_free(1, 12), _free(2, 11), _free(3, 2), _free(4, 1)])
    assert [set(p) for p in pairs] == [{1, 2}, {3, 4}]


def test_arena_colours_balance() -> None:
    white, black = arena.white_first(_free(1, 0, colours="ww"), _free(2, 0, colours="wb"))
    assert (white, black) == (2, 1)
    white, black = arena.white_first(_free(1, 0, colours="wb"), _free(2, 0, colours="bw"))
    assert (white, black) == (1, 2)  # 1 had black last


# --------------------------------------------------------------------------- Swiss


def _players(specs: list[tuple[int, int, str, str]], byes: set[int] | None = None
             ) -> list[SwissPlayer]:
    """(seed = id, score in half points, opponents "2,5", colours)."""
    return [SwissPlayer(id=s, score=score, seed=s,
                        opponents=frozenset(int(o) for o in opps.split(",") if o),
                        colours=cols, had_bye=s in (byes or set()))
            for s, score, opps, cols in specs]


def test_swiss_round_one_top_half_meets_bottom_half_colours_alternate() -> None:
    # FIDE Dutch, round 1 of 8: 1-5, 6-2, 3-7, 8-4.
    result = pair_round(_players([(i, 0, "", "") for i in range(1, 9)]))
    assert result.pairs == [(1, 5), (6, 2), (3, 7), (8, 4)]
    assert result.bye is None


def test_swiss_round_two_after_the_top_half_won() -> None:
    # After 1-5, 6-2, 3-7, 8-4 all won by the higher seed: the 1-point group {1,2,3,4}
    # (S1 = 1,2; S2 = 3,4) and the 0-point group {5,6,7,8}. Each has a strong preference
    # for the colour it did not have: 1-3 (both want black) and 2-4 (both white) would
    # deny two players theirs, the transposition 1-4, 2-3 denies nobody: 4-1, 2-3. The
    # same in the 0-point group: 5-8, 7-6 (the classic Dutch round 2).
    players = _players([(1, 2, "5", "w"), (2, 2, "6", "b"), (3, 2, "7", "w"), (4, 2, "8", "b"),
                        (5, 0, "1", "b"), (6, 0, "2", "w"), (7, 0, "3", "b"), (8, 0, "4", "w")])
    assert pair_round(players).pairs == [(4, 1), (2, 3), (5, 8), (7, 6)]


def test_swiss_transposition_avoids_a_repeat() -> None:
    # One score group 1,2,3,4 (a win and a loss each, mild colour preferences) where 1 and
    # 3 met: S1 = 1,2 and S2 = 3,4 transposed: 1-4, 3-2 (1 and 3 alternate to white).
    players = _players([(1, 2, "3,5", "wb"), (2, 2, "4,6", "bw"), (3, 2, "1,7", "wb"),
                        (4, 2, "2,8", "bw")])
    assert pair_round(players).pairs == [(1, 4), (3, 2)]


def test_swiss_exchange_when_no_transposition_works() -> None:
    # 1 met 3 and 4, 2 met 3 and 4: S2 cannot serve S1; an exchange pairs 1-2 and 3-4.
    players = _players([(1, 4, "3,4", "wb"), (2, 4, "3,4", "bw"), (3, 4, "1,2", "bw"),
                        (4, 4, "1,2", "wb")])
    pairs = {frozenset(p) for p in pair_round(players).pairs}
    assert pairs == {frozenset({1, 2}), frozenset({3, 4})}


def test_swiss_odd_group_floats_its_lowest_down() -> None:
    # Score 2: 1,2,3 (odd): 3 floats down and meets the top of the 0 group (4); 5-6.
    players = _players([(1, 2, "", "w"), (2, 2, "", "b"), (3, 2, "", "w"), (4, 0, "", "b"),
                        (5, 0, "", "w"), (6, 0, "", "b")])
    pairs = {frozenset(p) for p in pair_round(players).pairs}
    assert pairs == {frozenset({1, 2}), frozenset({3, 4}), frozenset({5, 6})}


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    first = pair_round(_players([(i, 0, "", "") for i in range(1, 6)]))
    assert first.bye == 5
    # Round 2: 5 had the bye (2 half points); the lowest ranked without a bye now gets it.
    players = _players([(1, 2, "3", "w"), (2, 0, "4", "w"), (3, 0, "1", "b"),
                        (4, 2, "2", "b"), (5, 2, "", "-")], byes={5})
    second = pair_round(players)
    assert second.bye == 3  # score 0 with the higher seed number of {2, 3}
    assert 5 in {p for pair in second.pairs for p in pair}


def test_swiss_colours_follow_history_and_absolute_preferences_never_clash() -> None:
    # 1 had white twice (absolute: black), 2 had white twice: they cannot meet.
    players = _players([(1, 4, "5,6", "ww"), (2, 4, "7,8", "ww"), (3, 0, "9,10", "bb"),
                        (4, 0, "11,12", "bb")])
    for white, black in pair_round(players).pairs:
        assert {white, black} != {1, 2}
        assert black in (1, 2)  # the ones with two whites get black


def test_swiss_tiebreaks() -> None:
    games = [swiss.Game(1, 2, "white"), swiss.Game(3, 4, "draw"), swiss.Game(1, 3, "draw"),
             swiss.Game(2, 4, "black"), swiss.Game(5, None, "bye")]
    scores = {1: 3, 2: 0, 3: 2, 4: 3, 5: 2}  # half points
    tb = swiss.tiebreaks(scores, games)
    assert tb[1] == (1.0, 0.5)  # Buchholz 0 + 1; SB: beat 2 (0) + drew 3 (1/2)
    assert tb[4] == (1.0, 0.5)  # opponents 3 (1) and 2 (0); SB: drew 3 (0.5) + beat 2 (0)
    assert tb[5] == (0.0, 0.0)


def test_dutch_eight_players_three_rounds_by_hand() -> None:
    """Eight players, three rounds, each round's pairing worked out by hand from the rules
    of the module docstring (scores in half points)."""
    # Round 1: top half against bottom half, white to the top seed, alternating by board.
    assert pair_round(_players([(i, 0, "", "") for i in range(1, 9)])).pairs == [
        (1, 5), (6, 2), (3, 7), (8, 4)]
    # Results: 1 beat 5, 2 drew 6, 3 beat 7, 8 beat 4. Groups: {1, 3, 8} on 1 point,
    # {2, 6} on a half, {4, 5, 7} on 0. The top group is odd: its lowest, 8, floats down
    # and meets the highest of the next group, 2 (8 wants black, 2 white: both served);
    # 1-3 is left, and both had white: the higher ranked, 1, gets the black it wants.
    # The half-point group now has only 6: it floats and meets 4, the highest of the
    # 0 group (6 wants black, 4 white); 5-7 both want white: the higher ranked 5 has it.
    second = pair_round(_players([
        (1, 2, "5", "w"), (2, 1, "6", "b"), (3, 2, "7", "w"), (4, 0, "8", "b"),
        (5, 0, "1", "b"), (6, 1, "2", "w"), (7, 0, "3", "b"), (8, 2, "4", "w")]))
    assert second.pairs == [(3, 1), (2, 8), (4, 6), (5, 7)]
    assert second.bye is None
    # Results: 1 beat 3 (as Black), 2 drew 8, 4 beat 6, 5 drew 7. Groups: {1} (2 points),
    # {8} (1.5), {2, 3, 4} (1), {5, 6, 7} (0.5). 1 meets 8, the only pairing that floats
    # nobody over more than one boundary (both want white, equal in strength, difference
    # and history: the higher ranked, 1, has it). In {2, 3, 4} everyone wants black (3
    # absolutely, after two whites): one pair of them must clash, one player floats down
    # to {5, 6, 7}. 4 (the lowest) floating costs no extra colour clash only against 7
    # (4 already met 6; 5 wants black too), 3 floating only against 6 (3 met 7): equal
    # so far; the pairs left decide: 2-3 and 5-6 are each their group's top half against
    # its bottom half, 2-4 and 5-7 are not. So 2-3 (3 gets its absolute black), 4-7
    # (7 has had two blacks: white), 5-6 (6 wants white after wb).
    third = pair_round(_players([
        (1, 4, "5,3", "wb"), (2, 2, "6,8", "bw"), (3, 2, "7,1", "ww"), (4, 2, "8,6", "bw"),
        (5, 1, "1,7", "bw"), (6, 1, "2,4", "wb"), (7, 1, "3,5", "bb"), (8, 3, "4,2", "wb")]))
    assert third.pairs == [(1, 8), (2, 3), (7, 4), (6, 5)]


def test_dutch_nine_players_bye_and_a_floater_by_hand() -> None:
    # Round 1: the lowest ranked (9) has the bye; the other eight as above.
    first = pair_round(_players([(i, 0, "", "") for i in range(1, 10)]))
    assert (first.pairs, first.bye) == ([(1, 5), (6, 2), (3, 7), (8, 4)], 9)
    # The higher seeds won and 9 had its bye: {1, 2, 3, 4, 9} on 1 point, {5, 6, 7, 8} on
    # 0. 9 may not have a second bye, so the bye goes down to the 0 group's lowest, 8;
    # the top group is odd: 9 (the lowest, no colour history) floats to 5. In {1, 2, 3, 4}
    # 1-3 and 2-4 would deny two players the colour they must alternate to; the
    # transposition 1-4, 2-3 serves everyone. 6-7 remain.
    second = pair_round(_players([
        (1, 2, "5", "w"), (2, 2, "6", "b"), (3, 2, "7", "w"), (4, 2, "8", "b"),
        (5, 0, "1", "b"), (6, 0, "2", "w"), (7, 0, "3", "b"), (8, 0, "4", "w"),
        (9, 2, "", "-")], byes={9}))
    assert (second.pairs, second.bye) == ([(4, 1), (2, 3), (5, 9), (7, 6)], 8)


def test_repeats_only_when_nothing_else_pairs_everyone() -> None:
    # Four players who all met: a fourth round must repeat; everyone is still paired.
    met = {1: "2,3,4", 2: "1,3,4", 3: "1,2,4", 4: "1,2,3"}
    result = pair_round(_players([(i, 2, met[i], "wbw" if i % 2 else "bwb")
                                  for i in range(1, 5)]))
    assert sorted(p for pair in result.pairs for p in pair) == [1, 2, 3, 4]


def _simulate_swiss(n: int, rounds: int, seed: int) -> dict[int, str]:
    """A scripted Swiss: ``pair_round`` each round, results drawn (higher seeds win a
    little more often); checks every round's pairing and returns each player's colours."""
    import random

    rng = random.Random(seed)
    score = dict.fromkeys(range(1, n + 1), 0)
    opponents: dict[int, set[int]] = {i: set() for i in score}
    colours = dict.fromkeys(score, "")
    byes: set[int] = set()
    for _round in range(rounds):
        result = pair_round([SwissPlayer(id=i, score=score[i], seed=i,
                                         opponents=frozenset(opponents[i]),
                                         colours=colours[i], had_bye=i in byes)
                             for i in score])
        seated = [p for pair in result.pairs for p in pair]
        if result.bye is not None:
            seated.append(result.bye)
            assert result.bye not in byes  # nobody has two byes
            byes.add(result.bye)
            score[result.bye] += 2
            colours[result.bye] += "-"
        assert sorted(seated) == list(range(1, n + 1))  # everyone once
        for white, black in result.pairs:
            assert black not in opponents[white]  # never a repeat
            opponents[white].add(black)
            opponents[black].add(white)
            colours[white] += "w"
            colours[black] += "b"
            x = rng.random()
            edge = 0.45 + (black - white) / (4 * n)
            if x < edge:
                score[white] += 2
            elif x < edge + 0.15:
                score[white] += 1
                score[black] += 1
            else:
                score[black] += 2
    return colours


def test_a_300_player_seven_round_swiss_has_no_repeat_and_balanced_colours() -> None:
    colours = _simulate_swiss(300, 7, seed=21)
    for played in colours.values():
        assert abs(played.count("w") - played.count("b")) <= 2
        assert "www" not in played.replace("-", "") and "bbb" not in played.replace("-", "")


def test_an_odd_swiss_gives_one_bye_per_round_never_twice_to_anyone() -> None:
    colours = _simulate_swiss(41, 7, seed=5)
    assert sum(played.count("-") for played in colours.values()) == 7


# --------------------------------------------------------------------------- round-robin


def test_berger_tables_match_the_published_ones() -> None:
    assert roundrobin.berger_rounds(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)],
                                           [(2, 4), (3, 1)]]
    six = roundrobin.berger_rounds(6)
    assert six == [[(1, 6), (2, 5), (3, 4)], [(6, 4), (5, 3), (1, 2)],
                   [(2, 6), (3, 1), (4, 5)], [(6, 5), (1, 4), (2, 3)],
                   [(3, 6), (4, 2), (5, 1)]]


def test_round_robin_every_pair_once_and_byes_with_an_odd_field() -> None:
    for n in range(2, 11):
        rounds = roundrobin.berger_rounds(n)
        met = [frozenset(p) for r in rounds for p in r if p[1] is not None]
        assert len(met) == len(set(met)) == n * (n - 1) // 2
        byes = [p[0] for r in rounds for p in r if p[1] is None]
        assert sorted(byes) == (list(range(1, n + 1)) if n % 2 else [])
