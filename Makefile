# Kondavo. `make run` plays locally (SQLite, no Redis); `make test` runs everything.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The embedded default: no external services at all.
EMBEDDED_ENV := env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL DJANGO_SETTINGS_MODULE=kondavo.settings.local

.PHONY: run test test-plugin lint system-deps venv clean bench-peers test-peers

$(BIN)/python:
	@if ! $(PYTHON) -m venv $(VENV) 2>/dev/null; then \
	  rm -rf $(VENV); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "python3 -m venv failed; installing python3-venv"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null; \
	    $(PYTHON) -m venv $(VENV); \
	  else echo "error: '$(PYTHON) -m venv' failed; install python3-venv" >&2; exit 1; fi; \
	fi
	@$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true

venv: $(BIN)/python

# Stamps: reinstall (and recompile the core) only when the package metadata or C sources change.
$(VENV)/.installed-run: pyproject.toml setup.py $(wildcard bots/native/*.c bots/native/*.h) | $(BIN)/python
	@echo "Installing Kondavo into $(VENV) ..."
	@$(BIN)/pip install -q --disable-pip-version-check -e . >$(VENV)/pip-install.log 2>&1 \
	  || { cat $(VENV)/pip-install.log; exit 1; }
	@touch $@

$(VENV)/.installed-test: pyproject.toml setup.py $(wildcard bots/native/*.c bots/native/*.h) | $(BIN)/python
	@echo "Installing Kondavo with test dependencies into $(VENV) ..."
	@$(BIN)/pip install -q --disable-pip-version-check -e '.[test]' >$(VENV)/pip-install.log 2>&1 \
	  || { cat $(VENV)/pip-install.log; exit 1; }
	@touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	@$(EMBEDDED_ENV) $(BIN)/python manage.py migrate --noinput -v 0
	@$(BIN)/python -c "import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('$(HOST)', $(PORT)))" 2>/dev/null \
	  || { echo "error: $(HOST):$(PORT) is already in use; try: make run PORT=8001" >&2; exit 1; }
	@echo; echo "  Kondavo is running at http://$(HOST):$(PORT)/   (Ctrl-C to stop)"; echo
	@exec $(EMBEDDED_ENV) $(BIN)/daphne -b $(HOST) -p $(PORT) kondavo.asgi:application

# System packages needed by the test suite (Redis, PostgreSQL, Chromium).
system-deps:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium fonts-dejavu-core"; \
	[ -x /usr/sbin/nginx ] || missing="$$missing nginx"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing system packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "error: make test needs these Debian packages:$$missing" >&2; \
	    echo "       run as root, or: sudo apt-get install -y --no-install-recommends$$missing" >&2; \
	    exit 1; \
	  fi; \
	fi

test: $(VENV)/.installed-test system-deps test-peers
	@bash tests/run_with_services.sh

# Your own ruleset plugin (a package directory, or a directory of *.toml rulesets) against
# the project's rules tests: make test-plugin PLUGIN=path (see tests/test_plugin.sh).
test-plugin: $(VENV)/.installed-test
	@bash tests/test_plugin.sh "$(PLUGIN)"

# Test-only peer: pydraughts, an independent implementation the Russian and Italian plugins'
# tests compare with. Its package is named `draughts` (like py-draughts'), so it lives in a
# directory of its own. Without network the install fails and those tests are skipped.
PYDRAUGHTS_DIR := $(VENV)/test-peers/pydraughts
test-peers: $(PYDRAUGHTS_DIR)/.installed
$(PYDRAUGHTS_DIR)/.installed: | $(BIN)/python
	@$(BIN)/pip install -q --disable-pip-version-check --target $(PYDRAUGHTS_DIR) pydraughts==0.6.7 >/dev/null 2>&1 \
	  && touch $@ \
	  || echo "warning: pydraughts could not be installed; its cross-checks will be skipped" >&2

# Benchmark-only peers: each in its own directory (they share the package name `draughts`).
bench-peers: $(VENV)/.installed-test
	$(BIN)/pip install -q --target $(VENV)/bench-peers/py-draughts py-draughts
	$(BIN)/pip install -q --target $(VENV)/bench-peers/pydraughts pydraughts
	$(BIN)/pip install -q -e '.[bench]'

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf .pytest_cache .mypy_cache .ruff_cache tests/artifacts staticfiles
