//! Telephony renditions: every uploaded media file gets an 8 kHz 16-bit mono WAV made once
//! at upload (Ogg Opus through opusdec), audio that cannot be decoded is refused with 415
//! and nothing is stored, files stored before renditions get theirs in the background (or
//! the reason they cannot), media files name the voice that rendered them, and
//! `/media-files/{id}` answers as the admin path does.

use serde_json::{Value, json};
use switchboard_storage::audio::rendition;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

async fn fetch(app: &TestApp, url: &str) -> Vec<u8> {
    let response = app.client.get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().await.unwrap().to_vec()
}

/// Uploads `file` and checks its rendition is a playable 8 kHz 16-bit mono WAV of the
/// 1.5 s tone (decodable, the right length, not silence), answering the media file.
async fn assert_rendition(app: &TestApp, token: &str, file: &str) -> Value {
    let media = app
        .upload(token, &[("name", file)], Some((file, fixture(file))))
        .await
        .expect(200);
    let url = media["renditionUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("{file}: {media}"));
    assert_telephony_wav(&fetch(app, url).await, file);
    media
}

/// `wav` is a playable 8 kHz 16-bit mono WAV of the 1.5 s tone (decodable, the right
/// length, not silence).
fn assert_telephony_wav(wav: &[u8], file: &str) {
    assert_eq!(&wav[..4], b"RIFF", "{file}");
    assert_eq!(u16::from_le_bytes([wav[22], wav[23]]), 1, "{file}: mono");
    assert_eq!(
        u32::from_le_bytes(wav[24..28].try_into().unwrap()),
        8_000,
        "{file}"
    );
    assert_eq!(u16::from_le_bytes([wav[34], wav[35]]), 16, "{file}");
    // The sizes in the header are the file's own (no placeholder a pipe left).
    assert_eq!(
        u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize,
        wav.len() - 8,
        "{file}"
    );
    let pcm = rendition::decode(wav).unwrap();
    assert_eq!(pcm.sample_rate, 8_000, "{file}");
    assert!(
        (pcm.duration_seconds() - 1.5).abs() < 0.06,
        "{file}: {}",
        pcm.duration_seconds()
    );
    let rms = (pcm.samples.iter().map(|s| s * s).sum::<f32>() / pcm.samples.len() as f32).sqrt();
    assert!(rms > 0.05, "{file}: rms {rms}");
}

async fn every_decodable_upload_gets_a_telephony_rendition(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for file in ["tone.wav", "tone.mp3", "tone-vbr.mp3", "tone.ogg"] {
        let media = assert_rendition(&app, &token, file).await;
        // Stored beside the original, and deleted with it.
        let id = media["id"].as_i64().unwrap();
        app.delete(&format!("/v2/admin/media-files/{id}"), &token)
            .await
            .expect(200);
    }
    app.jobs_done().await;
    assert_eq!(
        app.stored_objects(&format!("tenants/{}/media", w.tenant_a)),
        Vec::<String>::new()
    );
}

/// Ogg Opus, which symphonia cannot decode, is decoded by opusdec: mono and stereo uploads
/// get a playable rendition; an Opus stream opusdec cannot open is a 415 with the reason,
/// and nothing is stored.
async fn an_opus_upload_gets_a_telephony_rendition(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for file in ["tone.opus", "tone-stereo.opus"] {
        let media = assert_rendition(&app, &token, file).await;
        assert_eq!(media["contentType"], "audio/ogg", "{file}");
        assert_eq!(media["size"], fixture(file).len(), "{file}");
        let duration = media["duration"].as_f64().unwrap();
        assert!((duration - 1.5).abs() < 0.05, "{file}: {duration}");
        // The original is kept as it came.
        assert_eq!(
            fetch(&app, media["url"].as_str().unwrap()).await,
            fixture(file)
        );
    }
    assert_eq!(app.count("media_files", None).await, 2);
    let body = app
        .upload(
            &token,
            &[("name", "broken")],
            Some(("broken.opus", fixture("tone-bad-mapping.opus"))),
        )
        .await
        .expect(415);
    assert_eq!(body["name"], "UnsupportedMediaType");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("the ogg file cannot be converted for telephony: opusdec"),
        "{message}"
    );
    assert_eq!(app.count("media_files", None).await, 2);
    app.jobs_done().await;
    assert_eq!(
        app.stored_objects(&format!("tenants/{}/media", w.tenant_a))
            .len(),
        4,
        "two originals and their renditions, nothing of the refused upload"
    );
}

