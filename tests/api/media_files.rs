//! Media files: uploads typed from their bytes and measured, stored and fetched through
//! signed, expiring links with Range support; 409 while something uses them.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

async fn upload(app: &TestApp, token: &str, name: &str, file: &str) -> Value {
    app.upload(token, &[("name", name)], Some((file, fixture(file))))
        .await
        .expect(200)
}

async fn every_audio_format_is_recognised_and_measured(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for (file, content_type) in [
        ("tone.wav", "audio/wav"),
        ("tone.mp3", "audio/mpeg"),
        ("tone-vbr.mp3", "audio/mpeg"),
        ("tone.ogg", "audio/ogg"),
        // tone.opus: in renditions.rs, whose Opus test needs opusdec.
    ] {
        let media = upload(&app, &token, file, file).await;
        assert_eq!(media["contentType"], content_type, "{file}");
        assert_eq!(media["tenantId"], w.tenant_a);
        assert_eq!(media["size"], fixture(file).len());
        let duration = media["duration"].as_f64().unwrap();
        assert!(
            (duration - 1.5).abs() < 0.05,
            "{file} lasts 1.5 s, measured {duration}"
        );
        assert_eq!(media["voiceId"], Value::Null);
        // The signed link fetches exactly the bytes, with their type.
        let fetched = app
            .client
            .get(media["url"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(fetched.status(), StatusCode::OK);
        assert_eq!(fetched.headers()["content-type"], content_type);
        assert_eq!(
            fetched.bytes().await.unwrap().to_vec(),
            fixture(file),
            "{file}"
        );
    }
}

async fn the_type_comes_from_the_bytes(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // MP3 bytes under a .wav name are MP3.
    let media = upload(&app, &token, "Disguised", "tone.mp3").await;
    assert_eq!(media["contentType"], "audio/mpeg");
    let disguised = app
        .upload(
            &token,
            &[("name", "x")],
            Some(("greeting.wav", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    assert_eq!(disguised["contentType"], "audio/mpeg");
    assert!(
        disguised["url"].as_str().unwrap().contains(".mp3?"),
        "stored name is generated: {}",
        disguised["url"]
    );
    // Text named .mp3 is refused, and nothing is stored.
    let media = format!("tenants/{}/media", w.tenant_a);
    let before = app.stored_objects(&media);
    // The two uploads above, each with its telephony rendition.
    assert_eq!(before.len(), 4, "the two uploads above: {before:?}");
    let refused = app
        .upload(
            &token,
            &[("name", "x")],
            Some(("song.mp3", fixture("not-audio.txt"))),
        )
        .await;
    refused.error(415, "UnsupportedMediaType");
    assert_eq!(app.stored_objects(&media), before);
    let listed = app.get("/v2/admin/media-files/", &token).await.expect(200);
    assert_eq!(listed["totalRecords"], 2);
}

async fn upload_rules(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = app
        .upload(&token, &[("language", "!!")], None)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/language' must match pattern ^[A-Za-z0-9-]+$",
            "'body/file' is required",
            "'body/name' is required",
        ]
    );
    let long = "x".repeat(5001);
    let problems = app
        .upload(
            &token,
            &[("name", "x"), ("text", &long)],
            Some(("a.wav", fixture("tone.wav"))),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/text' must be at most 5000 characters"]);
    let problems = app
        .upload(
            &token,
            &[
                ("name", "x"),
                ("text", "hi"),
                ("multilingualText", r#"[{"language":"en","text":"hi"}]"#),
            ],
            Some(("a.wav", fixture("tone.wav"))),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/multilingualText' must not be sent together with text"]
    );
    let multi = app
        .upload(
            &token,
            &[
                ("name", "Bilingual"),
                (
                    "multilingualText",
                    r#"[{"language":"en","text":"Hello"},{"language":"es","text":"Hola"}]"#,
                ),
            ],
            Some(("a.wav", fixture("tone.wav"))),
        )
        .await
        .expect(200);
    assert_eq!(
        multi["multilingualText"][1],
        json!({"language": "es", "text": "Hola"})
    );
    // Not multipart at all.
    app.post("/v2/admin/media-files/", &token, json!({"name": "x"}))
        .await
        .error(415, "UnsupportedMediaType");
    // Another tenant named in the form.
    app.upload(
        &token,
        &[("name", "x"), ("tenantId", &w.tenant_b.to_string())],
        Some(("a.wav", fixture("tone.wav"))),
    )
    .await
    .error(403, "Forbidden");
}

async fn signed_links_expire_refuse_tampering_and_serve_ranges(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let media = upload(&app, &token, "Tone", "tone.wav").await;
    let url = media["url"].as_str().unwrap().to_owned();
    let bytes = fixture("tone.wav");
    let ranged = app
        .client
        .get(&url)
        .header("range", "bytes=0-99")
        .send()
        .await
        .unwrap();
    assert_eq!(ranged.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(
        ranged.headers()["content-range"],
        format!("bytes 0-99/{}", bytes.len())
    );
    assert_eq!(
        ranged.bytes().await.unwrap().to_vec(),
        bytes[..100].to_vec()
    );
    let tail = app
        .client
        .get(&url)
        .header("range", "bytes=-10")
        .send()
        .await
        .unwrap();
    assert_eq!(
        tail.bytes().await.unwrap().to_vec(),
        bytes[bytes.len() - 10..].to_vec()
    );
    let beyond = app
        .client
        .get(&url)
        .header("range", format!("bytes={}-", bytes.len() + 5))
        .send()
        .await
        .unwrap();
    assert_eq!(
        beyond
            .headers()
            .get("content-range")
            .map(|v| v.to_str().unwrap()),
        Some(format!("bytes */{}", bytes.len()).as_str()),
        "a 416 tells the object's length"
    );
    TestApp::answer(beyond)
        .await
        .error(416, "RangeNotSatisfiable");
    // A Range this route cannot read is ignored (RFC 9110 §14.2): the whole object.
    for unreadable in ["items=0-5", "bytes=0-1,5-6", "bytes=9-1", "bytes=x-"] {
        let whole = app
            .client
            .get(&url)
            .header("range", unreadable)
            .send()
            .await
            .unwrap();
        assert_eq!(whole.status(), 200, "{unreadable}");
        assert!(
            whole.headers().get("content-range").is_none(),
            "{unreadable}"
        );
        assert_eq!(whole.bytes().await.unwrap().to_vec(), bytes, "{unreadable}");
    }

    let tampered = url.replace("signature=", "signature=0");
    TestApp::answer(app.client.get(&tampered).send().await.unwrap())
        .await
        .error(403, "Forbidden");
    let (path, query) = url.split_once('?').unwrap();
    let later = query.replace("expires=", "expires=9");
    TestApp::answer(
        app.client
            .get(format!("{path}?{later}"))
            .send()
            .await
            .unwrap(),
    )
    .await
    .error(403, "Forbidden");
    // An expired but correctly signed link.
    let key = path.rsplit('/').next().unwrap().replace("%2F", "/");
    let expired = app
        .state
        .storage
        .local_download_url(&key, chrono::Utc::now().timestamp() - 1);
    TestApp::answer(app.client.get(&expired).send().await.unwrap())
        .await
        .error(403, "Forbidden");
    // A valid signature for another key does not open this one.
    let other = upload(&app, &token, "Other", "tone.ogg").await;
    let other_query = other["url"]
        .as_str()
        .unwrap()
        .split_once('?')
        .unwrap()
        .1
        .to_owned();
    TestApp::answer(
        app.client
            .get(format!("{path}?{other_query}"))
            .send()
            .await
            .unwrap(),
    )
    .await
    .error(403, "Forbidden");
}

async fn other_tenants_media_is_out_of_reach(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let media = upload(&app, &a, "A's", "tone.wav").await;
    let path = format!("/v2/admin/media-files/{}", media["id"]);
    let b = app.login(w.admin_b).await;
    app.get(&path, &b).await.error(404, "NotFound");
    app.patch(&path, &b, json!({"name": "mine"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &b).await.error(404, "NotFound");
    assert_eq!(
        app.get("/v2/admin/media-files/", &b).await.expect(200)["totalRecords"],
        0
    );
    app.get(
        &format!("/v2/admin/media-files/?tenantId={}", w.tenant_a),
        &b,
    )
    .await
    .error(403, "Forbidden");
    // B cannot use A's media file either.
    let problems = app
        .post(
            "/v2/admin/paging-groups/",
            &b,
            json!({"tenantId": w.tenant_b, "number": "33", "name": "x", "introMessageMediaFileId": media["id"]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/introMessageMediaFileId' must name a media file of the tenant"]
    );
    let patched = app
        .patch(
            &path,
            &a,
            json!({"name": "Renamed", "language": "en-US", "text": "Welcome"}),
        )
        .await
        .expect(200);
    assert_eq!(
        (patched["name"].as_str(), patched["language"].as_str()),
        (Some("Renamed"), Some("en-US"))
    );
}

async fn media_in_use_cannot_be_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let media = upload(&app, &token, "Intro", "tone.mp3").await;
    let id = media["id"].as_i64().unwrap();
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "34", "name": "Paged", "introMessageMediaFileId": id}),
        )
        .await;
    assert_eq!(group["introMessageMediaFileId"], id);
    assert_eq!(
        group["introMessageMediaFile"],
        json!({"id": id, "name": "Intro"})
    );
    let hours = app
        .create(
            "/v2/admin/business-hours/",
            &token,
            json!({"name": "Hours", "branchId": w.branch_a, "timezone": "UTC", "hours": {},
            "holidays": [{"name": "Closed", "date": "2026-12-25", "mediaFileId": id}]}),
        )
        .await;
    let holiday = hours["holidays"][0]["id"].as_i64().unwrap();
    let answer = app
        .delete(&format!("/v2/admin/media-files/{id}"), &token)
        .await;
    assert_eq!(
        answer.body["message"],
        format!(
            "the media file is used by paging group 'Paged' (id {}), holiday 'Closed' (id {holiday})",
            group["id"]
        ),
    );
    answer.error(409, "Conflict");
    assert!(
        app.client
            .get(media["url"].as_str().unwrap())
            .send()
            .await
            .unwrap()
            .status()
            .is_success(),
        "nothing lost"
    );
    app.delete(&format!("/v2/admin/paging-groups/{}", group["id"]), &token)
        .await
        .expect(200);
    app.delete(&format!("/v2/admin/business-hours/{}", hours["id"]), &token)
        .await
        .expect(200);
    app.delete(&format!("/v2/admin/media-files/{id}"), &token)
        .await
        .expect(200);
    app.jobs_done().await;
    let gone = app
        .client
        .get(media["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        gone.status(),
        StatusCode::NOT_FOUND,
        "the audio went with the record"
    );
}

/// A media file's audio is deleted by a job queued with the record's delete: when the
/// store refuses, the job stays, is retried with its error kept, and is done once the
/// store lets it; nothing is lost track of.
async fn a_refused_object_delete_is_retried(app: TestApp) {
    use sea_query::{Expr, ExprTrait, Query};
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let media = upload(&app, &token, "Greeting", "tone.wav").await;
    let url = media["url"].as_str().unwrap().to_owned();
    let key = url
        .split_once('?')
        .unwrap()
        .0
        .rsplit('/')
        .next()
        .unwrap()
        .replace("%2F", "/");
    let path = app.object_path(&key);
    assert!(path.is_file(), "the audio is at {}", path.display());
    // A folder where the file was: the store cannot delete it (even as root).
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("blocker"), b"x").unwrap();
    app.delete(&format!("/v2/admin/media-files/{}", media["id"]), &token)
        .await
        .expect(200);
    let failed = Query::select()
        .columns(["state", "attempts", "last_error", "payload"])
        .from("jobs")
        .take();
    let mut job: Option<(String, i64, Option<String>, String)> = None;
    for _ in 0..200 {
        job = app.state.db.conn().fetch_optional(&failed).await.unwrap();
        if job.as_ref().is_some_and(|j| j.1 >= 1) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (state, attempts, error, payload) = job.expect("the delete queued a job");
    assert_eq!((state.as_str(), attempts), ("pending", 1), "retried later");
    assert!(
        error.is_some_and(|e| e.contains("storage")),
        "its error is kept"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&payload).unwrap(),
        json!({"key": key})
    );
    // The store lets it now; the retry is made due at once rather than in ten seconds.
    std::fs::remove_dir_all(&path).unwrap();
    std::fs::write(&path, b"still here").unwrap();
    let due = Query::update()
        .table("jobs")
        .value("run_at", 0)
        .and_where(Expr::col("state").eq("pending"))
        .take();
    app.state.db.conn().execute(&due).await.unwrap();
    // Written behind the queue's back: its worker is woken by hand.
    app.state
        .db
        .wakeups()
        .ring(switchboard_db::wakeups::Worker::Jobs);
    app.jobs_done().await;
    assert!(!path.exists(), "the audio is gone");
    assert_eq!(app.count("jobs", None).await, 0, "a done job leaves no row");
}

/// A media file may be 20 MiB: exactly that passes the size rule (and is then judged by
/// its bytes: these are no audio, a 415), one byte more is a 413, and neither is stored.
async fn twenty_mib_is_the_limit(app: TestApp) {
    const LIMIT: usize = 20 * 1024 * 1024;
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let at_limit = vec![0x55; LIMIT];
    app.upload(
        &token,
        &[("name", "At the limit")],
        Some(("big.bin", at_limit)),
    )
    .await
    .error(415, "UnsupportedMediaType");
    let past = vec![0x55; LIMIT + 1];
    app.upload(
        &token,
        &[("name", "Past the limit")],
        Some(("big.bin", past)),
    )
    .await
    .error(413, "PayloadTooLarge");
    assert_eq!(app.count("media_files", None).await, 0);
    assert!(app.stored_objects("tenants").is_empty(), "nothing stored");
}

on_both_backends!(
    twenty_mib_is_the_limit,
    a_refused_object_delete_is_retried,
    every_audio_format_is_recognised_and_measured,
    the_type_comes_from_the_bytes,
    upload_rules,
    signed_links_expire_refuse_tampering_and_serve_ranges,
    other_tenants_media_is_out_of_reach,
    media_in_use_cannot_be_deleted,
);
