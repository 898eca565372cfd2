//! The service on S3-compatible storage (moto's server, started by the test): a recorded
//! call's `mediaURL` is S3's own presigned URL of the MP3, and a voicemail's audio goes
//! to the bucket too; the console plays every audio from the bucket through its own
//! routes, with byte ranges.

use serde_json::json;

use crate::console::{Browser, plays_with_ranges};
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
    let recording = app
        .recorded_call(&platform, &admin, world.tenant_a, "1763800000.9")
        .await;
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

/// With the S3 store, the console's pages play a voicemail message, a call's recording
/// and a media file from the console's own origin (never S3's, which the console's policy
/// refuses), streamed from the bucket with exact byte ranges, while the API's clients
/// still get S3's presigned URLs.
async fn the_console_plays_s3_media(backend: Backend) {
    let moto = moto::moto().await;
    moto.create_bucket("switchboard-console").await;
    let storage = moto.storage("s3://switchboard-console/media");
    let Some(app) = TestApp::start_with_storage(backend, storage).await else {
        return;
    };
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(world.admin_a).await;
    let in_bucket =
        |url: &str| url.starts_with(&format!("{}/switchboard-console/media/", moto.endpoint));

    let message = json!({"tenantId": world.tenant_a, "mailboxUser": "101", "msgId": "1763800000-2", "dateUnix": 1_763_800_000});
    app.push(
        &platform,
        "/v2/ingest/voicemail-messages",
        ("message", message),
        Some(("audio", fixture("tone.wav"))),
    )
    .await
    .expect(200);
    let listed = app
        .get("/v2/admin/voicemail-messages/", &admin)
        .await
        .expect(200);
    let stored = &listed["records"][0];
    assert!(in_bucket(stored["mediaURL"].as_str().unwrap()), "{stored}");
    let path = format!("/console/voicemail/{}/audio", stored["id"]);
    let inbox = browser.get("/console/voicemail").await;
    assert!(
        inbox.body.contains(&format!("src=\"{path}\"")),
        "{}",
        inbox.body
    );
    assert!(!inbox.body.contains(&moto.endpoint), "{}", inbox.body);
    plays_with_ranges(&mut browser, &path, &fixture("tone.wav")).await;

    let recording = app
        .recorded_call(&platform, &admin, world.tenant_a, "1763800000.3")
        .await;
    let url = recording["mediaURL"].as_str().unwrap();
    assert!(in_bucket(url), "{url}");
    let mp3 = moto::http_client()
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let path = "/console/calls/1763800000.3/recording";
    let report = browser.get("/console/calls/1763800000.3").await;
    assert!(
        report.body.contains(&format!("src=\"{path}\"")),
        "{}",
        report.body
    );
    assert!(!report.body.contains(&moto.endpoint), "{}", report.body);
    plays_with_ranges(&mut browser, path, &mp3).await;

    let id = app.upload_fixture(&admin, "tone.wav").await;
    let file = app
        .get(&format!("/v2/admin/media-files/{id}"), &admin)
        .await
        .expect(200);
    let url = file["renditionUrl"].as_str().unwrap();
    assert!(in_bucket(url), "{url}");
    let rendition = moto::http_client()
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let path = format!("/console/media-files/{id}/audio");
    let list = browser.get("/console/media-files").await;
    assert!(
        list.body.contains(&format!("src=\"{path}\"")),
        "{}",
        list.body
    );
    assert!(!list.body.contains(&moto.endpoint), "{}", list.body);
    plays_with_ranges(&mut browser, &path, &rendition).await;
}

mod sqlite {
    async fn recordings_are_presigned_by_s3() {
        super::recordings_are_presigned_by_s3(crate::support::Backend::Sqlite).await;
    }

    async fn the_console_plays_s3_media() {
        super::the_console_plays_s3_media(crate::support::Backend::Sqlite).await;
    }

    switchboard_testing::tests!(
        needs switchboard_testing::S3;
        recordings_are_presigned_by_s3,
        the_console_plays_s3_media
    );
}

mod postgres {
    async fn recordings_are_presigned_by_s3() {
        super::recordings_are_presigned_by_s3(crate::support::Backend::Postgres).await;
    }

    async fn the_console_plays_s3_media() {
        super::the_console_plays_s3_media(crate::support::Backend::Postgres).await;
    }

    switchboard_testing::tests!(
        needs switchboard_testing::POSTGRES, switchboard_testing::S3;
        recordings_are_presigned_by_s3,
        the_console_plays_s3_media
    );
}
