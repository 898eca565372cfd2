//! The engine work queue (`/v2/engine/jobs/…`): claims under a lease, one result per
//! attempt with its event, lease expiry, and several engines claiming at once.

use std::collections::HashSet;

use serde_json::{Value, json};
use switchboard_db::texts::{self, OutgoingSms};
use switchboard_domain::ids::TenantId;

use crate::engine::{self, TOKEN, engine_token};
use crate::fixture::World;
use crate::support::{Backend, TestApp};

/// Queues `n` texts of `tenant` straight through the store, as the send endpoint does.
pub(crate) async fn queue_texts(app: &TestApp, tenant: i64, n: usize) -> Vec<i64> {
    let mut tx = app.state.db.begin().await.unwrap();
    let now = chrono::Utc::now().timestamp();
    let mut ids = Vec::new();
    for i in 0..n {
        let sms = OutgoingSms {
            tenant: TenantId(tenant),
            from: "+15550001000".into(),
            to: format!("+1555000{i:04}"),
            body: format!("text {i}"),
            media_keys: Vec::new(),
            media_urls: Vec::new(),
        };
        ids.push(texts::queue_sms(&mut tx, &sms, now).await.unwrap().get());
    }
    tx.commit().await.unwrap();
    ids
}

fn result_path(job: &Value) -> String {
    format!("/v2/engine/jobs/{}/result", job["id"])
}

async fn status_of(app: &TestApp, text: i64) -> String {
    let row: (String,) = {
        use sea_query::{Expr, ExprTrait, Query};
        let select = Query::select()
            .column("status")
            .from("sms_messages")
            .and_where(Expr::col("id").eq(text))
            .take();
        app.state.db.conn().fetch_one(&select).await.unwrap()
    };
    row.0
}

/// Claims hand out each due job once, numbered; a result is recorded with its event
/// once, whatever the repeats; bad reports are refused with the contract's errors.
async fn claims_and_results(app: TestApp) {
    let w = World::seed(&app).await;
    let texts = queue_texts(&app, w.tenant_a, 3).await;
    let first = engine::claim_from(&app, &app.base, &["sms"], 2, None).await;
    assert_eq!(first.len(), 2);
    assert_eq!(first[0]["kind"], "sms");
    assert_eq!(first[0]["attempt"], 1);
    assert_eq!(first[0]["tenantId"], w.tenant_a);
    assert_eq!(first[0]["subjectId"], texts[0]);
    assert_eq!(first[0]["payload"]["to"], "+15550000000");
    assert!(first[0]["leaseUntil"].as_str().unwrap().ends_with('Z'));
    assert_eq!(status_of(&app, texts[0]).await, "sending");
    assert_eq!(status_of(&app, texts[2]).await, "queued");
    let second = engine::claim_from(&app, &app.base, &["sms"], 10, None).await;
    assert_eq!(second.len(), 1, "only the job not leased yet");
    assert_eq!(second[0]["subjectId"], texts[2]);
    assert!(
        engine::claim_from(&app, &app.base, &["sms"], 10, None)
            .await
            .is_empty()
    );

    // A result, with its SMS_SENT event, once.
    let sent = json!({"attempt": 1, "outcome": "sent", "reference": "carrier-1",
        "startedAt": "2026-11-25T08:00:00Z", "endedAt": "2026-11-25T08:00:02Z"});
    let answer = app
        .post(&result_path(&first[0]), TOKEN, sent.clone())
        .await
        .expect(200);
    assert_eq!(answer["recorded"], true);
    assert_eq!(answer["state"], "done");
    assert_eq!(status_of(&app, texts[0]).await, "sent");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        1
    );
    let again = app
        .post(&result_path(&first[0]), TOKEN, sent)
        .await
        .expect(200);
    assert_eq!(again["recorded"], false);
    assert_eq!(again["state"], "done");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        1
    );
    assert_eq!(app.count("engine_job_results", None).await, 1);

    // A failure ends the text failed, with no event.
    let failed = app
        .post(
            &result_path(&first[1]),
            TOKEN,
            json!({"attempt": 1, "outcome": "failed", "resultCode": "21610"}),
        )
        .await
        .expect(200);
    assert_eq!(failed["state"], "failed");
    assert_eq!(status_of(&app, texts[1]).await, "failed");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        1
    );

    // Refusals: an outcome the kind does not know, an attempt never handed out, an
    // unknown job, a kind that does not exist, a lease out of bounds.
    let errors = app
        .post(
            &result_path(&second[0]),
            TOKEN,
            json!({"attempt": 1, "outcome": "delivered"}),
        )
        .await
        .error(400, "ValidationError");
    assert!(errors[0].contains("outcome"), "{errors:?}");
    app.post(
        &result_path(&second[0]),
        TOKEN,
        json!({"attempt": 2, "outcome": "sent"}),
    )
    .await
    .error(409, "Conflict");
    app.post(
        "/v2/engine/jobs/999999/result",
        TOKEN,
        json!({"attempt": 1, "outcome": "sent"}),
    )
    .await
    .error(404, "NotFound");
    app.post(
        "/v2/engine/jobs/claim",
        TOKEN,
        json!({"kinds": ["pizza"], "max": 1}),
    )
    .await
    .error(400, "ValidationError");
    app.post(
        "/v2/engine/jobs/claim",
        TOKEN,
        json!({"kinds": ["sms"], "max": 1, "leaseSeconds": 1}),
    )
    .await
    .error(400, "ValidationError");
    // An ended job takes no result for a new attempt either.
    app.post(
        &result_path(&first[1]),
        TOKEN,
        json!({"attempt": 2, "outcome": "sent"}),
    )
    .await
    .error(409, "Conflict");
}

