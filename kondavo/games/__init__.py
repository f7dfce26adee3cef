"""Games: models, services, selectors, websocket consumers and HTTP endpoints (issue 3).

Protocol: docs/protocol.md. Business logic lives in the ``services`` package (writes) and
``selectors.py`` (reads); every frame and payload a client gets is shaped by ``wire.py``;
consumers and views only authenticate, validate and dispatch. The apps built on games
(bots, rating, frontend) reach it through ``hooks.py``; games imports none of them.
"""
