#!/usr/bin/env bash
# Property-based conformance test of the HTTP API against its own OpenAPI document.
#
#   scripts/schemathesis.sh [PATH-TO-SWITCHBOARD-BINARY]   (default: target/debug/switchboard)
#
# Installs schemathesis (>= 4) into target/schemathesis-venv (reused when present), starts
# the binary as `serve --demo` in a fresh temporary folder on a free loopback port, logs in
# as the demo platform admin and runs `st run` against /v2/openapi.json with that token.
# Exits non-zero when schemathesis reports any finding (or cannot run).
#
# Checks: by default those of schemathesis.toml — every response check,
# negative_data_rejection and positive_data_acceptance (off only for the operations it
# lists, each with the rule no schema can state that refuses some requests the schema
# admits). SCHEMATHESIS_CHECKS=<comma-separated list> runs that list instead.
#
# Tunables (environment): SCHEMATHESIS_MAX_EXAMPLES (examples per operation, default 200;
# 60 take about 6 minutes on 2 cores, CI runs 100), SCHEMATHESIS_SEED (default 20260101), SCHEMATHESIS_WORKERS
# (default 2; concurrent requests also exercise the store's locking, so with 2 a run is
# not bit-for-bit reproducible; 1 is). Reports (JUnit + NDJSON) and the server log are
# written to target/schemathesis-report/.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# A binary given as $1 is taken relative to the caller's directory; the default one
# relative to the repository.
binary="${1:-$repo_root/target/debug/switchboard}"
if [[ ! -f "$binary" || ! -x "$binary" ]]; then
    echo "schemathesis.sh: no executable switchboard binary at '$binary' (run cargo build first)" >&2
    exit 2
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
cd "$repo_root"

max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-200}"
seed="${SCHEMATHESIS_SEED:-20260101}"

# --- schemathesis, in its own virtualenv -------------------------------------------------
# CPython before 3.12 can fail inside ast.parse when two threads parse at once ("AST
# constructor recursion depth mismatch", which hypothesis does while describing
# strategies): prefer 3.12 or later, and run one worker on an older one.
venv="$repo_root/target/schemathesis-venv"
python=""
for candidate in python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import venv' 2>/dev/null; then
        python="$candidate"
        break
    fi
done
if [[ -z "$python" ]]; then
    echo "schemathesis.sh: no python3 with venv found" >&2
    exit 2
fi
if [[ ! -x "$venv/bin/st" ]]; then
    echo "schemathesis.sh: installing schemathesis into $venv with $("$python" --version)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet 'schemathesis==4.32.5'
fi
if "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
    workers="${SCHEMATHESIS_WORKERS:-2}"
else
    workers="${SCHEMATHESIS_WORKERS:-1}"
fi
echo "schemathesis.sh: $("$venv/bin/st" --version) on $("$venv/bin/python" --version), $workers worker(s)"

# --- the server, in a throw-away folder ---------------------------------------------------
workdir="$(mktemp -d "${TMPDIR:-/tmp}/switchboard-schemathesis.XXXXXX")"
server_log="$workdir/server.log"
server_pid=""
st_ran=0

cleanup() {
    local status=$?
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    if [[ $status -ne 0 && $st_ran -eq 0 && -f "$server_log" ]]; then
        echo "schemathesis.sh: last lines of the server log ($server_log):" >&2
        tail -n 40 "$server_log" >&2 || true
    else
        rm -rf "$workdir"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port="$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()')"
base="http://127.0.0.1:$port"

# Only the settings below reach the server: any SWITCHBOARD_* in the caller's environment
# (a database URL for the test suite, say) must not leak into this run.
while IFS= read -r name; do
    unset "$name"
done < <(env | sed -n 's/^\(SWITCHBOARD_[A-Za-z0-9_]*\)=.*/\1/p')

(
    cd "$workdir"
    # A longer token lifetime than the default 900 s so that one token lasts the whole run,
    # and rate limits far above the fuzzer's pace (429s are documented, but a throttled
    # run would test nothing else).
    exec env SWITCHBOARD_LISTEN="127.0.0.1:$port" SWITCHBOARD_TOKEN_TTL_SECONDS=3600 \
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE=10000000 SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS=10000000 \
        "$binary" serve --demo
) >"$server_log" 2>&1 &
server_pid=$!

echo "schemathesis.sh: started switchboard (pid $server_pid) on $base in $workdir"
python3 - "$base/healthz" "$server_pid" <<'PY'
import os, sys, time, urllib.request
url, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("schemathesis.sh: switchboard exited before answering /healthz")
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.25)
sys.exit("schemathesis.sh: /healthz did not answer 200 within 60 s")
PY

# --- a token for the demo platform admin --------------------------------------------------
# `serve --demo` makes the platform admin's password at random and prints it once, in the
# line `  platform admin: EMAIL / PASSWORD` of its output.
platform_password="$(sed -n 's|^  platform admin: platform@demo.switchboard.test / ||p' "$server_log" | head -n 1)"
if [[ -z "$platform_password" ]]; then
    echo "schemathesis.sh: the server printed no platform admin password" >&2
    exit 1
fi
token="$(python3 - "$base/v2/authentication/" "$platform_password" <<'PY'
import json, sys, urllib.request
request = urllib.request.Request(
    sys.argv[1],
    data=json.dumps({
        "email": "platform@demo.switchboard.test",
        "password": sys.argv[2],
    }).encode(),
    headers={"Content-Type": "application/json"},
    method="POST",
)
with urllib.request.urlopen(request, timeout=30) as response:
    print(json.load(response)["accessToken"])
PY
)"
if [[ -z "$token" ]]; then
    echo "schemathesis.sh: login answered no accessToken" >&2
    exit 1
fi
echo "schemathesis.sh: logged in as platform@demo.switchboard.test"

# --- the run ------------------------------------------------------------------------------
report_dir="$repo_root/target/schemathesis-report"
rm -rf "$report_dir"
st_args=(
    run "$base/v2/openapi.json"
    --header "Authorization: Bearer $token"
    --mode all
    --max-examples "$max_examples"
    --seed "$seed"
    --generation-database none
    --workers "$workers"
    --request-timeout 30
    --report junit,ndjson
    --report-dir "$report_dir"
)
checks="${SCHEMATHESIS_CHECKS:-config}"
if [[ "$checks" != "config" ]]; then
    # A list on the command line overrides schemathesis.toml's per-operation choices.
    st_args+=(--checks "$checks")
fi
echo "schemathesis.sh: st ${st_args[*]/Bearer $token/Bearer <token>}"
started=$SECONDS
st_ran=1
status=0
# schemathesis.toml names the operations where a request the schema admits may still be
# refused by a rule no schema can state (see docs/decisions.md).
(cd "$workdir" && "$venv/bin/st" --config-file "$repo_root/schemathesis.toml" "${st_args[@]}") || status=$?
cp "$server_log" "$report_dir/server.log" 2>/dev/null || true
echo "schemathesis.sh: st ran for $((SECONDS - started)) s and exited with $status; reports in $report_dir"

if [[ $status -eq 0 ]]; then
    echo "schemathesis: no findings"
else
    echo "schemathesis: FINDINGS (st exit code $status)"
fi
exit "$status"
