//! How calls flow (the rest of issue 16): transfers in a call's timeline, recorded once
//! however often reported; the queue a call passed through, filtering the reports and
//! their aggregates; conduits' health checks reported by the engine; a phone number's
//! conduit; and a branch admin's routing graph confined to its branch.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::support::TestApp;

const CALLS: &str = "/v2/ingest/calls";
const CHECKS: &str = "/v2/ingest/conduit-checks";

/// Every validation message of a 400, joined, for `contains` checks.
fn said(problems: &[String]) -> String {
    problems.join(" | ")
}

async fn transfers_show_once_in_time_order(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let blind = json!({"at": "2026-11-02T15:01:00Z", "kind": "blind",
                       "from": "101", "fromExtensionId": w.ext_a,
                       "to": "201", "toExtensionId": w.ext_a2});
    let attended = json!({"at": "2026-11-02T15:00:30Z", "kind": "attended",
                          "from": "5550100", "to": "101", "toExtensionId": w.ext_a});
    let answered = json!({"tenantId": w.tenant_a, "uniqueId": "t.1", "event": "answered",
                          "direction": "inbound", "callerIdNum": "5550100", "dialedNum": "101",
                          "time": "2026-11-02T15:00:00Z", "answerTime": "2026-11-02T15:00:05Z",
                          "transfers": [blind]});
    app.post(CALLS, &platform, answered.clone())
        .await
        .expect(200);
    // The end carries both transfers (one already reported, reported out of order), and
    // the engine retries it concurrently: each transfer is stored once.
    let mut ended = answered.clone();
    ended["event"] = json!("ended");
    ended["endTime"] = json!("2026-11-02T15:03:00Z");
    ended["transfers"] = json!([blind, attended]);
    let pushes = (0..4).map(|_| app.post(CALLS, &platform, ended.clone()));
    for answer in futures::future::join_all(pushes).await {
        answer.expect(200);
    }
    // A repeat of the answered report (not moving the call) still changes nothing.
    app.post(CALLS, &platform, answered).await.expect(200);
    assert_eq!(app.count("call_transfers", None).await, 2);

    let admin = app.login(w.admin_a).await;
    for path in [
        "/admin/reporting/calls/t.1",
        "/v2/admin/reporting/calls/t.1",
    ] {
        let report = app.get(path, &admin).await.expect(200);
        let timeline = report["timeline"].as_array().unwrap();
        let steps: Vec<(&str, &str)> = timeline
            .iter()
            .map(|e| (e["event"].as_str().unwrap(), e["at"].as_str().unwrap()))
            .collect();
        assert_eq!(
            steps,
            [
                ("started", "2026-11-02T15:00:00Z"),
                ("answered", "2026-11-02T15:00:05Z"),
                ("transferred", "2026-11-02T15:00:30Z"),
                ("transferred", "2026-11-02T15:01:00Z"),
                ("ended", "2026-11-02T15:03:00Z"),
            ]
        );
        assert_eq!(
            timeline[2],
            json!({"event": "transferred", "at": "2026-11-02T15:00:30Z", "kind": "attended",
                   "from": {"number": "5550100", "extensionId": null, "name": ""},
                   "to": {"number": "101", "extensionId": w.ext_a, "name": "Front desk A"}})
        );
        assert_eq!(timeline[3]["kind"], "blind");
        assert_eq!(timeline[3]["from"]["name"], "Front desk A");
        assert_eq!(timeline[3]["to"]["extensionId"], w.ext_a2);
        assert_eq!(timeline[3]["to"]["name"], "Annex A");
        // Steps carry no transfer fields.
        assert_eq!(
            timeline[0],
            json!({"event": "started", "at": "2026-11-02T15:00:00Z"})
        );
    }

    // Another tenant's admin does not see the call; another tenant's extension, a transfer
    // before the call and an unknown kind are refused, and nothing is written.
    let admin_b = app.login(w.admin_b).await;
    app.get("/admin/reporting/calls/t.1", &admin_b)
        .await
        .error(404, "NotFound");
    let mut foreign = ended.clone();
    foreign["transfers"] = json!([{"at": "2026-11-02T15:02:00Z", "kind": "blind",
                                    "from": "101", "to": "101", "toExtensionId": w.ext_b}]);
    let problems = app
        .post(CALLS, &platform, foreign)
        .await
        .error(400, "ValidationError");
    assert!(
        said(&problems)
            .contains("'body/transfers/0/toExtensionId' must name an extension of the tenant"),
        "{problems:?}"
    );
    let mut bad = ended.clone();
    bad["transfers"] = json!([
        {"at": "2026-11-02T15:02:00Z", "kind": "blind", "from": "101", "to": "102"},
        {"at": "2026-11-02T15:02:00Z", "kind": "warm", "from": "", "to": "102"},
    ]);
    let problems = app
        .post(CALLS, &platform, bad)
        .await
        .error(400, "ValidationError");
    let text = said(&problems);
    for field in ["transfers/1/kind", "transfers/1/from"] {
        assert!(text.contains(&format!("'body/{field}'")), "{field}: {text}");
    }
    let mut early = ended.clone();
    early["transfers"] =
        json!([{"at": "2026-11-02T14:59:00Z", "kind": "blind", "from": "101", "to": "102"}]);
    let problems = app
        .post(CALLS, &platform, early)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/transfers/0/at' must not be before time"]);
    assert_eq!(app.count("call_transfers", None).await, 2);
}

