//! Call campaigns, their records, opt-out lists and call outcomes: E.164 normalisation
//! before every check, the 403 for an opted-out number at create and at dial time, import
//! results per row, status moves, the calling window, the export limit, and the scope rules.

use chrono::{Datelike, TimeZone, Utc};
use serde_json::{Value, json};
use switchboard_db::call_campaigns;
use switchboard_domain::ids::CampaignRecordId;

use crate::engine::{self, engine_token};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Gives tenant A the phone number 12025550100 and answers a campaign body calling from it.
async fn campaign_body(app: &TestApp, w: &World) -> Value {
    let platform = app.login(w.platform).await;
    app.create(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": w.tenant_a, "number": "12025550100"}),
    )
    .await;
    json!({
        "name": "Flu shot reminders",
        "callerIdNumber": "(202) 555-0100",
        "destination": [{"id": w.ext_a, "destType": "EXT"}],
        "callingWindow": {"days": [5, 1, 2, 3, 4], "from": "09:00", "to": "17:30", "timeZone": "America/New_York"},
        "maxAttempts": 2,
        "retryDelayMinutes": 30,
    })
}

async fn new_campaign(app: &TestApp, w: &World, token: &str) -> i64 {
    let body = campaign_body(app, w).await;
    app.post("/v2/admin/call-campaigns/", token, body)
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap()
}

async fn create_read_and_move_a_campaign(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let body = campaign_body(&app, &w).await;
    let created = app
        .post("/v2/admin/call-campaigns/", &admin, body)
        .await
        .expect(200);
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(created["callerIdNumber"], "+12025550100", "E.164");
    assert_eq!(created["status"], "draft");
    assert_eq!(created["maxAttempts"], 2);
    assert_eq!(
        created["callingWindow"],
        json!({"days": [1, 2, 3, 4, 5], "from": "09:00", "to": "17:30", "timeZone": "America/New_York"})
    );
    assert_eq!(created["destination"]["destType"], "EXT");
    assert_eq!(created["destination"]["name"], "Front desk A");
    let path = format!("/v2/admin/call-campaigns/{id}");
    assert_eq!(app.get(&path, &admin).await.expect(200), created);
    // The release notes' path answers the same list.
    let listed = app.get("/admin/call-campaigns", &admin).await.expect(200);
    assert_eq!(listed["totalRecords"], 1);
    assert_eq!(listed["records"][0]["id"], id);

    // Only sensible moves.
    for (to, status) in [
        ("running", 200),
        ("draft", 409),
        ("scheduled", 409),
        ("paused", 200),
        ("running", 200),
    ] {
        let answer = app.patch(&path, &admin, json!({"status": to})).await;
        assert_eq!(answer.status.as_u16(), status, "to {to}: {}", answer.body);
    }
    app.delete(&path, &admin)
        .await
        .refusal_saying(409, "Conflict", "running");
    // The destination is in use while the campaign routes to it.
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &admin)
        .await
        .expect(409);
    app.patch(&path, &admin, json!({"status": "completed"}))
        .await
        .expect(200);
    let refused = app
        .patch(&path, &admin, json!({"status": "running"}))
        .await
        .error(409, "Conflict");
    assert!(refused.is_empty());
    app.post(
        &format!("{path}/records"),
        &admin,
        json!({"number": "2025550143"}),
    )
    .await
    .expect(409);
    let audit = app
        .audit_entries(&admin, &format!("entities=call-campaign&entityId={id}"))
        .await;
    assert!(audit.len() >= 5, "{audit:?}");
    app.delete(&path, &admin).await.expect(200);
    app.get(&path, &admin).await.expect(404);
}

