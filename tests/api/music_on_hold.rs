//! Music on hold: playlists of the tenant's media files (at least one), one default per
//! tenant kept by the database, a playlist of signed telephony renditions, media files in
//! use refused deletion, and the tenant walls.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, actions, record_ids};

const PATH: &str = "/v2/admin/music-on-hold/";

fn files(ids: &[i64]) -> Value {
    Value::Array(
        ids.iter()
            .map(|id| json!({"id": id, "destType": "MEDIA_FILE"}))
            .collect(),
    )
}

async fn create_read_and_play(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let wav = app.upload_fixture(&a, "tone.wav").await;
    let mp3 = app.upload_fixture(&a, "tone.mp3").await;
    let created = app
        .post(
            PATH,
            &a,
            json!({"name": "Jazz", "mode": "randomStart", "branchId": w.branch_a,
            "routingDestinations": [
                {"id": mp3, "destType": "MEDIA_FILE", "order": 2},
                {"id": wav, "destType": "MEDIA_FILE", "order": 1},
            ]}),
        )
        .await
        .expect(200);
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(created["branchId"], w.branch_a);
    assert_eq!(created["branch"]["id"], w.branch_a);
    assert_eq!(created["mode"], "randomStart");
    assert_eq!(created["isDefault"], false);
    assert_eq!(
        created["routingDestinations"],
        json!([
            {"id": wav, "destType": "MEDIA_FILE", "order": 1, "name": "tone.wav", "number": null},
            {"id": mp3, "destType": "MEDIA_FILE", "order": 2, "name": "tone.mp3", "number": null},
        ])
    );
    // The same record at both paths.
    for path in [format!("{PATH}{id}"), format!("/admin/music-on-hold/{id}")] {
        assert_eq!(app.get(&path, &a).await.expect(200), created);
    }
    // Defaults: sequential, tenant-wide, not the default.
    let plain = app
        .post(
            "/admin/music-on-hold/",
            &a,
            json!({"name": "Plain", "routingDestinations": files(&[wav])}),
        )
        .await
        .expect(200);
    assert_eq!(plain["mode"], "sequential");
    assert_eq!(plain["branchId"], Value::Null);
    assert_eq!(plain["branch"], Value::Null);
    let page = app
        .get(&format!("{PATH}?sortBy=name&query=a"), &a)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 2);
    assert_eq!(page["records"][0]["name"], "Jazz");

    // The playlist: in order, each a signed link to an 8 kHz mono WAV the engine plays.
    let playlist = app
        .get(&format!("{PATH}{id}/playlist"), &a)
        .await
        .expect(200);
    assert_eq!(playlist["id"], id);
    assert_eq!(playlist["mode"], "randomStart");
    let entries = playlist["files"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["mediaFileId"], wav);
    assert_eq!(entries[1]["mediaFileId"], mp3);
    for entry in entries {
        assert_eq!(entry["contentType"], "audio/wav");
        let (status, _, bytes) = app.fetch(entry["url"].as_str().unwrap(), None).await;
        assert_eq!(status, 200);
        assert_eq!(&bytes[..4], b"RIFF");
        assert_eq!(&bytes[8..12], b"WAVE");
        let channels = u16::from_le_bytes([bytes[22], bytes[23]]);
        let rate = u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]);
        assert_eq!((channels, rate), (1, 8000));
        assert!((entry["duration"].as_f64().unwrap() - 1.5).abs() < 0.05);
    }

    // A patch changes what it names; a sent playlist replaces the old one.
    let changed = app
        .patch(
            &format!("/admin/music-on-hold/{id}"),
            &a,
            json!({"name": "Jazz only", "mode": "random", "branchId": null,
                   "routingDestinations": files(&[mp3])}),
        )
        .await
        .expect(200);
    assert_eq!(changed["name"], "Jazz only");
    assert_eq!(changed["mode"], "random");
    assert_eq!(changed["branchId"], Value::Null);
    assert_eq!(changed["routingDestinations"][0]["id"], mp3);
    assert_eq!(changed["routingDestinations"].as_array().unwrap().len(), 1);

    // Every change is in the trail, with the playlist as a field.
    let trail = app.audit_trail("music-on-hold", id, &a).await;
    assert_eq!(actions(&trail), ["create", "update"]);
    assert_eq!(trail[1]["after"]["routingDestinations"][0]["id"], mp3);

    let deleted = app.delete(&format!("{PATH}{id}"), &a).await.expect(200);
    assert_eq!(deleted["name"], "Jazz only");
    app.get(&format!("{PATH}{id}"), &a)
        .await
        .error(404, "NotFound");
    app.delete(&format!("/admin/music-on-hold/{}", plain["id"]), &a)
        .await
        .expect(200);
    // The media files stay.
    app.get(&format!("/v2/admin/media-files/{wav}"), &a)
        .await
        .expect(200);
}

