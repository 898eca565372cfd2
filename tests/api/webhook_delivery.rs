//! Webhook delivery end to end: events emitted into the outbox reach a real HTTP receiver
//! on loopback, signed the Standard Webhooks way (verified here independently), with
//! Basic or bearer credentials, retried with the same `webhook-id`, honouring
//! `Retry-After`, never twice; 410 and long failure disable the webhook; tenants never
//! see each other's events; non-public targets are refused; two processes on one
//! PostgreSQL database deliver each event once.

use std::collections::HashSet;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use switchboard::Config;
use switchboard_domain::ids::{EventId, TenantId, WebhookId};

use crate::fixture::World;
use crate::on_both_backends;
use crate::receiver::{Received, Receiver, Reply};
use crate::support::TestApp;

/// Loopback receivers allowed, retries 100 ms apart, quick polling, and a failure window
/// of 3 s standing in for 5 days.
fn fast(config: &mut Config) {
    config.webhook_allow_private = true;
    config.webhook_retry_schedule = "100ms,100ms,100ms,100ms,100ms,100ms,100ms".into();
    config.webhook_poll_interval_ms = 50;
    config.webhook_disable_after_seconds = 3;
    config.webhook_timeout_seconds = 10;
}

/// Emits an event of `kind` for `tenant` the way the rest of the service does: in a
/// transaction, whose commit wakes the worker.
async fn emit(app: &TestApp, tenant: i64, kind: &str, data: Value) -> EventId {
    let mut tx = app.state.db.begin().await.unwrap();
    let now = chrono::Utc::now().timestamp();
    let event = switchboard_db::events::emit(&mut tx, TenantId(tenant), kind, data, now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    event
}

fn call(direction: &str) -> Value {
    json!({"uniqueId": "1763800000.42", "direction": direction, "callerIdNum": "+15551230000",
           "callerIdName": "Ada Lovelace", "dialedNum": "+15559870000",
           "time": "2026-11-22T09:58:00Z", "duration": 95, "status": "answered",
           "disposition": "ANSWERED"})
}

/// Creates a webhook, answering its id and signing secret.
async fn webhook(app: &TestApp, token: &str, body: Value) -> (i64, String) {
    let created = app.post("/v2/webhooks/", token, body).await.expect(200);
    (
        created["id"].as_i64().unwrap(),
        created["signingSecret"].as_str().unwrap().to_owned(),
    )
}

/// Standard Webhooks verification, written from the specification rather than taken
/// from the service: HMAC-SHA256 keyed with the base64 secret after `whsec_`, over
/// `{id}.{timestamp}.{body}`; any of the space-separated `v1,` signatures may match.
fn verifies(request: &Received, secret: &str) -> bool {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(
        format!(
            "{}.{}.",
            request.header("webhook-id"),
            request.header("webhook-timestamp")
        )
        .as_bytes(),
    );
    mac.update(&request.body);
    let expected = STANDARD.encode(mac.finalize().into_bytes());
    request
        .header("webhook-signature")
        .split(' ')
        .any(|signature| signature.strip_prefix("v1,") == Some(expected.as_str()))
}

async fn deliveries(app: &TestApp, token: &str, webhook: i64) -> Vec<Value> {
    app.get(&format!("/v2/webhooks/{webhook}/deliveries"), token)
        .await
        .expect(200)["records"]
        .as_array()
        .unwrap()
        .clone()
}

/// Waits until the webhook's deliveries satisfy `done`.
async fn wait_deliveries(
    app: &TestApp,
    token: &str,
    webhook: i64,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let records = deliveries(app, token, webhook).await;
        if done(&records) {
            return records;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "deliveries never got there: {records:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn wait_disabled(app: &TestApp, token: &str, webhook: i64) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let read = app
            .get(&format!("/v2/webhooks/{webhook}"), token)
            .await
            .expect(200);
        if !read["disabledAt"].is_null() {
            return read;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never disabled: {read}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn signed_with_basic_auth_and_sent_once(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    let (id, secret) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url("/calls"),
               "username": "crm", "password": "s3cret-pass"}),
    )
    .await;
    let before = chrono::Utc::now().timestamp();
    // An event of another type is not for this webhook.
    emit(&app, w.tenant_a, "CALL_STARTED", call("inbound")).await;
    emit(&app, w.tenant_a, "CALL_ENDED", call("inbound")).await;
    let request = receiver.wait_for("/calls", 1).await.remove(0);
    assert!(verifies(&request, &secret), "the signature verifies");
    assert!(!verifies(
        &request,
        "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    ));
    assert!(request.header("webhook-id").starts_with("msg_"));
    let timestamp: i64 = request.header("webhook-timestamp").parse().unwrap();
    assert!(
        (before - 5..=before + 60).contains(&timestamp),
        "{timestamp}"
    );
    assert_eq!(
        request.header("authorization"),
        format!("Basic {}", STANDARD.encode("crm:s3cret-pass"))
    );
    assert!(
        request
            .header("content-type")
            .starts_with("application/json")
    );
    let body = request.json();
    assert_eq!(body["type"], "CALL_ENDED");
    assert_eq!(body["tenantId"], w.tenant_a);
    assert_eq!(body["data"], call("inbound"));
    assert!(body["timestamp"].as_str().unwrap().ends_with('Z'));

    let records = wait_deliveries(&app, &token, id, |d| {
        d.len() == 1 && d[0]["state"] == "delivered"
    })
    .await;
    let delivery = &records[0];
    assert_eq!(delivery["messageId"], request.header("webhook-id"));
    assert_eq!(delivery["eventType"], "CALL_ENDED");
    assert_eq!(delivery["attemptCount"], 1);
    assert!(delivery["nextAttemptAt"].is_null());
    assert_eq!(delivery["attempts"][0]["statusCode"], 200);
    assert_eq!(delivery["attempts"][0]["response"], "answered 200");
    assert!(delivery["attempts"][0]["error"].is_null());

    // Delivered means done: many polls later, still one request.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(receiver.all().len(), 1);
}

async fn rotation_signs_with_both_secrets(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    let (id, old) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "SMS_RECEIVED", "url": receiver.url("/sms")}),
    )
    .await;
    let rotated = app
        .post(
            &format!("/v2/webhooks/{id}/rotate-secret"),
            &token,
            json!({}),
        )
        .await
        .expect(200);
    let new = rotated["signingSecret"].as_str().unwrap();
    emit(&app, w.tenant_a, "SMS_RECEIVED", json!({"text": "hi"})).await;
    let request = receiver.wait_for("/sms", 1).await.remove(0);
    assert_eq!(request.header("webhook-signature").split(' ').count(), 2);
    assert!(verifies(&request, new));
    assert!(verifies(&request, &old));
    // No credentials configured: no Authorization header.
    assert_eq!(request.header("authorization"), "");

    // Concurrent rotations chain: the two secrets that sign afterwards are the last two
    // answered, so no caller was handed a secret that never signs.
    let rotate = format!("/v2/webhooks/{id}/rotate-secret");
    let rotations = (0..6).map(|_| app.post(&rotate, &token, json!({})));
    let answered: Vec<String> = futures::future::join_all(rotations)
        .await
        .into_iter()
        .map(|a| a.expect(200)["signingSecret"].as_str().unwrap().to_owned())
        .collect();
    emit(&app, w.tenant_a, "SMS_RECEIVED", json!({"text": "again"})).await;
    let request = receiver.wait_for("/sms", 2).await.remove(1);
    let signing: Vec<&String> = answered.iter().filter(|s| verifies(&request, s)).collect();
    assert_eq!(signing.len(), 2, "the current and the previous secret sign");
    assert!(
        !verifies(&request, new),
        "the secret before the burst no longer signs"
    );
}

