"""Elo ratings per ruleset, leaderboards and player profiles.

The games app calls :func:`rating.services.rating_apply_game` inside the transaction that
finishes a game; :func:`rating.policy.can_be_rated` tells it whether a game may be rated.
"""
