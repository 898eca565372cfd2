//! Text-to-speech: the catalogue is what the installed espeak-ng reports, prompts come back
//! as real speech in telephony format (8 kHz 16-bit mono WAV, or MP3), every broken body is
//! refused naming its fields, and a full rendering queue answers 503 with `Retry-After`.

use reqwest::StatusCode;
use serde_json::{Value, json};
use switchboard_storage::audio::rendition::{self, Pcm};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, actions};

const TTS: &str = "/v2/text-to-speech/voices/en-us/tts";
const PROMPT: &str = "Thank you for calling Switchboard. All of our agents are busy at the \
                      moment. Please stay on the line and we will be with you shortly.";

/// Posts `body` to `path` with `accept`, answering the status, content type and bytes.
async fn render(
    app: &TestApp,
    token: &str,
    path: &str,
    accept: Option<&str>,
    body: Value,
) -> (StatusCode, String, Vec<u8>) {
    let mut request = app
        .client
        .post(app.url(path))
        .bearer_auth(token)
        .json(&body);
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (
        status,
        content_type,
        response.bytes().await.unwrap().to_vec(),
    )
}

/// The WAV header's channels, rate and bits per sample.
fn wav_format(bytes: &[u8]) -> (u16, u32, u16) {
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(&bytes[8..12], b"WAVE");
    (
        u16::from_le_bytes([bytes[22], bytes[23]]),
        u32::from_le_bytes(bytes[24..28].try_into().unwrap()),
        u16::from_le_bytes([bytes[34], bytes[35]]),
    )
}

fn rms(pcm: &Pcm) -> f32 {
    (pcm.samples.iter().map(|s| s * s).sum::<f32>() / pcm.samples.len().max(1) as f32).sqrt()
}

/// A rendered prompt as decoded audio, checked to be telephony WAV holding sound.
async fn speech(app: &TestApp, token: &str, path: &str, body: Value) -> Pcm {
    let (status, content_type, bytes) = render(app, token, path, None, body).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    assert_eq!(content_type, "audio/wav");
    assert_eq!(wav_format(&bytes), (1, 8_000, 16));
    let pcm = rendition::decode(&bytes).expect("the answer decodes");
    assert!(rms(&pcm) > 0.02, "silent: rms {}", rms(&pcm));
    pcm
}

async fn the_catalogue_is_the_engines(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.user_a).await;
    let voices = app
        .get("/v2/text-to-speech/voices", &token)
        .await
        .expect(200);
    let voices = voices.as_array().unwrap();
    // espeak-ng 1.51 has 131 voices; the catalogue is read from it, not typed in.
    assert!(voices.len() > 100, "{} voices", voices.len());
    let en_us = voices.iter().find(|v| v["id"] == "en-us").unwrap();
    assert_eq!(en_us["engine"], "espeak-ng");
    assert_eq!(en_us["sampleRateHz"], 22_050);
    assert_eq!(en_us["languages"], json!(["en-US", "en"]));
    assert!(en_us["name"].as_str().unwrap().starts_with("English"));
    // The unversioned path answers the same.
    let same = app.get("/text-to-speech/voices", &token).await.expect(200);
    assert_eq!(same.as_array().unwrap().len(), voices.len());

    let french = app
        .get("/text-to-speech/voices?language=FR", &token)
        .await
        .expect(200);
    let french = french.as_array().unwrap();
    assert!(french.len() >= 3, "{french:?}");
    assert!(french.iter().all(|v| {
        v["languages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().eq_ignore_ascii_case("fr"))
    }));
    let errors = app
        .get("/v2/text-to-speech/voices?language=e", &token)
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'query/language'"), "{errors:?}");

    let languages = app
        .get("/v2/text-to-speech/supported-languages", &token)
        .await
        .expect(200);
    let languages = languages.as_array().unwrap();
    let find = |tag: &str| languages.iter().find(|l| l["tag"] == tag).cloned().unwrap();
    assert_eq!(find("en-US")["voiceCount"], 1);
    assert!(find("en")["voiceCount"].as_u64().unwrap() >= 5);
    assert_eq!(find("en")["name"], "English");
    assert_eq!(find("de")["name"], "German");
    let same = app
        .get("/text-to-speech/supported-languages", &token)
        .await
        .expect(200);
    assert_eq!(same.as_array().unwrap().len(), languages.len());
    // Tokens are still required.
    let anonymous = app
        .call(reqwest::Method::GET, "/text-to-speech/voices", None, None)
        .await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
}

