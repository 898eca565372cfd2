//! Structured logs with `tracing`: text for people, JSON for collectors.

use std::io::{BufWriter, IsTerminal};

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Lines that may wait for the writer thread before a request waits for it in turn.
const QUEUED_LINES: usize = 128_000;

/// Installs the global subscriber; `RUST_LOG` overrides the default `info` level (at
/// which every request is logged once answered), colour only on a terminal.
///
/// Lines are written to stderr by a thread of their own, in batches: a request formats
/// its line and queues it, instead of taking stderr's lock and making a `write` of its
/// own (a tenth of an authenticated GET's CPU time, issue 17). Nothing is dropped — a
/// full queue makes the logging request wait — and the returned guard, held until the
/// process ends, writes out what is still queued.
#[must_use = "the guard writes out the queued lines when dropped at exit"]
pub fn init(format: LogFormat) -> WorkerGuard {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    // Colour codes only for a person at a terminal, never into a file or a collector.
    let ansi = std::io::stderr().is_terminal();
    // The worker flushes whenever its queue runs empty, so a quiet service's lines
    // appear at once and a busy one's leave in large writes.
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(QUEUED_LINES)
        .thread_name("switchboard-logs")
        .finish(BufWriter::new(std::io::stderr()));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer);
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
    guard
}