/// A WAV whose samples are GSM 6.10 (Asterisk's wav49): a valid file of a codec the
/// decoders do not have.
fn gsm_wav() -> Vec<u8> {
    let data = vec![0xD5u8; 65 * 20];
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(4 + 28 + 8 + 8 + data.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&20u32.to_le_bytes());
    wav.extend_from_slice(&0x31u16.to_le_bytes()); // GSM 6.10
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&8_000u32.to_le_bytes());
    wav.extend_from_slice(&1_625u32.to_le_bytes());
    wav.extend_from_slice(&65u16.to_le_bytes());
    wav.extend_from_slice(&0u16.to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&320u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(data.len() as u32).to_le_bytes());
    wav.extend_from_slice(&data);
    wav
}

async fn undecodable_audio_is_refused_and_not_stored(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let answer = app
        .upload(&token, &[("name", "wav49")], Some(("msg.wav", gsm_wav())))
        .await;
    let body = answer.expect(415);
    assert_eq!(body["name"], "UnsupportedMediaType");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the wav file cannot be converted for telephony: the audio cannot be decoded"
        ),
        "{message}"
    );
    assert_eq!(app.count("media_files", None).await, 0);
    assert_eq!(
        app.stored_objects(&format!("tenants/{}", w.tenant_a)),
        Vec::<String>::new()
    );
}

async fn the_unversioned_path_answers_as_the_admin_path(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let media = app
        .upload(
            &token,
            &[("name", "Greeting")],
            Some(("tone.wav", fixture("tone.wav"))),
        )
        .await
        .expect(200);
    let id = media["id"].as_i64().unwrap();
    let admin = app
        .get(&format!("/v2/admin/media-files/{id}"), &token)
        .await
        .expect(200);
    for path in [
        format!("/media-files/{id}"),
        format!("/v2/media-files/{id}"),
    ] {
        let mut answer = app.get(&path, &token).await.expect(200);
        // Fresh signed links differ only in their signature and expiry.
        for key in ["url", "renditionUrl", "urlExpiresAt"] {
            answer[key] = admin[key].clone();
        }
        assert_eq!(answer, admin, "{path}");
    }
    assert_eq!(admin["voiceId"], Value::Null);
    // Another tenant's admin finds nothing there.
    let other = app.login(w.admin_b).await;
    app.get(&format!("/media-files/{id}"), &other)
        .await
        .error(404, "NotFound");
    app.get(&format!("/v2/media-files/{id}"), &other)
        .await
        .error(404, "NotFound");
}

async fn a_media_file_names_the_voice_that_rendered_it(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let other = app.login(w.admin_b).await;
    // A prompt rendered and uploaded with its voice.
    let wav = app
        .client
        .post(app.url("/v2/text-to-speech/voices/en-us/tts"))
        .bearer_auth(&token)
        .json(&json!({"text": "Please hold."}))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec();
    let media = app
        .upload(
            &token,
            &[("name", "Hold"), ("voiceId", "en-us")],
            Some(("hold.wav", wav.clone())),
        )
        .await
        .expect(200);
    assert_eq!(media["voiceId"], "en-us");
    let custom = app
        .create(
            "/v2/admin/custom-voices/",
            &token,
            json!({"name": "Mine", "baseVoiceId": "en-us"}),
        )
        .await;
    let custom_id = custom["voiceId"].as_str().unwrap().to_owned();
    let media = app
        .upload(
            &token,
            &[("name", "Hold 2"), ("voiceId", &custom_id)],
            Some(("hold.wav", wav.clone())),
        )
        .await
        .expect(200);
    assert_eq!(media["voiceId"], custom_id.as_str());
    // An unknown voice, a malformed one, or another tenant's custom voice is refused.
    for voice in ["no-such-voice", "custom-999", "EN US"] {
        let errors = app
            .upload(
                &token,
                &[("name", "X"), ("voiceId", voice)],
                Some(("hold.wav", wav.clone())),
            )
            .await
            .error(400, "ValidationError");
        assert!(
            errors[0].starts_with("'body/voiceId'"),
            "{voice}: {errors:?}"
        );
    }
    let errors = app
        .upload(
            &other,
            &[("name", "X"), ("voiceId", &custom_id)],
            Some(("hold.wav", wav)),
        )
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'body/voiceId'"), "{errors:?}");
    assert_eq!(app.count("media_files", None).await, 2);
}

/// The stored keys of media file `id`: its audio's and its rendition's.
async fn keys(app: &TestApp, id: i64) -> (String, Option<String>) {
    use sea_query::{Expr, ExprTrait, Query};
    let select = Query::select()
        .columns(["object_key", "rendition_key"])
        .from("media_files")
        .and_where(Expr::col("id").eq(id))
        .take();
    app.state.db.conn().fetch_one(&select).await.unwrap()
}

