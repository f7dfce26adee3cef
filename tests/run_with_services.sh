#!/usr/bin/env bash
# Start throwaway Redis + PostgreSQL on free loopback ports, then run the test suite in passes:
#   lint      ruff check .
#   services  pytest -m "not browser and not slow"   (PostgreSQL + Redis)
#   browser   pytest -m browser                      (own process, DJANGO_ALLOW_ASYNC_UNSAFE)
#   embedded  pytest -m embedded                     (DATABASE_URL / REDIS_URL unset: SQLite)
#   plugins   the example ruleset plugins (examples/*) installed into a directory on
#             PYTHONPATH: tests/variants, tests/frontend and the plugins' own tests
# pytest's exit code 5 (no tests collected) counts as OK. Extra arguments go to every pytest.
# The summary at the end repeats the ids of the tests that failed or were retried, so the last
# lines of a CI log name them.
# Exit status is non-zero if any pass failed.
set -uo pipefail

cd "$(dirname "$0")/.."
REPO_DIR=$(pwd)
BIN=${KONDAVO_VENV_BIN:-$REPO_DIR/.venv/bin}
PY=$BIN/python

die() { echo "run_with_services: $*" >&2; exit 1; }
[ -x "$PY" ] || die "no virtualenv at $BIN (run 'make test')"
command -v redis-server >/dev/null || die "redis-server not found (apt-get install redis-server)"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] || die "PostgreSQL binaries not found (apt-get install postgresql)"

TMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kondavo-test.XXXXXX")
chmod 755 "$TMP_DIR"
PG_DATA=$TMP_DIR/pg
REDIS_DIR=$TMP_DIR/redis
mkdir -p "$PG_DATA" "$REDIS_DIR"

if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "user 'postgres' missing (install the postgresql package)"
  chown postgres:postgres "$PG_DATA"
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

REDIS_PID_FILE=$REDIS_DIR/redis.pid
cleanup() {
  local rc=$?
  if [ -f "$REDIS_PID_FILE" ]; then kill "$(cat "$REDIS_PID_FILE")" 2>/dev/null || true; fi
  if [ -f "$PG_DATA/postmaster.pid" ]; then
    as_pg "$PGBIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$TMP_DIR"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
REDIS_PORT=$(free_port)
PG_PORT=$(free_port)
while [ "$PG_PORT" = "$REDIS_PORT" ]; do PG_PORT=$(free_port); done

t0=$(date +%s)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --dir "$REDIS_DIR" \
  --pidfile "$REDIS_PID_FILE" --logfile "$REDIS_DIR/redis.log" --save '' --appendonly no \
  || die "redis-server failed to start"
for _ in $(seq 1 50); do [ -s "$REDIS_PID_FILE" ] && break; sleep 0.1; done

as_pg "$PGBIN/initdb" -D "$PG_DATA" -U postgres --auth=trust >"$TMP_DIR/initdb.log" 2>&1 \
  || { cat "$TMP_DIR/initdb.log"; die "initdb failed"; }
as_pg "$PGBIN/pg_ctl" -D "$PG_DATA" -w -l "$PG_DATA/server.log" \
  -o "-p $PG_PORT -k $PG_DATA -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  start >/dev/null || { cat "$PG_DATA/server.log"; die "PostgreSQL failed to start"; }
"$PGBIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres kondavo || die "createdb failed"
echo "Services up in $(( $(date +%s) - t0 ))s: Redis 127.0.0.1:$REDIS_PORT, PostgreSQL 127.0.0.1:$PG_PORT ($("$PGBIN/postgres" --version))"

export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/kondavo"
export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
# Redis DB 1: celery.contrib.pytest fixtures; a real worker started by a test must not share it.
export CELERY_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/1"
export DJANGO_SETTINGS_MODULE=kondavo.settings.test
export PATH="$BIN:$PATH"
mkdir -p tests/artifacts

NAMES=(); RESULTS=(); TIMES=(); FAILED=0
run_pass() {  # run_pass NAME COMMAND...
  local name=$1; shift
  echo; echo "===================== pass: $name ====================="
  local start rc result
  start=$(date +%s)
  "$@" 2>&1 | tee "$TMP_DIR/pass-$name.log"; rc=${PIPESTATUS[0]}
  # pytest's summaries (-raR): the ids of the tests that failed or needed a retry (browser and
  # timing tests get two, tests/conftest.py), repeated under the summary below.
  grep -E '^(FAILED|ERROR|RERUN) ' "$TMP_DIR/pass-$name.log" | sed "s/^/  $name: /" >>"$TMP_DIR/failures"
  if [ "$rc" = 0 ]; then result="ok"
  elif [ "$rc" = 5 ]; then result="ok (no tests collected)"
  else result="FAILED (exit $rc)"; FAILED=1
  fi
  NAMES+=("$name"); RESULTS+=("$result"); TIMES+=("$(( $(date +%s) - start ))s")
}

run_pass lint "$BIN/ruff" check .
run_pass services "$BIN/pytest" -m "not browser and not slow" "$@"
run_pass browser env DJANGO_ALLOW_ASYNC_UNSAFE=true "$BIN/pytest" -m "browser and not slow" "$@"
run_pass embedded env -u DATABASE_URL -u REDIS_URL -u CELERY_TEST_REDIS_URL KONDAVO_TEST_SQLITE="$TMP_DIR/test.sqlite3" \
  "$BIN/pytest" -m "embedded and not slow and not browser" "$@"

# The project's tests must pass with any conformant ruleset installed: install the example
# plugins (not editable, as an operator would) where only this pass sees them.
PLUGINS_DIR=$TMP_DIR/plugins
plugins_pass() {
  "$BIN/pip" install -q --disable-pip-version-check --no-deps --target "$PLUGINS_DIR" \
    "$REPO_DIR"/examples/kondavo-* >"$TMP_DIR/plugins-install.log" 2>&1 \
    || { cat "$TMP_DIR/plugins-install.log"; return 1; }
  PYTHONPATH="$PLUGINS_DIR${PYTHONPATH:+:$PYTHONPATH}" "$BIN/python" -m variants list
  PYTHONPATH="$PLUGINS_DIR${PYTHONPATH:+:$PYTHONPATH}" "$BIN/pytest" -m "not browser and not slow" \
    -p no:cacheprovider tests/variants tests/frontend "$REPO_DIR"/examples/kondavo-*/tests "$@"
}
run_pass plugins plugins_pass "$@"

echo; echo "===================== summary ====================="
for i in "${!NAMES[@]}"; do
  printf '  %-10s %-26s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}" "${TIMES[$i]}"
done
if [ -s "$TMP_DIR/failures" ]; then echo; echo "failed or retried tests:"; cut -c1-300 "$TMP_DIR/failures"; fi
if [ "$FAILED" = 0 ]; then echo "make test: all passes OK"; else echo "make test: FAILED"; fi
exit "$FAILED"
