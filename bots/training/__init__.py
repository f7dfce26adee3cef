"""Fitting the engine's evaluation: labelled positions (``generate``) and weights (``fit``).

Needs the optional ``training`` dependencies (numpy, scipy): ``pip install -e '.[training]'``.
Nothing here is imported when playing.
"""
