//! Business hours: validation, destination lists of every type, holidays, the cascading
//! delete, and the open-now answer verified against hand-computed DST and midnight cases.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

async fn create(
    app: &TestApp,
    token: &str,
    w: &World,
    timezone: &str,
    hours: Value,
    holidays: Value,
) -> Value {
    app.create(
        "/v2/admin/business-hours/",
        token,
        json!({
            "name": "Store hours", "branchId": w.branch_a, "timezone": timezone, "hours": hours,
            "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
            "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}],
            "holidays": holidays,
        }),
    )
    .await
}

async fn status(app: &TestApp, token: &str, id: &Value, at: &str) -> Value {
    app.get(
        &format!("/v2/admin/business-hours/{id}/status?at={at}"),
        token,
    )
    .await
    .expect(200)
}

/// Asserts open/closed and the next change at `at`.
async fn expect_status(app: &TestApp, token: &str, id: &Value, at: &str, open: bool, next: &str) {
    let answer = status(app, token, id, at).await;
    assert_eq!(answer["open"], open, "open at {at}: {answer}");
    assert_eq!(
        answer["nextChangeAt"], next,
        "next change after {at}: {answer}"
    );
}

async fn records_resolve_every_destination_type(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Menu", "number": "600"}),
        )
        .await;
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "601", "name": "Page all"}),
        )
        .await;
    let created = app
        .create(
            "/v2/admin/business-hours/",
            &token,
            json!({
                "name": "Main", "branchId": w.branch_a, "timezone": "America/New_York",
                "hours": {"1": [{"from": "13:00", "to": "17:00"}, {"from": "09:00", "to": "12:00"}]},
                "matchDestinations": [
                    {"id": w.ext_a, "destType": "EXT"},
                    {"id": ivr["id"], "destType": "IVR"},
                    {"id": group["id"], "destType": "PAGING_GROUP"},
                ],
                "notMatchDestinations": [
                    {"id": w.ext_a, "destType": "VOICEMAIL", "order": 2},
                    {"id": 0, "destType": "EXTERNAL", "number": "+15551234567", "order": 1},
                    {"id": 0, "destType": "HANGUP", "order": 3},
                ],
            }),
        )
        .await;
    assert_eq!(
        created["branch"],
        json!({"id": w.branch_a, "name": "A main"})
    );
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(
        created["hours"]["1"],
        json!([{"from": "09:00", "to": "12:00"}, {"from": "13:00", "to": "17:00"}])
    );
    assert_eq!(created["hours"]["0"], json!([]), "every day present");
    assert_eq!(
        created["matchDestinations"],
        json!([
            {"id": w.ext_a, "destType": "EXT", "order": 1, "name": "Front desk A", "number": "101"},
            {"id": ivr["id"], "destType": "IVR", "order": 2, "name": "Menu", "number": "600"},
            {"id": group["id"], "destType": "PAGING_GROUP", "order": 3, "name": "Page all", "number": "601"},
        ])
    );
    assert_eq!(
        created["notMatchDestinations"],
        json!([
            {"id": 0, "destType": "EXTERNAL", "order": 1, "name": null, "number": "+15551234567"},
            {"id": w.ext_a, "destType": "VOICEMAIL", "order": 2, "name": "Front desk A", "number": "101"},
            {"id": 0, "destType": "HANGUP", "order": 3, "name": null, "number": null},
        ])
    );
    let id = created["id"].clone();
    assert_eq!(
        app.get(&format!("/v2/admin/business-hours/{id}"), &token)
            .await
            .expect(200),
        created
    );
    // Targets in use cannot be deleted from under the record.
    let answer = app
        .delete(&format!("/v2/admin/ivrs/{}", ivr["id"]), &token)
        .await;
    assert_eq!(
        answer.body["message"],
        format!("the IVR is used by business hour 'Main' (id {id})")
    );
    answer.error(409, "Conflict");
}

