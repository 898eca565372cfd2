#!/usr/bin/env bash
# Mutation testing of the security-critical files with cargo-mutants (27.x): each mutant
# (a condition flipped, a function answering a constant, …) is built and the tests that
# matter for its file are run; a mutant the tests do not catch is either a gap (write a
# test) or harmless (listed with its reason in docs/mutants.md).
#
#   scripts/mutants.sh                      # every security file (a full run: hours on 2 cores)
#   scripts/mutants.sh FILE...              # these files (each must be a security file)
#   scripts/mutants.sh --changed [BASE]     # security files changed since BASE (default main),
#                                           # the working tree included
#   scripts/mutants.sh --ci                 # security files whose SHA-256 differs from the one
#                                           # recorded in docs/mutants.md (CI: a clean clone
#                                           # cannot know the last landing); none: passes at once.
#                                           # Only the lines changed since the recorded version
#                                           # (found in git history by its SHA-256) are mutated:
#                                           # the rest was run then; the whole file when that
#                                           # version is not in the history
#   scripts/mutants.sh --since-recorded FILE...  # as --ci does, for these files (to record them)
#   scripts/mutants.sh --hashes             # prints the table of SHA-256s for docs/mutants.md
#
# Mutants are tested in place (`--in-place`: each file is restored after its mutant), so
# do not edit the tree while it runs. With `mold` on the PATH (the script installs it with
# apt-get when it can, unless MUTANTS_MOLD=0) builds link with it, in a target folder of
# their own (target/mutants) so the usual one keeps its cache. Results go to
# target/mutants-out/<file>/mutants.out. MUTANTS_TIMEOUT (seconds, default 300) bounds one
# mutant's tests; MUTANTS_BUDGET_MINUTES (default: none; CI sets one) bounds the whole run:
# when it runs out the run fails, naming the files to run locally and record.
# MUTANTS_EXTRA_ARGS goes to cargo-mutants as is (e.g. `--re own_extensions` to retry some).
#
# Exit status: 0 when every mutant was caught, unviable, or listed as harmless in
# docs/mutants.md; 1 otherwise (the missed ones are printed); 2 on a usage error.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

DOC=docs/mutants.md
SECURITY_FILES=(
    crates/api/src/auth/caller.rs
    crates/api/src/auth/lockout.rs
    crates/api/src/auth/mod.rs
    crates/api/src/auth/password.rs
    crates/api/src/auth/token.rs
    crates/api/src/auth/totp.rs
    crates/api/src/auth/verified.rs
    crates/app/src/tenancy.rs
    crates/db/src/scope.rs
    crates/jobs/src/delivery/client.rs
)

