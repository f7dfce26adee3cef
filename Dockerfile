# Production image for Kondavo (web: Daphne, worker: Celery). See docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STATIC_ROOT=/app/staticfiles

WORKDIR /app
COPY . .
RUN pip install . \
 && DJANGO_SETTINGS_MODULE=kondavo.settings.production SECRET_KEY=collectstatic-only \
    ALLOWED_HOSTS=localhost python manage.py collectstatic --noinput \
 && useradd --system --home-dir /app --shell /usr/sbin/nologin kondavo \
 && chown -R kondavo /app

USER kondavo
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "kondavo.asgi:application"]