/// A call of tenant `tenant` through `queue` (if any), answered after `wait` seconds and
/// talking 60, or missed (`wait: None`).
fn queued(tenant: i64, id: &str, start: &str, queue: Option<i64>, wait: Option<i64>) -> Value {
    let start_at = chrono::DateTime::parse_from_rfc3339(start)
        .unwrap()
        .to_utc();
    let iso =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut call = json!({"tenantId": tenant, "uniqueId": id, "event": "ended",
                          "direction": "inbound", "callerIdNum": "5550100", "dialedNum": "600",
                          "time": start});
    if let Some(queue) = queue {
        call["queueId"] = json!(queue);
    }
    match wait {
        Some(wait) => {
            let answer = start_at + chrono::Duration::seconds(wait);
            call["answerTime"] = json!(iso(answer));
            call["endTime"] = json!(iso(answer + chrono::Duration::seconds(60)));
        }
        None => call["endTime"] = json!(iso(start_at + chrono::Duration::seconds(30))),
    }
    call
}

async fn queue(app: &TestApp, token: &str, name: &str, number: &str) -> i64 {
    app.create(
        "/v2/admin/queues/",
        token,
        json!({"name": name, "number": number}),
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

async fn calls_record_their_queue(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    let admin_b = app.login(w.admin_b).await;
    let support = queue(&app, &admin, "Support", "600").await;
    let sales = queue(&app, &admin, "Sales", "601").await;
    let theirs = queue(&app, &admin_b, "Theirs", "600").await;
    let day = "2026-11-02T";
    for call in [
        queued(
            w.tenant_a,
            "q.1",
            &format!("{day}09:00:00Z"),
            Some(support),
            Some(4),
        ),
        queued(
            w.tenant_a,
            "q.2",
            &format!("{day}09:10:00Z"),
            Some(support),
            Some(10),
        ),
        queued(
            w.tenant_a,
            "q.3",
            &format!("{day}10:00:00Z"),
            Some(support),
            None,
        ),
        queued(
            w.tenant_a,
            "q.4",
            &format!("{day}10:30:00Z"),
            Some(sales),
            Some(2),
        ),
        queued(w.tenant_a, "q.5", &format!("{day}11:00:00Z"), None, Some(1)),
    ] {
        app.post(CALLS, &platform, call).await.expect(200);
    }
    // The first queue named stays: a later report naming another does not move the call.
    app.post(
        CALLS,
        &platform,
        queued(
            w.tenant_a,
            "q.1",
            &format!("{day}09:00:00Z"),
            Some(sales),
            Some(4),
        ),
    )
    .await
    .expect(200);
    // Another tenant's queue is refused (and the call not recorded).
    let problems = app
        .post(
            CALLS,
            &platform,
            queued(
                w.tenant_a,
                "q.x",
                &format!("{day}12:00:00Z"),
                Some(theirs),
                Some(1),
            ),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/queueId' must name a queue of the tenant"]);
    assert_eq!(app.count("calls", Some(("unique_id", "q.x"))).await, 0);

    let range = "from=2026-11-02T00:00:00Z&to=2026-11-03T00:00:00Z";
    for path in ["/admin/reporting/calls/", "/v2/admin/reporting/calls/"] {
        let page = app
            .get(&format!("{path}?{range}&queueId={support}"), &admin)
            .await
            .expect(200);
        assert_eq!(page["totalRecords"], 3);
        let mut ids: Vec<&str> = page["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uniqueId"].as_str().unwrap())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, ["q.1", "q.2", "q.3"]);
        let totals = &page["aggregates"]["totals"];
        assert_eq!(
            (
                totals["total"].clone(),
                totals["answered"].clone(),
                totals["missed"].clone()
            ),
            (json!(3), json!(2), json!(1))
        );
        // Waits 4 and 10: mean 7, nearest-rank p90 10; talk 60 each.
        assert_eq!(totals["averageWaitSeconds"], 7.0);
        assert_eq!(totals["p90WaitSeconds"], 10);
        assert_eq!(totals["averageTalkSeconds"], 60.0);
        let hourly = app
            .get(
                &format!("{path}?{range}&queueId={support}&groupBy=hour"),
                &admin,
            )
            .await
            .expect(200);
        let buckets: Vec<(String, i64)> = hourly["aggregates"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["period"].as_str().unwrap().to_owned(),
                    b["total"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            buckets,
            [
                ("2026-11-02T09:00".to_owned(), 2),
                ("2026-11-02T10:00".to_owned(), 1)
            ]
        );
    }
    let all = app
        .get(&format!("/v2/admin/reporting/calls/?{range}"), &admin)
        .await
        .expect(200);
    assert_eq!(all["aggregates"]["totals"]["total"], 5);
    let sold = app
        .get(
            &format!("/v2/admin/reporting/calls/?{range}&queueId={sales}"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(sold["totalRecords"], 1);
    assert_eq!(sold["records"][0]["uniqueId"], "q.4");
    // Another tenant's admin filtering by this tenant's queue sees none of its calls.
    let foreign = app
        .get(
            &format!("/v2/admin/reporting/calls/?{range}&queueId={support}"),
            &admin_b,
        )
        .await
        .expect(200);
    assert_eq!(foreign["totalRecords"], 0);
    assert_eq!(foreign["aggregates"]["totals"]["total"], 0);
    app.get(
        &format!("/v2/admin/reporting/calls/?{range}&queueId=x"),
        &admin,
    )
    .await
    .error(400, "ValidationError");

    // The report names the queue; a call through none says null.
    let report = app
        .get("/admin/reporting/calls/q.1", &admin)
        .await
        .expect(200);
    assert_eq!(
        report["queue"],
        json!({"id": support, "name": "Support", "number": "600"})
    );
    let direct = app
        .get("/admin/reporting/calls/q.5", &admin)
        .await
        .expect(200);
    assert_eq!(direct["queue"], Value::Null);
    // A deleted queue stays in its calls' history: filtered by, named by id.
    app.delete(&format!("/v2/admin/queues/{support}"), &admin)
        .await
        .expect(200);
    let report = app
        .get("/admin/reporting/calls/q.1", &admin)
        .await
        .expect(200);
    assert_eq!(
        report["queue"],
        json!({"id": support, "name": "", "number": ""})
    );
    let page = app
        .get(
            &format!("/v2/admin/reporting/calls/?{range}&queueId={support}"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(page["aggregates"]["totals"]["total"], 3);
}

fn check(tenant: i64, conduit: i64, ok: bool, at: &str) -> Value {
    json!({"tenantId": tenant, "conduitId": conduit, "ok": ok, "checkedAt": at,
           "detail": if ok { "200 OK" } else { "408 Request Timeout" }})
}

async fn status_changes(app: &TestApp) -> i64 {
    app.count("webhook_events", Some(("type", "CONDUIT_STATUS_CHANGED")))
        .await
}

async fn conduit_checks_move_the_status(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let partner = app.login(w.partner_admin_a).await;
    let trunk_a = app.sip_trunk(&partner, w.tenant_a, "Main trunk").await;
    let trunk_b = app.sip_trunk(&platform, w.tenant_b, "B trunk").await;
    let path = format!("/v2/admin/conduits/{trunk_a}");
    let fresh = app.get(&path, &partner).await.expect(200);
    assert_eq!(
        (
            fresh["lastCheckedAt"].clone(),
            fresh["lastCheckOk"].clone(),
            fresh["lastCheckDetail"].clone()
        ),
        (Value::Null, Value::Null, json!(""))
    );

    // A failed check: active → failing, audited as the system, announced.
    let failed = app
        .post(
            CHECKS,
            &platform,
            check(w.tenant_a, trunk_a, false, "2026-11-20T10:00:00Z"),
        )
        .await
        .expect(200);
    assert_eq!(failed["recorded"], true);
    assert_eq!(failed["previousStatus"], "active");
    assert_eq!(failed["conduit"]["status"], "failing");
    let admin = app.login(w.admin_a).await;
    let listed = app.get("/tenants/conduits", &admin).await.expect(200);
    let seen = &listed["records"][0];
    assert_eq!(seen["status"], "failing");
    assert_eq!(seen["lastCheckedAt"], "2026-11-20T10:00:00Z");
    assert_eq!(seen["lastCheckOk"], false);
    assert_eq!(seen["lastCheckDetail"], "408 Request Timeout");
    assert_eq!(status_changes(&app).await, 1);
    let entries = app
        .audit_entries(
            &platform,
            &format!("entities=conduit&entityId={trunk_a}&action=update"),
        )
        .await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["userEmail"], "system:conduit-check");
    assert_eq!(entries[0]["after"]["status"], "failing");

    // A check older than the last one changes nothing; a newer passed one heals it.
    let stale = app
        .post(
            CHECKS,
            &platform,
            check(w.tenant_a, trunk_a, true, "2026-11-20T09:00:00Z"),
        )
        .await
        .expect(200);
    assert_eq!(stale["recorded"], false);
    assert_eq!(stale["conduit"]["status"], "failing");
    assert_eq!(stale["conduit"]["lastCheckedAt"], "2026-11-20T10:00:00Z");
    let healed = app
        .post(
            CHECKS,
            &platform,
            check(w.tenant_a, trunk_a, true, "2026-11-20T10:05:00Z"),
        )
        .await
        .expect(200);
    assert_eq!(healed["conduit"]["status"], "active");
    assert_eq!(healed["conduit"]["lastCheckOk"], true);
    // Passing again moves nothing: no event, no audit entry.
    app.post(
        CHECKS,
        &platform,
        check(w.tenant_a, trunk_a, true, "2026-11-20T10:06:00Z"),
    )
    .await
    .expect(200);
    assert_eq!(status_changes(&app).await, 2);

    // Disabled is the administrator's: checks note their time and leave it.
    app.patch(&path, &partner, json!({"status": "disabled"}))
        .await
        .expect(200);
    for (ok, at) in [
        (false, "2026-11-20T10:07:00Z"),
        (true, "2026-11-20T10:08:00Z"),
    ] {
        let answer = app
            .post(CHECKS, &platform, check(w.tenant_a, trunk_a, ok, at))
            .await
            .expect(200);
        assert_eq!(answer["conduit"]["status"], "disabled");
        assert_eq!(answer["conduit"]["lastCheckedAt"], at);
    }
    assert_eq!(status_changes(&app).await, 2);

    // Concurrent failed checks of an active conduit: exactly one moves it.
    app.patch(&path, &partner, json!({"status": "active"}))
        .await
        .expect(200);
    let checks = (0..6).map(|i| {
        app.post(
            CHECKS,
            &platform,
            check(
                w.tenant_a,
                trunk_a,
                false,
                &format!("2026-11-20T11:00:0{i}Z"),
            ),
        )
    });
    for answer in futures::future::join_all(checks).await {
        answer.expect(200);
    }
    assert_eq!(status_changes(&app).await, 3);
    let now = app.get(&path, &partner).await.expect(200);
    assert_eq!(now["status"], "failing");
    assert_eq!(now["lastCheckedAt"], "2026-11-20T11:00:05Z");

    // Tenant isolation: a conduit of another tenant than the body's is refused, and B's
    // conduit is untouched.
    let problems = app
        .post(
            CHECKS,
            &platform,
            check(w.tenant_a, trunk_b, false, "2026-11-20T12:00:00Z"),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/conduitId' must name a conduit of the tenant"]
    );
    let b = app
        .get(&format!("/v2/admin/conduits/{trunk_b}"), &platform)
        .await
        .expect(200);
    assert_eq!(
        (b["status"].clone(), b["lastCheckedAt"].clone()),
        (json!("active"), Value::Null)
    );
    // Only the engine (or a platform admin) reports checks.
    for who in [w.admin_a, w.partner_admin_a] {
        let token = app.login(who).await;
        app.post(
            CHECKS,
            &token,
            check(w.tenant_a, trunk_a, true, "2026-11-20T12:00:00Z"),
        )
        .await
        .error(403, "Forbidden");
    }
    // Bad input.
    let problems = app
        .post(
            CHECKS,
            &platform,
            json!({"tenantId": w.tenant_a, "conduitId": "x", "ok": "yes",
                   "checkedAt": "yesterday", "detail": "d".repeat(501)}),
        )
        .await
        .error(400, "ValidationError");
    let text = said(&problems);
    for field in ["conduitId", "ok", "checkedAt", "detail"] {
        assert!(text.contains(&format!("'body/{field}'")), "{field}: {text}");
    }
    let problems = app
        .post(CHECKS, &platform, json!({"tenantId": w.tenant_a}))
        .await
        .error(400, "ValidationError");
    assert!(said(&problems).contains("'body/ok'"), "{problems:?}");
    let future = (chrono::Utc::now() + chrono::Duration::hours(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let problems = app
        .post(CHECKS, &platform, check(w.tenant_a, trunk_a, true, &future))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/checkedAt' must not be in the future"]);
    // Without checkedAt the check is dated now.
    let undated = app
        .post(
            CHECKS,
            &platform,
            json!({"tenantId": w.tenant_a, "conduitId": trunk_a, "ok": true}),
        )
        .await
        .expect(200);
    assert_eq!(undated["conduit"]["status"], "active");
    assert!(
        undated["conduit"]["lastCheckedAt"]
            .as_str()
            .unwrap()
            .starts_with(&chrono::Utc::now().format("%Y-").to_string())
    );
}

async fn numbers_name_their_conduit(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    let trunk_a = app.sip_trunk(&platform, w.tenant_a, "Main trunk").await;
    let spare = app.sip_trunk(&platform, w.tenant_a, "Spare trunk").await;
    let trunk_b = app.sip_trunk(&platform, w.tenant_b, "B trunk").await;
    let count = |id: i64| {
        let app = &app;
        let admin = admin.clone();
        async move {
            app.get(&format!("/v2/admin/conduits/{id}"), &admin)
                .await
                .expect(200)["numbersCount"]
                .as_i64()
                .unwrap()
        }
    };
    let first = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550100001", "conduitId": trunk_a}),
        )
        .await;
    assert_eq!(first["conduitId"], trunk_a);
    let second = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550100002"}),
        )
        .await;
    assert_eq!(second["conduitId"], 0);
    assert_eq!(count(trunk_a).await, 1);
    // The tenant's admin routes its own number through its own conduit.
    let second_path = format!("/v2/admin/phone-numbers/{}", second["id"]);
    let patched = app
        .patch(&second_path, &admin, json!({"conduitId": trunk_a}))
        .await
        .expect(200);
    assert_eq!(patched["conduitId"], trunk_a);
    assert_eq!(count(trunk_a).await, 2);
    let listed = app
        .get(
            &format!("/v2/admin/phone-numbers/?conduitId={trunk_a}"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 2);
    let none = app
        .get(
            &format!("/v2/admin/phone-numbers/?conduitId={spare}"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(none["totalRecords"], 0);
    // Moving it to another conduit, then clearing it.
    app.patch(&second_path, &admin, json!({"conduitId": spare}))
        .await
        .expect(200);
    assert_eq!((count(trunk_a).await, count(spare).await), (1, 1));
    let cleared = app
        .patch(&second_path, &admin, json!({"conduitId": null}))
        .await
        .expect(200);
    assert_eq!(cleared["conduitId"], 0);
    assert_eq!(count(spare).await, 0);
    // Omitted, it stays.
    let kept = app
        .patch(
            &format!("/v2/admin/phone-numbers/{}", first["id"]),
            &admin,
            json!({"diCommentName": "Main line"}),
        )
        .await
        .expect(200);
    assert_eq!(kept["conduitId"], trunk_a);

    // Another tenant's conduit, or no conduit at all, is refused; nothing changes.
    for bad in [json!(trunk_b), json!(999_999), json!("x")] {
        let problems = app
            .patch(&second_path, &admin, json!({"conduitId": bad}))
            .await
            .error(400, "ValidationError");
        assert!(said(&problems).contains("'body/conduitId'"), "{problems:?}");
    }
    // 0 is none, as answers write it (a number's answer is accepted back as it is).
    let none = app
        .patch(&second_path, &admin, json!({"conduitId": 0}))
        .await
        .expect(200);
    assert_eq!(none["conduitId"], 0);
    app.post(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": w.tenant_a, "number": "15550100003", "conduitId": trunk_b}),
    )
    .await
    .error(400, "ValidationError");
    assert_eq!(count(trunk_a).await, 1);
    // Other tenants' admins do not reach the number; a branch admin or a user may not
    // change numbers.
    let admin_b = app.login(w.admin_b).await;
    app.patch(&second_path, &admin_b, json!({"conduitId": trunk_b}))
        .await
        .error(404, "NotFound");
    for who in [w.branch_admin_a, w.user_a] {
        let token = app.login(who).await;
        app.patch(&second_path, &token, json!({"conduitId": trunk_a}))
            .await
            .error(403, "Forbidden");
    }

    // Deleting a conduit in use leaves its numbers without one (documented), and a
    // number set to it while it goes is either refused or left without it: never
    // naming a conduit that does not exist, never a 500.
    let doomed = app.sip_trunk(&platform, w.tenant_a, "Doomed trunk").await;
    let doomed_path = format!("/v2/admin/conduits/{doomed}");
    let delete = app.delete(&doomed_path, &platform);
    let set = app.patch(&second_path, &admin, json!({"conduitId": doomed}));
    let (deleted, set) = tokio::join!(delete, set);
    deleted.expect(200);
    assert!(
        [200, 400, 409].contains(&set.status.as_u16()),
        "{}: {}",
        set.status,
        set.body
    );
    let now = app.get(&second_path, &admin).await.expect(200);
    assert_eq!(now["conduitId"], 0);
    app.delete(&format!("/v2/admin/conduits/{trunk_a}"), &platform)
        .await
        .expect(200);
    let orphan = app
        .get(&format!("/v2/admin/phone-numbers/{}", first["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(orphan["conduitId"], 0);
}

async fn a_branch_admins_graph_stays_in_its_branch(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    // A queue of the tenant rings the front desk (branch A) and the annex (branch A2);
    // the annex's business hours (branch A2) send calls to the annex.
    let queue = app
        .post(
            "/v2/admin/queues/",
            &admin,
            json!({"name": "Everyone", "number": "600",
                   "members": [{"id": w.ext_a}, {"id": w.ext_a2}]}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let hours = app
        .create(
            "/v2/admin/business-hours/",
            &admin,
            json!({"name": "Annex hours", "branchId": w.branch_a2, "timezone": "UTC",
            "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
            "matchDestinations": [{"id": w.ext_a2, "destType": "EXT"}],
            "notMatchDestinations": [{"id": w.ext_a2, "destType": "VOICEMAIL"}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    for (number, destination) in [
        ("15550200001", json!({"id": queue, "destType": "QUEUE"})),
        (
            "15550200002",
            json!({"id": hours, "destType": "BUSINESS_HOUR"}),
        ),
    ] {
        app.create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": number, "branchId": w.branch_a,
                "destination": destination}),
        )
        .await;
    }
    let annex = format!("extension:{}", w.ext_a2);
    let annex_hours = format!("business-hours:{hours}");
    let node = |graph: &Value, id: &str| {
        graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no node {id}: {graph}"))
    };

    // The tenant's admin sees everything, labelled.
    let whole = app.get("/v2/destinations/graph", &admin).await.expect(200);
    assert_eq!(node(&whole, &annex)["label"], "Annex A (201)");
    assert_eq!(node(&whole, &annex_hours)["label"], "Annex hours");
    assert!(
        whole["edges"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["from"] == annex_hours)
    );

    // The branch admin sees that calls reach the annex, not what it is, nor where the
    // annex's hours send them, nor whether they are open.
    let branch = app.login(w.branch_admin_a).await;
    for query in ["", "?at=2026-11-23T10:00:00Z"] {
        let graph = app
            .get(&format!("/v2/destinations/graph{query}"), &branch)
            .await
            .expect(200);
        let text = graph.to_string();
        assert!(!text.contains("Annex"), "{text}");
        assert_eq!(
            node(&graph, &annex),
            json!({"id": annex, "type": "extension", "label": "", "href": null, "opaque": true})
        );
        let hidden = node(&graph, &annex_hours);
        assert_eq!(
            hidden,
            json!({"id": annex_hours, "type": "business-hours", "label": "", "href": null,
                   "opaque": true})
        );
        assert!(
            !graph["edges"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["from"] == annex_hours),
            "{text}"
        );
        assert_eq!(graph["issues"], json!([]), "{text}");
        assert_eq!(
            node(&graph, &format!("extension:{}", w.ext_a))["label"],
            "Front desk A (101)"
        );
        let dot = app
            .client
            .get(app.url(&format!(
                "/v2/destinations/graph?format=dot{}",
                query.replace('?', "&")
            )))
            .bearer_auth(&branch)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            dot.starts_with("digraph") && !dot.contains("Annex"),
            "{dot}"
        );
    }
    // Asking from or about another branch's record is asking to read it: 404.
    for query in [
        format!("root={annex}"),
        format!("target={annex}"),
        format!("root={annex_hours}"),
    ] {
        app.get(&format!("/v2/destinations/graph?{query}"), &branch)
            .await
            .error(404, "NotFound");
    }
    let reverse = app
        .get(
            &format!("/v2/destinations/graph?target=extension:{}", w.ext_a),
            &branch,
        )
        .await
        .expect(200);
    assert_eq!(reverse["reachedFrom"].as_array().unwrap().len(), 1);
    // The tenant's admin may ask about the annex.
    app.get(&format!("/v2/destinations/graph?root={annex}"), &admin)
        .await
        .expect(200);
}

crate::on_both_backends!(
    transfers_show_once_in_time_order,
    calls_record_their_queue,
    conduit_checks_move_the_status,
    numbers_name_their_conduit,
    a_branch_admins_graph_stays_in_its_branch
);
