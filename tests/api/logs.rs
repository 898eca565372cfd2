//! The operator's log, read from the real binary with its output going to a file: every
//! request logged at the default level with method, route template, status, latency and
//! request id, and no colour codes when the output is not a terminal.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::on_both_backends;
use crate::support::TestApp;

/// A `serve` process of the test's database, its stdout and stderr going to files; killed
/// when dropped.
struct Served {
    child: Child,
    base: String,
    log: std::path::PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(app: &TestApp, dir: &std::path::Path) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = dir.join("stderr.log");
    let child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("serve")
        .env_remove("RUST_LOG")
        .env_remove("SWITCHBOARD_LOG_FORMAT")
        .env("SWITCHBOARD_LISTEN", format!("127.0.0.1:{port}"))
        .env("SWITCHBOARD_DATABASE_URL", app.config.database_url())
        .env("SWITCHBOARD_DATA_DIR", &app.config.data_dir)
        .env("SWITCHBOARD_STORAGE_URL", app.config.storage_url())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout.log")).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("the binary starts");
    Served {
        child,
        base: format!("http://127.0.0.1:{port}"),
        log,
    }
}

async fn requests_are_logged_at_info_without_colour_codes(app: TestApp) {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(&app, dir.path());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = app
            .client
            .get(format!("{}/healthz", served.base))
            .send()
            .await;
        if ready.is_ok_and(|r| r.status() == 200) {
            break;
        }
        assert!(Instant::now() < deadline, "the server did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let answer = app
        .client
        .get(format!("{}/v2/admin/extensions/4711", served.base))
        .header("x-request-id", "log-test-4711")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);

    // The line is written once the answer is sent: wait for it.
    let mut text = String::new();
    let mut line = None;
    while Instant::now() < deadline {
        text = std::fs::read_to_string(&served.log).unwrap();
        line = text
            .lines()
            .find(|l| l.contains("log-test-4711") && l.contains("status="))
            .map(str::to_owned);
        if line.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(served);
    assert!(
        !text.contains('\u{1b}'),
        "colour codes in a log written to a file:\n{text:?}"
    );
    let line = line.unwrap_or_else(|| panic!("no request line at the default level:\n{text}"));
    for part in [
        " INFO ",
        "method=GET",
        "route=\"/v2/admin/extensions/{id}\"",
        "uri=/v2/admin/extensions/4711",
        "request_id=log-test-4711",
        "status=401",
        "latency_ms=",
    ] {
        assert!(line.contains(part), "{part} missing from {line:?}");
    }
}

on_both_backends!(requests_are_logged_at_info_without_colour_codes);
