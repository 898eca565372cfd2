//! Calls pushed by the engine step by step, and their recordings: fetched by call id
//! with a signed MP3 URL, listed, searched, deleted; scoped to tenant and own calls.

use serde_json::{Value, json};

use crate::fixture::{World, call_event, ended};
use crate::support::{TestApp, fixture, tamper};

const PATH: &str = "/v2/ingest/calls";

/// Records an answered, recorded call of `tenant` in one push.
async fn recorded(
    app: &TestApp,
    token: &str,
    tenant: i64,
    id: &str,
    direction: &str,
    from: &str,
    to: &str,
) -> Value {
    let fields = ended(call_event(tenant, id, "ended", direction, from, to), true);
    app.push(
        token,
        PATH,
        ("call", fields),
        Some(("recording", fixture("tone.mp3"))),
    )
    .await
    .expect(200)
}

async fn a_call_step_by_step(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let first = call_event(
        world.tenant_a,
        "1762095600.101",
        "started",
        "inbound",
        "5551234",
        "101",
    );
    let started = app.post(PATH, &platform, first.clone()).await.expect(200);
    assert_eq!(
        (started["recorded"].clone(), started["status"].clone()),
        (json!(true), json!("started"))
    );
    // Not recorded yet: no recording to fetch.
    app.get("/v2/admin/call-recordings/1762095600.101", &admin)
        .await
        .error(404, "NotFound");
    let mut answered = first.clone();
    answered["event"] = json!("answered");
    answered["answerTime"] = json!("2026-11-02T15:00:05Z");
    assert_eq!(
        app.post(PATH, &platform, answered.clone())
            .await
            .expect(200)["status"],
        "answered"
    );
    // A repeat, or older news, changes nothing.
    let repeat = app.post(PATH, &platform, answered).await.expect(200);
    assert_eq!(
        (repeat["recorded"].clone(), repeat["status"].clone()),
        (json!(false), json!("answered"))
    );
    let late = app.post(PATH, &platform, first).await.expect(200);
    assert_eq!(
        (late["recorded"].clone(), late["status"].clone()),
        (json!(false), json!("answered"))
    );
    // The end, with its recording.
    let end = ended(
        call_event(
            world.tenant_a,
            "1762095600.101",
            "ended",
            "inbound",
            "5551234",
            "101",
        ),
        true,
    );
    let done = app
        .push(
            &platform,
            PATH,
            ("call", end.clone()),
            Some(("recording", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    assert_eq!(
        (done["status"].clone(), done["recordingAttached"].clone()),
        (json!("ended"), json!(true))
    );
    let again = app
        .push(
            &platform,
            PATH,
            ("call", end),
            Some(("recording", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    assert_eq!(
        (
            again["recorded"].clone(),
            again["recordingAttached"].clone()
        ),
        (json!(false), json!(false))
    );
    // Each step queued its event, once.
    for (kind, n) in [
        ("CALL_STARTED", 1),
        ("CALL_ANSWERED", 1),
        ("CALL_ENDED", 1),
        ("CALL_MISSED", 0),
        ("RECORDING_READY", 1),
    ] {
        assert_eq!(
            app.count("webhook_events", Some(("type", kind))).await,
            n,
            "{kind}"
        );
    }

    let recording = app
        .get("/v2/admin/call-recordings/1762095600.101", &admin)
        .await
        .expect(200);
    assert_eq!(recording["uniqueId"], "1762095600.101");
    assert_eq!(recording["tenantId"], world.tenant_a);
    assert_eq!(recording["direction"], "inbound");
    assert_eq!(recording["callerIdNum"], "5551234");
    assert_eq!(recording["callerIdName"], "Caller 5551234");
    assert_eq!(recording["dialedNum"], "101");
    assert_eq!(recording["time"], "2026-11-02T15:00:00Z");
    // The engine's figures, and the recording's measured 1.5 s (rounded) beside them.
    assert_eq!(
        (&recording["duration"], &recording["recordingDuration"]),
        (&json!(125), &json!(2)),
        "{recording}"
    );
    let keys: Vec<_> = recording.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys.len(),
        11,
        "the spec's fields, billsec and recordingDuration: {keys:?}"
    );
    let url = recording["mediaURL"].as_str().unwrap();
    let (status, headers, bytes) = app.fetch(url, None).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "audio/mpeg");
    assert_eq!(bytes, fixture("tone.mp3"));
    let (status, _, bytes) = app.fetch(url, Some("bytes=10-")).await;
    assert_eq!(
        (status.as_u16(), bytes.len()),
        (206, fixture("tone.mp3").len() - 10)
    );
    // Tampered and expired links are refused.
    assert_eq!(app.fetch(&tamper(url), None).await.0, 403);
    let key = url
        .split("/v2/objects/")
        .nth(1)
        .unwrap()
        .split('?')
        .next()
        .unwrap();
    let key = key.replace("%2F", "/");
    let expired = app
        .state
        .storage
        .local_download_url(&key, chrono::Utc::now().timestamp() - 1);
    assert_eq!(app.fetch(&expired, None).await.0, 403);
    let fresh = app
        .state
        .storage
        .local_download_url(&key, chrono::Utc::now().timestamp() + 60);
    assert_eq!(
        app.fetch(&fresh, None).await.0,
        200,
        "the same key with a valid signature fetches"
    );
}

/// The engine may retry while its first report is in flight: concurrent reports of one
/// new call record it once, with one event.
async fn concurrent_reports_record_once(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let started = call_event(
        world.tenant_a,
        "c.1",
        "started",
        "inbound",
        "5550001",
        "101",
    );
    let answers =
        futures::future::join_all((0..8).map(|_| app.post(PATH, &platform, started.clone()))).await;
    let bodies: Vec<Value> = answers.into_iter().map(|a| a.expect(200)).collect();
    assert_eq!(
        bodies.iter().filter(|b| b["recorded"] == true).count(),
        1,
        "{bodies:?}"
    );
    assert_eq!(app.count("calls", None).await, 1);
    assert_eq!(
        app.count("webhook_events", Some(("type", "CALL_STARTED")))
            .await,
        1
    );
}

/// Reports of two steps racing each other (the engine retrying, two servers reporting):
/// the call ends where the furthest step leaves it, never moves back, and each step's
/// event is emitted once.
async fn concurrent_steps_move_a_call_forward_once(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    for round in 0..4 {
        let id = format!("race.{round}");
        let started = call_event(world.tenant_a, &id, "started", "inbound", "5550001", "101");
        app.post(PATH, &platform, started.clone()).await.expect(200);
        let mut answered = started.clone();
        answered["event"] = json!("answered");
        answered["answerTime"] = json!("2026-11-02T15:00:05Z");
        let ended = ended(started, true);
        let pushes = (0..12).map(|i| {
            let fields = if i % 2 == 0 { &answered } else { &ended };
            app.post(PATH, &platform, fields.clone())
        });
        let answers = futures::future::join_all(pushes).await;
        for answer in answers {
            answer.expect(200);
        }
        assert_eq!(
            app.count("calls", Some(("unique_id", id.as_str()))).await,
            1
        );
    }
    // Every call ended; no step's event twice.
    assert_eq!(app.count("calls", Some(("status", "ended"))).await, 4);
    assert_eq!(
        app.count("webhook_events", Some(("type", "CALL_ENDED")))
            .await,
        4
    );
    assert!(
        app.count("webhook_events", Some(("type", "CALL_ANSWERED")))
            .await
            <= 4,
        "an answer is news at most once per call"
    );
}

/// Concurrent pushes of different recordings for one call: exactly one is attached (and
/// announced), and once the queued work is done the store holds exactly that one.
async fn concurrent_recordings_attach_once(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let fields = ended(
        call_event(
            world.tenant_a,
            "rec.1",
            "ended",
            "inbound",
            "5550001",
            "101",
        ),
        true,
    );
    app.post(PATH, &platform, fields.clone()).await.expect(200);
    let pushes = (0..6).map(|i| {
        let file = if i % 2 == 0 { "tone.mp3" } else { "tone.wav" };
        app.push(
            &platform,
            PATH,
            ("call", fields.clone()),
            Some(("recording", fixture(file))),
        )
    });
    let answers = futures::future::join_all(pushes).await;
    let bodies: Vec<Value> = answers.into_iter().map(|a| a.expect(200)).collect();
    assert_eq!(
        bodies
            .iter()
            .filter(|b| b["recordingAttached"] == true)
            .count(),
        1,
        "{bodies:?}"
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "RECORDING_READY")))
            .await,
        1
    );
    app.jobs_done().await;
    let folder = app.object_path(&format!("tenants/{}/recordings", world.tenant_a));
    let stored: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(stored.len(), 1, "one recording kept: {stored:?}");
    let recording = app
        .get("/v2/admin/call-recordings/rec.1", &admin)
        .await
        .expect(200);
    let (status, _, bytes) = app
        .fetch(recording["mediaURL"].as_str().unwrap(), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        bytes,
        std::fs::read(&stored[0]).unwrap(),
        "the kept one is served"
    );
    // Concurrent deletes: one deletes it, the others find nothing; the audio goes.
    let deletes = (0..6).map(|_| app.delete("/v2/admin/call-recordings/rec.1", &admin));
    let mut statuses: Vec<u16> = futures::future::join_all(deletes)
        .await
        .iter()
        .map(|a| a.status.as_u16())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 404, 404, 404, 404, 404]);
    // One delete, one audit entry: the recording as it was answered, gone after.
    let trail = app.audit_entries(&admin, "entities=call-recording").await;
    assert_eq!(trail.len(), 1, "{trail:?}");
    assert_eq!(trail[0]["action"], "delete");
    assert_eq!(trail[0]["before"]["uniqueId"], "rec.1", "{trail:?}");
    assert_eq!(trail[0]["before"]["recordingDuration"], 2, "{trail:?}");
    assert_eq!(trail[0]["after"], serde_json::Value::Null);
    app.jobs_done().await;
    assert_eq!(
        std::fs::read_dir(&folder).unwrap().count(),
        0,
        "the audio went"
    );
}

