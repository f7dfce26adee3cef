"""Puzzles: positions where one line wins, proven by the engine (``bots.puzzles``), solved on
the site. ``services`` is the app's one service layer; ``selectors`` its reads."""
