# Production image for Kondavo (web: Daphne, workers: Celery; the edge is the official nginx
# image). See docker-compose.yml.
# Stage 1 compiles the bots' C core (bots/native) into a wheel; the runtime image has no
# compiler and installs that wheel.
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN pip wheel --no-deps --wheel-dir /wheels . \
 && python setup.py -q build_ext --inplace \
 && python -c "import bots.native._kdcore, bots.native._kdcore64"

FROM python:3.11-slim

# The endgame tables solved into the image, in MB per ruleset (KONDAVO_ENGINE_TABLES_MB's
# meaning): 400 (default) gives five pieces on 8x8 and four on 10x10, the strongest level 8
# and analysis, at the cost of about 1.2 GB of image and 10 minutes of CPU to build; 100
# gives four pieces everywhere (about 140 MB, a minute); 0 none (the engine queues' workers
# solve the missing ones when they start). docs/deploying.md, "Endgame tables in the image".
ARG KONDAVO_IMAGE_TABLES_MB=400

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STATIC_ROOT=/app/staticfiles \
    KONDAVO_ENGINE_TABLES_DIR=/app/var/tables

WORKDIR /app
COPY . .
COPY --from=build /wheels /tmp/wheels
# The compiled core also next to the sources, for processes started from /app (manage.py).
COPY --from=build /src/bots/native/*.so /app/bots/native/
RUN pip install /tmp/wheels/*.whl && rm -rf /tmp/wheels \
 && python -c "from bots.engine.native import native_available; assert native_available()" \
 && DJANGO_SETTINGS_MODULE=kondavo.settings.production SECRET_KEY=collectstatic-only \
    ALLOWED_HOSTS=localhost python manage.py collectstatic --noinput \
 && if [ "$KONDAVO_IMAGE_TABLES_MB" != "0" ]; then \
      KONDAVO_ENGINE_TABLES_MB="$KONDAVO_IMAGE_TABLES_MB" python -m bots.engine.tables; fi \
 && useradd --system --home-dir /app --shell /usr/sbin/nologin kondavo \
 && chown -R kondavo /app

USER kondavo
EXPOSE 8000
# No --proxy-headers: the client's address comes from kondavo/proxy.py, which believes
# X-Forwarded-For only from KONDAVO_TRUSTED_PROXIES (the edge; docs/deploying.md).
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "kondavo.asgi:application"]
