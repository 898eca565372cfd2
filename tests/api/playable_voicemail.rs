//! GSM voicemail (Asterisk's `gsm` and `wav49`), which no browser plays, is served as an
//! 8 kHz 16-bit PCM WAV decoded from it when it is recorded (by SoX), the original kept
//! beside it and deleted with it — pushed by the engine or imported from the spool.

use std::path::PathBuf;

use serde_json::{Value, json};
use switchboard_domain::ids::TenantId;

use crate::fixture::{World, voicemail_message};
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

/// Message `msg_id` of mailbox 101, which the engine says lasts 9 seconds.
fn message(tenant: i64, msg_id: &str) -> Value {
    let mut message = voicemail_message(tenant, "101", msg_id);
    message["duration"] = json!(9);
    message
}

/// The served audio, checked to be a PCM WAV of 8 kHz 16-bit mono that holds sound,
/// answering its length in seconds.
async fn playable_seconds(app: &TestApp, url: &str) -> f64 {
    let (status, headers, bytes) = app.fetch(url, None).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "audio/wav");
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(&bytes[8..16], b"WAVEfmt ");
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let u32_at =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    assert_eq!(u16_at(20), 1, "PCM, not GSM (format tag 0x31)");
    assert_eq!((u16_at(22), u32_at(24), u16_at(34)), (1, 8000, 16));
    assert_eq!(&bytes[36..40], b"data");
    let samples: Vec<f64> = bytes[44..]
        .chunks_exact(2)
        .map(|s| f64::from(i16::from_le_bytes([s[0], s[1]])))
        .collect();
    assert_eq!(u32_at(40) as usize, samples.len() * 2, "exact data size");
    let rms = (samples.iter().map(|s| s * s).sum::<f64>() / samples.len() as f64).sqrt();
    assert!(rms > 3000.0, "the tone is heard (RMS {rms})");
    samples.len() as f64 / 8000.0
}

async fn pushed_gsm_is_served_as_wav(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    for (msg_id, file) in [("raw", "tone.gsm"), ("wav49", "tone-wav49.WAV")] {
        app.push(
            &platform,
            "/v2/ingest/voicemail-messages",
            ("message", message(w.tenant_a, msg_id)),
            Some(("audio", fixture(file))),
        )
        .await
        .expect(200);
    }
    let page = app
        .get("/v2/admin/voicemail-messages/?sortBy=callerId", &admin)
        .await
        .expect(200);
    let records = page["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    for record in records {
        let seconds = playable_seconds(&app, record["mediaURL"].as_str().unwrap()).await;
        assert!((seconds - 1.5).abs() < 0.05, "plays 1.5 s, not {seconds}");
        // Measured from the audio (1.5 s, rounded), not the engine's 9.
        assert_eq!(record["duration"], 2);
    }
    // The originals are kept beside their WAVs, byte for byte.
    let prefix = format!("tenants/{}/voicemail", w.tenant_a);
    let stored = app.stored_objects(&prefix);
    assert_eq!(stored.len(), 4, "{stored:?}");
    for (file, ending) in [("tone.gsm", ".gsm"), ("tone-wav49.WAV", ".wav49.wav")] {
        let original: Vec<&String> = stored.iter().filter(|k| k.ends_with(ending)).collect();
        assert_eq!(original.len(), 1, "{stored:?}");
        assert_eq!(
            std::fs::read(app.object_path(original[0])).unwrap(),
            fixture(file)
        );
    }
    // Deleting a message deletes both.
    for record in records {
        app.delete(
            &format!("/v2/admin/voicemail-messages/{}", record["id"]),
            &admin,
        )
        .await
        .expect(200);
    }
    app.jobs_done().await;
    assert_eq!(app.stored_objects(&prefix), Vec::<String>::new());
    // Bytes that are no audio at all are still refused.
    app.push(
        &platform,
        "/v2/ingest/voicemail-messages",
        ("message", message(w.tenant_a, "text")),
        Some(("audio", b"not audio, not GSM frames".to_vec())),
    )
    .await
    .error(415, "UnsupportedMediaType");
}

async fn imported_gsm_is_served_as_wav(app: TestApp) {
    let w = World::seed(&app).await;
    let spool = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/asterisk/spool");
    switchboard::import::asterisk_voicemail(&app.state, &spool, TenantId(w.tenant_a))
        .await
        .unwrap();
    let admin = app.login(w.admin_a).await;
    // 101's msg0001 is wav49, 102's INBOX msg0000 raw GSM: both of GSM silence frames.
    for (query, number) in [("mailbox=101&dir=INBOX", 1), ("mailbox=102&dir=INBOX", 0)] {
        let page = app
            .get(&format!("/v2/admin/voicemail-messages/?{query}"), &admin)
            .await
            .expect(200);
        let records = page["records"].as_array().unwrap();
        let record = records
            .iter()
            .find(|r| r["messageNumber"] == number)
            .unwrap_or_else(|| panic!("{page}"));
        let (status, headers, bytes) = app.fetch(record["mediaURL"].as_str().unwrap(), None).await;
        assert_eq!(status, 200);
        assert_eq!(headers["content-type"], "audio/wav", "{query}");
        assert_eq!(
            u16::from_le_bytes([bytes[20], bytes[21]]),
            1,
            "PCM: {query}"
        );
        assert_eq!(bytes.len(), 44 + 8000 * 2, "one second at 8 kHz: {query}");
    }
}

on_both_backends!(needs switchboard_testing::SOX; pushed_gsm_is_served_as_wav, imported_gsm_is_served_as_wav);