/// A job whose lease ran out goes back to the queue as a new attempt; the late result
/// of the old attempt is refused, the new one's recorded.
async fn lease_expiry_returns_the_job(app: TestApp) {
    let w = World::seed(&app).await;
    let texts = queue_texts(&app, w.tenant_a, 1).await;
    let first = engine::claim_from(&app, &app.base, &["sms"], 5, None).await;
    assert_eq!(first.len(), 1);
    assert!(
        engine::claim_from(&app, &app.base, &["sms"], 5, None)
            .await
            .is_empty(),
        "leased, not handed out twice"
    );
    // The lease runs out (moved into the past rather than waited for).
    app.raw_sql(
        "UPDATE engine_jobs SET lease_until = 1",
        "UPDATE engine_jobs SET lease_until = 1",
    )
    .await;
    let retaken = engine::claim_from(&app, &app.base, &["sms"], 5, None).await;
    assert_eq!(retaken.len(), 1);
    assert_eq!(retaken[0]["id"], first[0]["id"]);
    assert_eq!(retaken[0]["attempt"], 2);
    let late = app
        .post(
            &result_path(&first[0]),
            TOKEN,
            json!({"attempt": 1, "outcome": "sent"}),
        )
        .await
        .error(409, "Conflict");
    assert!(late.is_empty());
    assert_eq!(status_of(&app, texts[0]).await, "sending");
    let answer = app
        .post(
            &result_path(&retaken[0]),
            TOKEN,
            json!({"attempt": 2, "outcome": "sent"}),
        )
        .await
        .expect(200);
    assert_eq!(answer["recorded"], true);
    assert_eq!(status_of(&app, texts[0]).await, "sent");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        1
    );
}

