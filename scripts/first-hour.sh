#!/usr/bin/env bash
# A newcomer's first hour, timed (issue 33): clones the repository into a temporary
# folder, runs the README's two commands there as written, runs the README's walkthrough
# and the tour (docs/tour.md) against the demo the first command serves, and prints the
# figures.
#
#   scripts/first-hour.sh [--short] [REPOSITORY]
#
# REPOSITORY defaults to this checkout (its committed HEAD: what a clone gets).
# Full mode times a fresh clone's `cargo run --release -- serve --demo` from an empty
# target folder until the demo answers, then `cargo test` (the record of
# docs/benchmarks.md). --short (CI, under a minute): the clone is not built — the demo is
# served by this checkout's debug binary (`cargo build` here, nothing to do when CI has
# just built it: a clone's build recompiled the workspace's own crates for its folder, five
# minutes that prove nothing CI's own build does not), run from the clone's folder so its
# data and the README's paths are a newcomer's; `cargo test` is skipped (CI runs the suite
# itself); the walkthrough and the tour still run against that demo. --short therefore
# needs this checkout's HEAD to be the code under test (CI's clean clone is).
set -euo pipefail

short=0
if [[ "${1:-}" == "--short" ]]; then
    short=1
    shift
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repository="${1:-$here}"

for tool in git cargo curl jq; do
    command -v "$tool" >/dev/null 2>&1 || { echo "first-hour: $tool is needed" >&2; exit 1; }
done

work="$(mktemp -d)"
server=""
cleanup() {
    if [[ -n "$server" ]]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f s", b - a }'; }
figures=()
figure() { figures+=("$(printf '%-44s %12s' "$1" "$2")"); }

load_at_start="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "first-hour: cloning $repository into $work/switchboard"
started=$(now)
git clone --quiet "$repository" "$work/switchboard"
figure "git clone" "$(seconds "$started" "$(now)")"
cd "$work/switchboard"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SWITCHBOARD_LISTEN="127.0.0.1:$port" SWITCHBOARD_PUBLIC_URL="http://127.0.0.1:$port"
if ((short)); then
    build=(cargo build --quiet --manifest-path "$here/Cargo.toml")
    binary="$here/target/debug/switchboard"
    label="cargo build (debug, this checkout's)"
else
    export CARGO_TARGET_DIR="$work/target"
    # What `cargo run --release` compiles: the binary and what it uses — not every
    # default member's library (the test harness's crate is one, which only tests use).
    build=(cargo build --release --quiet --bin switchboard)
    binary="$CARGO_TARGET_DIR/release/switchboard"
    label="cargo build --release (fresh clone)"
fi

# The first command, `cargo run [--release] -- serve --demo`: its build timed on its own,
# then the start (migrate, seed, serve) until the demo answers.
started=$(now)
"${build[@]}"
figure "$label" "$(seconds "$started" "$(now)")"
started=$(now)
"$binary" serve --demo >"$work/serve.out" 2>"$work/serve.err" &
server=$!
until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
    if ! kill -0 "$server" 2>/dev/null; then
        echo "first-hour: serve --demo ended:" >&2
        cat "$work/serve.out" "$work/serve.err" >&2
        exit 1
    fi
    sleep 0.2
done
figure "serve --demo: migrate, seed, answer" "$(seconds "$started" "$(now)")"
cat "$work/serve.out"

# The shell blocks a reader runs: the README's walkthrough, then every block of the tour.
blocks() {
    awk -v only="${2:-}" '
        only != "" && index($0, only ":start") { inside = 1 }
        only != "" && index($0, only ":end") { inside = 0 }
        /^```sh$/ && (only == "" || inside) { code = 1; next }
        /^```$/ && code { code = 0; next }
        code { print }
    ' "$1"
}
run_blocks() {
    local name=$1 log="$work/$2.out" script=$3
    started=$(now)
    if ! bash -euo pipefail -c "${script//localhost:8080/127.0.0.1:$port}" >"$log" 2>&1; then
        echo "first-hour: the $name failed:" >&2
        cat "$log" >&2
        exit 1
    fi
    figure "the $name, every command" "$(seconds "$started" "$(now)")"
}
run_blocks "README walkthrough" walkthrough "$(blocks README.md walkthrough)"
run_blocks "tour (docs/tour.md)" tour "$(blocks docs/tour.md)"
kill "$server"
wait "$server" 2>/dev/null || true
server=""

if ((short)); then
    figure "cargo test" "skipped (--short)"
else
    started=$(now)
    cargo test --quiet >"$work/test.out" 2>&1 || { tail -50 "$work/test.out" >&2; exit 1; }
    figure "cargo test (fresh clone, after the build)" "$(seconds "$started" "$(now)")"
    # What ran: every test binary's summary line, added up.
    figure "tests passed / failed / ignored" "$(awk '/^test result:/ {
        for (i = 1; i <= NF; i++) {
            if ($(i + 1) ~ /^passed/) p += $i
            if ($(i + 1) ~ /^failed/) f += $i
            if ($(i + 1) ~ /^ignored/) g += $i
        }
    } END { printf "%d / %d / %d", p, f, g }' "$work/test.out")"
fi

echo
echo "first-hour ($(nproc) cores, $(git rev-parse --short HEAD)$( ((short)) && echo ", --short"))"
printf '%s\n' "${figures[@]}"
# The figures are a quiet machine's only when the load says so (load average: 1, 5, 15 min).
echo "load at the start: $load_at_start"
echo "load at the end:   $(cut -d' ' -f1-3 /proc/loadavg)"