async fn failures_are_retried_with_the_same_id(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    receiver.script(
        "/flaky",
        vec![
            Reply::status(500).with_body("x".repeat(5000)),
            Reply::status(502),
        ],
    );
    let (id, secret) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url("/flaky")}),
    )
    .await;
    emit(&app, w.tenant_a, "CALL_ENDED", call("outbound")).await;
    let requests = receiver.wait_for("/flaky", 3).await;
    let ids: HashSet<String> = requests.iter().map(|r| r.header("webhook-id")).collect();
    assert_eq!(ids.len(), 1, "one webhook-id across retries");
    assert!(requests.iter().all(|r| verifies(r, &secret)));
    let records = wait_deliveries(&app, &token, id, |d| {
        d.len() == 1 && d[0]["state"] == "delivered"
    })
    .await;
    let attempts = records[0]["attempts"].as_array().unwrap();
    let statuses: Vec<&Value> = attempts.iter().map(|a| &a["statusCode"]).collect();
    assert_eq!(statuses, [&json!(500), &json!(502), &json!(200)]);
    assert_eq!(records[0]["attemptCount"], 3);
    assert_eq!(attempts[0]["response"].as_str().unwrap().len(), 1024);
    assert_eq!(attempts[0]["error"], "the receiver answered 500");
    assert!(attempts[0]["latencyMs"].as_i64().unwrap() >= 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received("/flaky").len(), 3);
}

async fn retry_after_is_honoured(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    receiver.script(
        "/busy",
        vec![Reply::status(503).with_header("retry-after", "2")],
    );
    webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "FAX_RECEIVED", "url": receiver.url("/busy")}),
    )
    .await;
    emit(&app, w.tenant_a, "FAX_RECEIVED", json!({"pages": 2})).await;
    let requests = receiver.wait_for("/busy", 2).await;
    let gap = requests[1].at - requests[0].at;
    // The schedule says 100 ms; the receiver asked for 2 s.
    assert!(gap >= Duration::from_millis(1900), "retried after {gap:?}");
}

