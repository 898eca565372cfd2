//! One process at a time on a data folder: `serve` and `restore` on the embedded database,
//! `migrate-data` and `import-key` each hold an exclusive lock on the folder's
//! [`LOCK_FILE`] while they run, and refuse to start while another process holds it.
//! The lock is the operating system's (`flock`), so it goes with the process however it
//! ends — a `kill -9` leaves no stale lock behind; the file's text only says who held it
//! last.

use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;

use anyhow::{Context, bail};

/// The lock file in the data folder.
pub const LOCK_FILE: &str = "switchboard.lock";

/// The data folder, held by this process until dropped (or until it ends).
#[derive(Debug)]
pub struct Held {
    _file: std::fs::File,
}

impl Held {
    /// Takes the lock of `data_dir` (created if missing) for `command`, or refuses,
    /// naming the process that holds it.
    pub fn take(data_dir: &std::path::Path, command: &str) -> anyhow::Result<Held> {
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("creating {}", data_dir.display()))?;
        let path = data_dir.join(LOCK_FILE);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = match holder.trim() {
                    "" => "another switchboard process".to_owned(),
                    said => said.to_owned(),
                };
                bail!(
                    "the data folder {} is in use ({holder}): one process at a time may hold it; stop that process before running `{command}`",
                    data_dir.display()
                );
            }
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(error).with_context(|| format!("locking {}", path.display()));
            }
        }
        // Who holds it, for the refusal of the next one (the lock itself is not the text).
        file.set_len(0)?;
        file.rewind()?;
        writeln!(
            file,
            "held by `switchboard {command}`, process {}, since {}",
            std::process::id(),
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )?;
        Ok(Held { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let first = Held::take(dir.path(), "serve").expect("the first takes it");
        let refused = Held::take(dir.path(), "restore").expect_err("the second is refused");
        let said = refused.to_string();
        assert!(
            said.contains("in use")
                && said.contains("switchboard serve")
                && said.contains("restore"),
            "{said}"
        );
        drop(first);
        Held::take(dir.path(), "restore").expect("free once the first lets go");
    }
}
