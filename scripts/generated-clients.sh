#!/usr/bin/env bash
# Client generators against the committed OpenAPI document, and a generated client against
# the running service.
#
#   scripts/generated-clients.sh [--short] [PATH-TO-SWITCHBOARD-BINARY]   (default: target/debug/switchboard)
#
# 1. openapi-python-client (PyPI, pinned, default settings) generates a Python client from
#    docs/openapi.json: it must print no warning and generate one function module per
#    operation of the document.
# 2. openapi-typescript (npm, pinned) generates TypeScript types from the same document:
#    no warning, one entry per operation; `tsc --strict` then compiles them (skipped with
#    --short).
# 3. scripts/generated_client_smoke.py drives the generated Python client against
#    `serve --demo` on SQLite and on a fresh PostgreSQL database: log in, create, list with a
#    sort, page, update from a fetched record, delete.
#
# Environment: SWITCHBOARD_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres),
# the server the PostgreSQL run creates its database on. Generated code and tools live in
# target/generated-clients/.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
short=0
if [[ "${1:-}" == "--short" ]]; then
    short=1
    shift
fi
binary="${1:-$repo_root/target/debug/switchboard}"
if [[ ! -x "$binary" ]]; then
    echo "generated-clients.sh: no executable switchboard binary at '$binary' (run cargo build first)" >&2
    exit 2
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
cd "$repo_root"

document="$repo_root/docs/openapi.json"
work="$repo_root/target/generated-clients"
mkdir -p "$work"
operations="$(python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
print(sum(1 for item in doc["paths"].values() for m in item if m in ("get", "post", "patch", "put", "delete")))' "$document")"
echo "generated-clients.sh: $operations operations in docs/openapi.json"

# --- Python: openapi-python-client --------------------------------------------------------
venv="$work/venv"
if [[ ! -x "$venv/bin/openapi-python-client" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    # ruff formats the generated code (the generator warns when it is missing).
    "$venv/bin/pip" install --quiet 'openapi-python-client==0.29.1' 'ruff==0.14.7'
fi
rm -rf "$work/python"
mkdir -p "$work/python"
log="$work/python.log"
(cd "$work/python" && PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate \
    --path "$document" --meta none) >"$log" 2>&1 || {
    cat "$log" >&2
    echo "FAIL: openapi-python-client could not generate a client" >&2
    exit 1
}
if grep -qiE 'warning|skipping|error' "$log"; then
    cat "$log" >&2
    echo "FAIL: openapi-python-client reported warnings (above)" >&2
    exit 1
fi
generated="$(find "$work/python/switchboard_client/api" -name '*.py' ! -name '__init__.py' | wc -l)"
if [[ "$generated" -ne "$operations" ]]; then
    echo "FAIL: openapi-python-client generated $generated operations of $operations" >&2
    exit 1
fi
echo "generated-clients.sh: openapi-python-client $("$venv/bin/openapi-python-client" --version | awk '{print $NF}'): $generated of $operations operations, no warning"

# --- TypeScript: openapi-typescript -------------------------------------------------------
ts="$work/typescript"
mkdir -p "$ts"
if [[ ! -x "$ts/node_modules/.bin/openapi-typescript" ]]; then
    cat >"$ts/package.json" <<'JSON'
{ "name": "switchboard-generated-types", "private": true,
  "devDependencies": { "openapi-typescript": "7.13.0", "typescript": "5.9.3" } }
JSON
    (cd "$ts" && npm install --no-audit --no-fund --silent)
fi
ts_log="$work/typescript.log"
"$ts/node_modules/.bin/openapi-typescript" "$document" -o "$ts/switchboard.d.ts" >"$ts_log" 2>&1 || {
    cat "$ts_log" >&2
    echo "FAIL: openapi-typescript could not generate types" >&2
    exit 1
}
if grep -qiE 'warn|⚠|error' "$ts_log"; then
    cat "$ts_log" >&2
    echo "FAIL: openapi-typescript reported warnings (above)" >&2
    exit 1
fi
typed="$(grep -cE '^        (get|post|patch|put|delete): operations\["' "$ts/switchboard.d.ts" || true)"
if [[ "$typed" -ne "$operations" ]]; then
    echo "FAIL: openapi-typescript typed $typed operations of $operations" >&2
    exit 1
fi
if [[ $short -eq 0 ]]; then
    "$ts/node_modules/.bin/tsc" --noEmit --strict "$ts/switchboard.d.ts"
    echo "generated-clients.sh: openapi-typescript: $typed of $operations operations, no warning; tsc --strict compiles them"
else
    echo "generated-clients.sh: openapi-typescript: $typed of $operations operations, no warning (tsc skipped: --short)"
fi

# --- the generated Python client against the service, on both backends --------------------
# Only the settings below reach the server.
while IFS= read -r name; do
    unset "$name"
done < <(env | sed -n 's/^\(SWITCHBOARD_[A-Za-z0-9_]*\)=.*/\1/p' | grep -v '^SWITCHBOARD_TEST_')

postgres_url="${SWITCHBOARD_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
PYTHONPATH="$work/python" "$venv/bin/python" "$repo_root/scripts/generated_client_smoke.py" \
    --binary "$binary" --postgres "$postgres_url"
