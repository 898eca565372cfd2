//! The webhook outbox under stress: a webhook deleted while its deliveries fail and new
//! events keep coming (PostgreSQL's row locks: one lock order, so no deadlock), and an
//! attempt cut off by a crash (the process killed while the receiver holds the request),
//! recorded and counted.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use switchboard_domain::ids::TenantId;

use crate::fixture::World;
use crate::support::{Backend, TestApp};

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
                state.jobs.wake();
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
            (emitted, failed)
        })
    };

    let mut refused = Vec::new();
    for _ in 0..TRIES {
        let created = app
            .post(
                "/v2/webhooks/",
                &token,
                json!({"tenantId": w.tenant_a, "type": "CALL_ENDED",
                       "url": format!("http://127.0.0.1:{closed}/hook")}),
            )
            .await
            .expect(200);
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
