"""Elo ratings per ruleset, leaderboards and player profiles.

The games app's ``game_finished`` hook (received in ``RatingConfig.ready``) calls
:func:`rating.services.rating_apply_game` inside the transaction that finishes a rated game;
:func:`rating.policy.can_be_rated` tells it whether a game may be rated.
"""