/// Makes media file `id` one stored before renditions (as migration 0020 left them): no
/// rendition key, no rendition object.
async fn make_old(app: &TestApp, id: i64) {
    use sea_query::{Expr, ExprTrait, Query};
    let (_, rendition) = keys(app, id).await;
    let update = Query::update()
        .table("media_files")
        .value("rendition_key", Option::<String>::None)
        .and_where(Expr::col("id").eq(id))
        .take();
    app.state.db.conn().execute(&update).await.unwrap();
    app.state
        .storage
        .delete(&rendition.expect("made at upload"))
        .await
        .unwrap();
}

/// Media file `id` once the background work has dealt with it (a rendition or the reason
/// it has none), within ten seconds.
async fn backfilled(app: &TestApp, token: &str, id: i64) -> Value {
    for _ in 0..200 {
        let media = app
            .get(&format!("/v2/admin/media-files/{id}"), token)
            .await
            .expect(200);
        if !media["renditionUrl"].is_null() || !media["renditionError"].is_null() {
            return media;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("media file {id} got no rendition in ten seconds");
}

/// The rendition jobs in the job table, in any state.
async fn rendition_jobs(app: &TestApp) -> i64 {
    app.count("jobs", Some(("kind", "media.rendition"))).await
}

/// Media files stored before renditions (`rendition_key` NULL) get one in the background,
/// made as an upload's and recorded once: the answer and the playlist then serve the 8 kHz
/// WAV, not the original.
async fn old_files_get_their_rendition_in_the_background(app: TestApp) {
    old_files_are_backfilled(&app, &["tone.mp3", "tone.ogg", "tone.wav"]).await;
}

/// An Ogg Opus file stored before opusdec decoded uploads gets its rendition through it.
async fn an_old_opus_file_gets_its_rendition_in_the_background(app: TestApp) {
    old_files_are_backfilled(&app, &["tone.opus"]).await;
}

async fn old_files_are_backfilled(app: &TestApp, files: &[&str]) {
    let w = World::seed(app).await;
    let token = app.login(w.admin_a).await;
    let mut ids = Vec::new();
    for file in files {
        ids.push(app.upload_fixture(&token, file).await);
    }
    let hold = app.music_on_hold(&token, "Old", &ids).await;
    for &id in &ids {
        make_old(app, id).await;
    }
    for (&id, file) in ids.iter().zip(files) {
        let media = backfilled(app, &token, id).await;
        assert_eq!(media["renditionError"], Value::Null, "{file}: {media}");
        let url = media["renditionUrl"].as_str().unwrap();
        assert_telephony_wav(&fetch(app, url).await, file);
        // Named as an upload's rendition, beside its original.
        let (object, rendition) = keys(app, id).await;
        let stem = object.rsplit_once('.').unwrap().0;
        assert_eq!(rendition, Some(format!("{stem}.telephony.wav")), "{file}");
    }
    let playlist = app
        .get(&format!("/v2/admin/music-on-hold/{hold}/playlist"), &token)
        .await
        .expect(200);
    let entries = playlist["files"].as_array().unwrap();
    assert_eq!(entries.len(), files.len());
    for (entry, file) in entries.iter().zip(files) {
        assert_eq!(entry["contentType"], "audio/wav", "{file}");
        assert_telephony_wav(&fetch(app, entry["url"].as_str().unwrap()).await, file);
    }
    // Each made once: an original and one rendition a file, no job left behind.
    app.jobs_done().await;
    assert_eq!(rendition_jobs(app).await, 0);
    assert_eq!(
        app.stored_objects(&format!("tenants/{}/media", w.tenant_a))
            .len(),
        2 * files.len()
    );
}

/// The backfill queues a few jobs at a time, each finished one queuing the next, so a
/// store of old files never fills the job queue ahead of its other work; every file still
/// gets its rendition.
async fn the_backfill_queues_a_few_files_at_a_time_and_reaches_them_all(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        ids.push(app.upload_fixture(&token, "tone.wav").await);
    }
    for &id in &ids {
        make_old(&app, id).await;
    }
    let mut most_queued = 0;
    let mut done = 0;
    for _ in 0..1000 {
        most_queued = most_queued.max(rendition_jobs(&app).await);
        done = 0;
        for &id in &ids {
            done += usize::from(keys(&app, id).await.1.is_some());
        }
        if done == ids.len() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(done, ids.len(), "every old file gets its rendition");
    // Two pending, plus the one whose work just ended while it queued the next; a sweep
    // racing that top-up may add one more. Never the eight at once.
    assert!(
        (1..=4).contains(&most_queued),
        "{most_queued} rendition jobs queued at once"
    );
    app.jobs_done().await;
    assert_eq!(rendition_jobs(&app).await, 0);
}

/// An old file whose audio cannot be decoded is recorded as such — said in its answer —
/// and not tried again; it keeps being played as it is.
async fn an_undecodable_old_file_is_reported_and_not_retried(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let id = app.upload_fixture(&token, "tone.wav").await;
    let hold = app.music_on_hold(&token, "Old", &[id]).await;
    // Stored before renditions, as a WAV of a codec no decoder here has (GSM 6.10).
    let (object, _) = keys(&app, id).await;
    app.state
        .storage
        .put(&object, gsm_wav().into(), "audio/wav")
        .await
        .unwrap();
    make_old(&app, id).await;
    let media = backfilled(&app, &token, id).await;
    assert_eq!(media["renditionUrl"], Value::Null, "{media}");
    let reason = media["renditionError"].as_str().unwrap();
    assert!(
        reason.starts_with("the audio cannot be decoded"),
        "{reason}"
    );
    // Played as it is.
    let playlist = app
        .get(&format!("/v2/admin/music-on-hold/{hold}/playlist"), &token)
        .await
        .expect(200);
    assert_eq!(playlist["files"][0]["contentType"], "audio/wav");
    assert_eq!(
        fetch(&app, playlist["files"][0]["url"].as_str().unwrap()).await,
        gsm_wav()
    );
    // Not queued again, however many sweeps pass (one a second here).
    app.jobs_done().await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert_eq!(rendition_jobs(&app).await, 0);
    assert_eq!(app.count("jobs", None).await, 0);
    let again = app
        .get(&format!("/v2/admin/media-files/{id}"), &token)
        .await
        .expect(200);
    assert_eq!(again["renditionError"], reason);
    // Deleting it removes its audio, the only object it has.
    app.delete(&format!("/v2/admin/music-on-hold/{hold}"), &token)
        .await
        .expect(200);
    app.delete(&format!("/v2/admin/media-files/{id}"), &token)
        .await
        .expect(200);
    app.jobs_done().await;
    assert_eq!(
        app.stored_objects(&format!("tenants/{}/media", w.tenant_a)),
        Vec::<String>::new()
    );
}

/// Processes sweeping at once queue one job per file: a file whose job is queued (here
/// not due for an hour, so the background work leaves it) is not queued again by any
/// sweep, and a second job for it is refused by the unique index.
async fn one_rendition_job_per_file_however_many_sweep(app: TestApp) {
    use sea_query::{Expr, ExprTrait, Query};
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let id = app.upload_fixture(&token, "tone.wav").await;
    let db = &app.state.db;
    let later = chrono::Utc::now().timestamp() + 3600;
    let job = || {
        Query::insert()
            .into_table("jobs")
            .columns(["kind", "payload", "run_at", "created_at"])
            .values_panic([
                "media.rendition".into(),
                // As the sweep writes it: the unique index compares the text.
                format!(r#"{{"mediaFileId":{id}}}"#).into(),
                later.into(),
                later.into(),
            ])
            .take()
    };
    db.conn().execute(&job()).await.unwrap();
    make_old(&app, id).await;
    let now = chrono::Utc::now().timestamp();
    for _ in 0..2 {
        let queued = switchboard_db::media_files::queue_missing_renditions(db, now, 10).await;
        assert_eq!(queued.unwrap(), 0);
    }
    assert!(
        db.conn().execute(&job()).await.is_err(),
        "a second job for the file"
    );
    // The background sweeps (one a second) leave it alone too.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(rendition_jobs(&app).await, 1);
    assert_eq!(keys(&app, id).await.1, None);
    // Once due, the one job makes the rendition.
    let due = Query::update()
        .table("jobs")
        .value("run_at", now)
        .and_where(Expr::col("kind").eq("media.rendition"))
        .take();
    db.conn().execute(&due).await.unwrap();
    let media = backfilled(&app, &token, id).await;
    assert!(media["renditionUrl"].is_string(), "{media}");
    app.jobs_done().await;
    assert_eq!(rendition_jobs(&app).await, 0);
}

on_both_backends!(
    old_files_get_their_rendition_in_the_background,
    an_undecodable_old_file_is_reported_and_not_retried,
    one_rendition_job_per_file_however_many_sweep,
    the_backfill_queues_a_few_files_at_a_time_and_reaches_them_all,
    every_decodable_upload_gets_a_telephony_rendition,
    undecodable_audio_is_refused_and_not_stored,
    the_unversioned_path_answers_as_the_admin_path,
);
on_both_backends!(needs switchboard_testing::ESPEAK_NG; a_media_file_names_the_voice_that_rendered_it);
on_both_backends!(needs switchboard_testing::OPUSDEC; an_opus_upload_gets_a_telephony_rendition);
on_both_backends!(needs switchboard_testing::OPUSDEC; an_old_opus_file_gets_its_rendition_in_the_background);
