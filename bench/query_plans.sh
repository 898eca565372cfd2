#!/usr/bin/env bash
# Prints the query plans of the statements the list endpoints really issue, at scale, for
# docs/benchmarks.md. Builds a tenant of N voicemail messages (default 1,000,000) with
# `switchboard demo --scale N` on a fresh SQLite file and a fresh PostgreSQL database,
# serves each, asks each list below once over HTTP and explains the statements the server
# ran for it — taken from the server itself, not written here:
#
#   - PostgreSQL: auto_explain on the bench database (ANALYZE, no timing) sends each
#     statement's plan, with its actual parameters, to the server as a NOTICE, which sqlx
#     logs (`sqlx::postgres::notice`);
#   - SQLite: sqlx logs each statement's text (`sqlx::query`, debug), which `sqlite3` then
#     explains (EXPLAIN QUERY PLAN; parameters unbound — without sqlite_stat4 SQLite picks
#     its plan from the statement's shape, not its values).
#
# Only statements on the lists' tables are shown (the sign-in and the background workers'
# polling are left out).
#
#   cargo build --release && bench/query_plans.sh [N]
#   bench/query_plans.sh --short        # 1,000 messages, debug build allowed: CI's check
#
# Needs curl, jq, sqlite3, psql and python3. SWITCHBOARD_BIN picks the binary (default
# target/release/switchboard; in --short mode target/debug/switchboard if no release one).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SHORT=0
if [[ "${1:-}" == "--short" ]]; then
    SHORT=1
    shift
fi
N="${1:-1000000}"
BIN="${SWITCHBOARD_BIN:-target/release/switchboard}"
if ((SHORT)); then
    N=1000
    [[ -x "$BIN" || -n "${SWITCHBOARD_BIN:-}" ]] || BIN=target/debug/switchboard