async fn campaign_rules(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let body = campaign_body(&app, &w).await;
    let with = |change: Value| {
        let mut body = body.clone();
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    for (change, problem) in [
        (
            json!({"callerIdNumber": "2025550199"}),
            "'body/callerIdNumber' must be a phone number of the tenant",
        ),
        (
            json!({"callerIdNumber": "12"}),
            "'body/callerIdNumber' is not a phone number (read in US)",
        ),
        (
            json!({"destination": [{"id": w.ext_b, "destType": "EXT"}]}),
            "'body/destination/0/id' must name an extension of the tenant",
        ),
        (
            json!({"destination": [{"id": w.ext_a, "destType": "EXT"}, {"id": w.ext_a2, "destType": "EXT"}]}),
            "'body/destination' must hold exactly one destination",
        ),
        (
            json!({"destination": [{"id": 0, "destType": "HANGUP"}]}),
            "'body/destination/0/destType' must be one of: EXT, IVR, QUEUE, PAGING_GROUP",
        ),
        (
            json!({"maxAttempts": 11}),
            "'body/maxAttempts' must be at most 10",
        ),
        (
            json!({"maxAttempts": 0}),
            "'body/maxAttempts' must be at least 1",
        ),
        (
            json!({"callingWindow": {"days": [1], "from": "17:00", "to": "09:00", "timeZone": "UTC"}}),
            "'body/callingWindow/to' must be after from",
        ),
        (
            json!({"callingWindow": {"days": [7], "from": "09:00", "to": "10:00", "timeZone": "Mars/Base"}}),
            "'body/callingWindow/days/0' must be at most 6",
        ),
        (
            json!({"status": "running"}),
            "'body/status' must be one of: draft, scheduled",
        ),
    ] {
        let problems = app
            .post("/v2/admin/call-campaigns/", &admin, with(change.clone()))
            .await
            .error(400, "ValidationError");
        assert!(
            problems.iter().any(|p| p == problem),
            "{change}: {problems:?}"
        );
    }
    // A call queue of the tenant takes answered calls too.
    let queue = app
        .create(
            "/v2/admin/queues/",
            &admin,
            json!({"name": "Callbacks", "number": "610", "strategy": "ringAll",
            "members": [{"id": w.ext_a, "order": 1}]}),
        )
        .await;
    let routed = app
        .post(
            "/v2/admin/call-campaigns/",
            &admin,
            with(json!({"destination": [{"id": queue["id"], "destType": "QUEUE"}]})),
        )
        .await
        .expect(200);
    assert_eq!(routed["destination"]["destType"], "QUEUE");
    assert_eq!(routed["destination"]["name"], "Callbacks");
}

async fn records_are_e164_and_opted_out_numbers_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let admin_b = app.login(w.admin_b).await;
    let platform = app.login(w.platform).await;
    let id = new_campaign(&app, &w, &admin).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");

    let record = app
        .post(
            &records,
            &admin,
            json!({"number": "(202) 555-0143", "name": "Ada"}),
        )
        .await
        .expect(200);
    assert_eq!(record["number"], "+12025550143");
    assert_eq!(record["status"], "pending");
    assert_eq!(record["attempts"], 0);
    // The same number written otherwise is the same number.
    let duplicate = app
        .post(&records, &admin, json!({"number": "+1 202-555-0143"}))
        .await
        .expect(409);
    assert!(
        duplicate["message"]
            .as_str()
            .unwrap()
            .contains(&format!("record {}", record["id"])),
        "{duplicate}"
    );
    let problems = app
        .post(&records, &admin, json!({"number": "555"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/number' is not a valid phone number (read in US)"]
    );

    // Each level's list refuses with 403 naming the level.
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "202.555.0150", "reason": "asked on the phone"}),
    )
    .await;
    app.create(
        "/v2/admin/opt-outs/",
        &platform,
        json!({"level": "platform", "number": "+12025550151", "source": "regulator"}),
    )
    .await;
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"level": "campaign", "campaignId": id, "number": "2025550152"}),
    )
    .await;
    // An entry that expired no longer applies.
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "2025550153", "expiresAt": "2020-01-01T00:00:00Z"}),
    )
    .await;
    for (number, list) in [
        ("2025550150", "the tenant's opt-out list"),
        ("+1 (202) 555-0151", "the platform's opt-out list"),
        ("2025550152", "the campaign's opt-out list"),
    ] {
        app.post(&records, &admin, json!({"number": number}))
            .await
            .refusal_saying(403, "Forbidden", list);
    }
    app.post(&records, &admin, json!({"number": "2025550153"}))
        .await
        .expect(200);
    // Another tenant's list is not this tenant's: it blocks nothing here, and it is not
    // named.
    app.create(
        "/v2/admin/opt-outs/",
        &admin_b,
        json!({"number": "2025550154"}),
    )
    .await;
    app.post(&records, &admin, json!({"number": "2025550154"}))
        .await
        .expect(200);
    // Patching a record to an opted-out number is refused the same way.
    let patched = app
        .patch(
            &format!("{records}/{}", record["id"]),
            &admin,
            json!({"number": "2025550150"}),
        )
        .await
        .expect(403);
    assert!(patched["message"].as_str().unwrap().contains("tenant's"));
    // A tenant admin cannot touch the platform's list, nor see it.
    app.post(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"level": "platform", "number": "+12025550160"}),
    )
    .await
    .expect(403);
    let seen = app.get("/v2/admin/opt-outs/", &admin).await.expect(200);
    assert_eq!(seen["totalRecords"], 3, "{seen}");
    assert!(
        seen["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["tenantId"] == w.tenant_a)
    );

    // A tenant reading numbers in another country.
    app.patch(
        &format!("/v2/admin/tenants/{}", w.tenant_a),
        &platform,
        json!({"defaultCountry": "GB"}),
    )
    .await
    .expect(200);
    let british = app
        .post(&records, &admin, json!({"number": "020 7946 0018"}))
        .await
        .expect(200);
    assert_eq!(british["number"], "+442079460018");

    let listed = app
        .get(&format!("{records}?sortBy=number&query=555"), &admin)
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 3);
}

