//! Voicemail messages: pushed by the engine, listed with every filter, sort, search and
//! stats, filed and marked read, deleted with their audio; scoped to tenant, branch and
//! a user's own mailbox, media URLs included.

use serde_json::{Value, json};

use crate::fixture::{World, voicemail_message};
use crate::support::{TestApp, actions, fixture, tamper};

const PATH: &str = "/v2/ingest/voicemail-messages";

fn message(tenant: i64, mailbox: &str, msg_id: &str, unix: i64, caller: &str, dir: &str) -> Value {
    let mut message = voicemail_message(tenant, mailbox, msg_id);
    message["dateUnix"] = json!(unix);
    message["callerId"] = json!(caller);
    message["dir"] = json!(dir);
    message
}

/// Pushes the standard set: three messages for tenant A (two in mailbox 101, one filed
/// in 201's Old folder), one for tenant B.
async fn seed(app: &TestApp, world: &World, platform: &str) -> Vec<i64> {
    let wav = fixture("tone.wav");
    let pushes = [
        message(
            world.tenant_a,
            "101",
            "1700000000-00000001",
            1_700_000_000,
            "\"Alice Smith\" <5551234>",
            "INBOX",
        ),
        message(
            world.tenant_a,
            "101",
            "1700000100-00000002",
            1_700_000_100,
            "\"Bob Jones\" <5559876>",
            "INBOX",
        ),
        message(
            world.tenant_a,
            "201",
            "1700000200-00000003",
            1_700_000_200,
            "\"Carol\" <5550000>",
            "Old",
        ),
        message(
            world.tenant_b,
            "101",
            "1700000300-00000004",
            1_700_000_300,
            "\"Dave\" <5551111>",
            "INBOX",
        ),
    ];
    let mut ids = Vec::new();
    for fields in pushes {
        let body = app
            .push(
                platform,
                PATH,
                ("message", fields),
                Some(("audio", wav.clone())),
            )
            .await
            .expect(200);
        assert_eq!(body["recorded"], true, "{body}");
        ids.push(body["id"].as_i64().expect("an id"));
    }
    ids
}