async fn gone_disables_with_an_audit_entry_until_patched(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    receiver.script("/gone", vec![Reply::status(410)]);
    let (id, _) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_MISSED", "url": receiver.url("/gone")}),
    )
    .await;
    emit(&app, w.tenant_a, "CALL_MISSED", call("inbound")).await;
    let read = wait_disabled(&app, &token, id).await;
    assert!(
        read["disabledReason"].as_str().unwrap().contains("410"),
        "{read}"
    );
    let records = wait_deliveries(&app, &token, id, |d| d.len() == 1).await;
    assert_eq!(records[0]["state"], "failed");
    let audit = app.audit_entries(&token, "action=webhook.disabled").await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    let entry = &audit[0];
    assert_eq!(entry["entity"], "webhook");
    assert_eq!(entry["entityId"], id.to_string());
    assert_eq!(entry["tenantId"], w.tenant_a);
    assert!(entry["details"]["reason"].as_str().unwrap().contains("410"));

    // Disabled: new events are not queued for it, and a replay is refused.
    emit(&app, w.tenant_a, "CALL_MISSED", call("inbound")).await;
    let delivery = records[0]["id"].as_i64().unwrap();
    app.post(
        &format!("/v2/webhooks/deliveries/{delivery}/replay"),
        &token,
        json!({}),
    )
    .await
    .error(409, "Conflict");
    // An event that raced the disabling may still have queued a delivery: the worker
    // fails it without sending anything.
    let event: i64 = app
        .state
        .db
        .conn()
        .scalar(
            &sea_query::Query::select()
                .column("event_id")
                .from("webhook_deliveries")
                .take(),
        )
        .await
        .unwrap();
    let mut tx = app.state.db.begin().await.unwrap();
    let now = chrono::Utc::now().timestamp();
    let raced = switchboard_db::events::queue(&mut tx, WebhookId(id), EventId(event), None, now)
        .await
        .unwrap()
        .get();
    tx.commit().await.unwrap();
    let records = wait_deliveries(&app, &token, id, |d| {
        d.iter().any(|r| r["id"] == raced && r["state"] == "failed")
    })
    .await;
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(receiver.received("/gone").len(), 1, "nothing more was sent");
    // A PATCH enables it again.
    let enabled = app
        .patch(&format!("/v2/webhooks/{id}"), &token, json!({}))
        .await
        .expect(200);
    assert!(enabled["disabledAt"].is_null() && enabled["disabledReason"].is_null());
    let audit = app.audit_entries(&token, "action=webhook.enabled").await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["entityId"], id.to_string());
    assert!(!audit[0]["userId"].is_null(), "{audit:?}");
    emit(&app, w.tenant_a, "CALL_MISSED", call("inbound")).await;
    receiver.wait_for("/gone", 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.received("/gone").len(), 2);
}

async fn long_failure_disables_with_an_audit_entry(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    receiver.always("/down", Reply::status(500));
    let (id, _) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "SMS_SENT", "url": receiver.url("/down")}),
    )
    .await;
    emit(&app, w.tenant_a, "SMS_SENT", json!({"text": "a"})).await;
    emit(&app, w.tenant_a, "SMS_SENT", json!({"text": "b"})).await;
    // Failing for longer than the window (3 s here, 5 days in production) disables.
    let read = wait_disabled(&app, &token, id).await;
    assert!(
        read["disabledReason"]
            .as_str()
            .unwrap()
            .contains("without a success"),
        "{read}"
    );
    let records = wait_deliveries(&app, &token, id, |d| {
        d.iter().all(|d| d["state"] == "failed")
    })
    .await;
    assert_eq!(records.len(), 2);
    let audit = app.audit_entries(&token, "action=webhook.disabled").await;
    assert_eq!(audit.len(), 1, "disabled once: {audit:?}");
    let sent = receiver.received("/down").len();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        receiver.received("/down").len(),
        sent,
        "nothing after disabling"
    );
}