async fn imports_answer_every_row(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    let existing = app
        .post(&records, &admin, json!({"number": "2025550143"}))
        .await
        .expect(200);
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "2025550150"}),
    )
    .await;
    let summary = app
        .post(
            &format!("{records}/import"),
            &admin,
            json!([
                {"number": "202-555-0170", "name": "New"},
                {"number": "+12025550143"},
                {"number": "(202) 555-0150"},
                {"number": "not a phone"},
                {"number": "2025550170"},
            ]),
        )
        .await
        .expect(200);
    assert_eq!(summary["created"], 1);
    assert_eq!(summary["duplicates"], 2);
    assert_eq!(summary["optedOut"], 1);
    assert_eq!(summary["invalid"], 1);
    let results = summary["results"].as_array().unwrap();
    let created = results[0]["id"].clone();
    assert_eq!(results[0]["result"], "created");
    assert_eq!(results[0]["number"], "+12025550170");
    assert_eq!(results[1]["result"], "duplicate");
    assert_eq!(results[1]["id"], existing["id"]);
    assert_eq!(results[2]["result"], "opted-out");
    assert_eq!(results[2]["reason"], "the tenant's opt-out list");
    assert_eq!(results[3]["result"], "invalid");
    assert_eq!(results[3]["input"], "not a phone");
    assert!(
        results[3]["reason"]
            .as_str()
            .unwrap()
            .contains("not a phone number")
    );
    assert_eq!(
        results[4]["result"], "duplicate",
        "a repeat within the request"
    );
    assert_eq!(results[4]["id"], created);

    // The same as CSV.
    let response = app
        .client
        .post(app.url(&format!("{records}/import")))
        .bearer_auth(&admin)
        .header("content-type", "text/csv")
        .body("name,number\n\"Lovelace, Ada\",202 555 0180\nBad,12\nOld,2025550170\n")
        .send()
        .await
        .unwrap();
    let summary = TestApp::answer(response).await.expect(200);
    let results: Vec<&str> = summary["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["created", "invalid", "duplicate"], "{summary}");
    let listed = app
        .get(&format!("{records}?query=Lovelace"), &admin)
        .await
        .expect(200);
    assert_eq!(listed["records"][0]["number"], "+12025550180");

    // More than 10,000 rows are refused whole.
    let rows: Vec<Value> = (0..10_001)
        .map(|i| json!({"number": format!("+1202555{:04}", i % 10_000)}))
        .collect();
    let problems = app
        .post(&format!("{records}/import"), &admin, Value::Array(rows))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/' must hold at most 10000 items"]);
}

async fn concurrent_imports_create_a_number_once(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let path = format!("/v2/admin/call-campaigns/{id}/records/import");
    let rows: Vec<Value> = (0..200)
        .map(|i| json!({"number": format!("+1202555{:04}", 1000 + i)}))
        .collect();
    let body = Value::Array(rows);
    let (a, b, c) = tokio::join!(
        app.post(&path, &admin, body.clone()),
        app.post(&path, &admin, body.clone()),
        app.post(&path, &admin, body.clone()),
    );
    let created: i64 = [a, b, c]
        .into_iter()
        .map(|answer| answer.expect(200)["created"].as_i64().unwrap())
        .sum();
    assert_eq!(created, 200, "each number created once across the imports");
    assert_eq!(app.count("campaign_records", None).await, 200);
}

async fn other_tenants_and_lower_roles_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let record = app
        .post(
            &format!("/v2/admin/call-campaigns/{id}/records"),
            &admin,
            json!({"number": "2025550143"}),
        )
        .await
        .expect(200);
    let outcome = app
        .create(
            "/v2/admin/call-outcomes/",
            &admin,
            json!({"name": "not-interested", "endsRecord": true}),
        )
        .await;
    let entry = app
        .create(
            "/v2/admin/opt-outs/",
            &admin,
            json!({"number": "2025550150"}),
        )
        .await;
    let admin_b = app.login(w.admin_b).await;
    for path in [
        format!("/v2/admin/call-campaigns/{id}"),
        format!("/v2/admin/call-campaigns/{id}/records"),
        format!("/v2/admin/call-campaigns/{id}/records/{}", record["id"]),
        format!("/v2/admin/call-campaigns/{id}/records/export"),
        format!("/v2/admin/call-outcomes/{}", outcome["id"]),
        format!("/v2/admin/opt-outs/{}", entry["id"]),
    ] {
        app.get(&path, &admin_b).await.expect(404);
    }
    app.patch(
        &format!("/v2/admin/call-campaigns/{id}"),
        &admin_b,
        json!({"status": "running"}),
    )
    .await
    .expect(404);
    app.post(
        &format!("/v2/admin/call-campaigns/{id}/records/import"),
        &admin_b,
        json!([{"number": "2025550199"}]),
    )
    .await
    .expect(404);
    app.delete(&format!("/v2/admin/opt-outs/{}", entry["id"]), &admin_b)
        .await
        .expect(404);
    let mut body = campaign_body_for_b(&w);
    body["tenantId"] = json!(w.tenant_a);
    app.post("/v2/admin/call-campaigns/", &admin_b, body)
        .await
        .expect(403);
    app.get(
        &format!("/v2/admin/call-campaigns/?tenantId={}", w.tenant_a),
        &admin_b,
    )
    .await
    .expect(403);
    app.post(
        "/v2/admin/opt-outs/",
        &admin_b,
        json!({"level": "campaign", "campaignId": id, "number": "2025550199"}),
    )
    .await
    .error(400, "ValidationError");
    for email in [w.branch_admin_a, w.user_a] {
        let token = app.login(email).await;
        app.get("/v2/admin/call-campaigns/", &token)
            .await
            .expect(403);
        app.get("/v2/admin/opt-outs/", &token).await.expect(403);
        app.post(
            &format!("/v2/admin/call-campaigns/{id}/records"),
            &token,
            json!({"number": "2025550199"}),
        )
        .await
        .expect(403);
    }
    let partner = app.login(w.partner_admin_a).await;
    let listed = app
        .get("/v2/admin/call-campaigns/", &partner)
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 1);
}

