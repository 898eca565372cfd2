//! The readers over the fixtures of `tests/fixtures/asterisk/` (a spool, a Master.csv, recordings,
//! real audio made by its `generate.py`), and over temporary trees for the error cases.
//! One test binary, to link once.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

mod cdr;
mod recordings;
mod transcode;
mod voicemail;

/// `tests/fixtures/asterisk/<relative>` at the root of the repository.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/asterisk")
        .join(relative)
}