async fn ingest_list_and_media(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let ids = seed(&app, &world, &platform).await;
    let admin_a = app.login(world.admin_a).await;

    let page = app
        .get(
            "/v2/admin/voicemail-messages/?sortBy=dateUnix&sortDirection=desc",
            &admin_a,
        )
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 3);
    assert_eq!(page["page"], 1);
    assert_eq!(page["maxPage"], 1);
    assert!(page.get("stats").is_none(), "stats only when asked: {page}");
    let records = page["records"].as_array().unwrap();
    assert_eq!(
        records[0]["msgId"],
        Value::Null,
        "msg_id is not a spec field"
    );
    let newest = &records[0];
    assert_eq!(newest["id"], ids[2]);
    for (field, kind) in [
        ("id", "i"),
        ("messageNumber", "i"),
        ("dateUnix", "i"),
        ("duration", "i"),
        ("mailboxUser", "s"),
        ("mailboxContext", "s"),
        ("callerId", "s"),
        ("date", "s"),
        ("extNum", "s"),
        ("transcript", "s"),
        ("mediaURL", "s"),
        ("dir", "s"),
        ("read", "b"),
    ] {
        let value = &newest[field];
        let ok = match kind {
            "i" => value.is_i64(),
            "s" => value.is_string(),
            _ => value.is_boolean(),
        };
        assert!(ok, "{field} has the spec's type: {newest}");
    }
    assert_eq!(newest["dir"], "Old");
    assert_eq!(newest["read"], true);
    assert_eq!(records[2]["read"], false);

    // The signed URL streams the audio, with Range.
    let url = newest["mediaURL"].as_str().unwrap();
    let (status, headers, bytes) = app.fetch(url, None).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "audio/wav");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("inline; filename=\"") && disposition.ends_with(".wav\""),
        "{disposition}"
    );
    assert_eq!(bytes, fixture("tone.wav"));
    let (status, headers, bytes) = app.fetch(url, Some("bytes=0-11")).await;
    assert_eq!(status, 206);
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(bytes.len(), 12);
    assert!(
        headers["content-range"]
            .to_str()
            .unwrap()
            .starts_with("bytes 0-11/")
    );
    // A tampered link is refused.
    let (status, _, _) = app.fetch(&tamper(url), None).await;
    assert_eq!(status, 403);

    // Tenant B sees its own message only; tenant A's are 404 and its filter a 403.
    let admin_b = app.login(world.admin_b).await;
    let page_b = app
        .get("/v2/admin/voicemail-messages", &admin_b)
        .await
        .expect(200);
    assert_eq!(page_b["totalRecords"], 1);
    // A link is bound to its object: tenant B's signature does not open tenant A's audio.
    let url_b = page_b["records"][0]["mediaURL"].as_str().unwrap();
    let key_a = url
        .split("/v2/objects/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap();
    let key_b = url_b
        .split("/v2/objects/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap();
    assert_ne!(key_a, key_b);
    let (status, _, _) = app.fetch(&url_b.replace(key_b, key_a), None).await;
    assert_eq!(status, 403, "B's signature on A's key");
    app.get(
        &format!("/v2/admin/voicemail-messages/{}", ids[0]),
        &admin_b,
    )
    .await
    .error(404, "NotFound");
    app.patch(
        &format!("/v2/admin/voicemail-messages/{}", ids[0]),
        &admin_b,
        json!({"read": true}),
    )
    .await
    .error(404, "NotFound");
    app.delete(
        &format!("/v2/admin/voicemail-messages/{}", ids[0]),
        &admin_b,
    )
    .await
    .error(404, "NotFound");
    app.get(
        &format!("/v2/admin/voicemail-messages/?tenantId={}", world.tenant_a),
        &admin_b,
    )
    .await
    .error(403, "Forbidden");
    // The platform admin spans both, and filters by tenant.
    let all = app
        .get("/v2/admin/voicemail-messages/", &platform)
        .await
        .expect(200);
    assert_eq!(all["totalRecords"], 4);
    let only_b = app
        .get(
            &format!("/v2/admin/voicemail-messages/?tenantId={}", world.tenant_b),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(only_b["totalRecords"], 1);
}

async fn filters_search_sort_and_stats(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let ids = seed(&app, &world, &platform).await;
    let admin = app.login(world.admin_a).await;
    let total = |body: &Value| body["totalRecords"].as_i64().unwrap();
    let list = |query: &'static str| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.get(&format!("/v2/admin/voicemail-messages/?{query}"), &admin)
                .await
        }
    };
    assert_eq!(total(&list("mailbox=101").await.expect(200)), 2);
    assert_eq!(total(&list("mailbox=999").await.expect(200)), 0);
    assert_eq!(total(&list("read=1").await.expect(200)), 1);
    assert_eq!(total(&list("read=0").await.expect(200)), 2);
    // Boolean filters take the bodies' spelling too.
    assert_eq!(total(&list("read=true").await.expect(200)), 1);
    assert_eq!(total(&list("read=false").await.expect(200)), 2);
    assert_eq!(
        list("read=yes").await.error(400, "ValidationError"),
        ["'query/read' must be one of: 0, 1, true, false"]
    );
    assert_eq!(total(&list("dir=Old").await.expect(200)), 1);
    assert_eq!(total(&list("dir=INBOX&mailbox=101").await.expect(200)), 2);
    // Search: caller id, case-insensitively, and message id.
    assert_eq!(total(&list("query=alice").await.expect(200)), 1);
    assert_eq!(total(&list("query=555").await.expect(200)), 3);
    assert_eq!(total(&list("query=00000002").await.expect(200)), 1);
    assert_eq!(total(&list("query=nobody").await.expect(200)), 0);
    // Shorter than a trigram: still found (by a scan).
    assert_eq!(total(&list("query=jo").await.expect(200)), 1);
    // Searches count their matches, in stats too.
    let searched = list("query=alice&stats=1").await.expect(200);
    assert_eq!(
        searched["stats"],
        json!({"total": 1, "unread": 1, "read": 0})
    );
    // Sorts.
    let by_caller = list("sortBy=callerId&sortDirection=asc").await.expect(200);
    let callers: Vec<_> = by_caller["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["callerId"].as_str().unwrap().to_owned())
        .collect();
    assert!(callers.windows(2).all(|w| w[0] <= w[1]), "{callers:?}");
    let by_date = list("sortBy=dateUnix&sortDirection=asc").await.expect(200);
    assert_eq!(by_date["records"][0]["id"], ids[0]);
    let by_duration = list("sortBy=duration").await.expect(200);
    assert_eq!(total(&by_duration), 3);
    // Pages, and stats over the whole filter rather than the page.
    let page = list("recordsPerPage=1&page=2&stats=1").await.expect(200);
    assert_eq!(page["records"].as_array().unwrap().len(), 1);
    assert_eq!(page["maxPage"], 3);
    assert_eq!(page["stats"], json!({"total": 3, "unread": 2, "read": 1}));
    let filtered = list("stats=1&mailbox=101").await.expect(200);
    assert_eq!(
        filtered["stats"],
        json!({"total": 2, "unread": 2, "read": 0})
    );
    let past = list("page=9").await.expect(200);
    assert_eq!(past["records"], json!([]));
    // The whole list, streamed, with stats.
    let streamed = list("paginated=0&stats=1&sortBy=id").await.expect(200);
    assert_eq!(streamed["records"].as_array().unwrap().len(), 3);
    assert_eq!(streamed["totalRecords"], 3);
    assert_eq!(streamed["maxPage"], 1);
    assert_eq!(streamed["stats"]["total"], 3);
    // Limits.
    let long = "q".repeat(256);
    let errors = app
        .get(
            &format!("/v2/admin/voicemail-messages/?query={long}"),
            &admin,
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, vec!["'query/query' must be at most 255 characters"]);
    let errors = app
        .get(
            &format!("/v2/admin/voicemail-messages/?sortBy={}", "s".repeat(51)),
            &admin,
        )
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'query/sortBy'"), "{errors:?}");
    app.get("/v2/admin/voicemail-messages/?sortBy=msgId", &admin)
        .await
        .error(400, "ValidationError");
    let errors = app
        .get("/v2/admin/voicemail-messages/?read=2&dir=Trash&paginated=5&sortDirection=up&tenantId=01&stats=x", &admin)
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 6, "{errors:?}");
}

