#!/usr/bin/env bash
# Installs the tools the test suite starts besides cargo's own: moto's S3-compatible server,
# which crates/storage/tests/s3_store.rs runs as `python3 -m moto.server` on a loopback port,
# curl and jq, which the README walkthrough (run by tests/api/walkthrough.rs) uses, and
# espeak-ng, the speech engine of the text-to-speech tests (tests/api/text_to_speech.rs), and
# sox, which decodes GSM voicemail into playable WAV (tests/api/playable_voicemail.rs), and
# opus-tools, whose opusdec decodes Ogg Opus uploads for their telephony renditions
# (tests/api/renditions.rs), and pg_dump and pg_restore, which `backup` and `restore` run on
# PostgreSQL (tests/api/data_moves.rs), and openssl, which makes the certificate of the
# TLS Redis a test starts (tests/api/security.rs). espeak-ng, sox and opusdec are runtime dependencies
# too, and PostgreSQL's client programs where backups of PostgreSQL are taken.
#
#   scripts/install-test-tools.sh
#
# Idempotent and quiet: does nothing when the pinned version is already importable by the
# python3 on PATH (the one the tests start), else installs it with that python's pip.
set -euo pipefail

MOTO_VERSION="5.2.1"

missing_packages=()
# command:package, where the Debian package is named otherwise than its program.
for tool in curl jq openssl espeak-ng sox opusdec:opus-tools pg_dump:postgresql-client pg_restore:postgresql-client; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing_packages+=("${tool#*:}")
done
if ((${#missing_packages[@]})); then
    apt-get update -qq && apt-get install -y -qq "${missing_packages[@]}" >/dev/null
fi

have_moto() {
    python3 - "$MOTO_VERSION" <<'PY' 2>/dev/null
import importlib.metadata, sys
import flask, flask_cors, moto.server  # the [server] extra
sys.exit(importlib.metadata.version("moto") != sys.argv[1])
PY
}

if have_moto; then
    exit 0
fi
pip_install() {
    python3 -m pip install --quiet --disable-pip-version-check "$@" "moto[server]==${MOTO_VERSION}"
}
# A Debian-managed python3 refuses installs into itself (PEP 668): fall back to the user site.
pip_install || pip_install --user --break-system-packages
if ! have_moto; then
    echo "install-test-tools.sh: moto[server]==${MOTO_VERSION} is still not importable by $(command -v python3)" >&2
    exit 1
fi