async fn validation_messages(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = app
        .post(
            "/v2/admin/business-hours/",
            &token,
            json!({
                "branchId": w.branch_a, "timezone": "Mars/Olympus",
                "hours": {"7": [], "1": [{"from": "9:00", "to": "25:00"}], "2": [{"from": "10:00", "to": "09:00"}],
                          "3": [{"from": "09:00", "to": "12:00"}, {"from": "11:00", "to": "13:00"}]},
                "matchDestinations": [{"id": w.ext_b, "destType": "EXT"}, {"id": 0, "destType": "EXTERNAL"}, {"id": 1, "destType": "FAX"}],
                "holidays": [{"name": "x"}, {"name": "y", "date": "2026-02-30"}, {"name": "z", "from": "2026-12-24T14:00", "to": "2026-12-24T09:00"}],
            }),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/name' is required",
            "'body/timezone' must be an IANA time zone name",
            "'body/hours/1/0/from' must be a time HH:MM (00:00 to 23:59)",
            "'body/hours/1/0/to' must be a time HH:MM (00:01 to 24:00)",
            "'body/hours/2/0' 'to' must be after 'from'",
            "'body/hours/3/1' must start at or after the end of the previous interval (09:00-12:00)",
            "'body/hours/7' is not a day: use \"0\" (Sunday) to \"6\" (Saturday)",
            "'body/matchDestinations/1/number' is required for EXTERNAL destinations",
            "'body/matchDestinations/2/destType' must be one of: EXT, IVR, PAGING_GROUP, VOICEMAIL, EXTERNAL, HANGUP, QUEUE, BUSINESS_HOUR, PHARMACY_AGENT",
            "'body/holidays/0/date' is required (or from and to)",
            "'body/holidays/1/date' must be a date (YYYY-MM-DD)",
            "'body/holidays/2/to' must be after from",
        ]
    );
    let problems = app
        .post(
            "/v2/admin/business-hours/",
            &token,
            json!({"name": "x", "branchId": w.branch_a, "timezone": "UTC", "hours": {},
                   "matchDestinations": [{"id": w.ext_b, "destType": "EXT"}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/matchDestinations/0/id' must name an extension of the tenant"]
    );
}

async fn delete_cascades_in_one_transaction(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = create(
        &app,
        &token,
        &w,
        "UTC",
        json!({}),
        json!([{"name": "New year", "date": "2027-01-01"}]),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    let holidays = app
        .get(&format!("/v2/admin/business-hours/{id}/holidays"), &token)
        .await
        .expect(200);
    assert_eq!(holidays.as_array().unwrap().len(), 1);
    // The extension is used by both lists, so it cannot go...
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &token)
        .await
        .error(409, "Conflict");
    let response = app
        .client
        .delete(app.url(&format!("/v2/admin/business-hours/{id}")))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    let deleted = TestApp::answer(response).await.expect(200);
    assert_eq!(deleted, created, "answers the deleted record");
    app.get(&format!("/v2/admin/business-hours/{id}"), &token)
        .await
        .error(404, "NotFound");
    app.get(&format!("/v2/admin/business-hours/{id}/holidays"), &token)
        .await
        .error(404, "NotFound");
    // ...and once the record is gone, its destinations went with it.
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &token)
        .await
        .expect(200);
}

async fn holidays_sub_resource(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = create(&app, &token, &w, "Europe/London", json!({}), json!([])).await;
    let base = format!("/v2/admin/business-hours/{}/holidays", created["id"]);
    let added = app
        .post(
            &base,
            &token,
            json!({"name": "Boxing day", "date": "2026-12-26"}),
        )
        .await
        .expect(200);
    assert_eq!(added["date"], "2026-12-26");
    assert_eq!(added["mediaFileId"], 0);
    let path = format!("{base}/{}", added["id"]);
    let changed = app
        .patch(
            &path,
            &token,
            json!({"from": "2026-12-24T14:00", "to": "2026-12-27"}),
        )
        .await
        .expect(200);
    assert_eq!(
        (changed["date"].clone(), changed["from"].clone()),
        (Value::Null, json!("2026-12-24T14:00"))
    );
    assert_eq!(changed["name"], "Boxing day");
    app.patch(
        &path,
        &token,
        json!({"date": "2026-12-26", "from": "2026-12-24"}),
    )
    .await
    .error(400, "ValidationError");
    let b = app.login(w.admin_b).await;
    app.get(&path, &b).await.error(404, "NotFound");
    app.post(&base, &b, json!({"name": "x", "date": "2026-12-26"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &b).await.error(404, "NotFound");
    assert_eq!(
        app.delete(&path, &token).await.expect(200)["id"],
        added["id"]
    );
    app.get(&path, &token).await.error(404, "NotFound");
    app.get(&format!("{base}/0"), &token)
        .await
        .error(400, "ValidationError");
}

async fn open_now_across_new_york_daylight_saving(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // Sundays 01:00-03:00 local.
    let spring = create(
        &app,
        &token,
        &w,
        "America/New_York",
        json!({"0": [{"from": "01:00", "to": "03:00"}]}),
        json!([]),
    )
    .await;
    let id = &spring["id"];
    // 2026-03-08: 01:00 EST = 06:00Z opens; at 02:00 EST (07:00Z) clocks jump to 03:00 EDT,
    // which is already closing time: one real hour open.
    expect_status(
        &app,
        &token,
        id,
        "2026-03-08T05:59:00Z",
        false,
        "2026-03-08T06:00:00Z",
    )
    .await;
    expect_status(
        &app,
        &token,
        id,
        "2026-03-08T06:30:00Z",
        true,
        "2026-03-08T07:00:00Z",
    )
    .await;
    // Next Sunday 01:00 EDT = 05:00Z.
    expect_status(
        &app,
        &token,
        id,
        "2026-03-08T07:00:00Z",
        false,
        "2026-03-15T05:00:00Z",
    )
    .await;
    // 2026-11-01: 01:00 EDT = 05:00Z; at 06:00Z clocks fall back to 01:00 EST; 03:00 EST = 08:00Z.
    expect_status(
        &app,
        &token,
        id,
        "2026-11-01T05:30:00Z",
        true,
        "2026-11-01T08:00:00Z",
    )
    .await;
    expect_status(
        &app,
        &token,
        id,
        "2026-11-01T06:30:00Z",
        true,
        "2026-11-01T08:00:00Z",
    )
    .await;
    let answer = status(&app, &token, id, "2026-11-01T06:30:00Z").await;
    assert_eq!(answer["localTime"], "2026-11-01T01:30:00-05:00");
    assert_eq!(answer["reason"], "inside-hours");
    assert_eq!(answer["destinationList"], "match");
    assert_eq!(answer["destinations"][0]["destType"], "EXT");
}

async fn open_now_across_london_daylight_saving(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // Sundays 01:30-03:00 local.
    let created = create(
        &app,
        &token,
        &w,
        "Europe/London",
        json!({"0": [{"from": "01:30", "to": "03:00"}]}),
        json!([]),
    )
    .await;
    let id = &created["id"];
    // 2026-03-29: at 01:00 GMT (01:00Z) clocks jump to 02:00 BST; 01:30 never happens, so the
    // interval opens at the jump and closes at 03:00 BST = 02:00Z.
    expect_status(
        &app,
        &token,
        id,
        "2026-03-29T00:59:00Z",
        false,
        "2026-03-29T01:00:00Z",
    )
    .await;
    expect_status(
        &app,
        &token,
        id,
        "2026-03-29T01:30:00Z",
        true,
        "2026-03-29T02:00:00Z",
    )
    .await;
    // 2026-10-25: 01:30 BST = 00:30Z opens; at 02:00 BST (01:00Z) clocks fall back to 01:00 GMT,
    // before 01:30: closed until 01:30 GMT = 01:30Z, then open until 03:00 GMT = 03:00Z.
    expect_status(
        &app,
        &token,
        id,
        "2026-10-25T00:45:00Z",
        true,
        "2026-10-25T01:00:00Z",
    )
    .await;
    expect_status(
        &app,
        &token,
        id,
        "2026-10-25T01:10:00Z",
        false,
        "2026-10-25T01:30:00Z",
    )
    .await;
    expect_status(
        &app,
        &token,
        id,
        "2026-10-25T02:00:00Z",
        true,
        "2026-10-25T03:00:00Z",
    )
    .await;
}

async fn open_now_across_midnight_and_holidays(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // Mondays 22:00-24:00 and Tuesdays 00:00-02:00: one span across midnight. Fridays 09:00-17:00.
    let created = create(
        &app,
        &token,
        &w,
        "America/New_York",
        json!({"1": [{"from": "22:00", "to": "24:00"}], "2": [{"from": "00:00", "to": "02:00"}], "5": [{"from": "09:00", "to": "17:00"}]}),
        json!([{"name": "Christmas", "date": "2026-12-25"}]),
    )
    .await;
    let id = &created["id"];
    // Monday 2026-11-23 23:00 EST = 2026-11-24T04:00Z; closes Tuesday 02:00 EST = 07:00Z.
    expect_status(
        &app,
        &token,
        id,
        "2026-11-24T04:00:00Z",
        true,
        "2026-11-24T07:00:00Z",
    )
    .await;
    // Friday 2026-12-25 10:00 EST = 15:00Z is a holiday: closed, outside-hours list.
    let answer = status(&app, &token, id, "2026-12-25T15:00:00Z").await;
    assert_eq!(answer["open"], false);
    assert_eq!(answer["reason"], "holiday");
    assert_eq!(answer["holiday"]["name"], "Christmas");
    assert_eq!(answer["destinationList"], "notMatch");
    assert_eq!(answer["destinations"][0]["destType"], "VOICEMAIL");
    // Closed until the line reopens: Monday 2026-12-28 22:00 EST = 2026-12-29T03:00Z, not
    // the holiday's end at midnight (still closed then, outside hours).
    assert_eq!(answer["nextChangeAt"], "2026-12-29T03:00:00Z");
    // A Friday that is no holiday: open 09:00-17:00 EST.
    expect_status(
        &app,
        &token,
        id,
        "2026-12-18T15:00:00Z",
        true,
        "2026-12-18T22:00:00Z",
    )
    .await;
    // `at` defaults to now and must be RFC 3339.
    let now = app
        .get(&format!("/v2/admin/business-hours/{id}/status"), &token)
        .await
        .expect(200);
    assert!(now["at"].as_str().unwrap().ends_with('Z'));
    let problems = app
        .get(
            &format!("/v2/admin/business-hours/{id}/status?at=tomorrow"),
            &token,
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'query/at' must be an RFC 3339 date-time such as 2026-03-08T07:30:00Z"]
    );
    let b = app.login(w.admin_b).await;
    app.get(&format!("/v2/admin/business-hours/{id}/status"), &b)
        .await
        .error(404, "NotFound");
}

async fn other_tenants_hours_are_out_of_reach(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let created = create(&app, &a, &w, "UTC", json!({}), json!([])).await;
    let path = format!("/v2/admin/business-hours/{}", created["id"]);
    let b = app.login(w.admin_b).await;
    app.get(&path, &b).await.error(404, "NotFound");
    app.patch(&path, &b, json!({"name": "x"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &b).await.error(404, "NotFound");
    app.post(
        "/v2/admin/business-hours/",
        &b,
        json!({"tenantId": w.tenant_a, "name": "x", "branchId": w.branch_a, "timezone": "UTC", "hours": {}}),
    )
    .await
    .error(403, "Forbidden");
    let problems = app
        .post(
            "/v2/admin/business-hours/",
            &b,
            json!({"name": "x", "branchId": w.branch_a, "timezone": "UTC", "hours": {}}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/branchId' must name a branch of the tenant"]
    );
    let patched = app
        .patch(
            &path,
            &a,
            json!({"timezone": "Asia/Kolkata", "hours": {"3": [{"from": "08:00", "to": "20:00"}]}}),
        )
        .await
        .expect(200);
    assert_eq!(patched["timezone"], "Asia/Kolkata");
    assert_eq!(
        patched["matchDestinations"], created["matchDestinations"],
        "lists kept when not sent"
    );
}

/// The most a schedule may hold: 48 half-hour intervals every day, with 366 holidays.
fn worst_schedule(branch: i64) -> serde_json::Value {
    let day: Vec<_> = (0..48)
        .map(|i| {
            let from = i * 30;
            let to = from + 20;
            json!({"from": format!("{:02}:{:02}", from / 60, from % 60), "to": format!("{:02}:{:02}", to / 60, to % 60)})
        })
        .collect();
    let hours: serde_json::Map<String, serde_json::Value> =
        (0..7).map(|d| (d.to_string(), json!(day))).collect();
    // Every other day of 2026 and 2027 closed, in short closures within the day.
    let holidays: Vec<_> = (0..366)
        .map(|i| {
            let date = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()
                + chrono::Days::new(2 * i);
            json!({"name": format!("closed {i}"), "from": format!("{date}T10:00"), "to": format!("{date}T11:00")})
        })
        .collect();
    json!({"branchId": branch, "name": "Worst", "timezone": "America/New_York", "hours": hours, "holidays": holidays})
}

async fn schedules_are_bounded(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // One interval too many in a day, one holiday too many: each named.
    let mut too_much = worst_schedule(w.branch_a);
    too_much["hours"]["2"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "23:55", "to": "24:00"}));
    too_much["holidays"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "one more", "date": "2030-01-01"}));
    let problems = app
        .post("/v2/admin/business-hours/", &token, too_much)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/hours/2' must hold at most 48 intervals",
            "'body/holidays' must hold at most 366 items",
        ]
    );
    assert_eq!(app.count("business_hours", None).await, 0);
    // The most allowed is taken, and its status answered promptly.
    let worst = app
        .post(
            "/v2/admin/business-hours/",
            &token,
            worst_schedule(w.branch_a),
        )
        .await
        .expect(200);
    let id = worst["id"].as_i64().unwrap();
    assert_eq!(worst["holidays"].as_array().unwrap().len(), 366);
    let started = std::time::Instant::now();
    let status = app
        .get(
            &format!("/v2/admin/business-hours/{id}/status?at=2026-03-08T06:45:00Z"),
            &token,
        )
        .await
        .expect(200);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(status["open"], true, "{status}");
    assert_eq!(status["nextChangeAt"], "2026-03-08T06:50:00Z", "{status}");
    // No holiday beyond the most through the sub-resource either.
    let problems = app
        .post(
            &format!("/v2/admin/business-hours/{id}/holidays"),
            &token,
            json!({"name": "one more", "date": "2030-01-01"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'path/id' already holds 366 holidays, the most a record may hold"]
    );
    assert_eq!(app.count("holidays", None).await, 366);
}

on_both_backends!(
    schedules_are_bounded,
    records_resolve_every_destination_type,
    validation_messages,
    delete_cascades_in_one_transaction,
    holidays_sub_resource,
    open_now_across_new_york_daylight_saving,
    open_now_across_london_daylight_saving,
    open_now_across_midnight_and_holidays,
    other_tenants_hours_are_out_of_reach,
);