fn campaign_body_for_b(w: &World) -> Value {
    json!({
        "name": "Elsewhere",
        "callerIdNumber": "2025550100",
        "destination": [{"id": w.ext_b, "destType": "EXT"}],
        "callingWindow": {"days": [1], "from": "09:00", "to": "17:00", "timeZone": "UTC"},
    })
}

async fn exports_stream_csv_and_refuse_over_the_limit(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    app.post(
        &records,
        &admin,
        json!({"number": "2025550143", "name": "=cmd|' /C calc'!A0"}),
    )
    .await
    .expect(200);
    app.post(
        &records,
        &admin,
        json!({"number": "2025550144", "name": "Smith, \"Jo\""}),
    )
    .await
    .expect(200);
    let response = app
        .client
        .get(app.url(&format!("{records}/export?sortBy=number")))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = response.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "id,number,name,status,outcome,attempts,lastAttemptAt,nextAttemptAt,createdAt"
    );
    assert!(
        lines[1].contains(",+12025550143,'=cmd|' /C calc'!A0,pending,"),
        "{text}"
    );
    assert!(
        lines[2].contains(",\"Smith, \"\"Jo\"\"\",pending,"),
        "{text}"
    );
    assert_eq!(lines.len(), 3);

    // 512,001 records, seeded cheaply in SQL: the export is refused before any row.
    app.raw_sql(
        &format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 511999) \
             INSERT INTO campaign_records (campaign_id, tenant_id, number, status, attempts, created_at) \
             SELECT {id}, {t}, '+1999' || i, 'failed', 1, '2026-11-25T08:00:00Z' FROM n;",
            t = w.tenant_a
        ),
        &format!(
            "INSERT INTO campaign_records (campaign_id, tenant_id, number, status, attempts, created_at) \
             SELECT {id}, {t}, '+1999' || i, 'failed', 1, '2026-11-25T08:00:00Z' FROM generate_series(1, 511999) AS i;",
            t = w.tenant_a
        ),
    )
    .await;
    let refused = app
        .get(&format!("{records}/export"), &admin)
        .await
        .error(400, "BadRequest");
    assert!(refused.is_empty());
    let refused = app
        .get(&format!("{records}/export"), &admin)
        .await
        .expect(400);
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("512001") && message.contains("512000"),
        "{message}"
    );
    // Exactly at the limit it streams; the filters narrow it.
    let filtered = app
        .client
        .get(app.url(&format!("{records}/export?status=pending")))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap();
    assert_eq!(filtered.status().as_u16(), 200);
    assert_eq!(filtered.text().await.unwrap().lines().count(), 3);
}