# The tests that matter for a file, as a nextest filterset: the unit tests of its module
# and the HTTP suite's tests of what it guards, on SQLite (the PostgreSQL variants run the
# same code over another database; the PostgreSQL-only race tests are kept).
# The unit-test part runs in the first pass (`unit_tests_for`), the HTTP part in the second.
tests_for() {
    local api='binary_id(switchboard::api)'
    local not_pg='!test(/::postgres::/)'
    case "$1" in
        crates/api/src/auth/*)
            # audit_trail: the caller is who a change is audited under (and an engine's
            # report is no administrative change), which only the trail's tests read.
            echo "(package(switchboard-api) & kind(lib) & test(/auth::/)) | ($api & test(/^(authentication|security|lockout|engine_token|scope|audit_trail)::/) & $not_pg)"
            ;;
        crates/app/src/tenancy.rs)
            # Every module whose routes call one of tenancy's checks (a tenant, a branch,
            # a destination, a media file, a conduit, a queue, music on hold, an IVR,
            # business hours, an extension, a paging group): a check
            # whose refusal is tested only there would otherwise be reported missed.
            echo "$api & test(/^(scope|security|records|atomic_writes|business_hours|paging_groups|announcements|phone_numbers|webhooks|call_flows|routing|pharmacy_agents|voicemail|outbound|outbound_work|call_campaigns|conduits|music_on_hold|media_files|text_to_speech|devices|button_layouts|reporting|refusals)::/) & $not_pg"
            ;;
        crates/db/src/scope.rs)
            echo "(package(switchboard-db) & kind(lib)) | ($api & test(/^(scope|security|records|lists|audit_trail|voicemail|calls|call_recordings|identity|music_on_hold)::/) & $not_pg)"
            ;;
        crates/jobs/src/delivery/client.rs)
            echo "(package(switchboard-jobs) & kind(lib)) | ($api & test(/^webhook_delivery::/) & $not_pg)"
            ;;
        *)
            echo "not a security file: $1" >&2
            return 1
            ;;
    esac
}

# The SHA-256 recorded for file $1 in the docs, if any.
# The unit tests of a file's own crate, a first pass (see below); empty where the file has
# none worth a pass of their own.
unit_tests_for() {
    case "$1" in
        crates/api/src/auth/token.rs | crates/api/src/auth/totp.rs | crates/api/src/auth/lockout.rs | crates/api/src/auth/verified.rs | crates/api/src/auth/password.rs)
            echo "package(switchboard-api) & kind(lib) & test(/auth::/)"
            ;;
        crates/db/src/scope.rs) echo "package(switchboard-db) & kind(lib)" ;;
        crates/jobs/src/delivery/client.rs) echo "package(switchboard-jobs) & kind(lib)" ;;
        *) echo "" ;;
    esac
}

# Whether mutant $1 (as cargo-mutants names it) is listed as harmless in the docs: by its
# text without the line and column, which move with unrelated edits.
listed_harmless() {
    grep -qF -- "\`$(sed -E 's#^([^:]+):[0-9]+:[0-9]+: #\1: #' <<<"$1")\`" "$DOC"
}

# $1 as a regex (the regex crate's syntax) matching exactly that text.
regex_escape() {
    sed -E 's/[][\\.+*?(){}|^$#&~-]/\\&/g' <<<"$1"
}

recorded_hash() {
    sed -nE "s#^\| \`$1\` \| ([0-9a-f]{64}) \|.*#\1#p" "$DOC" | head -n 1
}

# The newest commit holding the version of $1 whose SHA-256 docs/mutants.md records: the
# version a whole or partial run last covered. Empty when the history does not have it.
recorded_commit() {
    local want commit
    want=$(recorded_hash "$1")
    [[ -n "$want" ]] || return 0
    while IFS= read -r commit; do
        if [[ "$(git show "$commit:$1" 2>/dev/null | sha256sum | cut -d' ' -f1)" == "$want" ]]; then
            echo "$commit"
            return 0
        fi
    done < <(git log --format=%H -- "$1" 2>/dev/null)
}

is_security_file() {
    local file
    for file in "${SECURITY_FILES[@]}"; do
        [[ "$file" == "$1" ]] && return 0
    done
    return 1
}

files=()
since_recorded=0
case "${1:-}" in
    --hashes)
        echo "| file | SHA-256 |"
        echo "|---|---|"
        for file in "${SECURITY_FILES[@]}"; do
            echo "| \`$file\` | $(sha256sum "$file" | cut -d' ' -f1) |"
        done
        exit 0
        ;;
    --ci)
        for file in "${SECURITY_FILES[@]}"; do
            if [[ "$(sha256sum "$file" | cut -d' ' -f1)" != "$(recorded_hash "$file")" ]]; then
                files+=("$file")
            fi
        done
        if ((${#files[@]} == 0)); then
            echo "no security file changed since its last mutation run (SHA-256s as recorded in $DOC): nothing to do"
            exit 0
        fi
        echo "security files changed since their last mutation run: ${files[*]}"
        since_recorded=1
        ;;
    --since-recorded)
        shift
        for file in "$@"; do
            is_security_file "$file" || { echo "not a security file: $file (see $0)" >&2; exit 2; }
            files+=("$file")
        done
        since_recorded=1
        ;;
    --changed)
        base="${2:-main}"
        while IFS= read -r file; do
            is_security_file "$file" && files+=("$file")
        done < <({ git diff --name-only "$(git merge-base "$base" HEAD)"; git diff --name-only; } | sort -u)
        if ((${#files[@]} == 0)); then
            echo "no security file changed since $base: nothing to do"
            exit 0
        fi
        ;;
    "")
        files=("${SECURITY_FILES[@]}")
        ;;
    -*)
        sed -n '2,27p' "$0"
        exit 2
        ;;
    *)
        for file in "$@"; do
            is_security_file "$file" || { echo "not a security file: $file (see $0)" >&2; exit 2; }
            files+=("$file")
        done
        ;;
esac

if ! cargo mutants --version 2>/dev/null | grep -q '^cargo-mutants 27\.'; then
    echo "installing cargo-mutants 27.x"
    cargo install --locked cargo-mutants@^27
fi
if ! command -v cargo-nextest >/dev/null 2>&1; then
    echo "installing cargo-nextest"
    cargo install --locked cargo-nextest
fi
if [[ "${MUTANTS_MOLD:-1}" != 0 ]] && ! command -v mold >/dev/null 2>&1 && [[ $(id -u) == 0 ]]; then
    apt-get install -y -qq mold >/dev/null 2>&1 || true
fi
if [[ "${MUTANTS_MOLD:-1}" != 0 ]] && command -v mold >/dev/null 2>&1; then
    export RUSTFLAGS="${RUSTFLAGS:-} -C link-arg=-fuse-ld=mold"
    export CARGO_TARGET_DIR="$PWD/target/mutants"
    # No debug information: a mutant's build is linked once and never debugged.
    export CARGO_PROFILE_DEV_DEBUG=none
    echo "linking with mold, without debug information, building in target/mutants"
fi

deadline=
if [[ -n "${MUTANTS_BUDGET_MINUTES:-}" ]]; then
    deadline=$(($(date +%s) + MUTANTS_BUDGET_MINUTES * 60))
fi
missed=()
unfinished=()
for file in "${files[@]}"; do
    out="target/mutants-out/${file//\//_}"
    mkdir -p "$out"
    filter=$(tests_for "$file")
    echo
    echo "=== $file ($(sha256sum "$file" | cut -d' ' -f1))"
    echo "tests: $filter"
    limit=()
    if [[ -n "$deadline" ]]; then
        left=$((deadline - $(date +%s)))
        if ((left <= 60)); then
            unfinished+=("$file")
            continue
        fi
        limit=(timeout --signal=INT "$left")
    fi
    # Two passes: the file's crate's unit tests first — building one library's test binary
    # takes seconds where the HTTP suite's binary takes a minute or more — then, with
    # --iterate (which skips what the first pass caught or found unviable, and keeps its
    # results), the HTTP suite's tests of the filter over the mutants the unit tests missed
    # (only the root package's test targets are built: the unit tests have had their say).
    # A file with no unit-test pass gets this pass alone.
    rm -rf "$out/mutants.out" "$out/mutants.out.old"
    # Since the recorded run: the lines changed since then only (cargo-mutants --in-diff).
    in_diff=()
    if ((since_recorded)); then
        base=$(recorded_commit "$file")
        if [[ -n "$base" ]]; then
            git diff "$base" -- "$file" >"$out/since-recorded.diff"
            echo "the lines changed since the recorded version (commit ${base:0:12})"
            in_diff=(--in-diff "$out/since-recorded.diff")
        else
            echo "the recorded version is not in this history: the whole file"
        fi
    fi
    unit_filter=$(unit_tests_for "$file")
    iterate=()
    status=0
    second_pass=1
    if [[ -n "$unit_filter" ]]; then
        echo "first pass, unit tests: $unit_filter"
        "${limit[@]}" cargo mutants --in-place --workspace --file "$file" "${in_diff[@]}" \
            --test-tool nextest --test-workspace false --cargo-test-arg=--lib \
            --cargo-test-arg=-E --cargo-test-arg="$unit_filter" \
            --baseline skip --timeout "${MUTANTS_TIMEOUT:-300}" --build-timeout 1200 \
            --output "$out" --no-shuffle ${MUTANTS_EXTRA_ARGS:-} || status=$?
        if ((status == 124 || status == 130)); then
            unfinished+=("$file")
            continue
        fi
        if ((status != 0 && status != 2 && status != 3)); then
            echo "cargo mutants failed on $file (exit $status)" >&2
            exit 1
        fi
        second_pass=0
        if ((status == 0)); then
            echo "the unit tests caught every viable mutant"
        fi
        iterate=(--iterate)
        # A mutant the docs list as harmless is no gap whatever the HTTP suite says: it is
        # reported here and left out of the second pass (a few minutes each).
        while IFS= read -r mutant; do
            [[ -z "$mutant" ]] && continue
            if listed_harmless "$mutant"; then
                echo "harmless (listed in $DOC): $mutant"
                iterate+=(--exclude-re ": $(regex_escape "${mutant#*: }")\$")
            else
                second_pass=1
            fi
        done < <(cat "$out/mutants.out/missed.txt" "$out/mutants.out/timeout.txt" 2>/dev/null)
        if ((second_pass)); then
            echo "second pass, the HTTP suite's tests of the filter, over what the unit tests missed"
        fi
    fi
    if ((second_pass)); then
        status=0
        "${limit[@]}" cargo mutants --in-place --workspace --file "$file" "${in_diff[@]}" "${iterate[@]}" \
            --test-tool nextest --test-package switchboard --cargo-test-arg=--test=api \
            --cargo-test-arg=-E --cargo-test-arg="$filter" \
            --baseline skip --timeout "${MUTANTS_TIMEOUT:-300}" --build-timeout 1200 \
            --output "$out" --no-shuffle ${MUTANTS_EXTRA_ARGS:-} || status=$?
    fi
    # cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; 124/130: our budget.
    if ((status == 124 || status == 130)); then
        unfinished+=("$file")
        continue
    fi
    if ((status != 0 && status != 2 && status != 3)); then
        echo "cargo mutants failed on $file (exit $status)" >&2
        exit 1
    fi
    for kind in previously_caught caught missed timeout unviable; do
        printf '%s: %s  ' "$kind" "$(wc -l 2>/dev/null <"$out/mutants.out/$kind.txt" || echo 0)"
    done
    echo
    ((second_pass)) || continue
    while IFS= read -r mutant; do
        [[ -z "$mutant" ]] && continue
        if listed_harmless "$mutant"; then
            echo "harmless (listed in $DOC): $mutant"
        else
            missed+=("$mutant")
        fi
    done < <(cat "$out/mutants.out/missed.txt" "$out/mutants.out/timeout.txt" 2>/dev/null)
done

echo
if ((${#missed[@]})); then
    echo "MISSED mutants (a test is missing, or list the mutant in $DOC with why it is harmless):"
    printf '  %s\n' "${missed[@]}"
fi
if ((${#unfinished[@]})); then
    echo "NOT FINISHED within ${MUTANTS_BUDGET_MINUTES} minutes: ${unfinished[*]}" \
        "— run scripts/mutants.sh on them locally and record their SHA-256s in $DOC"
fi
if ((${#missed[@]} || ${#unfinished[@]})); then
    exit 1
fi
echo "every mutant of ${files[*]} was caught, unviable, or is listed as harmless in $DOC"
