"""Benchmarks and the engine strength lab (not part of the application)."""
