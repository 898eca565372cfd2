//! The service on S3-compatible storage (moto's server, started by the test): a recorded
//! call's `mediaURL` is S3's own presigned URL of the MP3, and a voicemail's audio goes
//! to the bucket too.

use serde_json::json;

use crate::fixture::World;
use crate::support::{Backend, TestApp, fixture};

#[path = "../../crates/storage/tests/support/moto.rs"]
pub(crate) mod moto;

async fn recordings_are_presigned_by_s3(backend: Backend) {
    let moto = moto::moto().await;
    moto.create_bucket("switchboard-recordings").await;
    let storage = moto.storage("s3://switchboard-recordings/objects");
    let Some(app) = TestApp::start_with_storage(backend, storage).await else {
        return;
    };
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let call = json!({"tenantId": world.tenant_a, "uniqueId": "1763800000.9", "event": "ended",
        "direction": "inbound", "time": "2026-11-22T09:00:00Z", "answerTime": "2026-11-22T09:00:03Z",
        "endTime": "2026-11-22T09:01:00Z", "callerIdNum": "5551230000", "dialedNum": "101"});
    app.push(
        &platform,
        "/v2/ingest/calls",
        ("call", call),
        Some(("recording", fixture("tone.wav"))),
    )
    .await
    .expect(200);
    let recording = app
        .get("/v2/admin/call-recordings/1763800000.9", &admin)
        .await
        .expect(200);
    let url = recording["mediaURL"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/switchboard-recordings/objects/tenants/",
            moto.endpoint
        )),
        "{url}"
    );
    assert!(
        url.contains("X-Amz-Signature=") && url.contains("X-Amz-Expires=900"),
        "{url}"
    );
    let response = moto::http_client().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let bytes = response.bytes().await.unwrap();
    assert_eq!(
        switchboard_storage::audio::sniff(&bytes),
        Some(switchboard_storage::audio::AudioFormat::Mp3),
        "the WAV was stored as MP3"
    );
    // Without its signature, the bucket refuses the object.
    let unsigned = url.split('?').next().unwrap();
    assert_eq!(
        moto::http_client()
            .get(unsigned)
            .send()
            .await
            .unwrap()
            .status(),
        403
    );

    let message = json!({"tenantId": world.tenant_a, "mailboxUser": "101", "msgId": "1763800000-1", "dateUnix": 1_763_800_000});
    app.push(
        &platform,
        "/v2/ingest/voicemail-messages",
        ("message", message),
        Some(("audio", fixture("tone.wav"))),
    )
    .await
    .expect(200);
    let page = app
        .get("/v2/admin/voicemail-messages/", &admin)
        .await
        .expect(200);
    let audio = moto::http_client()
        .get(page["records"][0]["mediaURL"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(audio.bytes().await.unwrap(), fixture("tone.wav"));
    // Deleting the recording removes the object from the bucket.
    app.delete("/v2/admin/call-recordings/1763800000.9", &admin)
        .await
        .expect(200);
    app.jobs_done().await;
    assert_eq!(
        moto::http_client().get(url).send().await.unwrap().status(),
        404
    );
}

mod sqlite {
    async fn recordings_are_presigned_by_s3() {
        super::recordings_are_presigned_by_s3(crate::support::Backend::Sqlite).await;
    }

    switchboard_testing::tests!(needs switchboard_testing::S3; recordings_are_presigned_by_s3);
}

mod postgres {
    async fn recordings_are_presigned_by_s3() {
        super::recordings_are_presigned_by_s3(crate::support::Backend::Postgres).await;
    }

    switchboard_testing::tests!(
        needs switchboard_testing::POSTGRES, switchboard_testing::S3;
        recordings_are_presigned_by_s3
    );
}
