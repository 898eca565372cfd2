//! Probes and a graceful stop.

use std::time::Duration;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp};

async fn probes_answer(app: TestApp) {
    let health = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(
        health.json::<serde_json::Value>().await.unwrap()["status"],
        "ok"
    );
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    assert_eq!(
        ready.json::<serde_json::Value>().await.unwrap()["status"],
        "ready"
    );
    let docs = app.client.get(app.url("/docs/")).send().await.unwrap();
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.unwrap().contains("swagger-ui"));
}

async fn in_flight_requests_finish_on_shutdown(mut app: TestApp) {
    let w = World::seed(&app).await;
    // A login takes a while (argon2); start one, then signal shutdown while it runs.
    let login = tokio::spawn(app.login_answer_owned(w.admin_a.to_owned(), PASSWORD.to_owned()));
    tokio::time::sleep(Duration::from_millis(5)).await;
    app.signal_shutdown();
    let answer = login.await.unwrap();
    assert_eq!(
        answer.status, 200,
        "the in-flight login completed: {}",
        answer.body
    );
    app.join().await.unwrap();
    assert!(
        app.client.get(app.url("/healthz")).send().await.is_err(),
        "no longer accepting"
    );
}

on_both_backends!(probes_answer);
// Hashing at its real cost, so that the login is still running when the stop comes.
on_both_backends!(with crate::support::owasp_hashing; in_flight_requests_finish_on_shutdown);

/// The binary's stop on SIGTERM, seen from outside: `/readyz` fails at once while every
/// other request is still served, keep-alive connections are told to close, the listener
/// closes after the drain period, idle connections are closed cleanly, a request in
/// flight finishes, and then the process exits.
mod drain {
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use crate::support::{TestApp, fixture};

    /// The drain period the process is started with.
    const DRAIN: Duration = Duration::from_secs(2);

    /// A `serve --demo` process, killed when dropped.
    struct Served {
        child: Child,
        address: String,
        _dir: tempfile::TempDir,
    }

    impl Drop for Served {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    impl Served {
        fn url(&self, path: &str) -> String {
            format!("http://{}{path}", self.address)
        }
    }

