//! Faxes (`/v2/admin/faxes`) and texts (`/v2/messaging/messages`) sent through the engine
//! work queue: documents checked, status moved by the engine's results attempt by attempt,
//! retries by hand (409, 410) and by policy, lists and scope.

use serde_json::{Value, json};

use crate::documents::{jpeg, pdf, tiff};
use crate::engine::{self, TOKEN, engine_token};
use crate::fixture::World;
use crate::support::{Answer, TestApp};

async fn send_fax(
    app: &TestApp,
    token: &str,
    fields: &[(&str, String)],
    document: Option<Vec<u8>>,
) -> Answer {
    let mut form = reqwest::multipart::Form::new();
    for (name, value) in fields {
        form = form.text(name.to_string(), value.clone());
    }
    if let Some(bytes) = document {
        let part = reqwest::multipart::Part::bytes(bytes)
            .file_name("fax.pdf")
            .mime_str("application/octet-stream")
            .unwrap();
        form = form.part("document", part);
    }
    app.post_form("/v2/admin/faxes", token, form).await
}

/// Numbers of tenant A: a fax line and a texting line; one of tenant B's.
async fn numbers(app: &TestApp, w: &World) {
    let platform = app.login(w.platform).await;
    for body in [
        json!({"tenantId": w.tenant_a, "number": "15550001000", "fax": "yes"}),
        json!({"tenantId": w.tenant_a, "number": "15550002000", "smsExtId": w.ext_a}),
        json!({"tenantId": w.tenant_a, "number": "15550003000"}),
        json!({"tenantId": w.tenant_b, "number": "15550009000", "fax": "yes", "smsExtId": w.ext_b}),
    ] {
        app.post("/v2/admin/phone-numbers/", &platform, body)
            .await
            .expect(200);
    }
}

fn fields(to: &str, from: &str) -> Vec<(&'static str, String)> {
    vec![("to", to.to_owned()), ("from", from.to_owned())]
}

