#!/usr/bin/env bash
# Run the project's rules tests with your own ruleset plugin installed, as `make test` does
# for the example plugins (tests/run_with_services.sh, "plugins" pass):
#
#   make test-plugin PLUGIN=path/to/your-plugin        # a directory with a pyproject.toml
#   make test-plugin PLUGIN=path/to/rulesets           # or a directory of *.toml rulesets
#
# A package is installed (not editable, as an operator would) into a temporary directory
# put on PYTHONPATH; a directory of ruleset files is given as KONDAVO_RULESET_DIRS. Then:
# `python -m variants list` (a broken ruleset file fails the run, with its error), `python -m variants check` on
# every ruleset the plugin adds, the project's tests/variants (its registry-wide tests run
# on your rulesets too) and the plugin's own tests/ if it has some. No services are needed.
# Extra arguments go to pytest. Exit status is non-zero if anything failed.
set -uo pipefail

cd "$(dirname "$0")/.."
BIN=${KONDAVO_VENV_BIN:-$(pwd)/.venv/bin}
PLUGIN=${1:?usage: tests/test_plugin.sh PLUGIN_DIR [pytest args...]}
shift
[ -d "$PLUGIN" ] || { echo "test-plugin: $PLUGIN is not a directory" >&2; exit 2; }
PLUGIN=$(cd "$PLUGIN" && pwd)
TMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kondavo-plugin.XXXXXX")
trap 'rm -rf "$TMP_DIR"' EXIT
export -n DATABASE_URL REDIS_URL 2>/dev/null || true

before=$("$BIN/python" -m variants list 2>/dev/null)
if [ -f "$PLUGIN/pyproject.toml" ]; then
  "$BIN/pip" install -q --disable-pip-version-check --no-deps --target "$TMP_DIR/site" "$PLUGIN" \
    >"$TMP_DIR/install.log" 2>&1 || { cat "$TMP_DIR/install.log"; exit 1; }
  export PYTHONPATH="$TMP_DIR/site${PYTHONPATH:+:$PYTHONPATH}"
else
  export KONDAVO_RULESET_DIRS="$PLUGIN${KONDAVO_RULESET_DIRS:+:$KONDAVO_RULESET_DIRS}"
fi
status=0
after=$("$BIN/python" -m variants list 2>"$TMP_DIR/list.err") || status=1
if grep -q "^error: skipped" "$TMP_DIR/list.err"; then
  grep "^error: skipped" "$TMP_DIR/list.err" >&2
  status=1  # a ruleset file of the plugin cannot be loaded
fi
added=$(comm -13 <(sort <<<"$before") <(sort <<<"$after"))
[ -n "$added" ] || { echo "test-plugin: the plugin adds no ruleset (see the errors above)" >&2; exit 1; }
for key in $added; do
  "$BIN/python" -m variants check "$key" --games 10 || status=1
done
tests=(tests/variants)
[ -d "$PLUGIN/tests" ] && tests+=("$PLUGIN/tests")
"$BIN/pytest" -m "not browser and not slow" -p no:cacheprovider "${tests[@]}" "$@" || status=1
exit $status