    /// Starts the binary on `database_url` (SQLite: a file of its own when `None`) and
    /// waits until it answers.
    async fn serve(database_url: Option<String>) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let address = format!("127.0.0.1:{port}");
        let database_url = database_url
            .unwrap_or_else(|| format!("sqlite://{}", dir.path().join("served.db").display()));
        let child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["serve", "--demo"])
            .current_dir(dir.path())
            .env_remove("RUST_LOG")
            .env("SWITCHBOARD_LISTEN", &address)
            .env("SWITCHBOARD_DATABASE_URL", database_url)
            .env("SWITCHBOARD_DATA_DIR", dir.path().join("data"))
            .env("SWITCHBOARD_DRAIN_SECONDS", DRAIN.as_secs().to_string())
            .env("SWITCHBOARD_SHUTDOWN_GRACE_SECONDS", "20")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(dir.path().join("stdout.log")).unwrap())
            .stderr(std::fs::File::create(dir.path().join("stderr.log")).unwrap())
            .spawn()
            .expect("the binary starts");
        let served = Served {
            child,
            address,
            _dir: dir,
        };
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !client
            .get(served.url("/healthz"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            assert!(Instant::now() < deadline, "the server did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        served
    }

    /// A media-file upload as raw HTTP: its head, and its body in two halves.
    fn upload(address: &str, token: &str) -> (Vec<u8>, Vec<u8>) {
        let mut body = b"--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\ndrained\r\n\
              --XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"tone.mp3\"\r\n\
              Content-Type: application/octet-stream\r\n\r\n"
            .to_vec();
        body.extend(fixture("tone.mp3"));
        body.extend_from_slice(b"\r\n--XyZ--\r\n");
        let mut first = format!(
            "POST /v2/admin/media-files/ HTTP/1.1\r\nHost: {address}\r\n\
             Authorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        let rest = body.split_off(body.len() / 2);
        first.extend(body);
        (first, rest)
    }

    async fn a_stop_leaves_the_rotation_first_and_loses_nothing(database_url: Option<String>) {
        let served = serve(database_url).await;
        let client = reqwest::Client::new();
        let login = client
            .post(served.url("/v2/authentication/"))
            .json(&serde_json::json!({
                "email": switchboard::demo::ADMIN_EMAIL,
                "password": switchboard::demo::PASSWORD,
            }))
            .send()
            .await
            .unwrap();
        let login = TestApp::answer(login).await.expect(200);
        let token = login["accessToken"].as_str().unwrap().to_owned();

        // An idle keep-alive connection: one request answered, then nothing.
        let mut idle = TcpStream::connect(&served.address).await.unwrap();
        idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: switchboard\r\n\r\n")
            .await
            .unwrap();
        let mut answered = Vec::new();
        while !answered.ends_with(b"\"ok\"}") {
            let mut chunk = [0u8; 1024];
            let read = idle.read(&mut chunk).await.unwrap();
            assert!(read > 0, "the health answer");
            answered.extend_from_slice(&chunk[..read]);
        }
        // An upload in flight: its head and half its body sent.
        let (first, rest) = upload(&served.address, &token);
        let mut uploading = TcpStream::connect(&served.address).await.unwrap();
        uploading.write_all(&first).await.unwrap();
        let ready = client.get(served.url("/readyz")).send().await.unwrap();
        assert_eq!(ready.status(), 200);

        let stopped = Instant::now();
        let signalled = Command::new("kill")
            .args(["-TERM", &served.child.id().to_string()])
            .status()
            .unwrap();
        assert!(signalled.success());
        tokio::time::sleep(Duration::from_millis(200)).await;

        // At once: not ready, every other request still served, each answer asking its
        // keep-alive client to close (its next connection goes elsewhere).
        let ready = client
            .get(served.url("/readyz"))
            .send()
            .await
            .expect("still serving while draining");
        assert_eq!(ready.status(), 503);
        assert_eq!(
            ready.headers().get("connection").map(|v| v.as_bytes()),
            Some(&b"close"[..])
        );
        assert_eq!(
            ready.json::<serde_json::Value>().await.unwrap()["status"],
            "draining"
        );
        let listed = client
            .get(served.url("/v2/admin/extensions/"))
            .bearer_auth(&token)
            .send()
            .await
            .expect("still serving while draining");
        assert_eq!(listed.status(), 200);
        assert!(stopped.elapsed() < DRAIN, "all within the drain period");

        // The idle connection stays open through the drain, then is closed cleanly (an
        // end of stream, not a reset).
        let mut rest_of_idle = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(10), idle.read(&mut rest_of_idle))
            .await
            .expect("the idle connection is closed")
            .expect("closed cleanly");
        let closed_after = stopped.elapsed();
        assert_eq!(read, 0, "nothing more on the idle connection");
        assert!(
            closed_after >= DRAIN - Duration::from_millis(100)
                && closed_after < DRAIN + Duration::from_secs(2),
            "closed when the drain period ended: {closed_after:?}"
        );
        // The listener is closed: new connections are refused. The server lets go of it as
        // the drain ends, beside the idle connection's close — moments apart, in whichever
        // order its tasks are run (a loaded machine showed the connect first), so within a
        // second, not at the same instant.
        let refused_by = Instant::now() + Duration::from_secs(1);
        while TcpStream::connect(&served.address).await.is_ok() {
            assert!(
                Instant::now() < refused_by,
                "the listener was still open a second after the drain ended"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        // The upload in flight finishes and is answered.
        uploading.write_all(&rest).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(15), uploading.read_to_end(&mut answer))
            .await
            .expect("the upload is answered")
            .unwrap();
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("\"name\":\"drained\""), "{answer}");

        // Then the process exits, successfully.
        let mut served = served;
        let deadline = Instant::now() + Duration::from_secs(15);
        let status = loop {
            if let Some(status) = served.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the process did not exit");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert!(status.success(), "{status}");
    }

    mod sqlite {
        async fn a_stop_leaves_the_rotation_first_and_loses_nothing() {
            super::a_stop_leaves_the_rotation_first_and_loses_nothing(None).await;
        }

        switchboard_testing::tests!(a_stop_leaves_the_rotation_first_and_loses_nothing);
    }

    mod postgres {
        use crate::support::{Backend, TestApp};

        async fn a_stop_leaves_the_rotation_first_and_loses_nothing() {
            // The test app gives the process a fresh database (and drops it after).
            let app = TestApp::start(Backend::Postgres).await.unwrap();
            let url = app.config.database_url.clone();
            super::a_stop_leaves_the_rotation_first_and_loses_nothing(url).await;
        }

        switchboard_testing::tests!(
            needs switchboard_testing::POSTGRES;
            a_stop_leaves_the_rotation_first_and_loses_nothing
        );
    }
}
