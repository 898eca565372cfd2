//! The console's paging groups, music on hold and media files (issue 34): each created,
//! edited and deleted through the API (read back there), rows of members and files added
//! without JavaScript, a refused form showing every broken field and changing nothing,
//! uploads passed on to the API and played through the console's own route, every player
//! answering byte ranges, text spoken by a voice, and the roles, tenants and form tokens
//! the API and the console refuse.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::Value;

use crate::console::{Browser, Page, plays_with_ranges};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

/// Whether the page marks the field `id` as broken, with its error next to it.
fn marks(page: &Page, id: &str) -> bool {
    let error = format!("{id}-error");
    page.error_next_to(id).is_some()
        && page.body.split("aria-describedby=\"").skip(1).any(|rest| {
            rest.split('"')
                .next()
                .is_some_and(|ids| ids.split_whitespace().any(|i| i == error))
        })
}

/// A multipart upload form of `fields` and the fixture `file`.
fn upload_form(fields: &[(&str, &str)], file: Option<(&str, Vec<u8>)>) -> Form {
    let mut form = Form::new();
    for (name, value) in fields {
        form = form.text((*name).to_owned(), (*value).to_owned());
    }
    if let Some((name, bytes)) = file {
        form = form.part(
            "file",
            Part::bytes(bytes)
                .file_name(name.to_owned())
                .mime_str("audio/wav")
                .unwrap(),
        );
    }
    form
}

