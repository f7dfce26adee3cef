"""Kondavo: the Django project (settings, ASGI entry point, Celery app, apps)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
