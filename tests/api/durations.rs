//! Durations are the audio's own length, measured, wherever audio arrives with a record:
//! a voicemail message's is its audio's; a call keeps the engine's figures and its
//! recording's measured length is a field of its own beside them.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// A PCM WAV of `seconds` of silence (8 kHz, mono, 16-bit), as Asterisk writes one.
pub fn wav(seconds: i64) -> Vec<u8> {
    let data = u32::try_from(seconds * 8000 * 2).expect("a short WAV");
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&16_000u32.to_le_bytes()); // byte rate
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    out.resize(out.len() + data as usize, 0);
    out
}

fn message(tenant: i64, msg_id: &str, duration: i64) -> Value {
    json!({
        "tenantId": tenant, "mailboxContext": "default", "mailboxUser": "101",
        "msgId": msg_id, "messageNumber": 0, "dir": "INBOX", "callerId": msg_id,
        "dateUnix": 1_700_000_000, "duration": duration, "extNum": "101",
    })
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
            ("message", message(w.tenant_a, msg_id, told)),
            Some(("audio", wav(seconds))),
        )
        .await
        .expect(200);
    }
    // Without audio, the engine's figure is all there is.
    app.post(
        "/v2/ingest/voicemail-messages",
        &platform,
        message(w.tenant_a, "m-none", 42),
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