/// A fax is sent from a fax line with a PDF that parses or a TIFF; it goes queued →
/// sending → failed (retried by policy) → sent with FAX_SENT, its attempts recorded.
async fn a_fax_is_sent_attempt_by_attempt(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    // Refusals: a PDF that does not parse, something else, a line without fax, no document.
    let mut broken = pdf();
    broken.truncate(40);
    send_fax(
        &app,
        &admin,
        &fields("15559990000", "15550001000"),
        Some(broken),
    )
    .await
    .error(415, "UnsupportedMediaType");
    send_fax(
        &app,
        &admin,
        &fields("15559990000", "15550001000"),
        Some(b"GIF89a....".to_vec()),
    )
    .await
    .error(415, "UnsupportedMediaType");
    let errors = send_fax(
        &app,
        &admin,
        &fields("15559990000", "15550003000"),
        Some(pdf()),
    )
    .await
    .error(400, "ValidationError");
    assert!(errors[0].contains("from"), "{errors:?}");
    let errors = send_fax(&app, &admin, &fields("15559990000", "15550001000"), None)
        .await
        .error(400, "ValidationError");
    assert!(errors[0].contains("document"), "{errors:?}");
    assert_eq!(app.count("faxes", None).await, 0);

    // A policy: two attempts, a minute apart, only on "busy".
    app.client
        .put(app.url("/v2/admin/faxes/retry-policy"))
        .bearer_auth(&admin)
        .json(&json!({"maxAttempts": 2, "delaySeconds": 60, "retryCodes": ["busy"]}))
        .send()
        .await
        .unwrap();
    let policy = app
        .get("/v2/admin/faxes/retry-policy", &admin)
        .await
        .expect(200);
    assert_eq!(policy["maxAttempts"], 2);
    assert_eq!(policy["retryCodes"], json!(["busy"]));

    let fax = send_fax(
        &app,
        &admin,
        &fields("15559990000", "15550001000"),
        Some(pdf()),
    )
    .await
    .expect(200);
    assert_eq!(fax["status"], "queued");
    assert_eq!(fax["pages"], 1);
    assert_eq!(fax["direction"], "outbound");
    assert_eq!(fax["documentType"], "application/pdf");
    let url = fax["documentURL"].as_str().unwrap().to_owned();
    let document = app.client.get(&url).send().await.unwrap();
    assert_eq!(document.status(), 200);
    assert_eq!(document.bytes().await.unwrap().to_vec(), pdf());
    let id = fax["id"].as_i64().unwrap();
    let path = format!("/v2/admin/faxes/{id}");

    // Attempt 1: claimed (sending), busy: retried by the policy, a minute later.
    let jobs = engine::claim(&app, &["fax"], None).await;
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["subjectId"], id);
    assert!(jobs[0]["payload"]["documentURL"].as_str().is_some());
    assert_eq!(
        app.get(&path, &admin).await.expect(200)["status"],
        "sending"
    );
    let answer = engine::report(
        &app,
        &jobs[0],
        json!({"attempt": 1, "outcome": "failed", "resultCode": "busy", "pages": 0, "speed": 9600,
               "startedAt": "2026-11-25T08:00:00Z"}),
    )
    .await
    .expect(200);
    assert_eq!(answer["state"], "pending");
    let now = app.get(&path, &admin).await.expect(200);
    assert_eq!(now["status"], "queued");
    assert_eq!(now["attempts"][0]["resultCode"], "busy");
    assert_eq!(now["attempts"][0]["speed"], 9600);
    assert_eq!(now["attempts"][0]["startedAt"], "2026-11-25T08:00:00Z");
    assert!(
        engine::claim(&app, &["fax"], None).await.is_empty(),
        "not due for a minute"
    );
    // Only a failed fax is retried by hand.
    app.get(&format!("/faxes/retry/{id}"), &admin)
        .await
        .error(409, "Conflict");
    app.raw_sql(
        "UPDATE engine_jobs SET due_at = 1",
        "UPDATE engine_jobs SET due_at = 1",
    )
    .await;
    // Attempt 2: the last the policy allows, fails: the fax is failed.
    let jobs = engine::claim(&app, &["fax"], None).await;
    assert_eq!(jobs[0]["attempt"], 2);
    let answer = engine::report(
        &app,
        &jobs[0],
        json!({"attempt": 2, "outcome": "failed", "resultCode": "busy"}),
    )
    .await
    .expect(200);
    assert_eq!(answer["state"], "failed");
    assert_eq!(app.get(&path, &admin).await.expect(200)["status"], "failed");
    // Retried by hand (both paths): attempt 3 is sent, with FAX_SENT.
    let retried = app
        .get(&format!("/v2/faxes/retry/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(retried["status"], "queued");
    let jobs = engine::claim(&app, &["fax"], None).await;
    assert_eq!(jobs[0]["attempt"], 3);
    engine::report(
        &app,
        &jobs[0],
        json!({"attempt": 3, "outcome": "sent", "pages": 1, "speed": 14400}),
    )
    .await
    .expect(200);
    let sent = app.get(&path, &admin).await.expect(200);
    assert_eq!(sent["status"], "sent");
    assert_eq!(sent["attempts"].as_array().unwrap().len(), 3);
    assert_eq!(
        app.count("webhook_events", Some(("type", "FAX_SENT")))
            .await,
        1
    );
    app.get(&format!("/faxes/retry/{id}"), &admin)
        .await
        .error(409, "Conflict");

    // The list: filters by status, direction, numbers, dates; ingest's faxes are in it.
    app.post(
        "/v2/ingest/faxes",
        TOKEN,
        json!({"tenantId": w.tenant_a, "faxId": "in-1", "direction": "inbound", "from": "15551112222",
               "to": "15550001000", "pages": 2, "status": "success", "time": "2026-01-01T00:00:00Z"}),
    )
    .await
    .expect(200);
    let all = app.get("/v2/admin/faxes", &admin).await.expect(200);
    assert_eq!(all["totalRecords"], 2);
    let page = app
        .get("/v2/admin/faxes?status=sent&direction=outbound", &admin)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 1);
    assert_eq!(page["records"][0]["id"], id);
    let page = app
        .get(
            "/v2/admin/faxes?dateTo=2026-06-01T00:00:00Z&from=15551112222",
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 1);
    assert_eq!(page["records"][0]["faxId"], "in-1");
    app.get("/v2/admin/faxes?dateFrom=yesterday", &admin)
        .await
        .error(400, "ValidationError");

    // Deleted: the fax and its document go.
    app.delete(&path, &admin).await.expect(200);
    app.get(&path, &admin).await.error(404, "NotFound");
    app.jobs_done().await;
    assert!(
        app.stored_objects("tenants")
            .iter()
            .all(|k| !k.contains("/faxes/"))
    );
}

