//! MMS media upload: the 3 MB limit to the byte, with and without Content-Length; types
//! from the bytes; generated names; URLs that fetch each file with its type.

use futures::stream;
use reqwest::multipart::{Form, Part};
use reqwest::{Body, StatusCode};
use serde_json::Value;

use crate::documents::{jpeg, png};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Answer, TestApp, fixture};

const LIMIT: usize = 3_145_728;

/// A file part, with a known length (`Content-Length`) or streamed in chunks (chunked).
fn part(bytes: Vec<u8>, name: &str, content_type: &str, chunked: bool) -> Part {
    let part = if chunked {
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            bytes.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
        Part::stream(Body::wrap_stream(stream::iter(chunks)))
    } else {
        Part::bytes(bytes)
    };
    part.file_name(name.to_owned())
        .mime_str(content_type)
        .unwrap()
}

async fn send(app: &TestApp, token: &str, form: Form) -> Answer {
    app.post_form("/v2/messaging/messages/upload-media", token, form)
        .await
}

async fn three_megabytes_to_the_byte_with_and_without_length(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.user_a).await;
    for chunked in [false, true] {
        let exact = send(
            &app,
            &token,
            Form::new().part("files", part(jpeg(LIMIT), "a.jpg", "image/jpeg", chunked)),
        )
        .await;
        let urls = exact.expect(200);
        let url = urls[0].as_str().unwrap();
        let fetched = app.client.get(url).send().await.unwrap();
        assert_eq!(fetched.headers()["content-type"], "image/jpeg");
        assert_eq!(
            fetched.bytes().await.unwrap().len(),
            LIMIT,
            "chunked: {chunked}"
        );
        let over = send(
            &app,
            &token,
            Form::new().part(
                "files",
                part(jpeg(LIMIT + 1), "a.jpg", "image/jpeg", chunked),
            ),
        )
        .await;
        over.error(413, "PayloadTooLarge");
    }
}

async fn answers_urls_in_order_with_types_from_the_bytes(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let form = Form::new()
        .part("files", part(png(), "holiday.jpg", "image/jpeg", false))
        .part(
            "files",
            part(fixture("tone.mp3"), "../../etc/passwd", "text/plain", false),
        )
        .part(
            "files",
            part(
                b"BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Front desk\r\nEND:VCARD\r\n".to_vec(),
                "<script>.vcf",
                "text/plain",
                true,
            ),
        );
    let urls = send(&app, &token, form).await.expect(200);
    let urls: Vec<&str> = urls
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert_eq!(urls.len(), 3);
    for (url, content_type) in urls.iter().zip(["image/png", "audio/mpeg", "text/vcard"]) {
        assert!(
            url.contains(&format!("tenants%2F{}%2Fmms%2F", w.tenant_a)),
            "{url}"
        );
        assert!(
            !url.contains("passwd") && !url.contains("script") && !url.contains("holiday"),
            "names are generated: {url}"
        );
        let fetched = app.client.get(*url).send().await.unwrap();
        assert_eq!(fetched.status(), StatusCode::OK);
        assert_eq!(fetched.headers()["content-type"], content_type);
    }
    assert!(
        urls[0].contains(".png?"),
        "a PNG named .jpg is a PNG: {}",
        urls[0]
    );
}

async fn refuses_what_carriers_do_not_take(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for (bytes, found) in [
        (
            b"just some text, named like a picture".to_vec(),
            "text/plain",
        ),
        (
            b"<!DOCTYPE html><html><body>hi</body></html>".to_vec(),
            "text/html",
        ),
        (fixture("tone.ogg"), "audio/ogg"),
    ] {
        let answer = send(
            &app,
            &token,
            Form::new().part("files", part(bytes, "photo.jpg", "image/jpeg", false)),
        )
        .await;
        assert!(
            answer.body["message"].as_str().unwrap().contains(found),
            "{}",
            answer.body
        );
        answer.error(415, "UnsupportedMediaType");
    }
    // A good file then a bad one: nothing is kept, the answer names the bad one.
    let mms = format!("tenants/{}/mms", w.tenant_a);
    send(
        &app,
        &token,
        Form::new().part("files", part(png(), "kept.png", "image/png", false)),
    )
    .await
    .expect(200);
    let before = app.stored_objects(&mms);
    assert_eq!(before.len(), 1, "a good upload is stored: {before:?}");
    let form = Form::new()
        .part("files", part(png(), "a.png", "image/png", false))
        .part(
            "files",
            part(b"plain text".to_vec(), "b.png", "image/png", false),
        );
    send(&app, &token, form)
        .await
        .error(415, "UnsupportedMediaType");
    app.jobs_done().await;
    assert_eq!(app.stored_objects(&mms), before, "the good file went too");
    let problems = send(&app, &token, Form::new().text("note", "no files"))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/files' is required"]);
    let mut many = Form::new();
    for _ in 0..11 {
        many = many.part("files", part(png(), "a.png", "image/png", false));
    }
    let problems = send(&app, &token, many).await.error(400, "ValidationError");
    assert_eq!(problems, ["'body/files' must be at most 10 files"]);
    let json = app
        .post("/v2/messaging/messages/upload-media", &token, Value::Null)
        .await;
    json.error(415, "UnsupportedMediaType");
    // Platform admins name the tenant first; tenant admins cannot name another.
    let platform = app.login(w.platform).await;
    let problems = send(
        &app,
        &platform,
        Form::new().part("files", part(png(), "a.png", "image/png", false)),
    )
    .await
    .error(400, "ValidationError");
    assert_eq!(problems, ["'body/tenantId' is required"]);
    let form = Form::new()
        .text("tenantId", w.tenant_b.to_string())
        .part("files", part(png(), "a.png", "image/png", false));
    let urls = send(&app, &platform, form).await.expect(200);
    assert!(
        urls[0]
            .as_str()
            .unwrap()
            .contains(&format!("tenants%2F{}%2F", w.tenant_b))
    );
    let form = Form::new()
        .text("tenantId", w.tenant_b.to_string())
        .part("files", part(png(), "a.png", "image/png", false));
    send(&app, &token, form).await.error(403, "Forbidden");
}

on_both_backends!(
    three_megabytes_to_the_byte_with_and_without_length,
    answers_urls_in_order_with_types_from_the_bytes,
    refuses_what_carriers_do_not_take,
);
