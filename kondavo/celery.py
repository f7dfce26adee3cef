"""The Celery application `kondavo`, configured from Django settings (namespace CELERY).

Run a worker with:  celery -A kondavo worker -Q bots,celery --prefetch-multiplier=1
Without REDIS_URL the settings make every task run eagerly in-process instead.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kondavo.settings.local")

app = Celery("kondavo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