/// Two reports of one attempt at once: one is recorded, one event.
async fn concurrent_results_record_once(app: TestApp) {
    let w = World::seed(&app).await;
    queue_texts(&app, w.tenant_a, 1).await;
    let job = engine::claim_from(&app, &app.base, &["sms"], 1, None)
        .await
        .remove(0);
    let body = json!({"attempt": 1, "outcome": "sent"});
    let path = result_path(&job);
    let (a, b) = tokio::join!(
        app.post(&path, TOKEN, body.clone()),
        app.post(&path, TOKEN, body.clone())
    );
    let (a, b) = (a.expect(200), b.expect(200));
    let recorded: Vec<bool> = [&a, &b]
        .iter()
        .map(|x| x["recorded"].as_bool().unwrap())
        .collect();
    assert_eq!(recorded.iter().filter(|r| **r).count(), 1, "{recorded:?}");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        1
    );
}

/// Only the engine's token and platform admins reach the queue.
async fn only_the_engine_claims(app: TestApp) {
    let w = World::seed(&app).await;
    queue_texts(&app, w.tenant_a, 1).await;
    let body = json!({"kinds": ["sms"], "max": 1});
    for user in [w.admin_a, w.partner_admin_a, w.user_a] {
        let token = app.login(user).await;
        app.post("/v2/engine/jobs/claim", &token, body.clone())
            .await
            .error(403, "Forbidden");
        app.post(
            "/v2/engine/jobs/1/result",
            &token,
            json!({"attempt": 1, "outcome": "sent"}),
        )
        .await
        .error(403, "Forbidden");
    }
    app.post("/v2/engine/jobs/claim", "not-a-token", body.clone())
        .await
        .error(401, "Unauthorized");
    assert_eq!(
        app.count("engine_jobs", Some(("state", "pending"))).await,
        1
    );
    let platform = app.login(w.platform).await;
    let jobs = app
        .post("/v2/engine/jobs/claim", &platform, body)
        .await
        .expect(200);
    assert_eq!(jobs["jobs"].as_array().unwrap().len(), 1);
}

crate::on_both_backends!(with engine_token;
    claims_and_results,
    lease_expiry_returns_the_job,
    concurrent_results_record_once,
    only_the_engine_claims,
);

/// Two `serve` processes on one PostgreSQL database, each with two engines: in rounds,
/// the four claim at once until the queue is empty. Every job is handed out exactly
/// once, and both processes hand out some (every round asks both, so neither can take
/// all the work before the other polls).
async fn two_processes_never_claim_the_same_job() {
    let app = TestApp::start_with(Backend::Postgres, engine_token)
        .await
        .unwrap();
    let sibling = app.start_sibling().await;
    let w = World::seed(&app).await;
    const JOBS: usize = 300;
    queue_texts(&app, w.tenant_a, JOBS).await;
    let (mut here, mut there) = (Vec::new(), Vec::new());
    loop {
        let (a, b, c, d) = tokio::join!(
            engine::claim_from(&app, &app.base, &["sms"], 7, None),
            engine::claim_from(&app, &app.base, &["sms"], 7, None),
            engine::claim_from(&app, &sibling.base, &["sms"], 7, None),
            engine::claim_from(&app, &sibling.base, &["sms"], 7, None),
        );
        if a.is_empty() && b.is_empty() && c.is_empty() && d.is_empty() {
            break;
        }
        for jobs in [a, b] {
            here.extend(jobs.iter().map(|j| j["id"].as_i64().unwrap()));
        }
        for jobs in [c, d] {
            there.extend(jobs.iter().map(|j| j["id"].as_i64().unwrap()));
        }
    }
    let all: Vec<i64> = [here.clone(), there.clone()].concat();
    let distinct: HashSet<i64> = all.iter().copied().collect();
    assert_eq!(
        all.len(),
        JOBS,
        "every job handed out once: {} claims",
        all.len()
    );
    assert_eq!(distinct.len(), JOBS);
    assert!(
        !here.is_empty() && !there.is_empty(),
        "both processes claimed: {} / {}",
        here.len(),
        there.len()
    );
    assert_eq!(
        app.count("engine_jobs", Some(("state", "cancelled"))).await,
        0
    );
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; two_processes_never_claim_the_same_job);