async fn dial_time_rechecks_opt_outs_and_keeps_the_window(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    let mut ids = Vec::new();
    for number in ["2025550143", "2025550144", "2025550145"] {
        let record = app
            .post(&records, &admin, json!({"number": number}))
            .await
            .expect(200);
        ids.push(record["id"].as_i64().unwrap());
    }
    // Opted out after import: never dialled.
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "2025550144"}),
    )
    .await;
    let db = &app.state.db;
    // One calling day, never today's (the service's own scheduler runs beside this test
    // at the real time): Monday 2030-01-07 (or Tuesday the 8th when today is a Monday),
    // 10:00 in New York (15:00 UTC) inside the window, 08:00 before it; Sunday never.
    let today = Utc::now()
        .with_timezone(&chrono_tz::America::New_York)
        .weekday()
        .num_days_from_sunday();
    let (weekday, date) = if today == 1 { (2, 8) } else { (1, 7) };
    app.patch(
        &format!("/v2/admin/call-campaigns/{id}"),
        &admin,
        json!({"callingWindow": {"days": [weekday], "from": "09:00", "to": "17:30", "timeZone": "America/New_York"}}),
    )
    .await
    .expect(200);
    let inside = Utc.with_ymd_and_hms(2030, 1, date, 15, 0, 0).unwrap();
    let early = Utc.with_ymd_and_hms(2030, 1, date, 13, 0, 0).unwrap();
    let sunday = Utc.with_ymd_and_hms(2030, 1, 6, 15, 0, 0).unwrap();
    let take = |at| async move {
        let mut tx = db.begin().await.unwrap();
        let due = call_campaigns::take_due(&mut tx, at, 10).await.unwrap();
        tx.commit().await.unwrap();
        due
    };
    assert!(
        take(inside).await.dials.is_empty(),
        "a draft campaign dials nothing"
    );
    app.patch(
        &format!("/v2/admin/call-campaigns/{id}"),
        &admin,
        json!({"status": "running"}),
    )
    .await
    .expect(200);
    assert!(
        take(early).await.dials.is_empty(),
        "before the window opens"
    );
    assert!(take(sunday).await.dials.is_empty(), "not a calling day");
    let due = take(inside).await;
    let dialled: Vec<i64> = due.dials.iter().map(|d| d.record.id.get()).collect();
    assert_eq!(dialled, [ids[0], ids[2]]);
    assert_eq!(due.blocked, [CampaignRecordId(ids[1])]);
    assert_eq!(due.dials[0].caller_id, "+12025550100");
    assert_eq!(due.dials[0].destination, Some(("EXT".to_owned(), w.ext_a)));
    assert_eq!(due.dials[0].record.attempts, 1);
    assert!(
        take(inside).await.dials.is_empty(),
        "a record is taken once"
    );
    let blocked = app
        .get(&format!("{records}/{}", ids[1]), &admin)
        .await
        .expect(200);
    assert_eq!(blocked["status"], "opted-out");
    assert_eq!(blocked["attempts"], 0);

    // Results: no answer waits for the retry; the callee opting out lists the number.
    let mut tx = db.begin().await.unwrap();
    let first =
        call_campaigns::record_result(&mut tx, CampaignRecordId(ids[0]), "no-answer", inside)
            .await
            .unwrap();
    let second =
        call_campaigns::record_result(&mut tx, CampaignRecordId(ids[2]), "opted-out", inside)
            .await
            .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(first.status, "pending");
    assert_eq!(second.status, "opted-out");
    let waiting = app
        .get(&format!("{records}/{}", ids[0]), &admin)
        .await
        .expect(200);
    assert_eq!(waiting["outcome"], "no-answer");
    assert_eq!(
        waiting["nextAttemptAt"],
        format!("2030-01-{date:02}T15:30:00Z")
    );
    assert!(
        take(inside).await.dials.is_empty(),
        "the retry is not due yet"
    );
    let later = Utc.with_ymd_and_hms(2030, 1, date, 15, 31, 0).unwrap();
    assert_eq!(take(later).await.dials.len(), 1);
    let mut tx = db.begin().await.unwrap();
    let last = call_campaigns::record_result(&mut tx, CampaignRecordId(ids[0]), "no-answer", later)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(last.status, "failed", "two attempts were the most");
    let listed = app
        .get("/v2/admin/opt-outs/?level=tenant", &admin)
        .await
        .expect(200);
    let entry = listed["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["number"] == "+12025550145")
        .cloned()
        .unwrap();
    assert_eq!(entry["source"], "engine");
    let failed = app
        .get(
            &format!("{records}?status=failed&outcome=no-answer"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(failed["totalRecords"], 1);
    // The number the callee opted out of is refused from now on.
    let id2 = app
        .create(
            "/v2/admin/call-campaigns/",
            &admin,
            json!({
                "name": "Second", "callerIdNumber": "+12025550100",
                "destination": [{"id": w.ext_a, "destType": "EXT"}],
                "callingWindow": {"days": [1], "from": "09:00", "to": "17:00", "timeZone": "UTC"},
            }),
        )
        .await["id"]
        .clone();
    app.post(
        &format!("/v2/admin/call-campaigns/{id2}/records"),
        &admin,
        json!({"number": "+12025550145"}),
    )
    .await
    .expect(403);
}

async fn call_outcomes_are_a_tenants_own(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let created = app
        .create(
            "/v2/admin/call-outcomes/",
            &admin,
            json!({"name": "not-interested", "endsRecord": true}),
        )
        .await;
    assert_eq!(
        created,
        json!({"id": created["id"], "tenantId": w.tenant_a, "name": "not-interested", "endsRecord": true, "optsOut": false})
    );
    app.post(
        "/v2/admin/call-outcomes/",
        &admin,
        json!({"name": "not-interested"}),
    )
    .await
    .expect(409);
    let path = format!("/v2/admin/call-outcomes/{}", created["id"]);
    let changed = app
        .patch(&path, &admin, json!({"optsOut": true}))
        .await
        .expect(200);
    assert_eq!(changed["optsOut"], true);
    let audit = app.audit_entries(&admin, "entities=call-outcome").await;
    assert_eq!(audit.len(), 2, "{audit:?}");
    app.delete(&path, &admin).await.expect(200);
}

/// A tenant's call outcomes are listed (its own only; a platform admin filters by
/// tenant) and read one by one; another tenant's is a 404.
async fn call_outcomes_are_listed_and_read(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut created = Vec::new();
    for (name, ends) in [("voicemail", false), ("not-interested", true)] {
        created.push(
            app.create(
                "/v2/admin/call-outcomes/",
                &admin,
                json!({"name": name, "endsRecord": ends}),
            )
            .await,
        );
    }
    let admin_b = app.login(w.admin_b).await;
    let theirs = app
        .create(
            "/v2/admin/call-outcomes/",
            &admin_b,
            json!({"name": "voicemail"}),
        )
        .await;
    let listed = app
        .get("/v2/admin/call-outcomes/?sortBy=name", &admin)
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 2);
    assert_eq!(listed["records"], json!([created[1], created[0]]));
    let searched = app
        .get("/v2/admin/call-outcomes/?query=voice", &admin)
        .await
        .expect(200);
    assert_eq!(searched["records"], json!([created[0]]));
    for outcome in &created {
        let path = format!("/v2/admin/call-outcomes/{}", outcome["id"]);
        assert_eq!(&app.get(&path, &admin).await.expect(200), outcome);
        app.get(&path, &admin_b).await.error(404, "NotFound");
    }
    let platform = app.login(w.platform).await;
    let of_b = app
        .get(
            &format!("/v2/admin/call-outcomes/?tenantId={}", w.tenant_b),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(of_b["records"], json!([theirs]));
    app.get(
        &format!("/v2/admin/call-outcomes/?tenantId={}", w.tenant_b),
        &admin,
    )
    .await
    .error(403, "Forbidden");
}

/// One's own opt-out entry is read and changed: its reason and expiry, each set and
/// cleared; an expired entry no longer refuses the number. Another tenant's admin gets
/// 404 for both.
async fn an_opt_out_is_read_and_changed(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let created = app
        .create(
            "/v2/admin/opt-outs/",
            &admin,
            json!({"number": "2025550170", "reason": "asked"}),
        )
        .await;
    assert_eq!(created["number"], "+12025550170");
    assert_eq!(created["level"], "tenant");
    assert_eq!(created["tenantId"], w.tenant_a);
    let path = format!("/v2/admin/opt-outs/{}", created["id"]);
    assert_eq!(app.get(&path, &admin).await.expect(200), created);

    let changed = app
        .patch(
            &path,
            &admin,
            json!({"reason": "asked twice", "expiresAt": "2031-01-01T00:00:00Z"}),
        )
        .await
        .expect(200);
    let mut expected = created.clone();
    expected["reason"] = json!("asked twice");
    expected["expiresAt"] = json!("2031-01-01T00:00:00Z");
    assert_eq!(changed, expected);
    assert_eq!(app.get(&path, &admin).await.expect(200), expected);

    // Still applying: the number is refused; expired, it may be called again.
    let campaign = new_campaign(&app, &w, &admin).await;
    let records = format!("/v2/admin/call-campaigns/{campaign}/records");
    app.post(&records, &admin, json!({"number": "2025550170"}))
        .await
        .error(403, "Forbidden");
    app.patch(&path, &admin, json!({"expiresAt": "2020-01-01T00:00:00Z"}))
        .await
        .expect(200);
    app.post(&records, &admin, json!({"number": "2025550170"}))
        .await
        .expect(200);

    let cleared = app
        .patch(&path, &admin, json!({"reason": null, "expiresAt": null}))
        .await
        .expect(200);
    expected["reason"] = Value::Null;
    expected["expiresAt"] = Value::Null;
    assert_eq!(cleared, expected);
    let other = app.login(w.admin_b).await;
    app.get(&path, &other).await.error(404, "NotFound");
    app.patch(&path, &other, json!({"reason": "theirs"}))
        .await
        .error(404, "NotFound");
    assert_eq!(app.get(&path, &admin).await.expect(200), expected);
}

async fn opt_outs_import_and_export(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let summary = app
        .post(
            "/v2/admin/opt-outs/import",
            &admin,
            json!([
                {"number": "2025550150", "reason": "complaint", "source": "complaint"},
                {"number": "+1 202 555 0150"},
                {"number": "12"},
                {"level": "platform", "number": "+12025550151"},
            ]),
        )
        .await
        .expect(200);
    let results: Vec<&str> = summary["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"].as_str().unwrap())
        .collect();
    assert_eq!(
        results,
        ["created", "duplicate", "invalid", "invalid"],
        "{summary}"
    );
    let response = app
        .client
        .post(app.url("/v2/admin/opt-outs/import"))
        .bearer_auth(&admin)
        .header("content-type", "text/csv")
        .body("number,reason,expiresAt\n2025550160,=HYPERLINK(1),2031-01-01T00:00:00Z\n")
        .send()
        .await
        .unwrap();
    let summary = TestApp::answer(response).await.expect(200);
    assert_eq!(summary["created"], 1, "{summary}");
    // The same CSV as the `file` part of a form (what the document lists, and generated
    // clients send); a form without it names the part.
    let form = |csv: &'static str| {
        reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(csv.as_bytes())
                .file_name("opt-outs.csv")
                .mime_str("text/csv")
                .unwrap(),
        )
    };
    let summary = app
        .post_form(
            "/v2/admin/opt-outs/import",
            &admin,
            form("number,reason\n2025550170,asked\n2025550160,again\n"),
        )
        .await
        .expect(200);
    assert_eq!(
        (&summary["created"], &summary["duplicates"]),
        (&json!(1), &json!(1)),
        "{summary}"
    );
    let refused = app
        .post_form(
            "/v2/admin/opt-outs/import",
            &admin,
            reqwest::multipart::Form::new().text("other", "x"),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        refused,
        [
            "'body/other' is not a part of an import: send only the CSV, as the part named file",
            "'body/file' is required"
        ]
    );
    let text = app
        .client
        .get(app.url("/v2/admin/opt-outs/export?sortBy=number"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "id,level,tenantId,campaignId,number,source,reason,createdAt,expiresAt"
    );
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[1].contains(",+12025550150,complaint,complaint,"),
        "{text}"
    );
    assert!(
        lines[2].contains(",+12025550160,import,'=HYPERLINK(1),"),
        "{text}"
    );
    assert!(lines[2].ends_with(",2031-01-01T00:00:00Z"), "{text}");
}

