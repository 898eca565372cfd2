//! Background work as the job table and the webhook outbox hold it: work queued in a
//! transaction wakes its worker when the transaction commits, not at the next poll (here
//! a minute away), and jobs queued before their payloads were typed structs — rows
//! already in a database when the service is upgraded — are still read and done.

use std::time::Duration;

use serde_json::json;
use switchboard::Config;
use switchboard_db::wakeups::Worker;
use switchboard_domain::ids::TenantId;

use crate::fixture::World;
use crate::on_both_backends;
use crate::receiver::{Receiver, eventually};
use crate::support::TestApp;

/// Idle workers poll once a minute: whatever runs sooner was woken.
fn slow_polls(config: &mut Config) {
    config.webhook_poll_interval_ms = 60_000;
    config.webhook_allow_private = true;
}

/// Well within the poll interval, generous for a loaded machine.
const PROMPTLY: Duration = Duration::from_secs(8);

/// A media file's delete queues its objects' deletions in its transaction, and an event
/// queues its delivery in its: each worker is woken by the commit and does the work at
/// once, though neither polls for a minute.
async fn queued_work_runs_at_its_commit_not_at_the_next_poll(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let id = app.upload_fixture(&token, "tone.wav").await;
    assert!(
        !app.stored_objects("tenants").is_empty(),
        "its audio stored"
    );
    app.delete(&format!("/v2/admin/media-files/{id}"), &token)
        .await
        .expect(200);
    let gone = eventually(PROMPTLY, || {
        app.stored_objects("tenants").is_empty().then_some(())
    })
    .await;
    assert!(gone.is_some(), "the audio waited for the next poll");

    let receiver = Receiver::start().await;
    app.create(
        "/v2/webhooks/",
        &token,
        json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": receiver.url("/calls")}),
    )
    .await;
    let mut tx = app.state.db.begin().await.unwrap();
    let now = chrono::Utc::now().timestamp();
    switchboard_db::events::emit(&mut tx, TenantId(w.tenant_a), "CALL_ENDED", json!({}), now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let delivered = eventually(PROMPTLY, || {
        (!receiver.received("/calls").is_empty()).then_some(())
    })
    .await;
    assert!(delivered.is_some(), "the delivery waited for the next poll");
}

/// Rows written as the jobs were before their payloads were structs (`json!`, keys in
/// order): an object's deletion and the announcement of a tenant's phones are done.
async fn jobs_queued_before_payloads_were_typed_are_done(app: TestApp) {
    use sea_query::Query;
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let device = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Front desk", "mac": "80:5E:C0:AB:CD:07", "model": "yealink-t54w",
            "lines": [w.ext_a]}),
        )
        .await;
    let key = format!("tenants/{}/media/left-behind.wav", w.tenant_a);
    app.state
        .storage
        .put(&key, b"old audio".to_vec().into(), "audio/wav")
        .await
        .unwrap();
    assert!(app.object_path(&key).exists());
    let now = chrono::Utc::now().timestamp();
    let rows = [
        ("object.delete", format!(r#"{{"key":"{key}"}}"#)),
        (
            "devices.reprovision",
            format!(
                r#"{{"after":0,"reason":"tenant-timezone","tenantId":{}}}"#,
                w.tenant_a
            ),
        ),
    ];
    for (kind, payload) in rows {
        let insert = Query::insert()
            .into_table("jobs")
            .columns(["kind", "payload", "run_at", "created_at"])
            .values_panic([kind.into(), payload.into(), now.into(), now.into()])
            .take();
        app.state.db.conn().execute(&insert).await.unwrap();
    }
    // Written behind the queue's back: its worker is woken by hand.
    app.state.db.wakeups().ring(Worker::Jobs);
    app.jobs_done().await;
    assert_eq!(app.count("jobs", Some(("state", "failed"))).await, 0);
    assert!(!app.object_path(&key).exists(), "the object is deleted");
    let read = app
        .get(&format!("/v2/admin/devices/{}", device["id"]), &token)
        .await
        .expect(200);
    assert_eq!(read["configVersion"], 2, "the phone was announced");
    let announced = app.event_data("DEVICE_CONFIG_CHANGED").await;
    assert!(
        announced
            .iter()
            .any(|data| data["deviceId"] == device["id"] && data["reason"] == "tenant-timezone"),
        "{announced:?}"
    );
}

on_both_backends!(with slow_polls; queued_work_runs_at_its_commit_not_at_the_next_poll);
on_both_backends!(jobs_queued_before_payloads_were_typed_are_done);
