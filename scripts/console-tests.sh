#!/usr/bin/env bash
# The console's browser tests (tests/console/run.py): Debian's Chromium driven by
# Playwright for Python, with axe-core checking every page, against the built binary
# serving its demo — once on SQLite, once on a fresh PostgreSQL database.
#
#   scripts/console-tests.sh [--short] BINARY
#
# Full mode also saves a screenshot of each page into docs/console/ (the README shows
# them; commit them when they change); --short (CI) takes none. Installs what it needs
# when absent: Debian's chromium (apt-get) and, in a virtualenv under target/, the pinned
# playwright and axe-playwright-python (pip). Playwright's own browser download is never
# used (`playwright install` cannot reach its CDN from here).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PLAYWRIGHT_VERSION="1.65.0"
AXE_VERSION="0.1.8"
POSTGRES_ADMIN_URL="${SWITCHBOARD_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

short=0
if [[ "${1:-}" == "--short" ]]; then
    short=1
    shift
fi
if [[ $# -ne 1 ]]; then
    echo "usage: scripts/console-tests.sh [--short] BINARY" >&2
    exit 2
fi
binary=$(realpath "$1")

command -v chromium >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}
venv=target/console-venv
if ! "$venv/bin/python" -c "
import importlib.metadata as m, sys
sys.exit(m.version('playwright') != '$PLAYWRIGHT_VERSION' or m.version('axe-playwright-python') != '$AXE_VERSION')
" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "playwright==$PLAYWRIGHT_VERSION" "axe-playwright-python==$AXE_VERSION"
fi

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

run_on() {
    local backend=$1 folder port database="" url pid status=0
    folder=$(mktemp -d)
    port=$(free_port)
    if [[ "$backend" == postgres ]]; then
        database="switchboard_console_$$_$RANDOM"
        psql "$POSTGRES_ADMIN_URL" -qc "CREATE DATABASE $database" >/dev/null
        url="${POSTGRES_ADMIN_URL%/*}/$database"
    else
        url="sqlite://$folder/switchboard-data/switchboard.db"
    fi
    (cd "$folder" && SWITCHBOARD_LISTEN="127.0.0.1:$port" SWITCHBOARD_DATABASE_URL="$url" \
        exec "$binary" serve --demo >"$folder/out.log" 2>"$folder/err.log") &
    pid=$!
    for _ in $(seq 1 600); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/readyz', timeout=2)" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    local password
    password=$(sed -n 's/^  platform admin: [^ ]* \/ \(.*\)$/\1/p' "$folder/out.log" | head -n1)
    if [[ -z "$password" ]]; then
        echo "console-tests: the demo on $backend printed no platform admin login" >&2
        cat "$folder/out.log" "$folder/err.log" >&2
        status=1
    else
        local shots=()
        if ((short == 0)) && [[ "$backend" == sqlite ]]; then
            mkdir -p docs/console
            shots=(--screenshots docs/console)
        fi
        echo "--- the console on $backend"
        "$venv/bin/python" tests/console/run.py --base "http://127.0.0.1:$port" \
            --platform-password "$password" "${shots[@]}" || status=$?
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if ((status != 0)); then
        echo "--- the server's log on $backend (last 40 lines)" >&2
        tail -n 40 "$folder/err.log" >&2
    fi
    if [[ -n "$database" ]]; then
        psql "$POSTGRES_ADMIN_URL" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null || true
    fi
    rm -rf "$folder"
    return "$status"
}

failed=0
run_on sqlite || failed=1
run_on postgres || failed=1
exit "$failed"
