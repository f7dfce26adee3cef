"""Kondavo settings, one module per environment, everything read from the environment.

- ``kondavo.settings.local``: development (``make run``); the default of manage.py.
- ``kondavo.settings.test``: pytest (set in pyproject.toml).
- ``kondavo.settings.production``: docker compose / real deployments.

See ``base.py`` for the environment variables and ``.env.example`` for their documentation.
"""
