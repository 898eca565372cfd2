//! The operator's log, read from the real binary with its output going to a file: every
//! request logged at the default level with method, route template, status, latency,
//! request id (a `traceparent`'s trace id when the client sent no id of its own), client
//! address, user and tenant, no colour codes when the output is not a terminal, and
//! repeated identical server errors summarised rather than written one by one.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp};

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

/// Waits (up to a minute) until `served` answers `/healthz`.
async fn ready(app: &TestApp, served: &Served) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = app
            .client
            .get(format!("{}/healthz", served.base))
            .send()
            .await;
        if ready.is_ok_and(|r| r.status() == 200) {
            return;
        }
        assert!(Instant::now() < deadline, "the server did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The log's lines that `matches` picks, once at least `count` of them were written
/// (waiting up to `within`); the whole log in the panic when they never are.
async fn lines(
    served: &Served,
    count: usize,
    within: Duration,
    matches: impl Fn(&str) -> bool,
) -> Vec<String> {
    let deadline = Instant::now() + within;
    loop {
        let text = std::fs::read_to_string(&served.log).unwrap();
        let found: Vec<String> = text
            .lines()
            .filter(|l| matches(l))
            .map(str::to_owned)
            .collect();
        if found.len() >= count {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "{count} lines not written within {within:?}:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn requests_are_logged_at_info_without_colour_codes(app: TestApp) {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(&app, dir.path());
    ready(&app, &served).await;
    let deadline = Instant::now() + Duration::from_secs(60);
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

/// The login answer of `email` at the `served` process.
async fn log_in(app: &TestApp, served: &Served, email: &str) -> Value {
    let login = app
        .client
        .post(format!("{}/v2/authentication/", served.base))
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200);
    login.json().await.unwrap()
}

/// A valid W3C `traceparent`, and its trace id.
const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// An authenticated request's line says who sent it (client address, user, tenant) and
/// carries the trace id of the `traceparent` it came with; a malformed `traceparent` is
/// not taken (a made id instead), and a client's own request id wins over a trace id.
async fn lines_say_who_and_follow_the_trace(app: TestApp) {
    let w = World::seed(&app).await;
    let dir = tempfile::tempdir().unwrap();
    let served = serve(&app, dir.path());
    ready(&app, &served).await;
    let login = log_in(&app, &served, w.admin_a).await;
    let token = login["accessToken"].as_str().unwrap().to_owned();
    let user = login["user"]["id"].as_i64().unwrap();
    let get = |traceparent: &'static str, request_id: Option<&'static str>| {
        let mut request = app
            .client
            .get(format!("{}/v2/admin/extensions/", served.base))
            .bearer_auth(&token)
            .header("traceparent", traceparent);
        if let Some(id) = request_id {
            request = request.header("x-request-id", id);
        }
        async move {
            let answer = request.send().await.unwrap();
            assert_eq!(answer.status(), 200);
            answer.headers()["x-request-id"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    assert_eq!(
        get(TRACEPARENT, None).await,
        TRACE_ID,
        "the trace id is the request id"
    );
    for forged in [
        "00-4bf92f3577b34da6a3ce929d0e0e4736 status=500-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ] {
        let id = get(forged, None).await;
        assert!(
            uuid::Uuid::parse_str(&id).is_ok(),
            "{forged:?} is not a trace context: a made id, not {id:?}"
        );
    }
    assert_eq!(get(TRACEPARENT, Some("mine-4711")).await, "mine-4711");

    let line = lines(&served, 1, Duration::from_secs(30), |l| {
        l.contains(&format!("request_id={TRACE_ID}")) && l.contains("status=")
    })
    .await
    .remove(0);
    for part in [
        " INFO ".to_owned(),
        "status=200".to_owned(),
        "client=127.0.0.1".to_owned(),
        format!("tenant={}", w.tenant_a),
        format!("user={user}"),
    ] {
        assert!(line.contains(&part), "{part} missing from {line:?}");
    }
    // The login itself was not authenticated: no user on its line.
    let login_line = lines(&served, 1, Duration::from_secs(10), |l| {
        l.contains("route=\"/v2/authentication/\"") && l.contains("status=200")
    })
    .await
    .remove(0);
    assert!(login_line.contains("client=127.0.0.1"), "{login_line}");
    assert!(!login_line.contains("user="), "{login_line}");
}

on_both_backends!(
    requests_are_logged_at_info_without_colour_codes,
    lines_say_who_and_follow_the_trace
);

/// Thirty writes failing alike write one ERROR line and, when the window ends, one line
/// counting the other 29 — not thirty lines (issue 30: 1,361 in 10 s of an outage).
async fn repeated_server_errors_are_summarised(app: TestApp) {
    let w = World::seed(&app).await;
    let dir = tempfile::tempdir().unwrap();
    let served = serve(&app, dir.path());
    ready(&app, &served).await;
    let login = log_in(&app, &served, w.admin_a).await;
    let token = login["accessToken"].as_str().unwrap().to_owned();
    app.inject_failure("INSERT", "extensions").await;
    for n in 0..30 {
        let answer = app
            .client
            .post(format!("{}/v2/admin/extensions/", served.base))
            .bearer_auth(&token)
            .json(&json!({"number": format!("{}", 700 + n), "name": "Failing", "branchId": w.branch_a}))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 500);
    }
    let failed = |l: &str| l.contains(" ERROR ") && l.contains("route=\"/v2/admin/extensions/\"");
    let summary = lines(&served, 1, Duration::from_secs(20), |l| {
        failed(l) && l.contains("more like this")
    })
    .await;
    assert_eq!(summary.len(), 1, "{summary:?}");
    assert!(
        summary[0].contains("29 more like this in the last 10 seconds"),
        "{summary:?}"
    );
    let text = std::fs::read_to_string(&served.log).unwrap();
    let answered: Vec<&str> = text
        .lines()
        .filter(|l| failed(l) && l.contains("answered"))
        .collect();
    assert_eq!(
        answered.len(),
        1,
        "one ERROR line for the 30 answers:\n{text}"
    );
    let internal = text
        .lines()
        .filter(|l| l.contains("internal error"))
        .count();
    assert!(internal <= 1, "the causes are summarised too:\n{text}");
    app.remove_failure("extensions").await;
}

on_both_backends!(repeated_server_errors_are_summarised);
