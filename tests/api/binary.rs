//! The `switchboard` binary itself, run as an operator runs it: one-shot commands with
//! their environment and standard input, and `serve` processes that can be killed the
//! way a crash kills them (SIGKILL, nothing cleaned up).

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The environment of a process on the installation of `data_dir` (its database, key and
/// objects in the folder, as an installation left to its defaults has them), with every
/// setting of the test's own environment that could change that left out.
pub fn command(data_dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    command.args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("SWITCHBOARD_") {
            command.env_remove(name);
        }
    }
    command
        .env_remove("RUST_LOG")
        .env("SWITCHBOARD_DATA_DIR", data_dir)
        .stdin(Stdio::null());
    command
}

/// Runs `command` to its end with `input` on its standard input.
pub fn run(mut command: Command, input: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("a standard input")
        .write_all(input.as_bytes())
        .expect("input written");
    child.wait_with_output().expect("the binary ends")
}

/// What a command wrote on its standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A free port on loopback.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("an address")
        .port()
}

/// A `serve` process; killed (SIGKILL) when dropped if still running.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Where its standard error goes.
    pub log: std::path::PathBuf,
}

impl Served {
    /// Starts `command` (a `serve` of [`command`]) listening on a free port, its output
    /// going to files in `logs`; answers at once, before it is ready.
    pub fn start(mut command: Command, logs: &Path) -> Served {
        let port = free_port();
        let log = logs.join(format!("serve-{port}.log"));
        let child = command
            .env("SWITCHBOARD_LISTEN", format!("127.0.0.1:{port}"))
            .env("SWITCHBOARD_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
            .stdout(std::fs::File::create(logs.join(format!("serve-{port}.out"))).expect("a log"))
            .stderr(std::fs::File::create(&log).expect("a log"))
            .spawn()
            .expect("the binary starts");
        Served {
            child,
            base: format!("http://127.0.0.1:{port}"),
            log,
        }
    }

    /// Waits (up to a minute) until `/healthz` answers, failing with its log if the
    /// process ends or never answers.
    pub async fn ready(&mut self) {
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let answer = client.get(format!("{}/healthz", self.base)).send().await;
            if answer.is_ok_and(|a| a.status() == 200) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("serve ended ({status}):\n{}", self.log_text());
            }
            assert!(
                Instant::now() < deadline,
                "serve did not start:\n{}",
                self.log_text()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits (up to `within`) for the process to end by itself, answering whether it
    /// succeeded; `None` if it still runs.
    pub async fn ended(&mut self, within: Duration) -> Option<bool> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.success());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        None
    }

    /// Kills it as a crash would: SIGKILL, no shutdown.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// What it has logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.kill();
    }
}