/// A failed fax whose document is gone cannot be retried (410); TIFFs are taken by magic.
async fn a_fax_without_its_document_is_gone(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    let fax = send_fax(
        &app,
        &admin,
        &fields("15559990000", "15550001000"),
        Some(tiff()),
    )
    .await
    .expect(200);
    assert_eq!(fax["documentType"], "image/tiff");
    let id = fax["id"].as_i64().unwrap();
    let jobs = engine::claim(&app, &["fax"], None).await;
    engine::report(
        &app,
        &jobs[0],
        json!({"attempt": 1, "outcome": "failed", "resultCode": "no-answer"}),
    )
    .await
    .expect(200);
    // The default policy retries any failure: make it the last attempt.
    app.raw_sql(
        "UPDATE engine_jobs SET due_at = 1",
        "UPDATE engine_jobs SET due_at = 1",
    )
    .await;
    for attempt in 2..=3 {
        let jobs = engine::claim(&app, &["fax"], None).await;
        engine::report(
            &app,
            &jobs[0],
            json!({"attempt": attempt, "outcome": "failed"}),
        )
        .await
        .expect(200);
        app.raw_sql(
            "UPDATE engine_jobs SET due_at = 1",
            "UPDATE engine_jobs SET due_at = 1",
        )
        .await;
    }
    let path = format!("/v2/admin/faxes/{id}");
    assert_eq!(app.get(&path, &admin).await.expect(200)["status"], "failed");
    let key = app
        .stored_objects("tenants")
        .into_iter()
        .find(|k| k.contains("/faxes/"))
        .unwrap();
    std::fs::remove_file(app.object_path(&key)).unwrap();
    app.get(&format!("/faxes/retry/{id}"), &admin)
        .await
        .error(410, "Gone");
    assert_eq!(app.get(&path, &admin).await.expect(200)["status"], "failed");
}

