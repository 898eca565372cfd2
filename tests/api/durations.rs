//! Durations are the audio's own length, measured, wherever audio arrives with a record:
//! a voicemail message's is its audio's; a call keeps the engine's figures and its
//! recording's measured length is a field of its own beside them.

use serde_json::{Value, json};

use crate::documents::wav;
use crate::fixture::{World, voicemail_message};
use crate::on_both_backends;
use crate::support::TestApp;

/// `message` with the duration the engine tells.
fn with_duration(mut message: Value, seconds: i64) -> Value {
    message["duration"] = json!(seconds);
    message
}

async fn voicemail_durations_are_the_audio_length(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    // The engine says 99 and 1 seconds; the audio plays 3 and 5.
    for (msg_id, told, seconds) in [("m-3", 99, 3), ("m-5", 1, 5)] {
        app.push(
            &platform,
            "/v2/ingest/voicemail-messages",
            (
                "message",
                with_duration(voicemail_message(w.tenant_a, "101", msg_id), told),
            ),
            Some(("audio", wav(seconds))),
        )
        .await
        .expect(200);
    }
    // Without audio, the engine's figure is all there is.
    app.post(
        "/v2/ingest/voicemail-messages",
        &platform,
        with_duration(voicemail_message(w.tenant_a, "101", "m-none"), 42),
    )
    .await
    .expect(200);
    let page = app
        .get(
            "/v2/admin/voicemail-messages/?sortBy=duration&sortDirection=asc",
            &admin,
        )
        .await
        .expect(200);
    let seen: Vec<(&str, i64)> = page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["callerId"].as_str().unwrap(),
                r["duration"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("m-3", 3), ("m-5", 5), ("m-none", 42)]);
}

/// Issue 29: a CDR of `duration 124, billsec 120` with a 2-second recording stays a call
/// of 124 s with 120 s of talk; the recording's own measured length (2 s) is a field of
/// its own, so the mismatch shows, on the recording, the call and the call's report.
async fn the_engine_figures_are_kept_beside_the_recording_length(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    let fields = json!({
        "channel": "PJSIP/trunk-00000001", "tenantId": w.tenant_a, "uniqueId": "1762095600.7",
        "event": "ended", "direction": "inbound", "callerIdNum": "2125550147",
        "callerIdName": "Maria", "dialedNum": "101", "time": "2026-11-02T15:00:00Z",
        "answerTime": "2026-11-02T15:00:04Z", "endTime": "2026-11-02T15:02:04Z",
        "duration": 124, "billsec": 120, "disposition": "ANSWERED",
    });
    app.push(
        &platform,
        "/v2/ingest/calls",
        ("call", fields.clone()),
        Some(("recording", wav(2))),
    )
    .await
    .expect(200);
    let recording = app
        .get("/v2/admin/call-recordings/1762095600.7", &admin)
        .await
        .expect(200);
    assert_eq!(
        (
            &recording["duration"],
            &recording["billsec"],
            &recording["recordingDuration"]
        ),
        (&json!(124), &json!(120), &json!(2)),
        "{recording}"
    );
    let call = app
        .get("/v2/admin/calls/1762095600.7", &admin)
        .await
        .expect(200);
    assert_eq!(
        (
            &call["duration"],
            &call["billsec"],
            &call["recordingDuration"]
        ),
        (&json!(124), &json!(120), &json!(2)),
        "{call}"
    );
    let report = app
        .get("/v2/admin/reporting/calls/1762095600.7", &admin)
        .await
        .expect(200);
    assert_eq!(report["recording"]["duration"], 2, "{report}");
    assert_eq!(report["call"]["billsec"], 120, "{report}");

    // A call reported answered, then ended with its recording: the ended report's figures
    // are the call's, the recording's length beside them.
    let mut later = fields.clone();
    later["uniqueId"] = json!("1762095600.8");
    later["event"] = json!("answered");
    app.post("/v2/ingest/calls", &platform, later.clone())
        .await
        .expect(200);
    later["event"] = json!("ended");
    app.push(
        &platform,
        "/v2/ingest/calls",
        ("call", later),
        Some(("recording", wav(3))),
    )
    .await
    .expect(200);
    let recording = app
        .get("/v2/admin/call-recordings/1762095600.8", &admin)
        .await
        .expect(200);
    assert_eq!(
        (
            &recording["duration"],
            &recording["billsec"],
            &recording["recordingDuration"]
        ),
        (&json!(124), &json!(120), &json!(3)),
        "{recording}"
    );
    // A call without a recording has no recording length.
    let mut plain = fields;
    plain["uniqueId"] = json!("1762095600.9");
    app.post("/v2/ingest/calls", &platform, plain)
        .await
        .expect(200);
    let call = app
        .get("/v2/admin/calls/1762095600.9", &admin)
        .await
        .expect(200);
    assert_eq!(
        (&call["billsec"], &call["recordingDuration"]),
        (&json!(120), &Value::Null),
        "{call}"
    );
}

on_both_backends!(
    voicemail_durations_are_the_audio_length,
    the_engine_figures_are_kept_beside_the_recording_length
);
