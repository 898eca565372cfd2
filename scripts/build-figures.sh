#!/usr/bin/env bash
# What a fresh clone's release build costs (issue 33 item 1): the crates it compiles, the
# packages present in two or more versions, the crypto providers, and (--full) the time of
# a clean `cargo build --release --bin switchboard --timings` (what `cargo run --release`
# compiles; wall-clock and CPU) with its 15 slowest units.
#
#   scripts/build-figures.sh [--full | --check] [REVISION]
#
# The counts read `cargo tree` (no build: seconds) over the normal and build edges of the
# binary's package for this machine's target, which is what `cargo run --release` (the
# README's first command) compiles; dev-dependencies, and the test harness's crate (a
# default member only tests use), are not in them. They are the working tree's, or REVISION's
# when one is given (e.g. the commit before a change, for its "before" figures). --full
# clones this checkout at REVISION (default: the committed HEAD, what a clone gets) into a
# temporary folder (under $TMPDIR) and builds it there into an empty target folder,
# with the machine's load before and after (the figure means a quiet machine only when the
# load says so); the registry's downloads are the ones already on this machine. The
# folder is deleted at the end (BUILD_FIGURES_REPORT=FILE keeps cargo's timings report
# there first). --check (CI) prints the counts and fails unless ring is the one crypto
# provider of every member's graph (tests and benchmarks build them too): a default
# feature bringing aws-lc-rs back (reqwest's `rustls`, object_store's `aws`,
# jsonwebtoken's `aws_lc_rs`) would cost every build its C compile.
set -euo pipefail

full=0
check=0
case "${1:-}" in
--full) full=1 && shift ;;
--check) check=1 && shift ;;
esac
revision="${1:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

work=""
trap '[[ -z "$work" ]] || rm -rf "$work"' EXIT
if ((full)) || [[ -n "$revision" ]]; then
    work="$(mktemp -d "${TMPDIR:-/tmp}/tmp-build-XXXXXX")"
    git clone --quiet --no-checkout "$here" "$work/switchboard"
    git -C "$work/switchboard" checkout --quiet --detach "${revision:-HEAD}"
    cd "$work/switchboard"
fi

# Every package of the graph once, as `name vX.Y.Z`, the workspace's own left out: of the
# binary's package (`packages --package switchboard`), or of every member (`packages
# --workspace`: what a plain `cargo build --release` compiles, the crypto check's scope).
packages() {
    cargo tree --quiet "$@" --edges normal,build --prefix none --format '{p}' |
        sed -e 's/ (\*)$//' -e 's/ (proc-macro)$//' |
        grep -v ' (/' |
        sort -u
}
listed="$(packages --package switchboard)"

echo "build-figures: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Cargo.toml Cargo.lock 'crates/*/Cargo.toml' || echo ' (Cargo files changed since)'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(rustc --version)"
echo "crates in the release graph (registry packages): $(wc -l <<<"$listed")"
duplicates="$(awk '{ versions[$1] = versions[$1] " " $2; count[$1]++ }
    END { for (name in count) if (count[name] > 1) print name ":" versions[name] }' <<<"$listed" | sort)"
echo "packages in two or more versions: $(grep -c . <<<"$duplicates" || true)"
if [[ -n "$duplicates" ]]; then
    sed 's/^/  /' <<<"$duplicates"
fi
providers=""
every_member="$(packages --workspace)"
for crate in aws-lc-sys aws-lc-rs ring openssl-sys native-tls; do
    if grep -q "^$crate v" <<<"$every_member"; then
        providers+=" $crate"
    fi
done
echo "crypto providers present:${providers:- none}"
if ((check)) && [[ "$providers" != " ring" ]]; then
    echo "build-figures: ring is to be the one crypto provider (issue 33)" >&2
    exit 1
fi

if ((!full)); then
    exit 0
fi

export CARGO_TARGET_DIR="$work/target"
echo
echo "load before: $(uptime)"
# Wall-clock and CPU time (user + system, of cargo and every compiler and build script it
# ran): on a shared machine the CPU time is the steadier of the two.
TIMEFORMAT='%R %U %S'
{ time cargo build --release --locked --timings --quiet --bin switchboard 2>&3; } 3>&2 2>"$work/time"
echo "load after:  $(uptime)"
read -r wall user system <"$work/time"
echo "clean cargo build --release --bin switchboard (fresh clone of $(git rev-parse --short HEAD)): ${wall} s wall-clock, $(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.0f", u + s }') s CPU"
echo "release binary: $(du -h "$CARGO_TARGET_DIR/release/switchboard" | cut -f1)"

# The timings report carries its units as JSON (`const UNIT_DATA = [...]`).
python3 - "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" <<'EOF'
import json, re, sys

html = open(sys.argv[1], encoding="utf-8").read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
busy = sum(unit["duration"] for unit in units)
print(f"units compiled: {len(units)}, their times summed: {busy:.0f} s")
print("the 15 slowest units (s; in brackets, its front end, after which its dependents may")
print("start while its code generation goes on):")
for unit in sorted(units, key=lambda unit: unit["duration"], reverse=True)[:15]:
    target = unit["target"].strip()
    sections = dict(unit.get("sections") or [])
    front = f" [{sections['frontend']['end']:.1f}]" if "frontend" in sections else ""
    print(f"  {unit['duration']:7.1f}{front}  {unit['name']} v{unit['version']}" + (f" ({target})" if target else ""))
EOF
if [[ -n "${BUILD_FIGURES_REPORT:-}" ]]; then
    cp "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" "$BUILD_FIGURES_REPORT"
    echo "cargo's timings report: $BUILD_FIGURES_REPORT"
fi