/// Faxes and texts of another tenant are 404; roles without the permission are 403; a
/// tenant admin cannot send from another tenant's line.
async fn other_tenants_and_lower_roles_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin_b = app.login(w.admin_b).await;
    let fax = send_fax(
        &app,
        &admin_b,
        &fields("15559990000", "15550009000"),
        Some(pdf()),
    )
    .await
    .expect(200);
    let text = app
        .post(
            "/v2/messaging/messages",
            &admin_b,
            json!({"from": "15550009000", "to": "15559990000", "body": "hi"}),
        )
        .await
        .expect(200);
    let admin_a = app.login(w.admin_a).await;
    for path in [
        format!("/v2/admin/faxes/{}", fax["id"]),
        format!("/v2/messaging/messages/{}", text["id"]),
        format!("/faxes/retry/{}", fax["id"]),
    ] {
        app.get(&path, &admin_a).await.error(404, "NotFound");
    }
    app.delete(&format!("/v2/admin/faxes/{}", fax["id"]), &admin_a)
        .await
        .error(404, "NotFound");
    assert_eq!(
        app.get("/v2/admin/faxes", &admin_a).await.expect(200)["totalRecords"],
        0
    );
    assert_eq!(
        app.get("/v2/messaging/messages", &admin_a)
            .await
            .expect(200)["totalRecords"],
        0
    );
    app.get(
        &format!("/v2/admin/faxes?tenantId={}", w.tenant_b),
        &admin_a,
    )
    .await
    .error(403, "Forbidden");
    // Another tenant's line is not one of the tenant's.
    send_fax(
        &app,
        &admin_a,
        &fields("15559990000", "15550009000"),
        Some(pdf()),
    )
    .await
    .error(400, "ValidationError");
    app.post(
        "/v2/messaging/messages",
        &admin_a,
        json!({"from": "15550009000", "to": "15559990000", "body": "hi"}),
    )
    .await
    .error(400, "ValidationError");
    let mut other = fields("15559990000", "15550009000");
    other.push(("tenantId", w.tenant_b.to_string()));
    send_fax(&app, &admin_a, &other, Some(pdf()))
        .await
        .error(403, "Forbidden");
    // A user reads neither faxes nor texts; a branch admin sends no fax.
    let user = app.login(w.user_a).await;
    app.get("/v2/admin/faxes", &user)
        .await
        .error(403, "Forbidden");
    app.get("/v2/messaging/messages", &user)
        .await
        .error(403, "Forbidden");
    let branch = app.login(w.branch_admin_a).await;
    send_fax(
        &app,
        &branch,
        &fields("15559990000", "15550001000"),
        Some(pdf()),
    )
    .await
    .error(403, "Forbidden");
    // The platform reaches both.
    let platform = app.login(w.platform).await;
    assert_eq!(
        app.get("/v2/admin/faxes", &platform).await.expect(200)["totalRecords"],
        1
    );
}