async fn filing_marking_and_deleting(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let ids = seed(&app, &world, &platform).await;
    let admin = app.login(world.admin_a).await;
    let path = format!("/v2/admin/voicemail-messages/{}", ids[0]);

    let read = app
        .patch(&path, &admin, json!({"read": true}))
        .await
        .expect(200);
    assert_eq!(
        (read["read"].clone(), read["dir"].clone()),
        (json!(true), json!("Old"))
    );
    let unread = app
        .patch(&path, &admin, json!({"read": false}))
        .await
        .expect(200);
    assert_eq!(
        (unread["read"].clone(), unread["dir"].clone()),
        (json!(false), json!("INBOX"))
    );
    let filed = app
        .patch(&path, &admin, json!({"dir": "Work"}))
        .await
        .expect(200);
    assert_eq!(
        (filed["read"].clone(), filed["dir"].clone()),
        (json!(true), json!("Work"))
    );
    let errors = app
        .patch(&path, &admin, json!({"dir": "INBOX", "read": true}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        vec!["'body/read' must be false for a message filed in INBOX"]
    );
    let errors = app
        .patch(&path, &admin, json!({"dir": "Trash", "read": "yes"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 2, "{errors:?}");
    // Nothing was half-applied by the refused requests.
    assert_eq!(app.get(&path, &admin).await.expect(200)["dir"], "Work");
    // The counters behind totals and stats followed every move.
    let stats = app
        .get("/v2/admin/voicemail-messages/?stats=1&mailbox=101", &admin)
        .await
        .expect(200);
    assert_eq!(stats["stats"], json!({"total": 2, "unread": 1, "read": 1}));
    assert_eq!(stats["totalRecords"], 2);
    let work = app
        .get("/v2/admin/voicemail-messages/?dir=Work&stats=1", &admin)
        .await
        .expect(200);
    assert_eq!(
        (work["totalRecords"].clone(), work["stats"]["read"].clone()),
        (json!(1), json!(1))
    );

    let before = app.get(&path, &admin).await.expect(200);
    let url = before["mediaURL"].as_str().unwrap().to_owned();
    let deleted = app.delete(&path, &admin).await.expect(200);
    assert_eq!(deleted["id"], ids[0]);
    assert_eq!(deleted["mediaURL"], "");
    app.get(&path, &admin).await.error(404, "NotFound");
    app.jobs_done().await;
    let (status, _, _) = app.fetch(&url, None).await;
    assert_eq!(status, 404, "the audio went with the message");
    // The trail has the filing and the delete, as the admin's.
    let trail = app.audit_trail("voicemail-message", ids[0], &admin).await;
    let actions = actions(&trail);
    assert_eq!(actions.last(), Some(&"delete"), "{actions:?}");
    assert!(
        trail
            .iter()
            .any(|e| e["action"] == "update" && e["after"]["dir"] == "Work"),
        "{trail:?}"
    );
    assert_eq!(trail.last().unwrap()["before"]["dir"], "Work");
    assert!(trail.iter().all(|e| e["userEmail"] == world.admin_a));
    let page = app
        .get("/v2/admin/voicemail-messages/?stats=1", &admin)
        .await
        .expect(200);
    assert_eq!(page["stats"]["total"], 2);
    app.get("/v2/admin/voicemail-messages/abc", &admin)
        .await
        .error(400, "ValidationError");
}

async fn users_see_their_own_mailbox(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let ids = seed(&app, &world, &platform).await;

    // Without an extension, a user has no mailbox.
    let user = app.login(world.user_a).await;
    let page = app
        .get("/v2/admin/voicemail-messages/?stats=1", &user)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 0);
    assert_eq!(page["stats"]["total"], 0);

    world.give_user_a_extension(&app).await;
    let page = app
        .get("/v2/admin/voicemail-messages/", &user)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 2, "mailbox 101 only: {page}");
    assert!(
        page["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["mailboxUser"] == "101")
    );
    app.get(&format!("/v2/admin/voicemail-messages/{}", ids[2]), &user)
        .await
        .error(404, "NotFound");
    app.patch(
        &format!("/v2/admin/voicemail-messages/{}", ids[2]),
        &user,
        json!({"read": false}),
    )
    .await
    .error(404, "NotFound");
    let mine = app
        .patch(
            &format!("/v2/admin/voicemail-messages/{}", ids[0]),
            &user,
            json!({"read": true}),
        )
        .await
        .expect(200);
    assert_eq!(mine["read"], true);

    // A branch admin reaches the mailboxes of its branch's extensions (101, not 201).
    let branch_admin = app.login(world.branch_admin_a).await;
    let page = app
        .get("/v2/admin/voicemail-messages/", &branch_admin)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 2);
}

async fn ingest_rules(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let fields = message(
        world.tenant_a,
        "101",
        "1700000000-1",
        1_700_000_000,
        "\"A\" <1>",
        "INBOX",
    );

    // Pushing twice records once.
    let first = app
        .push(
            &platform,
            PATH,
            ("message", fields.clone()),
            Some(("audio", fixture("tone.wav"))),
        )
        .await
        .expect(200);
    let again = app
        .push(
            &platform,
            PATH,
            ("message", fields.clone()),
            Some(("audio", fixture("tone.wav"))),
        )
        .await
        .expect(200);
    assert_eq!(first["recorded"], true);
    assert_eq!(again["recorded"], false);
    assert_eq!(again["id"], first["id"]);
    // JSON without audio works too; the message then has no media URL.
    let json_push = app
        .post(
            PATH,
            &platform,
            message(
                world.tenant_a,
                "101",
                "1700000001-2",
                1_700_000_001,
                "",
                "INBOX",
            ),
        )
        .await
        .expect(200);
    let row = app
        .get(
            &format!("/v2/admin/voicemail-messages/{}", json_push["id"]),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(row["mediaURL"], "");
    assert!(
        !row["date"].as_str().unwrap().is_empty(),
        "date derived from dateUnix"
    );

    // Only platform admins or the engine's token push.
    app.post(PATH, &admin, fields.clone())
        .await
        .error(403, "Forbidden");
    app.call(reqwest::Method::POST, PATH, None, Some(fields.clone()))
        .await
        .error(401, "Unauthorized");
    // Validation lists every broken rule.
    let errors = app
        .post(PATH, &platform, json!({"tenantId": 0, "mailboxUser": "", "dir": "Trash", "dateUnix": -1, "duration": "x"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 6, "{errors:?}");
    assert!(
        errors.contains(&"'body/msgId' is required".to_owned()),
        "{errors:?}"
    );
    let errors = app
        .post(
            PATH,
            &platform,
            json!({"tenantId": 999999, "mailboxUser": "1", "msgId": "x", "dateUnix": 1}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, vec!["'body/tenantId' must name an existing tenant"]);
    // Audio that is not audio is a 415, and records nothing.
    let other = message(
        world.tenant_a,
        "101",
        "1700000002-3",
        1_700_000_002,
        "",
        "INBOX",
    );
    app.push(
        &platform,
        PATH,
        ("message", other),
        Some(("audio", fixture("not-audio.txt"))),
    )
    .await
    .error(415, "UnsupportedMediaType");
    let page = app
        .get("/v2/admin/voicemail-messages/", &admin)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 2);
    // The fields are small: a huge JSON part or body is a 413, whatever the audio limit.
    let mut huge = message(
        world.tenant_a,
        "101",
        "1700000003-4",
        1_700_000_003,
        "",
        "INBOX",
    );
    huge["transcript"] = json!("x".repeat(70 * 1024));
    app.push(&platform, PATH, ("message", huge.clone()), None)
        .await
        .error(413, "PayloadTooLarge");
    huge["transcript"] = json!("x".repeat(3 * 1024 * 1024));
    app.post(PATH, &platform, huge)
        .await
        .error(413, "PayloadTooLarge");
    // Malformed parts.
    app.push(&platform, PATH, ("other", json!({})), None)
        .await
        .error(400, "ValidationError");
    let response = app
        .client
        .post(app.url(PATH))
        .bearer_auth(&platform)
        .header("content-type", "text/plain")
        .body("x")
        .send()
        .await
        .unwrap();
    TestApp::answer(response)
        .await
        .error(415, "UnsupportedMediaType");
}

/// The engine may retry while its first push is still in flight: concurrent pushes of
/// one new message record it once, and every push answers its id.
async fn concurrent_pushes_record_once(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let fields = message(
        world.tenant_a,
        "101",
        "1700000000-9",
        1_700_000_000,
        "",
        "INBOX",
    );
    let pushes = (0..8).map(|_| app.post(PATH, &platform, fields.clone()));
    let answers = futures::future::join_all(pushes).await;
    let bodies: Vec<Value> = answers.into_iter().map(|a| a.expect(200)).collect();
    let new = bodies.iter().filter(|b| b["recorded"] == true).count();
    assert_eq!(new, 1, "{bodies:?}");
    assert!(
        bodies.iter().all(|b| b["id"] == bodies[0]["id"]),
        "{bodies:?}"
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "VOICEMAIL_RECEIVED")))
            .await,
        1
    );
}

/// Concurrent pushes of one message, each with its audio: every push that found the
/// message new stores its audio under a key of its own before the race is settled by the
/// insert; the losers' audio is deleted by the job their refused transaction queued. So
/// once the jobs have run: one message, one event, and exactly one audio object left in
/// the store — the one the message plays.
async fn concurrent_pushes_with_audio_keep_one_object(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let wav = fixture("tone.wav");
    let folder = format!("tenants/{}/voicemail", world.tenant_a);
    for round in 0..3 {
        let fields = message(
            world.tenant_a,
            "101",
            &format!("1700000000-{round}"),
            1_700_000_000 + round,
            "",
            "INBOX",
        );
        let pushes = (0..8).map(|_| {
            app.push(
                &platform,
                PATH,
                ("message", fields.clone()),
                Some(("audio", wav.clone())),
            )
        });
        let answers = futures::future::join_all(pushes).await;
        let bodies: Vec<Value> = answers.into_iter().map(|a| a.expect(200)).collect();
        let new = bodies.iter().filter(|b| b["recorded"] == true).count();
        assert_eq!(new, 1, "round {round}: {bodies:?}");
        assert!(
            bodies.iter().all(|b| b["id"] == bodies[0]["id"]),
            "round {round}: {bodies:?}"
        );
        app.jobs_done().await;
        let stored = app.stored_objects(&folder);
        assert_eq!(
            stored.len(),
            usize::try_from(round).unwrap() + 1,
            "round {round}: one object per message: {stored:?}"
        );
        let played = app
            .get(
                &format!("/v2/admin/voicemail-messages/{}", bodies[0]["id"]),
                &admin,
            )
            .await
            .expect(200);
        let (status, _, bytes) = app.fetch(played["mediaURL"].as_str().unwrap(), None).await;
        assert_eq!(
            status, 200,
            "round {round}: the kept audio is the message's"
        );
        assert_eq!(bytes, wav);
    }
    assert_eq!(app.count("voicemail_messages", None).await, 3);
    assert_eq!(
        app.count("webhook_events", Some(("type", "VOICEMAIL_RECEIVED")))
            .await,
        3
    );
}

async fn events_are_queued_with_the_record(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin_a = app.login(world.admin_a).await;
    let admin_b = app.login(world.admin_b).await;
    for (token, tenant) in [(&admin_a, world.tenant_a), (&admin_b, world.tenant_b)] {
        app
            .create(
                "/v2/webhooks/",
                token,
                json!({"tenantId": tenant, "type": "VOICEMAIL_RECEIVED", "url": "https://example.com/hook"}),
            )
            .await;
    }
    app
        .create(
            "/v2/webhooks/",
            &admin_a,
            json!({"tenantId": world.tenant_a, "type": "CALL_ENDED", "url": "https://example.com/calls"}),
        )
        .await;
    let fields = message(
        world.tenant_a,
        "101",
        "1700000000-1",
        1_700_000_000,
        "",
        "INBOX",
    );
    app.post(PATH, &platform, fields.clone()).await.expect(200);
    app.post(PATH, &platform, fields).await.expect(200);
    // One event, one delivery: to tenant A's voicemail webhook only, once.
    let events = app
        .count("webhook_events", Some(("type", "VOICEMAIL_RECEIVED")))
        .await;
    let deliveries = app.count("webhook_deliveries", None).await;
    assert_eq!((events, deliveries), (1, 1));
}

crate::on_both_backends!(
    ingest_list_and_media,
    filters_search_sort_and_stats,
    filing_marking_and_deleting,
    users_see_their_own_mailbox,
    ingest_rules,
    concurrent_pushes_record_once,
    concurrent_pushes_with_audio_keep_one_object,
    events_are_queued_with_the_record,
);