async fn the_engine_places_the_calls(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut body = campaign_body(&app, &w).await;
    body["callingWindow"] =
        json!({"days": [0, 1, 2, 3, 4, 5, 6], "from": "00:00", "to": "24:00", "timeZone": "UTC"});
    body["retryDelayMinutes"] = json!(1);
    let id = app
        .post("/v2/admin/call-campaigns/", &admin, body)
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    let mut ids = Vec::new();
    for number in ["2025550143", "2025550144", "2025550145"] {
        let record = app
            .post(&records, &admin, json!({"number": number}))
            .await
            .expect(200);
        ids.push(record["id"].clone());
    }
    assert!(
        engine::claim(&app, &["campaign-call"], None)
            .await
            .is_empty(),
        "a draft campaign queues nothing"
    );
    app.patch(
        &format!("/v2/admin/call-campaigns/{id}"),
        &admin,
        json!({"status": "running"}),
    )
    .await
    .expect(200);
    // The service's scheduler, woken by the move to running (and ticking anyway),
    // queues the due records: polled against a deadline, not a count of polls, so a
    // loaded machine's slow requests do not use the wait up.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let pending = app
            .get(&format!("{records}?status=pending"), &admin)
            .await
            .expect(200);
        if pending["totalRecords"] == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the scheduler queued nothing in 60 s: {pending}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let dialing = app
        .get(&format!("{records}?status=dialing"), &admin)
        .await
        .expect(200);
    assert_eq!(
        dialing["totalRecords"], 3,
        "every record was queued: {dialing}"
    );
    // Opted out after it was queued: the claim drops it, it is never dialled.
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "2025550144"}),
    )
    .await;
    let jobs = engine::claim(&app, &["campaign-call"], None).await;
    let subjects: Vec<Value> = jobs.iter().map(|j| j["subjectId"].clone()).collect();
    assert_eq!(subjects, [ids[0].clone(), ids[2].clone()]);
    assert_eq!(jobs[0]["payload"]["number"], "+12025550143");
    assert_eq!(jobs[0]["payload"]["callerIdNumber"], "+12025550100");
    assert_eq!(
        jobs[0]["payload"]["destination"],
        json!({"destType": "EXT", "id": w.ext_a})
    );
    let blocked = app
        .get(&format!("{records}/{}", ids[1]), &admin)
        .await
        .expect(200);
    assert_eq!(blocked["status"], "opted-out");
    assert_eq!(blocked["attempts"], 0);

    for (job, outcome) in [(&jobs[0], "no-answer"), (&jobs[1], "opted-out")] {
        engine::report(
            &app,
            job,
            json!({"attempt": job["attempt"], "outcome": outcome}),
        )
        .await
        .expect(200);
    }
    // A repeat of a recorded report is answered as recorded before, whatever outcome it
    // names (a retrying engine is told nothing new; the outcome is checked only for the
    // report that records it): the job retried, pending again, and the job done.
    for job in [&jobs[0], &jobs[1]] {
        let again = engine::report(
            &app,
            job,
            json!({"attempt": job["attempt"], "outcome": "no-such-outcome"}),
        )
        .await
        .expect(200);
        assert_eq!(again["recorded"], false, "{again}");
    }
    let retried = app
        .get(&format!("{records}/{}", ids[0]), &admin)
        .await
        .expect(200);
    assert_eq!(retried["status"], "pending");
    assert_eq!(retried["outcome"], "no-answer");
    assert_eq!(retried["attempts"], 1);
    assert!(retried["nextAttemptAt"].is_string());
    let opted = app
        .get(&format!("{records}/{}", ids[2]), &admin)
        .await
        .expect(200);
    assert_eq!(opted["status"], "opted-out");
    let listed = app
        .get("/v2/admin/opt-outs/?level=tenant&query=0145", &admin)
        .await
        .expect(200);
    assert_eq!(listed["records"][0]["source"], "engine", "{listed}");
    // A lower role cannot claim campaign calls.
    app.post(
        "/v2/engine/jobs/claim",
        &admin,
        json!({"kinds": ["campaign-call"], "max": 1}),
    )
    .await
    .expect(403);
}

