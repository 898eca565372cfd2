//! Structured logs with `tracing`: text for people, JSON for collectors.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::config::LogFormat;

/// Gathered lines are written out once they reach this many bytes…
const WRITE_AT_BYTES: usize = 64 * 1024;

/// …or at the latest this long after they were logged.
const WRITE_EVERY: Duration = Duration::from_millis(100);

/// Installs the global subscriber; `RUST_LOG` overrides the default `info` level (at
/// which every request is logged once answered), colour only on a terminal.
///
/// Lines are gathered in memory and written to stderr in batches ([`BatchedStderr`]):
/// a `write` of its own for every request's line, or a thread woken for every line, cost
/// a tenth of an authenticated GET's CPU time (issue 17). Nothing is dropped; the
/// returned guard, held until the process ends, writes out what is still gathered.
#[must_use = "the guard writes out the gathered lines when dropped at exit"]
pub fn init(format: LogFormat) -> LogGuard {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    // Colour codes only for a person at a terminal, never into a file or a collector.
    let ansi = std::io::stderr().is_terminal();
    let writer = BatchedStderr::start();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer.clone());
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
    LogGuard(writer)
}

/// Writes out the gathered log lines when dropped (at the end of `main`).
pub struct LogGuard(BatchedStderr);

impl Drop for LogGuard {
    fn drop(&mut self) {
        self.0.write_out();
    }
}

/// Log lines gathered in one buffer and written to stderr when it reaches
/// [`WRITE_AT_BYTES`] (by the thread whose line filled it) or every [`WRITE_EVERY`] (by a
/// thread that otherwise sleeps): one `write` for hundreds of lines on a busy service, a
/// line out within a tenth of a second on a quiet one. Lines keep their order: the buffer
/// is written out while its lock is held, so a slow stderr makes loggers wait rather
/// than lose lines.
#[derive(Clone)]
pub struct BatchedStderr(Arc<Mutex<Vec<u8>>>);

impl BatchedStderr {
    /// The writer, and the thread writing out what has waited [`WRITE_EVERY`].
    fn start() -> BatchedStderr {
        let writer = BatchedStderr(Arc::new(Mutex::new(Vec::with_capacity(WRITE_AT_BYTES))));
        let timed = writer.clone();
        let started = std::thread::Builder::new()
            .name("switchboard-logs".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(WRITE_EVERY);
                    timed.write_out();
                }
            });
        if let Err(error) = started {
            // Lines are still written out whenever the buffer fills, and at exit.
            eprintln!("switchboard: no thread to write logs out on time: {error}");
        }
        writer
    }

    fn buffer(&self) -> MutexGuard<'_, Vec<u8>> {
        // A panic while appending leaves whole lines or a torn last one: keep logging.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes out what is gathered.
    fn write_out(&self) {
        let mut buffer = self.buffer();
        write_to_stderr(&mut buffer);
    }
}

/// Writes `buffer` to stderr and empties it. A failed write is dropped: there is no
/// other place to report it, and keeping the lines would grow the buffer without bound.
fn write_to_stderr(buffer: &mut Vec<u8>) {
    if buffer.is_empty() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(buffer);
    let _ = stderr.flush();
    buffer.clear();
}

impl Write for BatchedStderr {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.buffer();
        buffer.extend_from_slice(line);
        if buffer.len() >= WRITE_AT_BYTES {
            write_to_stderr(&mut buffer);
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for BatchedStderr {
    type Writer = BatchedStderr;

    fn make_writer(&'a self) -> BatchedStderr {
        self.clone()
    }
}
