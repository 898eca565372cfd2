//! The telephony engine's side of the API as the tests play it: the token the test service
//! is started with, claiming due jobs (`/v2/engine/jobs/claim`) and reporting a claimed
//! job's result. The queue's own rules are tested in `engine_jobs`.

use serde_json::{Value, json};
use switchboard::Config;
use switchboard::config::Secret;

use crate::support::{Answer, TestApp};

/// The engine's token in the tests that start the service with [`engine_token`].
pub const TOKEN: &str = "engine-token-for-the-queue-0123456789";

/// Starts the service with the engine's [`TOKEN`].
pub fn engine_token(config: &mut Config) {
    config.ingest_token = Some(Secret(TOKEN.into()));
}

/// Claims up to ten due jobs of `kinds`, leased for `lease_seconds` (the service's
/// default when `None`).
pub async fn claim(app: &TestApp, kinds: &[&str], lease_seconds: Option<i64>) -> Vec<Value> {
    claim_from(app, &app.base, kinds, 10, lease_seconds).await
}

/// Claims up to `max` due jobs of `kinds` from the process at `base` (one of several on
/// one database), leased for `lease_seconds` (the service's default when `None`).
pub async fn claim_from(
    app: &TestApp,
    base: &str,
    kinds: &[&str],
    max: i64,
    lease_seconds: Option<i64>,
) -> Vec<Value> {
    let mut body = json!({"kinds": kinds, "max": max});
    if let Some(seconds) = lease_seconds {
        body["leaseSeconds"] = json!(seconds);
    }
    let answer = app
        .client
        .post(format!("{base}/v2/engine/jobs/claim"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .expect("the server answers");
    let claimed = TestApp::answer(answer).await.expect(200);
    claimed["jobs"].as_array().expect("a list of jobs").clone()
}

/// Reports `result` (its `attempt`, `outcome` and what else the engine says) for the
/// claimed `job`.
pub async fn report(app: &TestApp, job: &Value, result: Value) -> Answer {
    app.post(
        &format!("/v2/engine/jobs/{}/result", job["id"]),
        TOKEN,
        result,
    )
    .await
}