fi
ADMIN_URL="${SWITCHBOARD_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
DIR=$(mktemp -d)
DB="switchboard_plans_$$"
SERVER_PID=
cleanup() {
    [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    rm -rf "$DIR"
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT

VOICEMAIL=/v2/admin/voicemail-messages/
NUMBERS=/v2/admin/phone-numbers/
# label|path — the lists of bench/list_latency.py whose plans docs/benchmarks.md shows.
LISTS=(
    "first page, newest first|$VOICEMAIL?sortBy=dateUnix&sortDirection=desc"
    "page 40, newest first|$VOICEMAIL?sortBy=dateUnix&sortDirection=desc&page=40"
    "one mailbox, newest first|$VOICEMAIL?mailbox=1500&sortBy=dateUnix&sortDirection=desc"
    "unread, newest first|$VOICEMAIL?read=0&sortBy=dateUnix&sortDirection=desc"
    "folder Work, by id|$VOICEMAIL?dir=Work"
    "by caller id|$VOICEMAIL?sortBy=callerId"
    "by duration, longest first|$VOICEMAIL?sortBy=duration&sortDirection=desc"
    "one mailbox with stats|$VOICEMAIL?mailbox=1500&stats=1"
    "search a message id|$VOICEMAIL?query=-00000777"
    "phone numbers, by comment|$NUMBERS?sortBy=diCommentName"
    "phone numbers in use|$NUMBERS?inUse=1"
)

# The new part of the server log since byte $2, reduced to the lists' statements: for
# PostgreSQL the plans auto_explain sent, for SQLite the statements, one a line.
extract() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys
log, offset, backend = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(log, "rb") as f:
    f.seek(offset)
    text = f.read().decode("utf-8", "replace")
TABLES = re.compile(r'"(voicemail_messages|voicemail_counts|voicemail_messages_search|phone_numbers|phone_number_counts)"')
if backend == "postgres":
    # Each plan starts with the notice's log line and runs until the next log line.
    blocks = re.split(r"^\S+Z\s+\w+\s+\S+: ", text, flags=re.M)
    for block in blocks:
        lines = block.splitlines()
        query = next((l for l in lines if l.startswith("Query Text: ")), "")
        if not TABLES.search(query):
            continue
        print(query if len(query) < 400 else query[:400] + " …")
        for line in lines[1:]:
            if not line.startswith("Query Text: "):
                print(line)
        print()
else:
    for match in re.finditer(r'db\.statement="((?:[^"\\]|\\.)*)"', text):
        statement = match.group(1).encode().decode("unicode_escape").strip()
        if TABLES.search(statement):
            print(" ".join(statement.split()))
PY
}

# Starts `serve` on the data folder $1 with the extra environment "$@", logging to $DIR/server.log.
serve() {
    local data=$1
    shift
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    env SWITCHBOARD_DATA_DIR="$data" SWITCHBOARD_LISTEN="127.0.0.1:$port" \
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE=100000000 SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS=100000000 \
        "$@" "$BIN" serve >"$DIR/server.log" 2>&1 &
    SERVER_PID=$!
    URL="http://127.0.0.1:$port"
    for _ in $(seq 1 300); do
        curl -sf "$URL/healthz" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    echo "the server did not start:" >&2
    cat "$DIR/server.log" >&2
    exit 2
}

stop() {
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# Asks every list once and prints what the server ran for it, on backend $1.
explain_lists() {
    local backend=$1 seeded=$2 token
    token=$(curl -sf -XPOST "$URL/v2/authentication/" -H 'content-type: application/json' \
        -d "$(jq -c '{email, password}' <<<"$seeded")" | jq -r .accessToken)
    for entry in "${LISTS[@]}"; do
        local label=${entry%%|*} path=${entry#*|} offset status
        sleep 0.2 # the log of the request before is written
        offset=$(stat -c %s "$DIR/server.log")
        status=$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $token" "$URL$path")
        [[ "$status" == 200 ]] || { echo "GET $path answered $status" >&2; exit 2; }
        sleep 0.3
        echo
        echo "-- $label: GET $path"
        local found
        found=$(extract "$DIR/server.log" "$offset" "$backend")
        if [[ -z "$found" ]]; then
            echo "no statement of GET $path in the server's log: is the logging set up?" >&2
            exit 2
        fi
        if [[ "$backend" == sqlite ]]; then
            while IFS= read -r statement; do
                echo "$statement"
                sqlite3 "$SQLITE_FILE" "EXPLAIN QUERY PLAN $statement"
            done <<<"$found"
        else
            echo "$found"
        fi
    done
}

echo "## SQLite, $N messages"
seeded=$(SWITCHBOARD_DATA_DIR="$DIR" "$BIN" demo --scale "$N" | tail -n 1)
SQLITE_FILE="$DIR/switchboard.db"
serve "$DIR" RUST_LOG=warn,sqlx::query=debug
explain_lists sqlite "$seeded"
stop

echo
echo "## PostgreSQL, $N messages"
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB"
PG_URL="${ADMIN_URL%/*}/$DB"
mkdir -p "$DIR/pg"
seeded=$(SWITCHBOARD_DATA_DIR="$DIR/pg" SWITCHBOARD_DATABASE_URL="$PG_URL" "$BIN" demo --scale "$N" | tail -n 1)
psql "$PG_URL" -qc "VACUUM ANALYZE"
for setting in "session_preload_libraries = 'auto_explain'" "auto_explain.log_min_duration = 0" \
    "auto_explain.log_level = 'notice'" "auto_explain.log_analyze = on" \
    "auto_explain.log_timing = off" "auto_explain.log_format = 'text'"; do
    psql "$ADMIN_URL" -qc "ALTER DATABASE $DB SET $setting"
done
serve "$DIR/pg" SWITCHBOARD_DATABASE_URL="$PG_URL" RUST_LOG=warn,sqlx::postgres::notice=info
explain_lists postgres "$seeded"
stop
