//! Every path the release notes give (interface "Endpoints named only in release notes")
//! is served where the notes put it, without `/v2` as written, and the OpenAPI document
//! lists it (CONTRACT §8, issue 29 item 5).

use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

/// The release notes' operations, as the specification writes them (a `{id}` in place of
/// the record's id; `POST and PATCH /admin/music-on-hold` is the collection and the record).
const RELEASE_NOTES: &[(&str, &str)] = &[
    ("get", "/admin/devices"),
    ("get", "/devices/search"),
    ("get", "/admin/audit-log"),
    ("get", "/admin/reporting/calls/{callId}"),
    ("get", "/admin/phone-numbers/search"),
    ("post", "/admin/music-on-hold"),
    ("patch", "/admin/music-on-hold/{id}"),
    ("post", "/admin/media-files"),
    ("get", "/admin/media-files/{id}"),
    ("patch", "/admin/media-files/{id}"),
    ("get", "/media-files/{id}"),
    ("post", "/text-to-speech/voices/{id}/tts"),
    ("get", "/text-to-speech/supported-languages"),
    ("patch", "/v2/admin/pharmacy/agents/{id}"),
    ("get", "/destinations/graph"),
    ("get", "/faxes/retry/{id}"),
    ("get", "/tenants/conduits"),
];

/// Each release-note operation is in the document (a collection with or without its
/// trailing slash), and each that needs no record answers, not 404.
async fn every_release_note_path_is_served_and_documented(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let document = app.get("/v2/openapi.json", &admin).await.expect(200);
    let paths = document["paths"].as_object().unwrap();
    let mut missing = Vec::new();
    for (method, path) in RELEASE_NOTES {
        let listed = [path.to_string(), format!("{path}/")]
            .iter()
            .any(|p| paths.get(p).is_some_and(|item| item.get(*method).is_some()));
        if !listed {
            missing.push(format!("{} {path}", method.to_uppercase()));
        }
    }
    assert!(missing.is_empty(), "not in the document: {missing:?}");
    for (method, path) in RELEASE_NOTES {
        if *method == "get" && !path.contains('{') {
            let answer = app.get(path, &admin).await;
            assert_eq!(answer.status.as_u16(), 200, "GET {path}: {}", answer.body);
        }
    }
}

/// `POST /admin/media-files` uploads as the `/v2` path does, and the record is read,
/// changed, listed and deleted at `/admin/media-files/{id}`; another tenant's file is 404
/// there as under `/v2`.
async fn media_files_are_served_at_the_release_notes_path(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let created = app
        .upload_at(
            "/admin/media-files",
            &admin,
            &[("name", "Welcome"), ("text", "Welcome to the pharmacy")],
            Some(("tone.wav", fixture("tone.wav"))),
        )
        .await
        .expect(200);
    assert_eq!(created["name"], "Welcome");
    assert_eq!(created["tenantId"], w.tenant_a);
    let path = format!("/admin/media-files/{}", created["id"]);

    let read = app.get(&path, &admin).await.expect(200);
    let under_v2 = app.get(&format!("/v2{path}"), &admin).await.expect(200);
    assert_eq!(read["id"], under_v2["id"]);
    assert_eq!(read["name"], "Welcome");
    let changed = app
        .patch(&path, &admin, json!({"name": "Greeting"}))
        .await
        .expect(200);
    assert_eq!(changed["name"], "Greeting");
    let listed = app.get("/admin/media-files", &admin).await.expect(200);
    assert!(
        listed["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == created["id"] && m["name"] == "Greeting"),
        "{listed}"
    );

    let other = app.login(w.admin_b).await;
    app.get(&path, &other).await.error(404, "NotFound");
    app.patch(&path, &other, json!({"name": "Mine"}))
        .await
        .error(404, "NotFound");

    let deleted = app.delete(&path, &admin).await.expect(200);
    assert_eq!(deleted["name"], "Greeting");
    app.get(&path, &admin).await.error(404, "NotFound");
}

on_both_backends!(
    every_release_note_path_is_served_and_documented,
    media_files_are_served_at_the_release_notes_path
);