async fn tenants_never_see_each_others_events(app: TestApp) {
    let w = World::seed(&app).await;
    let token_a = app.login(w.admin_a).await;
    let token_b = app.login(w.admin_b).await;
    let receiver = Receiver::start().await;
    let (a, _) = webhook(
        &app,
        &token_a,
        json!({"tenantId": w.tenant_a, "type": "VOICEMAIL_RECEIVED", "url": receiver.url("/a")}),
    )
    .await;
    let (b, _) = webhook(
        &app,
        &token_b,
        json!({"tenantId": w.tenant_b, "type": "VOICEMAIL_RECEIVED", "url": receiver.url("/b")}),
    )
    .await;
    emit(
        &app,
        w.tenant_a,
        "VOICEMAIL_RECEIVED",
        json!({"mailbox": "101"}),
    )
    .await;
    emit(
        &app,
        w.tenant_a,
        "VOICEMAIL_RECEIVED",
        json!({"mailbox": "102"}),
    )
    .await;
    emit(
        &app,
        w.tenant_b,
        "VOICEMAIL_RECEIVED",
        json!({"mailbox": "201"}),
    )
    .await;
    let to_a = receiver.wait_for("/a", 2).await;
    let to_b = receiver.wait_for("/b", 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received("/a").len(), 2);
    assert_eq!(receiver.received("/b").len(), 1);
    assert!(to_a.iter().all(|r| r.json()["tenantId"] == w.tenant_a));
    assert_eq!(to_b[0].json()["data"]["mailbox"], "201");

    // Deliveries of another tenant's webhook are a 404, like the webhook itself.
    app.get(&format!("/v2/webhooks/{a}/deliveries"), &token_b)
        .await
        .error(404, "NotFound");
    app.post(&format!("/v2/webhooks/{a}/test"), &token_b, json!({}))
        .await
        .error(404, "NotFound");
    let delivery = deliveries(&app, &token_a, a).await[0]["id"]
        .as_i64()
        .unwrap();
    app.post(
        &format!("/v2/webhooks/deliveries/{delivery}/replay"),
        &token_b,
        json!({}),
    )
    .await
    .error(404, "NotFound");
    assert_eq!(deliveries(&app, &token_b, b).await.len(), 1);
}

async fn hubspot_gets_call_objects_with_the_bearer_token(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "HubSpotCRM", "url": receiver.url("/crm/v3/objects/calls"),
               "authtoken": "pat-na1-secret"}),
    )
    .await;
    emit(&app, w.tenant_a, "CALL_STARTED", call("inbound")).await;
    emit(&app, w.tenant_a, "CALL_ENDED", call("inbound")).await;
    let mut missed = call("outbound");
    missed["duration"] = json!(0);
    missed["disposition"] = json!("NO ANSWER");
    emit(&app, w.tenant_a, "CALL_MISSED", missed).await;
    let requests = receiver.wait_for("/crm/v3/objects/calls", 2).await;
    for request in &requests {
        assert_eq!(request.header("authorization"), "Bearer pat-na1-secret");
    }
    let bodies: Vec<Value> = requests.iter().map(Received::json).collect();
    let ended = bodies
        .iter()
        .find(|b| b["properties"]["hs_call_status"] == "COMPLETED")
        .expect("the ended call");
    assert_eq!(
        ended["properties"],
        json!({
            "hs_timestamp": "2026-11-22T09:58:00Z",
            "hs_call_title": "Inbound call from Ada Lovelace (+15551230000)",
            "hs_call_body": "inbound call 1763800000.42 from Ada Lovelace (+15551230000) to +15559870000; 95 s; disposition ANSWERED",
            "hs_call_direction": "INBOUND",
            "hs_call_duration": 95000,
            "hs_call_from_number": "+15551230000",
            "hs_call_to_number": "+15559870000",
            "hs_call_status": "COMPLETED",
        })
    );
    let missed = bodies
        .iter()
        .find(|b| b["properties"]["hs_call_status"] == "NO_ANSWER")
        .expect("the missed call");
    assert_eq!(missed["properties"]["hs_call_direction"], "OUTBOUND");
    assert_eq!(missed["properties"]["hs_call_duration"], 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.all().len(), 2, "CALL_STARTED is not for HubSpot");
}