async fn missed_calls_and_recording_rules(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let missed = ended(
        call_event(world.tenant_a, "m.1", "ended", "inbound", "5550001", "101"),
        false,
    );
    assert_eq!(
        app.post(PATH, &platform, missed).await.expect(200)["status"],
        "missed"
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "CALL_MISSED")))
            .await,
        1
    );
    // A recording must be audio we can serve as MP3.
    let fields = ended(
        call_event(world.tenant_a, "r.1", "ended", "inbound", "5550002", "101"),
        true,
    );
    app.push(
        &platform,
        PATH,
        ("call", fields.clone()),
        Some(("recording", fixture("not-audio.txt"))),
    )
    .await
    .error(415, "UnsupportedMediaType");
    assert_eq!(
        app.count("calls", Some(("unique_id", "r.1"))).await,
        0,
        "nothing half-recorded"
    );
    // Validation.
    let errors = app
        .post(PATH, &platform, json!({"tenantId": world.tenant_a, "uniqueId": "", "event": "ringing", "direction": "sideways", "time": "yesterday"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 4, "{errors:?}");
    let mut backwards = call_event(world.tenant_a, "b.1", "ended", "inbound", "1", "2");
    backwards["endTime"] = json!("2026-11-02T14:00:00Z");
    let errors = app
        .post(PATH, &platform, backwards)
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, vec!["'body/endTime' must not be before time"]);
    let admin = app.login(world.admin_a).await;
    app.post(
        PATH,
        &admin,
        call_event(world.tenant_a, "x", "started", "inbound", "1", "2"),
    )
    .await
    .error(403, "Forbidden");
}