/// A CSV import whose header row names no `number` column is one 400 for the file, not
/// the same error on each of its 10,000 rows, on both imports and in both forms; an
/// empty import says so in the `'<location>/<path>'` form (issue 29 item 11).
async fn an_import_without_a_number_column_is_one_refusal(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let mut csv = String::from("phone,name\n");
    for i in 0..10_000 {
        csv.push_str(&format!("+1202555{i:04},Row {i}\n"));
    }
    // Each import with what its empty JSON array answers.
    let imports = [
        (
            format!("/v2/admin/call-campaigns/{id}/records/import"),
            "'body/' must hold at least 1 item",
        ),
        (
            "/v2/admin/opt-outs/import".to_owned(),
            "'body/' must hold 1 to 10000 items",
        ),
    ];
    for (path, empty) in &imports {
        let response = app
            .client
            .post(app.url(path))
            .bearer_auth(&admin)
            .header("content-type", "text/csv")
            .body(csv.clone())
            .send()
            .await
            .unwrap();
        let refused = TestApp::answer(response)
            .await
            .error(400, "ValidationError");
        assert_eq!(
            refused,
            [
                "'body/' must be a CSV whose header row names a number column (it names: phone, name)"
            ],
            "{path}"
        );
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(csv.clone().into_bytes())
                .file_name("rows.csv")
                .mime_str("text/csv")
                .unwrap(),
        );
        let refused = app
            .post_form(path, &admin, form)
            .await
            .error(400, "ValidationError");
        assert_eq!(refused.len(), 1, "{path}: {refused:?}");
        // An empty JSON array names its place like every other refusal: the body's
        // JSON pointer (empty) after its location, `'body/'`.
        let refused = app
            .post(path, &admin, json!([]))
            .await
            .error(400, "ValidationError");
        assert_eq!(refused, [*empty], "{path}");
    }
    assert_eq!(
        app.count("campaign_records", None).await,
        0,
        "nothing was imported"
    );
}