async fn test_and_replay_endpoints(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    let (id, secret) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "RECORDING_READY", "url": receiver.url("/rec")}),
    )
    .await;
    let tested = app
        .post(&format!("/v2/webhooks/{id}/test"), &token, json!({}))
        .await
        .expect(200);
    assert_eq!(tested["state"], "delivered", "{tested}");
    assert_eq!(tested["eventType"], "RECORDING_READY");
    assert_eq!(tested["attempts"][0]["statusCode"], 200);
    let request = receiver.received("/rec").remove(0);
    assert!(verifies(&request, &secret));
    assert_eq!(request.header("webhook-id"), tested["messageId"]);
    assert_eq!(request.json()["type"], "RECORDING_READY");

    // The caller sees what a failing receiver said.
    receiver.script(
        "/rec",
        vec![Reply::status(400).with_body("bad signature?".into())],
    );
    let failed = app
        .post(&format!("/v2/webhooks/{id}/test"), &token, json!({}))
        .await
        .expect(200);
    assert_eq!(failed["state"], "pending");
    assert_eq!(failed["attempts"][0]["statusCode"], 400);
    assert_eq!(failed["attempts"][0]["response"], "bad signature?");
    assert!(!failed["nextAttemptAt"].is_null());

    // A replay is a new delivery of the same event, with a new message id.
    let first = tested["id"].as_i64().unwrap();
    let replayed = app
        .post(
            &format!("/v2/webhooks/deliveries/{first}/replay"),
            &token,
            json!({}),
        )
        .await
        .expect(200);
    assert_eq!(replayed["eventId"], tested["eventId"]);
    assert_ne!(replayed["messageId"], tested["messageId"]);
    assert_eq!(replayed["state"], "pending");
    let ids = wait_deliveries(&app, &token, id, |d| {
        d.len() == 3 && d.iter().all(|d| d["state"] == "delivered")
    })
    .await;
    assert_eq!(ids.len(), 3);
    let replay_request = receiver
        .all()
        .into_iter()
        .find(|r| r.header("webhook-id") == replayed["messageId"])
        .expect("the replay arrived");
    assert_eq!(replay_request.body, request.body, "the same event");

    // The list: envelope, paging, filter, sort; bad parameters are 400s.
    let page = app
        .get(
            &format!("/v2/webhooks/{id}/deliveries?recordsPerPage=2&sortBy=id&sortDirection=desc"),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 3);
    assert_eq!(page["maxPage"], 2);
    assert_eq!(page["records"][0]["id"], replayed["id"]);
    let all = app
        .get(
            &format!("/v2/webhooks/{id}/deliveries?paginated=0&state=delivered"),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(all["totalRecords"], 3);
    app.get(&format!("/v2/webhooks/{id}/deliveries?state=lost"), &token)
        .await
        .error(400, "ValidationError");
    app.get("/v2/webhooks/abc/deliveries", &token)
        .await
        .error(400, "ValidationError");
    app.get("/v2/webhooks/999999/deliveries", &token)
        .await
        .error(404, "NotFound");
    app.post("/v2/webhooks/deliveries/999999/replay", &token, json!({}))
        .await
        .error(404, "NotFound");
    let user = app.login(w.user_a).await;
    app.post(&format!("/v2/webhooks/{id}/test"), &user, json!({}))
        .await
        .error(403, "Forbidden");
}

async fn hubspot_test_sends_a_sample_call(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    let (id, _) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "HubSpotCRM", "url": receiver.url("/hs"), "authtoken": "t"}),
    )
    .await;
    let tested = app
        .post(&format!("/v2/webhooks/{id}/test"), &token, json!({}))
        .await
        .expect(200);
    assert_eq!(tested["eventType"], "CALL_ENDED");
    assert_eq!(tested["state"], "delivered");
    let request = receiver.received("/hs").remove(0);
    assert_eq!(request.json()["properties"]["hs_call_status"], "COMPLETED");
    assert_eq!(request.header("authorization"), "Bearer t");
}

/// From the engine to the receiver: each ingest path's event reaches the tenant's
/// webhook subscribed to it, once, and only that tenant's.
async fn ingested_records_are_delivered(app: TestApp) {
    let world = World::seed(&app).await;
    let receiver = Receiver::start().await;
    let platform = app.login(world.platform).await;
    let admin_a = app.login(world.admin_a).await;
    let admin_b = app.login(world.admin_b).await;
    for (kind, path) in [
        ("VOICEMAIL_RECEIVED", "/vm"),
        ("CALL_STARTED", "/started"),
        ("CALL_ENDED", "/ended"),
        ("RECORDING_READY", "/recording"),
        ("SMS_RECEIVED", "/sms-in"),
        ("FAX_SENT", "/fax-out"),
    ] {
        webhook(
            &app,
            &admin_a,
            json!({"tenantId": world.tenant_a, "type": kind, "url": receiver.url(path)}),
        )
        .await;
    }
    webhook(&app, &admin_b, json!({"tenantId": world.tenant_b, "type": "VOICEMAIL_RECEIVED", "url": receiver.url("/b")})).await;

    app.post("/v2/ingest/voicemail-messages", &platform, json!({"tenantId": world.tenant_a, "mailboxUser": "101", "msgId": "1763800000-1", "dateUnix": 1_763_800_000, "callerId": "\"Ada\" <5551230000>"})).await.expect(200);
    let call = json!({"tenantId": world.tenant_a, "uniqueId": "1763800000.7", "event": "started", "direction": "inbound", "time": "2026-11-22T09:58:00Z", "callerIdNum": "5551230000", "dialedNum": "101"});
    app.post("/v2/ingest/calls", &platform, call.clone())
        .await
        .expect(200);
    let mut ended = call;
    ended["event"] = json!("ended");
    ended["answerTime"] = json!("2026-11-22T09:58:05Z");
    ended["endTime"] = json!("2026-11-22T10:00:00Z");
    app.push(
        &platform,
        "/v2/ingest/calls",
        ("call", ended),
        Some(("recording", crate::support::fixture("tone.wav"))),
    )
    .await
    .expect(200);
    app.post("/v2/ingest/sms", &platform, json!({"tenantId": world.tenant_a, "messageId": "SM1", "direction": "inbound", "from": "+15551230000", "to": "+15559870000", "body": "hi"})).await.expect(200);
    app.post("/v2/ingest/faxes", &platform, json!({"tenantId": world.tenant_a, "faxId": "FX1", "direction": "outbound", "from": "+15559870000", "to": "+15551230000", "pages": 2})).await.expect(200);

    let voicemail = receiver.wait_for("/vm", 1).await.remove(0).json();
    assert_eq!(
        (
            voicemail["type"].clone(),
            voicemail["data"]["mailboxUser"].clone()
        ),
        (json!("VOICEMAIL_RECEIVED"), json!("101"))
    );
    assert_eq!(
        receiver.wait_for("/started", 1).await[0].json()["data"]["status"],
        "started"
    );
    assert_eq!(
        receiver.wait_for("/ended", 1).await[0].json()["data"]["duration"],
        120
    );
    let recording = receiver.wait_for("/recording", 1).await.remove(0).json();
    assert_eq!(
        recording["data"]["recording"]["path"],
        "/v2/admin/call-recordings/1763800000.7"
    );
    assert_eq!(
        receiver.wait_for("/sms-in", 1).await[0].json()["data"]["body"],
        "hi"
    );
    assert_eq!(
        receiver.wait_for("/fax-out", 1).await[0].json()["data"]["pages"],
        2
    );
    // Once each; tenant B's webhook saw nothing of tenant A's.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    for path in [
        "/vm",
        "/started",
        "/ended",
        "/recording",
        "/sms-in",
        "/fax-out",
    ] {
        assert_eq!(receiver.received(path).len(), 1, "{path}");
    }
    assert!(receiver.received("/b").is_empty());
}

