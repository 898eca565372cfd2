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
/// line out within a tenth of a second on a quiet one.
///
/// The gathered lines are swapped for an empty buffer and written out after the swap, so
/// a logger waits for a write only when the buffer fills again while a batch is still
/// being written: a slow stderr then slows loggers down rather than losing lines or
/// growing the buffer without bound. Batches are taken and written one at a time, so
/// lines keep their order.
#[derive(Clone)]
pub struct BatchedStderr(Arc<Batches>);

/// Where a batch goes: stderr, or a test's recorder.
type Sink = dyn Fn(&[u8]) + Send + Sync;

struct Batches {
    /// The lines logged since the last batch was taken.
    gathered: Mutex<Vec<u8>>,
    /// Held while a batch is written out; between writes, the emptied buffer of the
    /// last batch, swapped in for the next.
    writing: Mutex<Vec<u8>>,
    sink: Box<Sink>,
}

impl BatchedStderr {
    /// The writer, and the thread writing out what has waited [`WRITE_EVERY`].
    fn start() -> BatchedStderr {
        let writer = BatchedStderr::with_sink(Box::new(write_to_stderr));
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

    /// A writer whose batches go to `sink`, without the timed thread.
    fn with_sink(sink: Box<Sink>) -> BatchedStderr {
        BatchedStderr(Arc::new(Batches {
            gathered: Mutex::new(Vec::with_capacity(WRITE_AT_BYTES)),
            writing: Mutex::new(Vec::with_capacity(WRITE_AT_BYTES)),
            sink,
        }))
    }

    /// Writes out what is gathered.
    fn write_out(&self) {
        let mut batch = locked(&self.0.writing);
        {
            let mut gathered = locked(&self.0.gathered);
            if gathered.is_empty() {
                return;
            }
            std::mem::swap(&mut *gathered, &mut *batch);
        }
        (self.0.sink)(&batch);
        batch.clear();
    }
}

/// `mutex` locked; a panic while it was held leaves whole lines or a torn last one, so
/// logging goes on.
fn locked(mutex: &Mutex<Vec<u8>>) -> MutexGuard<'_, Vec<u8>> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Writes a batch to stderr. A failed write is dropped: there is no other place to report
/// it, and keeping the lines would grow the buffer without bound.
fn write_to_stderr(batch: &[u8]) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(batch);
    let _ = stderr.flush();
}

impl Write for BatchedStderr {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        let full = {
            let mut gathered = locked(&self.0.gathered);
            gathered.extend_from_slice(line);
            gathered.len() >= WRITE_AT_BYTES
        };
        if full {
            self.write_out();
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::mpsc;

    use super::*;

    /// A writer whose batches are recorded, and the record.
    fn recorded() -> (BatchedStderr, Arc<Mutex<Vec<u8>>>) {
        let record = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&record);
        let writer = BatchedStderr::with_sink(Box::new(move |batch: &[u8]| {
            into.lock().unwrap().extend_from_slice(batch);
        }));
        (writer, record)
    }

    #[test]
    fn every_line_comes_out_once_in_the_order_logged() {
        let (writer, record) = recorded();
        let loggers: Vec<_> = (0..4)
            .map(|thread| {
                let mut writer = writer.clone();
                std::thread::spawn(move || {
                    for n in 0..20_000 {
                        writer
                            .write_all(format!("{thread} {n}\n").as_bytes())
                            .unwrap();
                    }
                })
            })
            .collect();
        for logger in loggers {
            logger.join().unwrap();
        }
        assert!(
            record.lock().unwrap().len() >= WRITE_AT_BYTES,
            "full buffers went out before the end"
        );
        writer.write_out();
        let record = String::from_utf8(record.lock().unwrap().clone()).unwrap();
        let mut next = [0u32; 4];
        for line in record.lines() {
            let (thread, n) = line.split_once(' ').unwrap();
            let thread: usize = thread.parse().unwrap();
            assert_eq!(n.parse::<u32>().unwrap(), next[thread], "thread {thread}");
            next[thread] += 1;
        }
        assert_eq!(next, [20_000; 4]);
    }

    #[test]
    fn a_logger_does_not_wait_for_a_batch_being_written() {
        // A sink that blocks until released: stderr stalled by whatever reads it.
        let (entered, sink_entered) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let released = Mutex::new(released);
        let writer = BatchedStderr::with_sink(Box::new(move |_: &[u8]| {
            let _ = entered.send(());
            let _ = released.lock().unwrap().recv();
        }));
        let mut first = writer.clone();
        first.write_all(b"first line\n").unwrap();
        let timed = writer.clone();
        let writing = std::thread::spawn(move || timed.write_out());
        sink_entered.recv().unwrap();
        // While that batch is stuck in the sink, another line is gathered at once.
        let (logged, line_logged) = mpsc::channel();
        let mut second = writer.clone();
        std::thread::spawn(move || {
            second.write_all(b"second line\n").unwrap();
            let _ = logged.send(());
        });
        let waited = line_logged.recv_timeout(Duration::from_secs(10));
        release.send(()).unwrap();
        writing.join().unwrap();
        assert!(waited.is_ok(), "the logger waited for the stalled write");
        assert_eq!(*locked(&writer.0.gathered), b"second line\n");
    }
}
