//! Telephony renditions: every uploaded media file gets an 8 kHz 16-bit mono WAV made once
//! at upload (Ogg Opus through opusdec), audio that cannot be decoded is refused with 415
//! and nothing is stored, media files name the voice that rendered them, and
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
    let wav = fetch(app, url).await;
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
    let pcm = rendition::decode(&wav).unwrap();
    assert_eq!(pcm.sample_rate, 8_000, "{file}");
    assert!(
        (pcm.duration_seconds() - 1.5).abs() < 0.06,
        "{file}: {}",
        pcm.duration_seconds()
    );
    let rms = (pcm.samples.iter().map(|s| s * s).sum::<f32>() / pcm.samples.len() as f32).sqrt();
    assert!(rms > 0.05, "{file}: rms {rms}");
    media
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
        .post(
            "/v2/admin/custom-voices/",
            &token,
            json!({"name": "Mine", "baseVoiceId": "en-us"}),
        )
        .await
        .expect(200);
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

on_both_backends!(
    every_decodable_upload_gets_a_telephony_rendition,
    undecodable_audio_is_refused_and_not_stored,
    the_unversioned_path_answers_as_the_admin_path,
);
on_both_backends!(needs switchboard_testing::ESPEAK_NG; a_media_file_names_the_voice_that_rendered_it);
on_both_backends!(needs switchboard_testing::OPUSDEC; an_opus_upload_gets_a_telephony_rendition);