async fn listing_searching_and_scope(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    recorded(
        &app,
        &platform,
        world.tenant_a,
        "a.1",
        "inbound",
        "5551234",
        "101",
    )
    .await;
    recorded(
        &app,
        &platform,
        world.tenant_a,
        "a.2",
        "outbound",
        "201",
        "5559999",
    )
    .await;
    recorded(
        &app,
        &platform,
        world.tenant_a,
        "a.3",
        "internal",
        "101",
        "201",
    )
    .await;
    recorded(
        &app,
        &platform,
        world.tenant_b,
        "b.1",
        "inbound",
        "5551234",
        "101",
    )
    .await;
    // A call without a recording is no recording.
    app.post(
        PATH,
        &platform,
        ended(
            call_event(world.tenant_a, "a.4", "ended", "inbound", "5550000", "101"),
            true,
        ),
    )
    .await
    .expect(200);

    let admin = app.login(world.admin_a).await;
    let list = |query: String| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.get(&format!("/v2/admin/call-recordings/?{query}"), &admin)
                .await
                .expect(200)
        }
    };
    let all = list(String::new()).await;
    assert_eq!(all["totalRecords"], 3);
    assert!(
        all["records"][0]["mediaURL"]
            .as_str()
            .unwrap()
            .contains("signature=")
    );
    assert_eq!(list("direction=outbound".into()).await["totalRecords"], 1);
    assert_eq!(list("query=5551234".into()).await["totalRecords"], 1);
    assert_eq!(list("query=caller 201".into()).await["totalRecords"], 1);
    assert_eq!(list("query=a.3".into()).await["totalRecords"], 1);
    let sorted = list("sortBy=uniqueId&sortDirection=desc&recordsPerPage=2".into()).await;
    assert_eq!(sorted["records"][0]["uniqueId"], "a.3");
    assert_eq!(sorted["maxPage"], 2);
    let streamed = list("paginated=0".into()).await;
    assert_eq!(streamed["records"].as_array().unwrap().len(), 3);
    app.get("/v2/admin/call-recordings/?direction=up", &admin)
        .await
        .error(400, "ValidationError");

    // Tenant B: its own only; A's call ids are 404; naming tenant A is a 403.
    let admin_b = app.login(world.admin_b).await;
    assert_eq!(
        app.get("/v2/admin/call-recordings/", &admin_b)
            .await
            .expect(200)["totalRecords"],
        1
    );
    app.get("/v2/admin/call-recordings/a.1", &admin_b)
        .await
        .error(404, "NotFound");
    app.delete("/v2/admin/call-recordings/a.1", &admin_b)
        .await
        .error(404, "NotFound");
    app.get(
        &format!("/v2/admin/call-recordings/?tenantId={}", world.tenant_a),
        &admin_b,
    )
    .await
    .error(403, "Forbidden");

    // A user with extension 101 sees the calls it took part in.
    world.give_user_a_extension(&app).await;
    let user = app.login(world.user_a).await;
    let mine = app
        .get("/v2/admin/call-recordings/", &user)
        .await
        .expect(200);
    let ids: Vec<_> = mine["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uniqueId"].clone())
        .collect();
    assert_eq!(ids, vec![json!("a.1"), json!("a.3")]);
    app.get("/v2/admin/call-recordings/a.2", &user)
        .await
        .error(404, "NotFound");
    // Users may not delete recordings.
    app.delete("/v2/admin/call-recordings/a.1", &user)
        .await
        .error(403, "Forbidden");

    // callId: at most 255 characters.
    let errors = app
        .get(
            &format!("/v2/admin/call-recordings/{}", "x".repeat(256)),
            &admin,
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, vec!["'path/callId' must be at most 255 characters"]);
    app.get(
        &format!("/v2/admin/call-recordings/{}", "x".repeat(255)),
        &admin,
    )
    .await
    .error(404, "NotFound");

    // Deleting a recording keeps the call and removes the audio.
    let before = app
        .get("/v2/admin/call-recordings/a.2", &admin)
        .await
        .expect(200);
    let url = before["mediaURL"].as_str().unwrap().to_owned();
    let deleted = app
        .delete("/v2/admin/call-recordings/a.2", &admin)
        .await
        .expect(200);
    assert_eq!(
        (deleted["uniqueId"].clone(), deleted["mediaURL"].clone()),
        (json!("a.2"), json!(""))
    );
    app.get("/v2/admin/call-recordings/a.2", &admin)
        .await
        .error(404, "NotFound");
    app.jobs_done().await;
    assert_eq!(app.fetch(&url, None).await.0, 404);
    assert_eq!(app.count("calls", Some(("unique_id", "a.2"))).await, 1);
}

crate::on_both_backends!(
    a_call_step_by_step,
    concurrent_reports_record_once,
    concurrent_steps_move_a_call_forward_once,
    concurrent_recordings_attach_once,
    missed_calls_and_recording_rules,
    listing_searching_and_scope,
);
