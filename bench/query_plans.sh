#!/usr/bin/env bash
# Prints the query plans of the list queries at scale, for docs/benchmarks.md: builds a
# tenant of N voicemail messages (default 1,000,000) with `switchboard demo --scale N` on
# a fresh SQLite file and a fresh PostgreSQL database, then EXPLAINs the statements the
# service issues for the lists (as sea-query renders them, parameters inlined).
#
#   cargo build --release && bench/query_plans.sh [N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N="${1:-1000000}"
BIN=target/release/switchboard
ADMIN_URL="${SWITCHBOARD_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
DIR=$(mktemp -d)
DB="switchboard_plans_$$"
trap 'rm -rf "$DIR"; psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true' EXIT

queries() {
    local t=$1 fts=$2
    cat <<SQL
-- first page, newest first
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t ORDER BY v.date_unix DESC, v.id DESC LIMIT 25 OFFSET 0;
-- page 40, newest first
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t ORDER BY v.date_unix DESC, v.id DESC LIMIT 25 OFFSET 975;
-- one mailbox, newest first
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t AND v.mailbox_user = '1500' ORDER BY v.date_unix DESC, v.id DESC LIMIT 25;
-- unread, newest first
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t AND v.is_read = 0 ORDER BY v.date_unix DESC, v.id DESC LIMIT 25;
-- folder Work, by id
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t AND v.dir = 'Work' ORDER BY v.id ASC LIMIT 25;
-- by caller id
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t ORDER BY v.caller_id ASC, v.id ASC LIMIT 25;
-- by duration
SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = $t ORDER BY v.duration DESC, v.id DESC LIMIT 25;
-- totalRecords and stats, from the counters
SELECT CAST(COALESCE(SUM(v.messages), 0) AS BIGINT), CAST(COALESCE(SUM(v.messages * v.is_read), 0) AS BIGINT) FROM voicemail_counts AS v WHERE v.tenant_id = $t AND v.mailbox_user = '1500';
-- search (caller id or message id)
$fts
-- phone numbers, by comment
SELECT p.id FROM phone_numbers AS p WHERE p.tenant_id = $t ORDER BY p.di_comment_name ASC, p.id ASC LIMIT 25;
-- phone numbers in use
SELECT p.id FROM phone_numbers AS p WHERE p.tenant_id = $t AND p.in_use = 1 ORDER BY p.id ASC LIMIT 25;
SQL
}

echo "## SQLite, $N messages"
SWITCHBOARD_DATA_DIR="$DIR" "$BIN" demo --scale "$N" >/dev/null
SQLITE_FTS="SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = 1 AND v.id IN (SELECT rowid FROM voicemail_messages_search WHERE voicemail_messages_search MATCH '\"00000777\"') ORDER BY v.id ASC LIMIT 25;"
queries 1 "$SQLITE_FTS" | while IFS= read -r line; do
    if [[ "$line" == --* ]]; then echo; echo "$line"; else sqlite3 "$DIR/switchboard.db" "EXPLAIN QUERY PLAN $line"; fi
done

echo
echo "## PostgreSQL, $N messages"
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB"
PG_URL="${ADMIN_URL%/*}/$DB"
SWITCHBOARD_DATA_DIR="$DIR/pg" SWITCHBOARD_DATABASE_URL="$PG_URL" "$BIN" demo --scale "$N" >/dev/null
psql "$PG_URL" -qc "VACUUM ANALYZE"
PG_FTS="SELECT v.id FROM voicemail_messages AS v WHERE v.tenant_id = 1 AND (lower(v.caller_id) LIKE '%00000777%' ESCAPE '\\' OR lower(v.msg_id) LIKE '%00000777%' ESCAPE '\\') ORDER BY v.id ASC LIMIT 25;"
queries 1 "$PG_FTS" | while IFS= read -r line; do
    if [[ "$line" == --* ]]; then echo; echo "$line"; else psql "$PG_URL" -qAtc "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) $line"; fi
done
