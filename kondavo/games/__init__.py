"""Games: models, services, selectors, websocket consumers and HTTP endpoints (issue 3).

Protocol: docs/protocol.md. Business logic lives in the ``services`` package (writes) and
``selectors.py`` (reads); consumers and views only authenticate, validate and dispatch.
"""