/// The webhook client follows no redirect: a 302 is the attempt's answer (not a
/// delivery), and where it points is never asked.
async fn redirects_are_not_followed(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    receiver.always(
        "/moved",
        Reply::status(302).with_header("location", &receiver.url("/target")),
    );
    let (id, _) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url("/moved")}),
    )
    .await;
    let tested = app
        .post(&format!("/v2/webhooks/{id}/test"), &token, json!({}))
        .await
        .expect(200);
    assert_eq!(tested["attempts"][0]["statusCode"], 302, "{tested}");
    assert_ne!(tested["state"], "delivered", "{tested}");
    assert_eq!(receiver.received("/moved").len(), 1);
    assert!(receiver.received("/target").is_empty(), "not followed");
}

/// An event is written in its record's transaction (`crates/db/src/events.rs`): when the
/// transaction's last statement fails — a trigger injected on `webhook_deliveries` raises
/// on the delivery queued after the text message and its event were written — neither the
/// message nor the event remains and nothing is sent. Without the failure, the same push
/// records the message as new and its one event is delivered once.
async fn no_event_when_its_records_transaction_fails(app: TestApp) {
    let w = World::seed(&app).await;
    let receiver = Receiver::start().await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    webhook(
        &app,
        &admin,
        json!({"tenantId": w.tenant_a, "type": "SMS_RECEIVED", "url": receiver.url("/sms")}),
    )
    .await;
    let sms = json!({"tenantId": w.tenant_a, "messageId": "SM-TX", "direction": "inbound",
                     "from": "+15551230000", "to": "+15559870000", "body": "hello"});
    app.inject_failure("INSERT", "webhook_deliveries").await;
    let failed = app.post("/v2/ingest/sms", &platform, sms.clone()).await;
    assert_eq!(failed.status, 500, "{}", failed.body);
    assert_eq!(app.count("webhook_events", None).await, 0, "no event");
    assert_eq!(app.count("sms_messages", None).await, 0, "no message");
    assert_eq!(app.count("webhook_deliveries", None).await, 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(receiver.all().is_empty(), "nothing was sent");

    app.remove_failure("webhook_deliveries").await;
    let recorded = app.post("/v2/ingest/sms", &platform, sms).await.expect(200);
    assert_eq!(recorded["recorded"], true, "the failed push left nothing");
    assert_eq!(app.count("webhook_events", None).await, 1);
    let sent = receiver.wait_for("/sms", 1).await;
    assert_eq!(sent[0].json()["data"]["messageId"], "SM-TX");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.all().len(), 1, "one event, sent once");
}