async fn a_prompt_is_real_speech_at_8_khz(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let pcm = speech(&app, &token, TTS, json!({"text": PROMPT})).await;
    // About 15 characters a second at espeak-ng's default 175 words a minute.
    let seconds = pcm.duration_seconds();
    let chars = PROMPT.chars().count() as f64;
    assert!(
        seconds > chars / 30.0 && seconds < chars / 7.0,
        "{chars} characters in {seconds} s"
    );
    // A longer text takes longer; the language may be named when the voice speaks it.
    let short = speech(
        &app,
        &token,
        "/text-to-speech/voices/en-us/tts",
        json!({"text": "Please hold.", "language": "EN"}),
    )
    .await;
    assert!(short.duration_seconds() * 3.0 < seconds);

    // MP3 on request: decodable, as long as the WAV.
    let (status, content_type, bytes) = render(
        &app,
        &token,
        TTS,
        Some("audio/mpeg"),
        json!({"text": PROMPT}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type, "audio/mpeg");
    let mp3 = rendition::decode(&bytes).expect("the MP3 decodes");
    assert_eq!(mp3.sample_rate, 8_000);
    assert!(rms(&mp3) > 0.02);
    assert!((mp3.duration_seconds() - seconds).abs() < 0.1);

    // Bytes on request (generated clients read an answer by its media type): the same
    // WAV, labelled so; naming WAV too keeps the audio label.
    let (status, content_type, bytes) = render(
        &app,
        &token,
        TTS,
        Some("application/octet-stream"),
        json!({"text": PROMPT}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type, "application/octet-stream");
    assert_eq!(&bytes[..4], b"RIFF");
    let (_, content_type, _) = render(
        &app,
        &token,
        TTS,
        Some("audio/wav, application/octet-stream"),
        json!({"text": PROMPT}),
    )
    .await;
    assert_eq!(content_type, "audio/wav");
}

async fn segments_are_spoken_in_their_languages_in_order(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let english = "For service in English, press one.";
    let french = "Pour le service en français, appuyez sur deux.";
    let alone_en = speech(&app, &token, TTS, json!({"text": english})).await;
    let alone_fr = speech(
        &app,
        &token,
        "/v2/text-to-speech/voices/fr-fr/tts",
        json!({"text": french}),
    )
    .await;
    let joined = speech(
        &app,
        &token,
        TTS,
        json!({"segments": [
            {"language": "en-US", "text": english, "pauseMs": 700},
            {"language": "fr-FR", "text": french},
        ]}),
    )
    .await;
    let expected = alone_en.duration_seconds() + 0.7 + alone_fr.duration_seconds();
    assert!(
        (joined.duration_seconds() - expected).abs() < 0.1,
        "{} s, expected {expected} s",
        joined.duration_seconds()
    );
    // The French part is the French voice's rendering, after the pause: same samples.
    let offset = alone_en.samples.len() + 5_600;
    let tail = &joined.samples[offset..offset + alone_fr.samples.len().min(4_000)];
    let head = &alone_fr.samples[..tail.len()];
    let difference: f32 = tail.iter().zip(head).map(|(a, b)| (a - b).abs()).sum();
    assert!(difference / (tail.len() as f32) < 0.01, "{difference}");

    // Ten segments are the most.
    let ten: Vec<Value> = (0..10)
        .map(|i| json!({"language": "en", "text": format!("Part {i}."), "pauseMs": 0}))
        .collect();
    speech(&app, &token, TTS, json!({"segments": ten})).await;
    let mut eleven = ten.clone();
    eleven.push(json!({"language": "en", "text": "One too many."}));
    let errors = app
        .post(TTS, &token, json!({"segments": eleven}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("'body/segments'"), "{errors:?}");
    let errors = app
        .post(TTS, &token, json!({"segments": []}))
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'body/segments'"), "{errors:?}");
}

async fn broken_prompts_are_refused_naming_the_fields(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let refused = |body: Value| {
        let app = &app;
        let token = &token;
        async move {
            app.post(TTS, token, body)
                .await
                .error(400, "ValidationError")
        }
    };
    let both = refused(json!({"text": "Hi", "segments": [{"language": "en", "text": "Hi"}]})).await;
    assert_eq!(
        both,
        vec![
            "'body/text' cannot be sent with segments",
            "'body/segments' cannot be sent with text",
        ]
    );
    let neither = refused(json!({"language": "en"})).await;
    assert_eq!(
        neither,
        vec![
            "'body/text' is required unless segments are sent",
            "'body/segments' are required unless text is sent",
        ]
    );
    let mismatch = refused(json!({"text": "Bonjour", "language": "fr"})).await;
    assert_eq!(mismatch.len(), 1);
    assert!(
        mismatch[0].starts_with("'body/language' is not spoken by the voice en-us"),
        "{mismatch:?}"
    );
    let unknown = refused(json!({"segments": [
        {"language": "en", "text": "Hi"},
        {"language": "xx-zz", "text": "Hi"},
    ]}))
    .await;
    assert_eq!(unknown.len(), 1);
    assert!(
        unknown[0].starts_with("'body/segments/1/language'"),
        "{unknown:?}"
    );
    let long = refused(json!({"text": "a".repeat(5001)})).await;
    assert!(long[0].starts_with("'body/text'"), "{long:?}");
    let blank = refused(json!({"text": "   "})).await;
    assert_eq!(blank, vec!["'body/text' must hold something to say"]);
    let with_language =
        refused(json!({"language": "en", "segments": [{"language": "en", "text": "Hi"}]})).await;
    assert!(with_language[0].starts_with("'body/language' cannot be sent with segments"));
    // 5,000 characters are accepted.
    let limit = "Hello there. ".repeat(384) + "Goodbye.";
    assert_eq!(limit.chars().count(), 5_000);
    speech(&app, &token, TTS, json!({"text": limit})).await;

    // An unknown voice is a 404, with any valid body.
    app.post(
        "/v2/text-to-speech/voices/no-such-voice/tts",
        &token,
        json!({"text": "Hi"}),
    )
    .await
    .error(404, "NotFound");
    // Rendering needs media-files:write, which a plain user lacks.
    let user = app.login(w.user_a).await;
    app.post(TTS, &user, json!({"text": "Hi"}))
        .await
        .error(403, "Forbidden");
}

async fn a_full_queue_answers_503_with_retry_after(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let text = PROMPT.repeat(8);
    let requests: Vec<_> = (0..6)
        .map(|_| render(&app, &token, TTS, None, json!({"text": text})))
        .collect();
    let answers = futures::future::join_all(requests).await;
    let ok = answers.iter().filter(|a| a.0 == StatusCode::OK).count();
    let busy: Vec<_> = answers
        .iter()
        .filter(|a| a.0 == StatusCode::SERVICE_UNAVAILABLE)
        .collect();
    assert_eq!(ok + busy.len(), 6);
    assert!(ok >= 1, "one worker, so at least one renders");
    assert!(
        !busy.is_empty(),
        "one worker and no queue: the rest are refused"
    );
    let body: Value = serde_json::from_slice(&busy[0].2).unwrap();
    assert_eq!(body["name"], "ServiceUnavailable");
    assert!(body["message"].as_str().unwrap().contains("busy"), "{body}");
    // The header, on a fresh refusal.
    let mut headers = None;
    let requests: Vec<_> = (0..4)
        .map(|_| {
            app.client
                .post(app.url(TTS))
                .bearer_auth(&token)
                .json(&json!({"text": text}))
                .send()
        })
        .collect();
    for response in futures::future::join_all(requests).await {
        let response = response.unwrap();
        if response.status() == StatusCode::SERVICE_UNAVAILABLE {
            headers = Some(response.headers().clone());
        }
    }
    let headers = headers.expect("a refusal");
    assert_eq!(headers["retry-after"], "2");
}

async fn without_the_engine_the_service_runs_and_says_why(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for path in [
        "/v2/text-to-speech/voices",
        "/text-to-speech/supported-languages",
    ] {
        let answer = app.get(path, &token).await;
        assert!(answer.headers.contains_key("retry-after"));
        let body = answer.expect(503);
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("text-to-speech is unavailable: cannot run /nonexistent/espeak-ng"),
            "{body}"
        );
    }
    app.post(TTS, &token, json!({"text": "Hi"}))
        .await
        .error(503, "ServiceUnavailable");
    // Everything else answers.
    app.get("/v2/admin/extensions/", &token).await.expect(200);
}

on_both_backends!(needs switchboard_testing::ESPEAK_NG; with |c: &mut switchboard::Config| {
        // Rendering 5,000 characters takes seconds of a debug build alone, and several
        // times that with eight tests on two cores: the request's own bound is not what
        // these tests hold.
        c.request_timeout_seconds = 120;
    };
    the_catalogue_is_the_engines,
    a_prompt_is_real_speech_at_8_khz,
    segments_are_spoken_in_their_languages_in_order,
    broken_prompts_are_refused_naming_the_fields,
);
on_both_backends!(needs switchboard_testing::ESPEAK_NG; with |c: &mut switchboard::Config| {
        // A minute's bound, reached in a second or two of rendering.
        c.tts_max_audio_seconds = 60;
    };
    a_prompt_too_long_when_spoken_is_refused,
    segments_share_one_audio_budget,
);
on_both_backends!(needs switchboard_testing::ESPEAK_NG; with |c: &mut switchboard::Config| {
        c.tts_workers = Some(1);
        c.tts_queue = 0;
    };
    a_full_queue_answers_503_with_retry_after,
);
on_both_backends!(with |c: &mut switchboard::Config| {
        c.tts_espeak_ng = "/nonexistent/espeak-ng".into();
    };
    without_the_engine_the_service_runs_and_says_why,
);

/// A text that takes far longer to say than to write (each "9999" is six words, spoken
/// slowly) is refused as too long when spoken — the engine's output is bounded, so one
/// prompt cannot take the memory of every other — and the service goes on answering.
async fn a_prompt_too_long_when_spoken_is_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let slowest = app
        .create(
            "/v2/admin/custom-voices/",
            &admin,
            json!({"name": "Slowest", "baseVoiceId": "en-us", "rate": 80}),
        )
        .await;
    let path = format!(
        "/v2/text-to-speech/voices/{}/tts",
        slowest["voiceId"].as_str().unwrap()
    );
    let numbers = "9999 ".repeat(1000);
    let errors = app
        .post(&path, &admin, json!({"text": numbers}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("'body/text' is too long when spoken"),
        "{errors:?}"
    );
    let errors = app
        .post(
            &path,
            &admin,
            json!({"segments": [{"language": "en", "text": "Hello."}, {"language": "en", "text": numbers}]}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        errors[0].starts_with("'body/segments' is too long when spoken"),
        "{errors:?}"
    );
    // A prompt of ordinary length is still spoken.
    speech(&app, &admin, TTS, json!({"text": PROMPT})).await;
}

/// The bound on a prompt's audio is per request: segments that each fit (about 26 s of
/// numbers at the slowest rate, under the test's 60 s) but together do not (three, about
/// 80 s) are refused as one prompt too long, while two of them (about 53 s) are spoken.
async fn segments_share_one_audio_budget(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let slowest = app
        .create(
            "/v2/admin/custom-voices/",
            &admin,
            json!({"name": "Slowest", "baseVoiceId": "en-us", "rate": 80}),
        )
        .await;
    let path = format!(
        "/v2/text-to-speech/voices/{}/tts",
        slowest["voiceId"].as_str().unwrap()
    );
    let numbers = "9999 ".repeat(6);
    let segment = json!({"language": "en", "text": numbers, "pauseMs": 0});
    // One segment fits, and so do two.
    let one = speech(&app, &admin, &path, json!({"segments": [segment]})).await;
    let each = one.duration_seconds();
    assert!((20.0..30.0).contains(&each), "one segment lasts {each} s");
    let two = speech(&app, &admin, &path, json!({"segments": [segment, segment]})).await;
    assert!(two.duration_seconds() > 2.0 * each - 1.0);
    // Three, each fitting on its own, pass the request's 60 s together.
    let errors = app
        .post(
            &path,
            &admin,
            json!({"segments": [segment, segment, segment]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("'body/segments' is too long when spoken: more than 60 seconds"),
        "{errors:?}"
    );
}

const VOICES: &str = "/v2/admin/custom-voices/";

async fn custom_voices_are_presets_spoken_by_their_id(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let slow = app
        .post(
            VOICES,
            &admin,
            json!({"name": "Slow reception", "baseVoiceId": "en-us", "rate": 100,
                   "pitch": 30, "volume": 150, "language": "en"}),
        )
        .await
        .expect(200);
    assert_eq!(slow["tenantId"], w.tenant_a);
    let id = slow["id"].as_i64().unwrap();
    let voice_id = format!("custom-{id}");
    assert_eq!(slow["voiceId"], voice_id.as_str());
    assert_eq!(slow["rate"], 100);
    // Spoken by its id, slower than the engine voice it is over.
    let path = format!("/text-to-speech/voices/{voice_id}/tts");
    let custom = speech(&app, &admin, &path, json!({"text": PROMPT})).await;
    let plain = speech(&app, &admin, TTS, json!({"text": PROMPT})).await;
    assert!(
        custom.duration_seconds() > plain.duration_seconds() * 1.4,
        "{} s against {} s",
        custom.duration_seconds(),
        plain.duration_seconds()
    );
    // It speaks its base voice's languages only.
    let errors = app
        .post(&path, &admin, json!({"text": "Hallo", "language": "de"}))
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'body/language' is not spoken by the voice en-us"));

    // Read, listed, changed (null returns a setting to the default), deleted.
    let one = app.get(&format!("{VOICES}{id}"), &admin).await.expect(200);
    assert_eq!(one, slow);
    let list = app
        .get("/v2/admin/custom-voices?sortBy=name", &admin)
        .await
        .expect(200);
    assert_eq!(list["totalRecords"], 1);
    let changed = app
        .patch(
            &format!("{VOICES}{id}"),
            &admin,
            json!({"rate": null, "name": "Reception"}),
        )
        .await
        .expect(200);
    assert_eq!(changed["rate"], Value::Null);
    assert_eq!(changed["pitch"], 30);
    assert_eq!(changed["name"], "Reception");

    // The catalogue decides the base voice and its language, on create and change.
    let errors = app
        .post(
            VOICES,
            &admin,
            json!({"name": "X", "baseVoiceId": "no-such-voice"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].starts_with("'body/baseVoiceId' is not a voice"),
        "{errors:?}"
    );
    let errors = app
        .post(
            VOICES,
            &admin,
            json!({"name": "X", "baseVoiceId": "fr-fr", "language": "en"}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        errors[0].starts_with("'body/language' is not spoken"),
        "{errors:?}"
    );
    let errors = app
        .post(
            VOICES,
            &admin,
            json!({"name": "X", "baseVoiceId": "en-us", "rate": 20, "pitch": 100, "volume": -1}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 3, "{errors:?}");
    // A new base voice must still speak the stored language.
    let errors = app
        .patch(
            &format!("{VOICES}{id}"),
            &admin,
            json!({"baseVoiceId": "de"}),
        )
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'body/language'"), "{errors:?}");
    app.patch(
        &format!("{VOICES}{id}"),
        &admin,
        json!({"baseVoiceId": "de", "language": null}),
    )
    .await
    .expect(200);

    // Audited as custom-voice.
    let trail = app.audit_entries(&admin, "entities=custom-voice").await;
    let actions = actions(&trail);
    assert_eq!(actions.len(), 3, "{trail:?}");
    assert!(actions.contains(&"create") && actions.contains(&"update"));

    app.delete(&format!("{VOICES}{id}"), &admin)
        .await
        .expect(200);
    app.get(&format!("{VOICES}{id}"), &admin)
        .await
        .error(404, "NotFound");
    app.post(&path, &admin, json!({"text": "Hi"}))
        .await
        .error(404, "NotFound");
    for bad in ["custom-0", "custom-x", "custom-01", "custom-"] {
        app.post(
            &format!("/text-to-speech/voices/{bad}/tts"),
            &admin,
            json!({"text": "Hi"}),
        )
        .await
        .error(404, "NotFound");
    }
}

async fn custom_voices_stay_in_their_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let admin_a = app.login(w.admin_a).await;
    let admin_b = app.login(w.admin_b).await;
    let voice = app
        .post(
            VOICES,
            &admin_a,
            json!({"name": "A's voice", "baseVoiceId": "en-gb"}),
        )
        .await
        .expect(200);
    let id = voice["id"].as_i64().unwrap();
    let one = format!("{VOICES}{id}");
    // Another tenant's admin finds nothing, and cannot speak with it.
    app.get(&one, &admin_b).await.error(404, "NotFound");
    app.patch(&one, &admin_b, json!({"name": "Mine"}))
        .await
        .error(404, "NotFound");
    app.delete(&one, &admin_b).await.error(404, "NotFound");
    app.post(
        &format!("/v2/text-to-speech/voices/custom-{id}/tts"),
        &admin_b,
        json!({"text": "Hi"}),
    )
    .await
    .error(404, "NotFound");
    let list = app.get(VOICES, &admin_b).await.expect(200);
    assert_eq!(list["totalRecords"], 0);
    // Naming the other tenant is refused.
    app.post(
        VOICES,
        &admin_b,
        json!({"tenantId": w.tenant_a, "name": "X", "baseVoiceId": "en-us"}),
    )
    .await
    .error(403, "Forbidden");
    app.get(&format!("{VOICES}?tenantId={}", w.tenant_a), &admin_b)
        .await
        .error(403, "Forbidden");
    // A plain user may not make voices.
    let user = app.login(w.user_a).await;
    app.post(VOICES, &user, json!({"name": "X", "baseVoiceId": "en-us"}))
        .await
        .error(403, "Forbidden");
    // The platform admin reaches it.
    let platform = app.login(w.platform).await;
    app.get(&one, &platform).await.expect(200);
    app.get(&one, &admin_a).await.expect(200);
}

/// The catalogue lists the caller's tenant's custom voices after the engine's, with their
/// base voice, languages (their own first) and engine, filterable by language; never
/// another tenant's, and none to a caller who cannot read them.
async fn custom_voices_are_in_the_catalogue(app: TestApp) {
    let w = World::seed(&app).await;
    let admin_a = app.login(w.admin_a).await;
    let admin_b = app.login(w.admin_b).await;
    let mine = app
        .post(
            VOICES,
            &admin_a,
            json!({"name": "Front desk", "baseVoiceId": "en-us", "rate": 150, "language": "en"}),
        )
        .await
        .expect(200);
    let theirs = app
        .post(
            VOICES,
            &admin_b,
            json!({"name": "B's voice", "baseVoiceId": "en-gb"}),
        )
        .await
        .expect(200);
    let custom = |voices: &Value| -> Vec<Value> {
        voices
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["id"].as_str().unwrap().starts_with("custom-"))
            .cloned()
            .collect()
    };
    for path in ["/v2/text-to-speech/voices", "/text-to-speech/voices"] {
        let voices = app.get(path, &admin_a).await.expect(200);
        assert_eq!(
            custom(&voices),
            vec![json!({
                "id": mine["voiceId"],
                "name": "Front desk",
                "engine": "espeak-ng",
                "languages": ["en", "en-US"],
                "gender": voices.as_array().unwrap().iter().find(|v| v["id"] == "en-us").unwrap()["gender"],
                "sampleRateHz": 22_050,
                "baseVoiceId": "en-us",
                "tenantId": w.tenant_a,
            })],
            "{path}"
        );
        // Engine voices say they are no custom voice's.
        let en_us = voices
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == "en-us")
            .unwrap()
            .clone();
        assert_eq!(en_us["baseVoiceId"], Value::Null);
        assert_eq!(en_us["tenantId"], Value::Null);
    }
    // Filtered by the languages of its base voice.
    let english = app
        .get("/v2/text-to-speech/voices?language=en-us", &admin_a)
        .await
        .expect(200);
    assert_eq!(custom(&english).len(), 1);
    let french = app
        .get("/v2/text-to-speech/voices?language=fr", &admin_a)
        .await
        .expect(200);
    assert_eq!(custom(&french), Vec::<Value>::new());
    // The listed id speaks.
    speech(
        &app,
        &admin_a,
        &format!(
            "/v2/text-to-speech/voices/{}/tts",
            mine["voiceId"].as_str().unwrap()
        ),
        json!({"text": "Hello"}),
    )
    .await;
    // The other tenant sees its own only; naming A's tenant is refused.
    let voices = app
        .get("/v2/text-to-speech/voices", &admin_b)
        .await
        .expect(200);
    let listed = custom(&voices);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], theirs["voiceId"]);
    app.get(
        &format!("/v2/text-to-speech/voices?tenantId={}", w.tenant_a),
        &admin_b,
    )
    .await
    .error(403, "Forbidden");
    // A user (no media-files:read) gets the engine's catalogue only, and may not ask for more.
    let user = app.login(w.user_a).await;
    let voices = app
        .get("/v2/text-to-speech/voices", &user)
        .await
        .expect(200);
    assert!(voices.as_array().unwrap().len() > 100);
    assert_eq!(custom(&voices), Vec::<Value>::new());
    app.get(
        &format!("/v2/text-to-speech/voices?tenantId={}", w.tenant_a),
        &user,
    )
    .await
    .error(403, "Forbidden");
    // The platform admin spans every tenant: it names the one whose voices it wants.
    let platform = app.login(w.platform).await;
    let voices = app
        .get("/v2/text-to-speech/voices", &platform)
        .await
        .expect(200);
    assert_eq!(custom(&voices), Vec::<Value>::new());
    let voices = app
        .get(
            &format!("/v2/text-to-speech/voices?tenantId={}", w.tenant_b),
            &platform,
        )
        .await
        .expect(200);
    let listed = custom(&voices);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], theirs["voiceId"]);
    let errors = app
        .get("/v2/text-to-speech/voices?tenantId=abc", &platform)
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'query/tenantId'"), "{errors:?}");
}

on_both_backends!(needs switchboard_testing::ESPEAK_NG;
    custom_voices_are_presets_spoken_by_their_id,
    custom_voices_stay_in_their_tenant,
    custom_voices_are_in_the_catalogue,
);
