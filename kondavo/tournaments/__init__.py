"""Tournaments: arenas, Swiss events and round-robins per ruleset (issue 21)."""
