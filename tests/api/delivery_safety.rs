//! The webhook outbox under stress: a webhook deleted while its deliveries fail and new
//! events keep coming (PostgreSQL's row locks: one lock order, so no deadlock), and an
//! attempt cut off by a crash (the process killed while the receiver holds the request),
//! recorded and counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_domain::ids::TenantId;

use crate::binary::{self, Served};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Backend, JWT_SECRET, TestApp};

/// Deleting a webhook while its deliveries fail and events keep being emitted, many times
/// over: every delete answers 200, no event's transaction fails, and PostgreSQL records no
/// deadlock. Before, the worker recording an attempt locked the delivery and then the
/// webhook while the delete held the webhook and waited for the delivery: "deadlock
/// detected", a 500 for the delete (5 of 7 tries in the report).
async fn deleting_a_webhook_while_its_deliveries_fail_never_deadlocks() {
    const TRIES: usize = 25;
    let app = TestApp::start_with(Backend::Postgres, |config| {
        config.webhook_allow_private = true;
        // Failing deliveries come back at once and keep failing: the worker records
        // attempts all the time.
        config.webhook_retry_schedule = ["10ms"; 30].join(",");
        config.webhook_poll_interval_ms = 10;
    })
    .await
    .unwrap();
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // A closed port: every attempt is refused at once.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();

    // Events of the tenant, one every few milliseconds, for the whole test.
    let stop = Arc::new(AtomicBool::new(false));
    let emitter = {
        let (state, stop) = (app.state.clone(), stop.clone());
        let tenant = w.tenant_a;
        tokio::spawn(async move {
            let (mut emitted, mut failed) = (0u64, Vec::new());
            while !stop.load(Ordering::Relaxed) {
                let mut tx = state.db.begin().await.unwrap();
                let now = chrono::Utc::now().timestamp();
                let data = json!({"n": emitted});
                match switchboard_db::events::emit(
                    &mut tx,
                    TenantId(tenant),
                    "CALL_ENDED",
                    data,
                    now,
                )
                .await
                {
                    Ok(_) => {
                        tx.commit().await.unwrap();
                        emitted += 1;
                    }
                    Err(error) => failed.push(error.to_string()),
                }
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
            (emitted, failed)
        })
    };

    let mut refused = Vec::new();
    for _ in 0..TRIES {
        let created = app
            .create(
                "/v2/webhooks/",
                &token,
                json!({"tenantId": w.tenant_a, "type": "CALL_ENDED",
                "url": format!("http://127.0.0.1:{closed}/hook")}),
            )
            .await;
        let id = created["id"].as_i64().unwrap();
        // Its deliveries are failing now.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while app.count_where("webhook_attempts", "webhook_id", id).await < 5 {
            assert!(std::time::Instant::now() < deadline, "no attempts recorded");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let answer = app.delete(&format!("/v2/webhooks/{id}"), &token).await;
        if answer.status != 200 {
            refused.push(answer.body);
        }
    }
    stop.store(true, Ordering::Relaxed);
    let (emitted, failed) = emitter.await.unwrap();
    assert!(emitted > 0);
    assert!(refused.is_empty(), "deletes refused: {refused:?}");
    assert!(
        failed.is_empty(),
        "events whose transaction failed for a webhook deleted meanwhile: {failed:?}"
    );

    // The server's own count, once every connection of the test's database has ended (a
    // backend reports its figures when it exits): a deadlock the worker lost counts too.
    let database: String = {
        let select = sea_query::Query::select()
            .expr(sea_query::Expr::cust("current_database()"))
            .take();
        app.state.db.conn().scalar(&select).await.unwrap()
    };
    app.state.db.close().await;
    let admin = switchboard_testing::postgres_url();
    let pool = sqlx::PgPool::connect(&admin).await.unwrap();
    let mut deadlocks = 0i64;
    for _ in 0..50 {
        sqlx::query("SELECT pg_stat_clear_snapshot()")
            .execute(&pool)
            .await
            .unwrap();
        deadlocks = sqlx::query_scalar("SELECT deadlocks FROM pg_stat_database WHERE datname = $1")
            .bind(&database)
            .fetch_one(&pool)
            .await
            .unwrap();
        if deadlocks > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    pool.close().await;
    assert_eq!(deadlocks, 0, "PostgreSQL detected deadlocks");
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; deleting_a_webhook_while_its_deliveries_fail_never_deadlocks);

/// A receiver that takes every request whole and records its `webhook-id`, holding the
/// first one's answer for ever (its connection open, as a receiver still working on it)
/// and answering the later ones 200.
struct HoldingReceiver {
    url: String,
    ids: Arc<std::sync::Mutex<Vec<String>>>,
    server: tokio::task::JoinHandle<()>,
}

impl HoldingReceiver {
    async fn start() -> HoldingReceiver {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/held", listener.local_addr().unwrap());
        let ids: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
        let held: Arc<std::sync::Mutex<Vec<tokio::net::TcpStream>>> = Arc::default();
        let recorded = ids.clone();
        let server = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (ids, held) = (recorded.clone(), held.clone());
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let head_end = loop {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        request.extend_from_slice(&chunk[..n]);
                        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                            break at + 4;
                        }
                    };
                    let head = String::from_utf8_lossy(&request[..head_end]).to_lowercase();
                    let header = |name: &str| {
                        head.lines()
                            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
                            .unwrap_or_default()
                            .trim()
                            .to_owned()
                    };
                    let length: usize = header("content-length").parse().unwrap_or(0);
                    while request.len() < head_end + length {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        request.extend_from_slice(&chunk[..n]);
                    }
                    let first = {
                        let mut ids = ids.lock().unwrap();
                        ids.push(header("webhook-id"));
                        ids.len() == 1
                    };
                    if first {
                        held.lock().unwrap().push(socket);
                    } else {
                        let _ = socket
                            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
                            .await;
                    }
                });
            }
        });
        HoldingReceiver { url, ids, server }
    }

    fn ids(&self) -> Vec<String> {
        self.ids.lock().unwrap().clone()
    }

    /// Waits (up to a minute) until `count` requests came.
    async fn wait_for(&self, count: usize) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while self.ids().len() < count {
            assert!(
                std::time::Instant::now() < deadline,
                "{} requests of {count}",
                self.ids().len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for HoldingReceiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// The deliveries of `webhook` as listed by the service at `base`.
async fn listed(app: &TestApp, base: &str, token: &str, webhook: i64) -> Vec<Value> {
    let answer = app
        .client
        .get(format!("{base}/v2/webhooks/{webhook}/deliveries"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let body: Value = answer.json().await.unwrap();
    body["records"].as_array().unwrap().clone()
}

/// A `serve` process of the binary on `app`'s database, its objects and key, with
/// loopback receivers allowed and attempts given long enough to be killed during one.
fn serve(app: &TestApp, logs: &std::path::Path) -> Served {
    let mut command = binary::command(&app.config.data_dir, &["serve"]);
    command
        .env("SWITCHBOARD_DATABASE_URL", app.config.database_url())
        .env("SWITCHBOARD_STORAGE_URL", app.config.storage_url())
        .env("SWITCHBOARD_JWT_SECRET", JWT_SECRET)
        .env("SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE", "true")
        .env("SWITCHBOARD_WEBHOOK_TIMEOUT_SECONDS", "60");
    Served::start(command, logs)
}

/// The process sending a delivery is killed (SIGKILL) while the receiver holds the
/// request; after a restart (and its lease run out: written into the database rather
/// than waited for) the delivery is sent again under the same `webhook-id`, and the
/// delivery counts both attempts, the first one saying it was cut off. Before, the attempt
/// was recorded only once its answer came, so the receiver had 2 requests and the
/// delivery said `attemptCount: 1`.
async fn an_attempt_cut_off_by_a_crash_is_recorded(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = HoldingReceiver::start().await;
    let created = app
        .create(
            "/v2/webhooks/",
            &token,
            json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url}),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let mut first = serve(&app, logs.path());
    first.ready().await;
    // A test delivery is sent within its request, by the process answering it.
    let sending = tokio::spawn(
        app.client
            .post(format!("{}/v2/webhooks/{id}/test", first.base))
            .bearer_auth(&token)
            .send(),
    );
    receiver.wait_for(1).await;
    first.kill();
    assert!(
        sending.await.unwrap().is_err(),
        "the request died with its process"
    );

    // What the crash left: the attempt under way, counted.
    let deliveries = listed(&app, &app.base, &token, id).await;
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    assert_eq!(deliveries[0]["attemptCount"], 1, "{deliveries:?}");
    let attempts = deliveries[0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1, "{deliveries:?}");
    assert_eq!(attempts[0]["statusCode"], Value::Null);
    assert!(
        attempts[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no outcome recorded")),
        "{deliveries:?}"
    );

    app.raw_sql(
        "UPDATE webhook_deliveries SET lease_until = 0;",
        "UPDATE webhook_deliveries SET lease_until = 0;",
    )
    .await;
    let mut restarted = serve(&app, logs.path());
    restarted.ready().await;
    receiver.wait_for(2).await;
    let ids = receiver.ids();
    assert_eq!(ids[0], ids[1], "sent again under the same webhook-id");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let deliveries = loop {
        let deliveries = listed(&app, &restarted.base, &token, id).await;
        if deliveries[0]["state"] == "delivered" {
            break deliveries;
        }
        assert!(std::time::Instant::now() < deadline, "{deliveries:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(deliveries[0]["attemptCount"], 2, "{deliveries:?}");
    let attempts = deliveries[0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{deliveries:?}");
    assert_eq!(attempts[0]["statusCode"], Value::Null, "{deliveries:?}");
    assert_eq!(attempts[1]["statusCode"], 200, "{deliveries:?}");
    assert_eq!(
        receiver.ids().len(),
        2,
        "what the receiver got, the delivery counts"
    );
}

/// The test's own server may send too (its worker polls the same outbox): it is allowed
/// the loopback receiver as the binary is.
fn loopback_allowed(config: &mut switchboard::Config) {
    config.webhook_allow_private = true;
}

on_both_backends!(with loopback_allowed; an_attempt_cut_off_by_a_crash_is_recorded);