/// A text is sent from a texting line with the tenant's uploads as media, through the
/// queue, and SMS_SENT is emitted on the engine's result; the list shows it with those
/// ingest recorded.
async fn a_text_is_sent_and_listed(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    app.post(
        "/v2/messaging/messages",
        &admin,
        json!({"from": "15550001000", "to": "15559990000", "body": "hi"}),
    )
    .await
    .error(400, "ValidationError");
    app.post(
        "/v2/messaging/messages",
        &admin,
        json!({"from": "15550002000", "to": "15559990000"}),
    )
    .await
    .error(400, "ValidationError");
    app.post(
        "/v2/messaging/messages",
        &admin,
        json!({"from": "15550002000", "to": "15559990000", "body": "hi", "mediaIds": [999]}),
    )
    .await
    .error(400, "ValidationError");
    let text = app
        .post(
            "/v2/messaging/messages",
            &admin,
            json!({"from": "15550002000", "to": "15559990000", "body": "Your prescription is ready"}),
        )
        .await
        .expect(200);
    assert_eq!(text["status"], "queued");
    assert_eq!(text["direction"], "outbound");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        0
    );
    let jobs = engine::claim(&app, &["sms"], None).await;
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["payload"]["body"], "Your prescription is ready");
    engine::report(
        &app,
        &jobs[0],
        json!({"attempt": 1, "outcome": "sent", "reference": "SM123"}),
    )
    .await
    .expect(200);
    let path = format!("/v2/messaging/messages/{}", text["id"]);
    assert_eq!(app.get(&path, &admin).await.expect(200)["status"], "sent");
    assert_eq!(
        app.count("webhook_events", Some(("type", "SMS_SENT")))
            .await,
        1
    );

    app.post(
        "/v2/ingest/sms",
        TOKEN,
        json!({"tenantId": w.tenant_a, "messageId": "in-1", "direction": "inbound", "from": "15557770000",
               "to": "15550002000", "body": "thanks", "mediaUrls": ["https://carrier.example/m/1.jpg"],
               "time": "2026-01-01T00:00:00Z"}),
    )
    .await
    .expect(200);
    let all = app
        .get("/v2/messaging/messages?sortBy=time", &admin)
        .await
        .expect(200);
    assert_eq!(all["totalRecords"], 2);
    assert_eq!(
        all["records"][0]["mediaUrls"],
        json!(["https://carrier.example/m/1.jpg"])
    );
    let inbound = app
        .get(
            "/v2/messaging/messages?direction=inbound&from=15557770000&dateTo=2026-02-01T00:00:00Z",
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(inbound["totalRecords"], 1);
    let recent = app
        .get(
            "/v2/messaging/messages?dateFrom=2026-02-01T00:00:00Z",
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(recent["totalRecords"], 1);
    assert_eq!(recent["records"][0]["id"], text["id"]);

    // A user sends only from a number whose texts reach its own extension.
    let from_desk = json!({"from": "15550002000", "to": "15559990000", "body": "from the desk"});
    let user = app.login(w.user_a).await;
    let refused = app
        .post("/v2/messaging/messages", &user, from_desk.clone())
        .await
        .error(400, "ValidationError");
    assert!(
        refused.iter().any(|p| p.starts_with("'body/from' ")),
        "{refused:?}"
    );
    w.give_user_a_extension(&app).await;
    let user = app.login(w.user_a).await;
    app.post("/v2/messaging/messages", &user, from_desk)
        .await
        .expect(200);
}

/// A received fax of tenant A as the engine pushes it: JSON part `fax`, then `document`.
async fn push_fax(app: &TestApp, w: &World, fax_id: &str, document: Option<Vec<u8>>) -> Answer {
    app.push(
        TOKEN,
        "/v2/ingest/faxes",
        (
            "fax",
            json!({"tenantId": w.tenant_a, "faxId": fax_id, "direction": "inbound",
                   "from": "15551112222", "to": "15550001000", "status": "success"}),
        ),
        document.map(|bytes| ("document", bytes)),
    )
    .await
}

/// The stored fax documents.
fn fax_documents(app: &TestApp) -> Vec<String> {
    app.stored_objects("tenants")
        .into_iter()
        .filter(|key| key.contains("/faxes/"))
        .collect()
}

/// A received fax pushed with its document keeps it: the list and the fax answer a
/// signed `documentURL` that fetches the very bytes, a PDF's pages stand in for the
/// engine's none; a TIFF is kept as one. A document that is neither a PDF that parses nor
/// a TIFF is a 415, and neither the fax nor any object is stored; a repeated push stores
/// nothing more. Deleting the fax deletes its document.
async fn a_received_fax_keeps_its_document(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    // Refused documents: nothing of them is kept.
    let mut broken = pdf();
    broken.truncate(40);
    for bad in [broken, b"GIF89a....".to_vec()] {
        push_fax(&app, &w, "in-bad", Some(bad))
            .await
            .error(415, "UnsupportedMediaType");
    }
    let errors = app
        .push(
            TOKEN,
            "/v2/ingest/faxes",
            ("fax", json!({"tenantId": w.tenant_a, "faxId": "in-bad"})),
            Some(("document", pdf())),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        errors.iter().any(|e| e.starts_with("'body/direction'")),
        "{errors:?}"
    );
    assert_eq!(app.count("faxes", None).await, 0);
    assert!(fax_documents(&app).is_empty(), "{:?}", fax_documents(&app));
    assert_eq!(app.count("jobs", Some(("state", "pending"))).await, 0);

    // A PDF: kept, signed, its page counted.
    let pushed = push_fax(&app, &w, "in-1", Some(pdf())).await.expect(200);
    assert_eq!(pushed["recorded"], true);
    let id = pushed["id"].as_i64().unwrap();
    let stored = fax_documents(&app);
    assert_eq!(stored.len(), 1, "{stored:?}");
    let path = format!("/v2/admin/faxes/{id}");
    let fax = app.get(&path, &admin).await.expect(200);
    assert_eq!(fax["direction"], "inbound");
    assert_eq!(fax["documentType"], "application/pdf");
    assert_eq!(fax["pages"], 1);
    assert_eq!(fax["attempts"], json!([]));
    let (status, _, bytes) = app.fetch(fax["documentURL"].as_str().unwrap(), None).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(bytes, pdf());
    let listed = app
        .get("/v2/admin/faxes?direction=inbound", &admin)
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 1);
    let (status, _, bytes) = app
        .fetch(listed["records"][0]["documentURL"].as_str().unwrap(), None)
        .await;
    assert_eq!((status.as_u16(), bytes), (200, pdf()));
    assert_eq!(
        app.count("webhook_events", Some(("type", "FAX_RECEIVED")))
            .await,
        1
    );
    // Its pledged deletion was cancelled with the record: the document stays.
    app.jobs_done().await;
    assert_eq!(fax_documents(&app), stored);

    // A repeat is recorded once and stores nothing, the first document kept.
    let again = push_fax(&app, &w, "in-1", Some(tiff())).await.expect(200);
    assert_eq!(
        (again["recorded"].clone(), again["id"].clone()),
        (json!(false), json!(id))
    );
    app.jobs_done().await;
    assert_eq!(fax_documents(&app), stored);
    assert_eq!(
        app.get(&path, &admin).await.expect(200)["documentType"],
        "application/pdf"
    );

    // A TIFF; a push without a document keeps answering none.
    let tiff_fax = push_fax(&app, &w, "in-2", Some(tiff())).await.expect(200);
    let answer = app
        .get(&format!("/v2/admin/faxes/{}", tiff_fax["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(answer["documentType"], "image/tiff");
    assert_eq!(answer["pages"], 0);
    let (_, _, bytes) = app
        .fetch(answer["documentURL"].as_str().unwrap(), None)
        .await;
    assert_eq!(bytes, tiff());
    let bare = push_fax(&app, &w, "in-3", None).await.expect(200);
    let answer = app
        .get(&format!("/v2/admin/faxes/{}", bare["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(
        (
            answer["documentURL"].clone(),
            answer["documentType"].clone()
        ),
        (Value::Null, Value::Null)
    );

    // Deleted: the fax and its document go.
    app.delete(&path, &admin).await.expect(200);
    app.jobs_done().await;
    assert_eq!(fax_documents(&app).len(), 1, "only the TIFF is left");
}

/// A failed attempt whose result code is not one the policy names is not retried: the
/// fax ends `failed` at once and no attempt follows; one with no code is not retried
/// either; one whose code is named is.
async fn a_failure_not_worth_retrying_ends_the_fax(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    app.client
        .put(app.url("/v2/admin/faxes/retry-policy"))
        .bearer_auth(&admin)
        .json(&json!({"maxAttempts": 5, "delaySeconds": 30, "retryCodes": ["busy"]}))
        .send()
        .await
        .unwrap();
    let mut faxes = Vec::new();
    for _ in 0..3 {
        let fax = send_fax(
            &app,
            &admin,
            &fields("15559990000", "15550001000"),
            Some(tiff()),
        )
        .await
        .expect(200);
        faxes.push(fax["id"].as_i64().unwrap());
    }
    let jobs = engine::claim(&app, &["fax"], None).await;
    assert_eq!(jobs.len(), 3);
    let results = [
        json!({"attempt": 1, "outcome": "failed", "resultCode": "no-carrier"}),
        json!({"attempt": 1, "outcome": "failed"}),
        json!({"attempt": 1, "outcome": "failed", "resultCode": "busy"}),
    ];
    let mut states = Vec::new();
    for (job, result) in jobs.iter().zip(results) {
        states.push(engine::report(&app, job, result).await.expect(200)["state"].clone());
    }
    assert_eq!(states, [json!("failed"), json!("failed"), json!("pending")]);
    let mut statuses = Vec::new();
    for id in &faxes {
        let fax = app
            .get(&format!("/v2/admin/faxes/{id}"), &admin)
            .await
            .expect(200);
        assert_eq!(fax["attempts"].as_array().unwrap().len(), 1, "{fax}");
        statuses.push(fax["status"].clone());
    }
    assert_eq!(
        statuses,
        [json!("failed"), json!("failed"), json!("queued")]
    );
    // Due at once: only the busy one comes back, as its second attempt.
    app.raw_sql(
        "UPDATE engine_jobs SET due_at = 1 WHERE state = 'pending'",
        "UPDATE engine_jobs SET due_at = 1 WHERE state = 'pending'",
    )
    .await;
    let again = engine::claim(&app, &["fax"], None).await;
    let subjects: Vec<Value> = again
        .iter()
        .map(|job| json!([job["subjectId"], job["attempt"]]))
        .collect();
    assert_eq!(subjects, [json!([faxes[2], 2])]);
}

/// A text sent with the tenant's uploads as media: the answer and the list carry links
/// that fetch them; the queued job names the media by key only, and the claim hands the
/// engine links signed then, for the MMS lifetime, that fetch the media.
async fn a_text_carries_its_media_to_the_engine(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    crate::mms_media::upload(&app, &admin, 1).await.expect(200);
    let jpeg = jpeg(crate::mms_media::SIZE);
    let uploads = app.get("/v2/messaging/media/", &admin).await.expect(200);
    let media = uploads["records"][0]["id"].as_i64().unwrap();
    let key = uploads["records"][0]["objectKey"]
        .as_str()
        .unwrap()
        .to_owned();
    // Another tenant's upload is not one of the tenant's.
    let admin_b = app.login(w.admin_b).await;
    app.post(
        "/v2/messaging/messages",
        &admin_b,
        json!({"from": "15550009000", "to": "15559990000", "mediaIds": [media]}),
    )
    .await
    .error(400, "ValidationError");

    let text = app
        .post(
            "/v2/messaging/messages",
            &admin,
            json!({"from": "15550002000", "to": "15559990000", "mediaIds": [media]}),
        )
        .await
        .expect(200);
    assert_eq!(text["body"], "");
    let urls = text["mediaUrls"].as_array().unwrap();
    assert_eq!(urls.len(), 1);
    let (status, _, bytes) = app.fetch(urls[0].as_str().unwrap(), None).await;
    assert_eq!((status.as_u16(), bytes.len()), (200, jpeg.len()));
    let listed = app.get("/v2/messaging/messages", &admin).await.expect(200);
    assert_eq!(listed["records"][0]["id"], text["id"]);
    let listed_url = listed["records"][0]["mediaUrls"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _, bytes) = app.fetch(&listed_url, None).await;
    assert_eq!((status.as_u16(), bytes), (200, jpeg.clone()));

    // The job as queued names the key, never a link that would age in the queue.
    let payload: (String,) = {
        use sea_query::{Expr, ExprTrait, Query};
        let select = Query::select()
            .column("payload")
            .from("engine_jobs")
            .and_where(Expr::col("kind").eq("sms"))
            .take();
        app.state.db.conn().fetch_one(&select).await.unwrap()
    };
    let queued: Value = serde_json::from_str(&payload.0).unwrap();
    assert_eq!(queued["mediaKeys"], json!([key]));
    assert!(queued.get("mediaUrls").is_none(), "{queued}");

    let claimed_at = chrono::Utc::now().timestamp();
    let jobs = engine::claim(&app, &["sms"], None).await;
    assert_eq!(jobs.len(), 1);
    let url = jobs[0]["payload"]["mediaUrls"][0]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(jobs[0]["payload"]["mediaUrls"].as_array().unwrap().len(), 1);
    let expires: i64 = url
        .split(['?', '&'])
        .find_map(|pair| pair.strip_prefix("expires="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        expires >= claimed_at + 7 * 86_400 - 5,
        "signed at the claim for the MMS lifetime: {url}"
    );
    let (status, _, bytes) = app.fetch(&url, None).await;
    assert_eq!((status.as_u16(), bytes), (200, jpeg));
    engine::report(&app, &jobs[0], json!({"attempt": 1, "outcome": "sent"}))
        .await
        .expect(200);
    let sent = app
        .get(&format!("/v2/messaging/messages/{}", text["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(sent["status"], "sent");
    assert_eq!(sent["mediaUrls"].as_array().unwrap().len(), 1);
}

/// One number, written differently, is one number (issue 29 item 3): the fax line
/// `15550001000` and the texting line `15550002000` send `from` `+15550001000` or
/// `+1 (555) 000-2000`, recorded as the line is stored; the lists find them by any
/// spelling; the same number cannot be provisioned twice by adding a `+`; another
/// tenant's line stays refused however it is written.
async fn a_line_is_one_number_however_it_is_written(app: TestApp) {
    let w = World::seed(&app).await;
    numbers(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    for from in ["+15550001000", "+1 (555) 000-1000"] {
        let fax = send_fax(&app, &admin, &fields("15559990000", from), Some(pdf()))
            .await
            .expect(200);
        assert_eq!(fax["from"], "15550001000", "{from}: {fax}");
    }
    for from in ["+15550002000", "+1 (555) 000-2000"] {
        let text = app
            .post(
                "/v2/messaging/messages",
                &admin,
                json!({"from": from, "to": "15559990000", "body": "Ready"}),
            )
            .await
            .expect(200);
        assert_eq!(text["from"], "15550002000", "{from}: {text}");
    }
    // Found by any spelling (`%2B` is a `+` in a query).
    let faxes = app
        .get("/v2/admin/faxes?from=%2B15550001000", &admin)
        .await
        .expect(200);
    assert_eq!(faxes["totalRecords"], 2, "{faxes}");
    let texts = app
        .get("/v2/messaging/messages?from=%2B15550002000", &admin)
        .await
        .expect(200);
    assert_eq!(texts["totalRecords"], 2, "{texts}");
    let lines = app
        .get("/v2/admin/phone-numbers/?number=%2B1555000100", &admin)
        .await
        .expect(200);
    assert_eq!(lines["totalRecords"], 1, "{lines}");
    assert_eq!(lines["records"][0]["number"], "15550001000");

    // The same number with a `+` is not a second number.
    let platform = app.login(w.platform).await;
    app.post(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": w.tenant_b, "number": "+15550001000"}),
    )
    .await
    .error(409, "Conflict");
    // Tenant B's line, however written, is not tenant A's.
    for from in ["+15550009000", "1 555 000 9000"] {
        let problems = send_fax(&app, &admin, &fields("15559990000", from), Some(pdf()))
            .await
            .error(400, "ValidationError");
        assert_eq!(
            problems,
            ["'body/from' must be a fax-enabled phone number of the tenant"]
        );
        app.post(
            "/v2/messaging/messages",
            &admin,
            json!({"from": from, "to": "15559990000", "body": "Ready"}),
        )
        .await
        .error(400, "ValidationError");
    }
}

crate::on_both_backends!(with engine_token;
    a_received_fax_keeps_its_document,
    a_failure_not_worth_retrying_ends_the_fax,
    a_text_carries_its_media_to_the_engine,
    a_fax_is_sent_attempt_by_attempt,
    a_fax_without_its_document_is_gone,
    other_tenants_and_lower_roles_are_refused,
    a_text_is_sent_and_listed,
    a_line_is_one_number_however_it_is_written,
);