/// A worker that claims a delivery and dies (a claim with nobody behind it: the lease is
/// taken through the same call the workers use, here ending 2 s after the delivery is
/// due instead of 75 s): nobody sends it while the lease holds, and once it has run out
/// the live process takes it over and delivers it exactly once, under the same
/// `webhook-id`.
async fn an_expired_lease_is_taken_over_and_delivered_once(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = Receiver::start().await;
    let (id, _) = webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url("/taken")}),
    )
    .await;
    // Due in 2 s, so the live worker cannot claim it before the dead one does.
    let now = chrono::Utc::now().timestamp();
    let (due, lease_until) = (now + 2, now + 4);
    let mut tx = app.state.db.begin().await.unwrap();
    switchboard_db::events::emit(
        &mut tx,
        TenantId(w.tenant_a),
        "CALL_ENDED",
        call("inbound"),
        due,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let claimed =
        switchboard_db::deliveries::claim(&app.state.db, "dead-worker", due, lease_until, 10)
            .await
            .unwrap();
    assert_eq!(claimed.len(), 1, "the dead worker holds the delivery");
    while chrono::Utc::now().timestamp() < lease_until {
        assert!(
            receiver.all().is_empty(),
            "sent while the lease held: {:?}",
            receiver.all().len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let sent = receiver.wait_for("/taken", 1).await;
    assert_eq!(sent[0].header("webhook-id"), claimed[0].message_id);
    // Long enough for a second sending to show.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(receiver.all().len(), 1, "delivered exactly once");
    let done = wait_deliveries(&app, &token, id, |d| d[0]["state"] == "delivered").await;
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["attempts"].as_array().unwrap().len(), 1, "{done:?}");
}

on_both_backends!(with fast;
    no_event_when_its_records_transaction_fails,
    an_expired_lease_is_taken_over_and_delivered_once,
    redirects_are_not_followed,
    ingested_records_are_delivered,
    signed_with_basic_auth_and_sent_once,
    rotation_signs_with_both_secrets,
    failures_are_retried_with_the_same_id,
    retry_after_is_honoured,
    gone_disables_with_an_audit_entry_until_patched,
    long_failure_disables_with_an_audit_entry,
    tenants_never_see_each_others_events,
    hubspot_gets_call_objects_with_the_bearer_token,
    test_and_replay_endpoints,
    hubspot_test_sends_a_sample_call,
);

/// A receiver that holds every answer until `needed` requests wait at once (or 30 s pass),
/// recording the most that ever waited together and each request's `webhook-id` and event.
struct GatedReceiver {
    address: std::net::SocketAddr,
    gate: std::sync::Arc<Gate>,
    server: tokio::task::JoinHandle<()>,
}

struct Gate {
    needed: usize,
    waiting: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
    open: tokio::sync::watch::Sender<bool>,
    received: std::sync::Mutex<Vec<(String, i64)>>,
}

async fn gated(
    axum::extract::State(gate): axum::extract::State<std::sync::Arc<Gate>>,
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
) -> axum::http::StatusCode {
    use std::sync::atomic::Ordering::SeqCst;
    let id = headers["webhook-id"].to_str().unwrap().to_owned();
    let event: Value = serde_json::from_slice(&body).unwrap();
    gate.received
        .lock()
        .unwrap()
        .push((id, event["data"]["n"].as_i64().unwrap()));
    let waiting = gate.waiting.fetch_add(1, SeqCst) + 1;
    gate.peak.fetch_max(waiting, SeqCst);
    if waiting >= gate.needed {
        gate.open.send_replace(true);
    }
    let mut open = gate.open.subscribe();
    let _ = tokio::time::timeout(Duration::from_secs(30), open.wait_for(|open| *open)).await;
    // Past the deadline, open for everyone: the test then fails on the peak, not on timeouts.
    gate.open.send_replace(true);
    gate.waiting.fetch_sub(1, SeqCst);
    axum::http::StatusCode::OK
}

impl GatedReceiver {
    async fn start(needed: usize) -> GatedReceiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let gate = std::sync::Arc::new(Gate {
            needed,
            waiting: 0.into(),
            peak: 0.into(),
            open: tokio::sync::watch::channel(false).0,
            received: Default::default(),
        });
        let app = axum::Router::new().fallback(gated).with_state(gate.clone());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        GatedReceiver {
            address,
            gate,
            server,
        }
    }

    fn received(&self) -> Vec<(String, i64)> {
        self.gate.received.lock().unwrap().clone()
    }
}