/// A paging group is made with two members (after "Add a member" showed a second row
/// and saved nothing), its intro message and two-way audio; edited to one member and
/// check in use; deleted. Each step is read back through the API.
async fn a_paging_group_is_made_edited_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let intro = app.upload_fixture(&admin, "tone.wav").await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/paging-groups/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains("name=\"member0\""), "{}", form.body);
    assert!(!form.body.contains("name=\"member1\""));
    let token = form.token();
    let (ext_a, ext_a2) = (format!("EXT:{}", w.ext_a), format!("EXT:{}", w.ext_a2));
    let intro_id = intro.to_string();

    let more = browser
        .post(
            "/console/paging-groups",
            &[
                ("csrf", &token),
                ("action", "add"),
                ("members", "1"),
                ("member0", &ext_a),
                ("name", "Whole shop"),
                ("number", "4711"),
            ],
        )
        .await;
    assert_eq!(more.status, StatusCode::OK, "{}", more.body);
    assert!(more.body.contains("name=\"member1\""), "{}", more.body);
    assert_eq!(more.selected("member0"), ext_a, "{}", more.body);
    assert!(more.body.contains("value=\"Whole shop\""));
    assert!(
        app.records("/v2/admin/paging-groups/", &admin)
            .await
            .is_empty()
    );

    let created = browser
        .post(
            "/console/paging-groups",
            &[
                ("csrf", &token),
                ("action", "save"),
                ("members", "2"),
                ("member0", &ext_a),
                ("member1", &ext_a2),
                ("name", "Whole shop"),
                ("number", "4711"),
                ("introMessageMediaFileId", &intro_id),
                ("twoWayAudio", "yes"),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    assert_eq!(created.location(), "/console/paging-groups?done=created");
    let groups = app.records("/v2/admin/paging-groups/", &admin).await;
    assert_eq!(groups.len(), 1);
    let group = &groups[0];
    assert_eq!(group["name"], "Whole shop");
    assert_eq!(group["number"], "4711");
    assert_eq!(group["twoWayAudio"], "yes");
    assert_eq!(group["checkInUse"], Value::Null);
    assert_eq!(group["introMessageMediaFileId"], intro);
    let members: Vec<_> = group["routingDestinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["destType"].clone(), m["id"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        members,
        vec![("EXT".into(), w.ext_a), ("EXT".into(), w.ext_a2)]
    );
    let list = browser.get(created.location()).await;
    assert!(list.body.contains("The paging group is created."));
    assert!(
        list.body.contains("<td>4711</td><td>Whole shop</td>"),
        "{}",
        list.body
    );

    let id = group["id"].as_i64().unwrap();
    let path = format!("/console/paging-groups/{id}");
    let edit = browser.get(&path).await;
    assert_eq!(edit.status, StatusCode::OK, "{}", edit.body);
    assert!(edit.selected("member0") == ext_a && edit.selected("member1") == ext_a2);
    assert_eq!(edit.selected("introMessageMediaFileId"), intro_id);
    assert!(
        edit.body.contains("name=\"member2\""),
        "an empty row to add one"
    );
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("action", "save"),
                ("members", "3"),
                ("member0", ""),
                ("member1", &ext_a2),
                ("member2", ""),
                ("name", "Whole shop"),
                ("number", "4711"),
                ("introMessageMediaFileId", "0"),
                ("checkInUse", "on"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let stored = app
        .get(&format!("/v2/admin/paging-groups/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["routingDestinations"].as_array().unwrap().len(), 1);
    assert_eq!(stored["routingDestinations"][0]["id"], w.ext_a2);
    assert_eq!(stored["twoWayAudio"], Value::Null);
    assert_eq!(stored["checkInUse"], "on");
    assert_eq!(stored["introMessageMediaFileId"], 0);

    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    app.get(&format!("/v2/admin/paging-groups/{id}"), &admin)
        .await
        .expect(404);
}

/// A refused paging group names every broken field next to it — the number, the name,
/// the member of another tenant — keeps what was typed, and creates nothing.
async fn a_refused_paging_group_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/paging-groups/new").await.token();
    let long_name = "N".repeat(300);
    let foreign = format!("EXT:{}", w.ext_b);
    let own = format!("EXT:{}", w.ext_a);
    let page = browser
        .post(
            "/console/paging-groups",
            &[
                ("csrf", &token),
                ("action", "save"),
                ("members", "3"),
                ("member0", &own),
                ("member1", ""),
                ("member2", &foreign),
                ("name", &long_name),
                ("number", "1"),
                ("introMessageMediaFileId", "0"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    for field in ["name", "number", "member2"] {
        assert!(
            marks(&page, field),
            "no error next to {field}: {}",
            page.body
        );
    }
    assert!(
        !page.body.contains("id=\"member0-error\""),
        "member 1 is fine"
    );
    assert!(page.body.contains(&long_name) && page.body.contains("value=\"1\""));
    // (Another tenant's extension is no target here, so only the own one shows picked.)
    assert_eq!(page.selected("member0"), own, "{}", page.body);
    assert!(
        app.records("/v2/admin/paging-groups/", &admin)
            .await
            .is_empty()
    );
}

/// A playlist is made of two files in order (after "Add a file"), made the default,
/// reordered and no longer the default, then deleted; each read back through the API.
async fn a_playlist_is_made_reordered_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let first = app.upload_fixture(&admin, "tone.wav").await.to_string();
    let second = app.upload_fixture(&admin, "tone.mp3").await.to_string();
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/music-on-hold/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let token = form.token();
    let more = browser
        .post(
            "/console/music-on-hold",
            &[
                ("csrf", &token),
                ("action", "add"),
                ("files", "1"),
                ("file0", &first),
                ("name", "Easy listening"),
                ("mode", "random"),
            ],
        )
        .await;
    assert_eq!(more.status, StatusCode::OK, "{}", more.body);
    assert!(more.body.contains("name=\"file1\"") && more.selected("file0") == first);
    assert_eq!(more.selected("mode"), "random");
    assert!(
        app.records("/v2/admin/music-on-hold/", &admin)
            .await
            .is_empty()
    );

    let created = browser
        .post(
            "/console/music-on-hold",
            &[
                ("csrf", &token),
                ("action", "save"),
                ("files", "2"),
                ("file0", &first),
                ("file1", &second),
                ("name", "Easy listening"),
                ("mode", "random"),
                ("isDefault", "true"),
                ("branchId", ""),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    let playlists = app.records("/v2/admin/music-on-hold/", &admin).await;
    assert_eq!(playlists.len(), 1);
    let playlist = &playlists[0];
    assert_eq!(playlist["name"], "Easy listening");
    assert_eq!(playlist["mode"], "random");
    assert_eq!(playlist["isDefault"], true);
    assert_eq!(playlist["branchId"], Value::Null);
    let files = |record: &Value| -> Vec<String> {
        record["routingDestinations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_i64().unwrap().to_string())
            .collect()
    };
    assert_eq!(files(playlist), vec![first.clone(), second.clone()]);
    let list = browser.get(created.location()).await;
    assert!(list.body.contains("The music on hold is created."));
    assert!(
        list.body
            .contains("Easy listening <strong class=\"tag\">Default</strong>")
    );

    let id = playlist["id"].as_i64().unwrap();
    let path = format!("/console/music-on-hold/{id}");
    let edit = browser.get(&path).await;
    assert!(edit.selected("file0") == first && edit.selected("file1") == second);
    let branch = w.branch_a.to_string();
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("action", "save"),
                ("files", "3"),
                ("file0", &second),
                ("file1", ""),
                ("file2", &first),
                ("name", "Easy listening"),
                ("mode", "sequential"),
                ("branchId", &branch),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let stored = app
        .get(&format!("/v2/admin/music-on-hold/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(files(&stored), vec![second, first]);
    assert_eq!(stored["isDefault"], false);
    assert_eq!(stored["mode"], "sequential");
    assert_eq!(stored["branchId"], w.branch_a);

    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    app.get(&format!("/v2/admin/music-on-hold/{id}"), &admin)
        .await
        .expect(404);
}

/// A refused playlist names the name, the mode and the empty playlist next to them,
/// and creates nothing.
async fn a_refused_playlist_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/music-on-hold/new").await.token();
    let long_name = "N".repeat(300);
    let page = browser
        .post(
            "/console/music-on-hold",
            &[
                ("csrf", &token),
                ("action", "save"),
                ("files", "1"),
                ("file0", ""),
                ("name", &long_name),
                ("mode", "loudest"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    for field in ["name", "mode", "routingDestinations"] {
        assert!(
            page.body
                .contains(&format!("id=\"{field}-error\" data-field=\"{field}\"")),
            "no error next to {field}: {}",
            page.body
        );
    }
    assert!(page.body.contains(&long_name));
    assert!(
        app.records("/v2/admin/music-on-hold/", &admin)
            .await
            .is_empty()
    );
}

/// A WAV uploaded through the console's form reaches the API; the list plays its
/// telephony rendition through the API's signed link (which serves 8 kHz WAV without a
/// token); the console's own audio route plays it too; it is renamed and deleted.
async fn a_file_is_uploaded_played_renamed_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/media-files/upload").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains("enctype=\"multipart/form-data\""));
    let token = form.token();
    let uploaded = browser
        .post_multipart(
            "/console/media-files/upload",
            upload_form(
                &[
                    ("csrf", &token),
                    ("name", "Closing soon"),
                    ("language", "en"),
                    ("text", "We close in ten minutes."),
                ],
                Some(("closing.wav", fixture("tone.wav"))),
            ),
        )
        .await;
    assert_eq!(uploaded.status, StatusCode::SEE_OTHER, "{}", uploaded.body);
    assert_eq!(uploaded.location(), "/console/media-files?done=uploaded");
    let files = app.records("/v2/admin/media-files/", &admin).await;
    assert_eq!(files.len(), 1);
    let file = &files[0];
    assert_eq!(file["name"], "Closing soon");
    assert_eq!(file["text"], "We close in ten minutes.");
    assert_eq!(file["size"], fixture("tone.wav").len());
    let id = file["id"].as_i64().unwrap();

    let list = browser.get(uploaded.location()).await;
    assert!(list.body.contains("The media file is uploaded."));
    let audio = list
        .body
        .split("<audio controls preload=\"none\" src=\"")
        .nth(1)
        .expect("a player")
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(audio, format!("/console/media-files/{id}/audio"));
    let (status, headers, bytes) = browser.fetch(&audio, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("audio/")
    );
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(
        u32::from_le_bytes(bytes[24..28].try_into().unwrap()),
        8000,
        "the telephony rendition"
    );

    let path = format!("/console/media-files/{id}");
    let edit = browser.get(&path).await;
    assert_eq!(edit.status, StatusCode::OK, "{}", edit.body);
    let refused = browser.post(&path, &[("csrf", &token), ("name", "")]).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(marks(&refused, "name"), "{}", refused.body);
    let renamed = browser
        .post(&path, &[("csrf", &token), ("name", "Closing in ten")])
        .await;
    assert_eq!(renamed.status, StatusCode::SEE_OTHER, "{}", renamed.body);
    let stored = app
        .get(&format!("/v2/admin/media-files/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Closing in ten");
    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    app.get(&format!("/v2/admin/media-files/{id}"), &admin)
        .await
        .expect(404);
}

/// A refused upload names the file that is no audio next to the file field, a missing
/// file and name and a broken language next to theirs, keeps what was typed, and stores
/// nothing; a file something plays is not deleted.
async fn a_refused_upload_names_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/media-files/upload").await.token();
    let not_audio = browser
        .post_multipart(
            "/console/media-files/upload",
            upload_form(
                &[("csrf", &token), ("name", "Song")],
                Some(("song.wav", fixture("not-audio.txt"))),
            ),
        )
        .await;
    assert_eq!(
        not_audio.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        not_audio.body
    );
    assert!(marks(&not_audio, "file"), "{}", not_audio.body);
    assert!(not_audio.body.contains("value=\"Song\""));
    let broken = browser
        .post_multipart(
            "/console/media-files/upload",
            upload_form(
                &[("csrf", &token), ("language", "!!"), ("text", "Hello")],
                None,
            ),
        )
        .await;
    assert_eq!(broken.status, StatusCode::BAD_REQUEST, "{}", broken.body);
    for field in ["file", "name", "language"] {
        assert!(
            marks(&broken, field),
            "no error next to {field}: {}",
            broken.body
        );
    }
    assert!(broken.body.contains(">Hello</textarea>"));
    assert!(
        app.records("/v2/admin/media-files/", &admin)
            .await
            .is_empty()
    );

    // In use by a paging group: the API's refusal is shown and the file stays.
    let media = app.upload_fixture(&admin, "tone.wav").await;
    app.post(
        "/v2/admin/paging-groups/",
        &admin,
        serde_json::json!({"tenantId": w.tenant_a, "number": "4712", "name": "Yard",
                           "introMessageMediaFileId": media}),
    )
    .await
    .expect(200);
    let in_use = browser
        .post(
            &format!("/console/media-files/{media}/delete"),
            &[("csrf", &token)],
        )
        .await;
    assert_eq!(in_use.status, StatusCode::CONFLICT, "{}", in_use.body);
    app.get(&format!("/v2/admin/media-files/{media}"), &admin)
        .await
        .expect(200);
}

/// A text is spoken by a voice of the API's catalogue and saved as a media file with the
/// voice and the text; a refused one names the text and the name.
async fn a_text_is_spoken_by_a_voice(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/media-files/speak").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(
        form.body.contains("<option value=\"en-us\""),
        "{}",
        form.body
    );
    let token = form.token();
    let refused = browser
        .post(
            "/console/media-files/speak",
            &[
                ("csrf", &token),
                ("voiceId", "en-us"),
                ("name", ""),
                ("text", ""),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for field in ["text", "name"] {
        assert!(
            marks(&refused, field),
            "no error next to {field}: {}",
            refused.body
        );
    }
    assert_eq!(refused.selected("voiceId"), "en-us");
    assert!(
        app.records("/v2/admin/media-files/", &admin)
            .await
            .is_empty()
    );
    let spoken = browser
        .post(
            "/console/media-files/speak",
            &[
                ("csrf", &token),
                ("voiceId", "en-us"),
                ("name", "After hours"),
                ("language", "en-US"),
                ("text", "We are closed. Please call again tomorrow."),
            ],
        )
        .await;
    assert_eq!(spoken.status, StatusCode::SEE_OTHER, "{}", spoken.body);
    let files = app.records("/v2/admin/media-files/", &admin).await;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["name"], "After hours");
    assert_eq!(files[0]["voiceId"], "en-us");
    assert_eq!(
        files[0]["text"],
        "We are closed. Please call again tomorrow."
    );
    assert!(files[0]["duration"].as_f64().unwrap() > 1.0);
    let list = browser.get(spoken.location()).await;
    assert!(list.body.contains("Spoken by en-us"), "{}", list.body);
}

/// Without a speech engine the speak page says why, in the API's words and status.
async fn without_a_speech_engine_the_page_says_so(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let page = browser.get("/console/media-files/speak").await;
    assert_eq!(
        page.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        page.body
    );
    assert!(
        page.body.contains("data-testid=\"no-speech\""),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("text-to-speech is unavailable"),
        "{}",
        page.body
    );
    assert!(!page.body.contains("name=\"voiceId\""));
}

/// A branch administrator (who may read paging groups and music on hold, not change
/// them), a user, another tenant's administrator and a form without its token are all
/// refused, and nothing changes.
async fn lower_roles_other_tenants_and_forged_forms_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let media = app.upload_fixture(&admin, "tone.wav").await;
    let group = app
        .post(
            "/v2/admin/paging-groups/",
            &admin,
            serde_json::json!({"tenantId": w.tenant_a, "number": "4713", "name": "Dock",
                               "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await
        .expect(200);
    let group_path = format!("/console/paging-groups/{}", group["id"]);
    let ext = format!("EXT:{}", w.ext_a);
    let group_form = |token: &str| -> Vec<(String, String)> {
        [
            ("csrf", token),
            ("action", "save"),
            ("members", "1"),
            ("member0", ext.as_str()),
            ("name", "Taken"),
            ("number", "4714"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    };

    // The branch administrator reads, but the API refuses their changes.
    let mut branch = Browser::new(&app.base);
    branch.sign_in(w.branch_admin_a).await;
    let list = branch.get("/console/paging-groups").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(list.body.contains("Dock"));
    let token = branch.get(&group_path).await.token();
    let form = group_form(&token);
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let refused = branch.post(&group_path, &fields).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert!(
        refused.body.contains("<h1>Not allowed</h1>"),
        "{}",
        refused.body
    );
    let refused = branch
        .post(
            "/console/music-on-hold",
            &[
                ("csrf", &token),
                ("action", "save"),
                ("files", "1"),
                ("file0", &media.to_string()),
                ("name", "Theirs"),
                ("mode", "sequential"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert!(
        app.records("/v2/admin/music-on-hold/", &admin)
            .await
            .is_empty()
    );

    // A user may not see paging groups, music on hold nor media files.
    let mut user = Browser::new(&app.base);
    user.sign_in(w.user_a).await;
    for path in [
        "/console/paging-groups",
        "/console/music-on-hold",
        "/console/media-files",
    ] {
        assert_eq!(user.get(path).await.status, StatusCode::FORBIDDEN, "{path}");
    }

    // Another tenant's administrator finds none of them.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    assert_eq!(other.get(&group_path).await.status, StatusCode::NOT_FOUND);
    let media_path = format!("/console/media-files/{media}");
    assert_eq!(other.get(&media_path).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        other.get(&format!("{media_path}/audio")).await.status,
        StatusCode::NOT_FOUND
    );
    let token = other.get("/console/paging-groups/new").await.token();
    let form = group_form(&token);
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        other.post(&group_path, &fields).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        other
            .post(&format!("{media_path}/delete"), &[("csrf", &token)])
            .await
            .status,
        StatusCode::NOT_FOUND
    );

    // Forms without the session's token are refused before anything is sent.
    let mut own = Browser::new(&app.base);
    own.sign_in(w.admin_a).await;
    let form = group_form("not-the-token");
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        own.post("/console/paging-groups", &fields).await.status,
        StatusCode::FORBIDDEN
    );
    let forged = own
        .post_multipart(
            "/console/media-files/upload",
            upload_form(&[("name", "Forged")], Some(("a.wav", fixture("tone.wav")))),
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    assert_eq!(
        own.post(&format!("{media_path}/delete"), &[]).await.status,
        StatusCode::FORBIDDEN
    );
    let stored = app
        .get(&format!("/v2/admin/paging-groups/{}", group["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Dock");
    assert_eq!(
        app.records("/v2/admin/paging-groups/", &admin).await.len(),
        1
    );
    assert_eq!(app.records("/v2/admin/media-files/", &admin).await.len(), 1);
}

/// A media file, a voicemail message and a call's recording: every page plays its audio
/// through the console's own route, which answers a player's byte ranges exactly (200,
/// 206, 416) with the bytes the API's signed link serves; reading a message's audio
/// marks nothing; another tenant's admin is answered 404.
async fn every_player_answers_byte_ranges(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;

    let token = browser.get("/console/media-files/upload").await.token();
    let uploaded = browser
        .post_multipart(
            "/console/media-files/upload",
            upload_form(
                &[("csrf", &token), ("name", "Seek me")],
                Some(("seek.wav", fixture("tone.wav"))),
            ),
        )
        .await;
    assert_eq!(uploaded.status, StatusCode::SEE_OTHER, "{}", uploaded.body);
    let file = &app.records("/v2/admin/media-files/", &admin).await[0];
    let (status, _, rendition) = app
        .fetch(file["renditionUrl"].as_str().unwrap(), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let path = format!("/console/media-files/{}/audio", file["id"]);
    let list = browser.get("/console/media-files").await;
    assert!(
        list.body.contains(&format!("src=\"{path}\"")),
        "{}",
        list.body
    );
    plays_with_ranges(&mut browser, &path, &rendition).await;

    let message = serde_json::json!({"tenantId": w.tenant_a, "mailboxUser": "101",
        "msgId": "1763800000-7", "dateUnix": 1_763_800_000});
    app.push(
        &platform,
        "/v2/ingest/voicemail-messages",
        ("message", message),
        Some(("audio", fixture("tone.wav"))),
    )
    .await
    .expect(200);
    let stored = &app.records("/v2/admin/voicemail-messages/", &admin).await[0];
    let path = format!("/console/voicemail/{}/audio", stored["id"]);
    let inbox = browser.get("/console/voicemail").await;
    assert!(
        inbox.body.contains(&format!("src=\"{path}\"")),
        "{}",
        inbox.body
    );
    plays_with_ranges(&mut browser, &path, &fixture("tone.wav")).await;
    let after = app
        .get(
            &format!("/v2/admin/voicemail-messages/{}", stored["id"]),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(after["read"], stored["read"], "playing marks nothing");

    let recording = app
        .recorded_call(&platform, &admin, w.tenant_a, "1763800000.8")
        .await;
    let (status, _, mp3) = app
        .fetch(recording["mediaURL"].as_str().unwrap(), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let path = "/console/calls/1763800000.8/recording";
    let report = browser.get("/console/calls/1763800000.8").await;
    assert!(
        report.body.contains(&format!("src=\"{path}\"")),
        "{}",
        report.body
    );
    plays_with_ranges(&mut browser, path, &mp3).await;

    // Another tenant's admin plays none of them.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    for path in [
        format!("/console/voicemail/{}/audio", stored["id"]),
        format!("/console/media-files/{}/audio", file["id"]),
        path.to_owned(),
    ] {
        let (status, _, _) = other.fetch(&path, Some("bytes=0-9")).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}

on_both_backends!(
    a_paging_group_is_made_edited_and_deleted,
    a_refused_paging_group_shows_every_broken_field,
    a_playlist_is_made_reordered_and_deleted,
    a_refused_playlist_shows_every_broken_field,
    a_file_is_uploaded_played_renamed_and_deleted,
    every_player_answers_byte_ranges,
    a_refused_upload_names_every_broken_field,
    lower_roles_other_tenants_and_forged_forms_are_refused,
);
on_both_backends!(needs switchboard_testing::ESPEAK_NG;
    a_text_is_spoken_by_a_voice,
);
on_both_backends!(with |c: &mut switchboard::Config| {
        c.tts_espeak_ng = "/nonexistent/espeak-ng".into();
    };
    without_a_speech_engine_the_page_says_so,
);