async fn at_least_one_media_file(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let wav = app.upload_fixture(&a, "tone.wav").await;
    for path in [PATH, "/admin/music-on-hold/"] {
        let problems = app
            .post(
                path,
                &a,
                json!({"name": "Empty", "mode": "loud", "isDefault": "yes", "routingDestinations": []}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(
            problems,
            [
                "'body/mode' must be one of: sequential, random, randomStart",
                "'body/isDefault' must be true or false",
                "'body/routingDestinations' must hold at least one media file",
            ]
        );
    }
    let problems = app
        .post(PATH, &a, json!({"name": "Nothing"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/routingDestinations' is required"]);
    // Only media files: no call destination, no extension posing as one.
    let problems = app
        .post(
            PATH,
            &a,
            json!({"name": "Odd", "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/routingDestinations/0/destType' must be one of: MEDIA_FILE"]
    );
    let problems = app
        .post(
            PATH,
            &a,
            json!({"name": "Ghost", "routingDestinations": files(&[wav + 1000])}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/routingDestinations/0/id' must name a media file of the tenant"]
    );
    // A media file is not a place a call is routed to.
    let problems = app
        .post(
            "/v2/admin/business-hours/",
            &a,
            json!({"name": "Hours", "branchId": w.branch_a, "timezone": "UTC",
                   "matchDestinations": [{"id": wav, "destType": "MEDIA_FILE"}]}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("'body/matchDestinations/0/destType' must be one of")),
        "{problems:?}"
    );

    let created = app
        .post(
            PATH,
            &a,
            json!({"name": "One", "routingDestinations": files(&[wav])}),
        )
        .await
        .expect(200);
    let path = format!("/admin/music-on-hold/{}", created["id"]);
    let problems = app
        .patch(&path, &a, json!({"routingDestinations": []}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/routingDestinations' must hold at least one media file"]
    );
    let problems = app
        .patch(&path, &a, json!({"tenantId": w.tenant_b}))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/tenantId' cannot be changed"]);
    // Nothing changed.
    assert_eq!(app.get(&path, &a).await.expect(200), created);
}

async fn other_tenants_are_out_of_reach(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let b = app.login(w.admin_b).await;
    let wav_a = app.upload_fixture(&a, "tone.wav").await;
    let wav_b = app.upload_fixture(&b, "tone.wav").await;
    // Another tenant's media file is refused as if it did not exist.
    let problems = app
        .post(
            PATH,
            &a,
            json!({"name": "Theirs", "routingDestinations": files(&[wav_a, wav_b])}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/routingDestinations/1/id' must name a media file of the tenant"]
    );
    let created = app
        .post(
            PATH,
            &a,
            json!({"name": "Ours", "routingDestinations": files(&[wav_a])}),
        )
        .await
        .expect(200);
    let id = created["id"].as_i64().unwrap();
    let problems = app
        .patch(
            &format!("{PATH}{id}"),
            &a,
            json!({"routingDestinations": files(&[wav_b])}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/routingDestinations/0/id' must name a media file of the tenant"]
    );
    let problems = app
        .patch(&format!("{PATH}{id}"), &a, json!({"branchId": w.branch_b}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/branchId' must name a branch of the tenant"]
    );

    // Tenant B sees nothing of it, at either path.
    for path in [
        format!("{PATH}{id}"),
        format!("/admin/music-on-hold/{id}"),
        format!("{PATH}{id}/playlist"),
    ] {
        app.get(&path, &b).await.error(404, "NotFound");
    }
    app.patch(&format!("{PATH}{id}"), &b, json!({"name": "Mine"}))
        .await
        .error(404, "NotFound");
    app.patch(
        &format!("{PATH}{id}"),
        &b,
        json!({"routingDestinations": files(&[wav_b])}),
    )
    .await
    .error(404, "NotFound");
    app.delete(&format!("/admin/music-on-hold/{id}"), &b)
        .await
        .error(404, "NotFound");
    app.post(
        PATH,
        &b,
        json!({"tenantId": w.tenant_a, "name": "x", "routingDestinations": files(&[wav_b])}),
    )
    .await
    .error(403, "Forbidden");
    app.get(&format!("{PATH}?tenantId={}", w.tenant_a), &b)
        .await
        .error(403, "Forbidden");
    assert_eq!(app.get(PATH, &b).await.expect(200)["totalRecords"], 0);

    // Lower roles: a branch admin reads but does not write; a user does neither.
    let branch_admin = app.login(w.branch_admin_a).await;
    app.get(&format!("{PATH}{id}"), &branch_admin)
        .await
        .expect(200);
    app.patch(&format!("{PATH}{id}"), &branch_admin, json!({"name": "x"}))
        .await
        .error(403, "Forbidden");
    app.post(
        PATH,
        &branch_admin,
        json!({"name": "x", "routingDestinations": files(&[wav_a])}),
    )
    .await
    .error(403, "Forbidden");
    let user = app.login(w.user_a).await;
    app.get(PATH, &user).await.error(403, "Forbidden");
    // A partner admin reaches its own tenant's, not the other partner's.
    let partner = app.login(w.partner_admin_a).await;
    app.get(&format!("{PATH}{id}/playlist"), &partner)
        .await
        .expect(200);
    assert_eq!(app.get(&format!("{PATH}{id}"), &b).await.status, 404);
    assert_eq!(
        app.get(&format!("{PATH}{id}"), &a).await.expect(200),
        created
    );
}

async fn media_files_in_use_cannot_be_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let wav = app.upload_fixture(&a, "tone.wav").await;
    let mp3 = app.upload_fixture(&a, "tone.mp3").await;
    let created = app
        .post(
            PATH,
            &a,
            json!({"name": "Hold", "routingDestinations": files(&[wav, mp3])}),
        )
        .await
        .expect(200);
    let id = created["id"].as_i64().unwrap();
    let problems = app
        .delete(&format!("/v2/admin/media-files/{wav}"), &a)
        .await;
    assert_eq!(problems.status, 409);
    assert_eq!(
        problems.body["message"],
        format!("the media file is used by music on hold 'Hold' (id {id})")
    );
    // Out of the playlist, it can go; the other one still cannot.
    app.patch(
        &format!("{PATH}{id}"),
        &a,
        json!({"routingDestinations": files(&[mp3])}),
    )
    .await
    .expect(200);
    app.delete(&format!("/v2/admin/media-files/{wav}"), &a)
        .await
        .expect(200);
    assert_eq!(
        app.delete(&format!("/v2/admin/media-files/{mp3}"), &a)
            .await
            .status,
        409
    );
    // A playlist naming a media file deleted meanwhile is refused, never left dangling.
    let problems = app
        .patch(
            &format!("{PATH}{id}"),
            &a,
            json!({"routingDestinations": files(&[wav])}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/routingDestinations/0/id' must name a media file of the tenant"]
    );
    app.delete(&format!("{PATH}{id}"), &a).await.expect(200);
    app.delete(&format!("/v2/admin/media-files/{mp3}"), &a)
        .await
        .expect(200);
}

async fn defaults(app: &TestApp, token: &str) -> Vec<i64> {
    let page = app
        .get(&format!("{PATH}?isDefault=true&recordsPerPage=100"), token)
        .await
        .expect(200);
    record_ids(&page)
}

async fn one_default_per_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let b = app.login(w.admin_b).await;
    let wav = app.upload_fixture(&a, "tone.wav").await;
    let wav_b = app.upload_fixture(&b, "tone.wav").await;
    let body = |name: &str, default: bool| json!({"name": name, "isDefault": default, "routingDestinations": files(&[wav])});
    let first = app.post(PATH, &a, body("First", true)).await.expect(200);
    let second = app.post(PATH, &a, body("Second", true)).await.expect(200);
    assert_eq!(first["isDefault"], true);
    assert_eq!(second["isDefault"], true);
    // The new default took over.
    assert_eq!(defaults(&app, &a).await, [second["id"].as_i64().unwrap()]);
    let first_path = format!("{PATH}{}", first["id"]);
    assert_eq!(
        app.get(&first_path, &a).await.expect(200)["isDefault"],
        false
    );
    app.patch(&first_path, &a, json!({"isDefault": true}))
        .await
        .expect(200);
    assert_eq!(defaults(&app, &a).await, [first["id"].as_i64().unwrap()]);
    // Another tenant's default is its own.
    let theirs = app
        .post(
            PATH,
            &b,
            json!({"name": "Theirs", "isDefault": true, "routingDestinations": files(&[wav_b])}),
        )
        .await
        .expect(200);
    assert_eq!(defaults(&app, &b).await, [theirs["id"].as_i64().unwrap()]);
    assert_eq!(defaults(&app, &a).await, [first["id"].as_i64().unwrap()]);
    app.patch(&first_path, &a, json!({"isDefault": false}))
        .await
        .expect(200);
    assert!(defaults(&app, &a).await.is_empty());

    // Concurrent writes each making a default: every one answers (200, or 409 when the
    // database's index refuses a racing one), and the tenant ends with exactly one.
    let answers = futures::future::join_all(
        (0..8).map(|i| app.post(PATH, &a, body(&format!("Race {i}"), true))),
    )
    .await;
    for answer in &answers {
        assert!(
            answer.status == 200 || answer.status == 409,
            "{} {}",
            answer.status,
            answer.body
        );
    }
    assert!(answers.iter().any(|answer| answer.status == 200));
    assert_eq!(defaults(&app, &a).await.len(), 1);
    let paths: Vec<String> = [&first, &second]
        .iter()
        .map(|m| format!("{PATH}{}", m["id"]))
        .collect();
    let patches = futures::future::join_all(
        paths
            .iter()
            .map(|path| app.patch(path, &a, json!({"isDefault": true}))),
    )
    .await;
    assert!(patches.iter().all(|p| p.status == 200 || p.status == 409));
    assert_eq!(defaults(&app, &a).await.len(), 1);

    // The database itself refuses a second default, whoever writes it.
    let tenant = switchboard_domain::ids::TenantId(w.tenant_a);
    let refused = switchboard_db::crud::insert(
        &app.state.db,
        "music_on_hold",
        vec![
            ("tenant_id", tenant.get().into()),
            ("name", "Sneaky".into()),
            ("mode", "sequential".into()),
            ("is_default", 1i64.into()),
        ],
    )
    .await;
    assert!(
        matches!(refused, Err(switchboard_db::Error::Conflict(_))),
        "{refused:?}"
    );
    assert_eq!(defaults(&app, &a).await.len(), 1);
}

/// A branch admin reads its branch's music on hold and the tenant-wide ones, never
/// another branch's: 404 as for every branch-bearing record, and absent from the list
/// (issue 29 item 11).
async fn another_branchs_music_is_out_of_a_branch_admins_reach(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let wav = app.upload_fixture(&a, "tone.wav").await;
    let mut ids = Vec::new();
    for (name, branch) in [
        ("Own", json!(w.branch_a)),
        ("Annex", json!(w.branch_a2)),
        ("Everyone", Value::Null),
    ] {
        let created = app
            .post(
                PATH,
                &a,
                json!({"name": name, "branchId": branch, "routingDestinations": files(&[wav])}),
            )
            .await
            .expect(200);
        ids.push(created["id"].as_i64().unwrap());
    }
    let branch = app.login(w.branch_admin_a).await;
    let listed = app.get(PATH, &branch).await.expect(200);
    let names: Vec<&str> = listed["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Own", "Everyone"], "{listed}");
    app.get(&format!("{PATH}{}", ids[0]), &branch)
        .await
        .expect(200);
    app.get(&format!("{PATH}{}", ids[2]), &branch)
        .await
        .expect(200);
    for path in [
        format!("{PATH}{}", ids[1]),
        format!("{PATH}{}/playlist", ids[1]),
        format!("/admin/music-on-hold/{}", ids[1]),
    ] {
        app.get(&path, &branch).await.error(404, "NotFound");
    }
    // The tenant's admin reads every branch's.
    app.get(&format!("{PATH}{}", ids[1]), &a).await.expect(200);
}

on_both_backends!(
    create_read_and_play,
    at_least_one_media_file,
    other_tenants_are_out_of_reach,
    media_files_in_use_cannot_be_deleted,
    one_default_per_tenant,
    another_branchs_music_is_out_of_a_branch_admins_reach,
);