impl Drop for GatedReceiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// Two `serve` processes on one PostgreSQL database: each of many events reaches the
/// receiver exactly once, and both processes take part.
///
/// Deterministic under load: one process sends at most `max_in_flight` deliveries at once,
/// so the receiver holds every answer until one more than that wait together — which only
/// both processes can make. (It answered at once before, and on a loaded machine one
/// worker delivered all 200 before the other polled: `left: 1, right: 2` on the owners.)
async fn two_processes_deliver_each_event_once() {
    let app = TestApp::start_with(crate::support::Backend::Postgres, |config| {
        fast(config);
        // Answers are held until both processes send: no attempt may time out meanwhile.
        config.webhook_timeout_seconds = 60;
    })
    .await
    .unwrap();
    let sibling = app.start_sibling().await;
    let one_process = app.state.jobs.settings().max_in_flight;
    assert_eq!(sibling.state.jobs.settings().max_in_flight, one_process);
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let receiver = GatedReceiver::start(one_process + 1).await;
    webhook(
        &app,
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": format!("http://{}/both", receiver.address)}),
    )
    .await;
    const EVENTS: usize = 200;
    for batch in 0..10 {
        let mut tx = app.state.db.begin().await.unwrap();
        let now = chrono::Utc::now().timestamp();
        for n in 0..EVENTS / 10 {
            switchboard_db::events::emit(
                &mut tx,
                TenantId(w.tenant_a),
                "CALL_ENDED",
                json!({"n": batch * 100 + n}),
                now,
            )
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
    }
    crate::receiver::eventually(Duration::from_secs(90), || {
        (receiver.received().len() >= EVENTS).then_some(())
    })
    .await
    .unwrap_or_else(|| panic!("{} of {EVENTS} arrived", receiver.received().len()));
    let peak = receiver.gate.peak.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        peak > one_process,
        "both processes sent at once: at most {peak} requests waited together"
    );
    // Long enough for any second sending to show.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let received = receiver.received();
    assert_eq!(received.len(), EVENTS, "no event was sent twice");
    let ids: HashSet<&str> = received.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids.len(), EVENTS);
    let events: HashSet<i64> = received.iter().map(|(_, n)| *n).collect();
    assert_eq!(events.len(), EVENTS);

    // Which process delivered each (the lease owner stays on a delivered row).
    let url = app.config.database_url.clone().unwrap();
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let owners: Vec<(String, i64)> = sqlx::query_as(
        "SELECT lease_owner, COUNT(*) FROM webhook_deliveries WHERE state = 'delivered' GROUP BY lease_owner",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    let mine: HashSet<&str> = [app.state.jobs.owner(), sibling.state.jobs.owner()]
        .into_iter()
        .collect();
    assert_eq!(owners.iter().map(|(_, n)| n).sum::<i64>(), EVENTS as i64);
    assert!(
        owners
            .iter()
            .all(|(owner, _)| mine.contains(owner.as_str()))
    );
    assert_eq!(owners.len(), 2, "both processes delivered: {owners:?}");
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; two_processes_deliver_each_event_once);

/// Targets refused when private addresses are not allowed (the default).
mod refused_targets {
    use super::*;

    fn strict(config: &mut Config) {
        fast(config);
        config.webhook_allow_private = false;
    }

    /// Names that resolve here to loopback or private addresses only (`localhost` and,
    /// on most machines, the host's own names in /etc/hosts).
    async fn private_names() -> Vec<String> {
        let hosts = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
        let candidates = ["localhost", "localhost."].into_iter().chain(
            hosts
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .flat_map(|line| line.split_whitespace().skip(1)),
        );
        let mut names: Vec<String> = Vec::new();
        {
            for name in candidates {
                let resolved: Vec<std::net::SocketAddr> =
                    match tokio::net::lookup_host((name, 80)).await {
                        Ok(addresses) => addresses.collect(),
                        Err(_) => continue,
                    };
                let private = !resolved.is_empty()
                    && resolved.iter().all(|a| match a.ip() {
                        std::net::IpAddr::V4(ip) => ip.is_loopback() || ip.is_private(),
                        std::net::IpAddr::V6(ip) => ip.is_loopback(),
                    });
                if private && !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
        }
        assert!(
            names.iter().any(|n| n.starts_with("localhost")),
            "localhost resolves: {names:?}"
        );
        names
    }

    async fn loopback_private_and_metadata_are_refused(app: TestApp) {
        let w = World::seed(&app).await;
        let token = app.login(w.admin_a).await;
        let receiver = Receiver::start().await;
        let port = receiver.address.port();
        let mut urls = vec![
            (
                format!("http://127.0.0.1:{port}/x"),
                "127.0.0.1 is a loopback",
            ),
            (format!("http://[::ffff:127.0.0.1]:{port}/x"), "IPv4-mapped"),
            (format!("http://[::1]:{port}/x"), "loopback"),
            (
                format!("http://2130706433:{port}/x"),
                "127.0.0.1 is a loopback",
            ),
            (
                "http://169.254.169.254/latest/meta-data/".to_owned(),
                "link-local",
            ),
            ("http://10.1.2.3/".to_owned(), "private"),
        ];
        for name in private_names().await {
            urls.push((format!("http://{name}:{port}/x"), "private address refused"));
        }
        for (url, why) in &urls {
            let (id, _) = webhook(
                &app,
                &token,
                json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": url}),
            )
            .await;
            let tested = app
                .post(&format!("/v2/webhooks/{id}/test"), &token, json!({}))
                .await
                .expect(200);
            let attempt = &tested["attempts"][0];
            assert!(attempt["statusCode"].is_null(), "{url}: {tested}");
            let error = attempt["error"].as_str().unwrap();
            assert!(
                error.contains("refused") && error.contains(why),
                "{url}: {error}"
            );
            if why.contains("private address refused") {
                assert!(
                    !error.contains("127.0.0.1") && !error.contains("::1"),
                    "the resolved address is not told: {error}"
                );
            }
        }
        // Events go through the same check.
        emit(&app, w.tenant_a, "CALL_ENDED", call("inbound")).await;
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert!(receiver.all().is_empty(), "nothing reached the receiver");
    }

    on_both_backends!(with strict; loopback_private_and_metadata_are_refused);
}