/// A campaign record's and an opt-out entry's refusal lists every reason at once (issue
/// 29 item 6): a field breaking its own rule with a number that is no number in the
/// tenant's country, or a list the entry cannot be on, in one 400 — on a create, a
/// change and each row of an import (every reason of a row in its result, and every
/// row's reason in the refusal of a JSON body breaking its schema).
async fn records_and_opt_outs_list_every_reason(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = new_campaign(&app, &w, &admin).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    let not_a_number = "'body/number' is not a phone number (read in US)";
    let long = "x".repeat(501);

    // A record added: an empty name and no number.
    let problems = app
        .post(
            &records,
            &admin,
            json!({"number": "not a phone", "name": ""}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/name' must be at least 1 character", not_a_number]
    );
    // A record changed: a status it cannot be given and no number.
    let record = app
        .post(&records, &admin, json!({"number": "2025550143"}))
        .await
        .expect(200);
    let problems = app
        .patch(
            &format!("{records}/{}", record["id"]),
            &admin,
            json!({"number": "not a phone", "status": "called"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/status' must be one of: pending, skipped",
            not_a_number
        ]
    );
    // A JSON import breaking its schema names every row's number too.
    let problems = app
        .post(
            &format!("{records}/import"),
            &admin,
            json!([{"number": "2025550144", "name": ""}, {"number": "not a phone"}]),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/0/name' must be at least 1 character",
            "'body/1/number' is not a phone number (read in US)",
        ]
    );
    // A CSV row answers every reason of its own.
    let response = app
        .client
        .post(app.url(&format!("{records}/import")))
        .bearer_auth(&admin)
        .header("content-type", "text/csv")
        .body(format!(
            "number,name\nnot a phone,{}\n2025550145,Ada\n",
            "y".repeat(256)
        ))
        .send()
        .await
        .unwrap();
    let summary = TestApp::answer(response).await.expect(200);
    assert_eq!(summary["created"], 1, "{summary}");
    assert_eq!(summary["results"][0]["result"], "invalid", "{summary}");
    assert_eq!(
        summary["results"][0]["reason"],
        "'name' must be at most 255 characters; 'number' is not a phone number (read in US)"
    );
    assert_eq!(app.count("campaign_records", None).await, 2);

    // An opt-out entry: a reason too long, a campaign on a tenant entry, no number.
    let problems = app
        .post(
            "/v2/admin/opt-outs/",
            &admin,
            json!({"number": "not a phone", "reason": long, "campaignId": id}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/reason' must be at most 500 characters",
            "'body/campaignId' is only for campaign entries",
            not_a_number,
        ]
    );
    // A campaign entry: a source not listed and a campaign not in the caller's scope.
    let problems = app
        .post(
            "/v2/admin/opt-outs/",
            &admin,
            json!({"level": "campaign", "campaignId": 999_999, "number": "2025550146",
                   "source": "rumour"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/source' must be one of: manual, import, engine, complaint, regulator",
            "'body/campaignId' must name a call campaign in your scope",
        ]
    );
    // Each imported row answers all of its reasons.
    let summary = app
        .post(
            "/v2/admin/opt-outs/import",
            &admin,
            json!([
                {"number": "not a phone", "reason": long, "campaignId": id},
                {"number": "2025550147"},
            ]),
        )
        .await
        .expect(200);
    assert_eq!(summary["created"], 1, "{summary}");
    assert_eq!(summary["results"][0]["result"], "invalid", "{summary}");
    assert_eq!(
        summary["results"][0]["reason"],
        format!(
            "'body/reason' must be at most 500 characters; \
             'body/campaignId' is only for campaign entries; {not_a_number}"
        )
    );
    assert_eq!(app.count("opt_outs", None).await, 1);
}

on_both_backends!(with engine_token; the_engine_places_the_calls);

on_both_backends!(
    create_read_and_move_a_campaign,
    campaign_rules,
    records_are_e164_and_opted_out_numbers_are_refused,
    imports_answer_every_row,
    records_and_opt_outs_list_every_reason,
    concurrent_imports_create_a_number_once,
    other_tenants_and_lower_roles_are_refused,
    exports_stream_csv_and_refuse_over_the_limit,
    dial_time_rechecks_opt_outs_and_keeps_the_window,
    call_outcomes_are_a_tenants_own,
    call_outcomes_are_listed_and_read,
    an_opt_out_is_read_and_changed,
    opt_outs_import_and_export,
    an_import_without_a_number_column_is_one_refusal,
);
