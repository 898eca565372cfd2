//! `/v2/admin/calls`: every call, recorded or not, listed and fetched with the
//! recordings' filters, sorts, search and scope, `hasRecording` and `mediaURL`.

use serde_json::{Value, json};

use crate::fixture::{World, call_event, ended};
use crate::support::{TestApp, fixture};

const PATH: &str = "/v2/ingest/calls";

/// A call of `tenant` as the engine reports its end: answered or not.
fn call(
    tenant: i64,
    unique_id: &str,
    direction: &str,
    from: &str,
    to: &str,
    answered: bool,
) -> Value {
    ended(
        call_event(tenant, unique_id, "ended", direction, from, to),
        answered,
    )
}

async fn seed(app: &TestApp, world: &World) {
    let platform = app.login(world.platform).await;
    let recorded = app
        .push(
            &platform,
            PATH,
            (
                "call",
                call(world.tenant_a, "a.1", "inbound", "5551234", "101", true),
            ),
            Some(("recording", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    assert_eq!(recorded["recordingAttached"], true);
    for fields in [
        call(world.tenant_a, "a.2", "outbound", "201", "5559999", true),
        call(world.tenant_a, "a.3", "internal", "101", "201", false),
        call(world.tenant_b, "b.1", "inbound", "5551234", "101", true),
    ] {
        app.post(PATH, &platform, fields).await.expect(200);
    }
    // A call still ringing.
    let mut ringing = call(world.tenant_a, "a.4", "inbound", "5550000", "201", false);
    ringing["event"] = json!("started");
    ringing.as_object_mut().unwrap().remove("endTime");
    ringing.as_object_mut().unwrap().remove("disposition");
    app.post(PATH, &platform, ringing).await.expect(200);
}

fn ids(page: &Value) -> Vec<String> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uniqueId"].as_str().unwrap().to_owned())
        .collect()
}

async fn listing_filters_and_search(app: TestApp) {
    let world = World::seed(&app).await;
    seed(&app, &world).await;
    let admin = app.login(world.admin_a).await;
    let list = |query: &str| {
        let (app, admin, query) = (&app, admin.clone(), query.to_owned());
        async move {
            app.get(&format!("/v2/admin/calls/?{query}"), &admin)
                .await
                .expect(200)
        }
    };
    let all = list("sortBy=uniqueId").await;
    assert_eq!(all["totalRecords"], 4);
    assert_eq!(ids(&all), ["a.1", "a.2", "a.3", "a.4"]);
    let first = &all["records"][0];
    assert_eq!(
        (first["hasRecording"].clone(), first["status"].clone()),
        (json!(true), json!("ended"))
    );
    let url = first["mediaURL"].as_str().unwrap();
    let (status, headers, _) = app.fetch(url, None).await;
    assert_eq!(
        (status.as_u16(), headers["content-type"].to_str().unwrap()),
        (200, "audio/mpeg")
    );
    assert_eq!(
        (
            first["answerTime"].clone(),
            first["endTime"].clone(),
            first["billsec"].clone()
        ),
        (
            json!("2026-11-02T15:00:05Z"),
            json!("2026-11-02T15:02:05Z"),
            // The engine's talk time, whatever the recording's length.
            json!(120)
        )
    );
    let missed = &all["records"][2];
    assert_eq!(
        (
            missed["hasRecording"].clone(),
            missed["mediaURL"].clone(),
            missed["status"].clone(),
            missed["answerTime"].clone()
        ),
        (json!(false), json!(""), json!("missed"), Value::Null)
    );
    assert_eq!(all["records"][3]["endTime"], Value::Null);
    assert_eq!(ids(&list("direction=outbound").await), ["a.2"]);
    assert_eq!(ids(&list("query=caller 201").await), ["a.2"]);
    assert_eq!(ids(&list("query=5550000").await), ["a.4"]);
    let sorted = list("sortBy=uniqueId&sortDirection=desc&recordsPerPage=3").await;
    assert_eq!(
        (ids(&sorted), sorted["maxPage"].clone()),
        (vec!["a.4".to_owned(), "a.3".into(), "a.2".into()], json!(2))
    );
    let streamed = list("paginated=0").await;
    assert_eq!(streamed["records"].as_array().unwrap().len(), 4);
    app.get("/v2/admin/calls/?direction=up", &admin)
        .await
        .error(400, "ValidationError");
    app.get("/v2/admin/calls/?sortBy=status", &admin)
        .await
        .error(400, "ValidationError");
    // Every path form answers.
    for path in ["/v2/admin/calls", "/admin/calls/", "/admin/calls"] {
        assert_eq!(app.get(path, &admin).await.expect(200)["totalRecords"], 4);
    }
    let one = app.get("/v2/admin/calls/a.3", &admin).await.expect(200);
    assert_eq!(
        (
            one["uniqueId"].clone(),
            one["direction"].clone(),
            one["hasRecording"].clone()
        ),
        (json!("a.3"), json!("internal"), json!(false))
    );
    app.get("/admin/calls/a.3", &admin).await.expect(200);
    app.get("/v2/admin/calls/nothing", &admin)
        .await
        .error(404, "NotFound");
    let errors = app
        .get(&format!("/v2/admin/calls/{}", "x".repeat(256)), &admin)
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, vec!["'path/callId' must be at most 255 characters"]);
    // A recording deleted leaves the call, without one.
    app.delete("/v2/admin/call-recordings/a.1", &admin)
        .await
        .expect(200);
    let after = app.get("/v2/admin/calls/a.1", &admin).await.expect(200);
    assert_eq!(
        (after["hasRecording"].clone(), after["mediaURL"].clone()),
        (json!(false), json!(""))
    );
}

async fn scope(app: TestApp) {
    let world = World::seed(&app).await;
    seed(&app, &world).await;
    let admin_b = app.login(world.admin_b).await;
    assert_eq!(
        ids(&app.get("/v2/admin/calls/", &admin_b).await.expect(200)),
        ["b.1"]
    );
    app.get("/v2/admin/calls/a.1", &admin_b)
        .await
        .error(404, "NotFound");
    app.get(
        &format!("/v2/admin/calls/?tenantId={}", world.tenant_a),
        &admin_b,
    )
    .await
    .error(403, "Forbidden");
    let platform = app.login(world.platform).await;
    let tenant_a = app
        .get(
            &format!(
                "/v2/admin/calls/?tenantId={}&sortBy=uniqueId",
                world.tenant_a
            ),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(ids(&tenant_a), ["a.1", "a.2", "a.3", "a.4"]);
    // Branch A's admin: the calls of extension 101 (a.1 reached it, a.3 it placed).
    let branch_admin = app.login(world.branch_admin_a).await;
    let mine = app
        .get("/v2/admin/calls/?sortBy=uniqueId", &branch_admin)
        .await
        .expect(200);
    assert_eq!(ids(&mine), ["a.1", "a.3"]);
    app.get("/v2/admin/calls/a.2", &branch_admin)
        .await
        .error(404, "NotFound");
    // A user without an extension sees no call; with 101, its own.
    let user = app.login(world.user_a).await;
    assert_eq!(
        app.get("/v2/admin/calls/", &user).await.expect(200)["totalRecords"],
        0
    );
    world.give_user_a_extension(&app).await;
    let own = app
        .get("/v2/admin/calls/?sortBy=uniqueId", &user)
        .await
        .expect(200);
    assert_eq!(ids(&own), ["a.1", "a.3"]);
    app.get("/v2/admin/calls/a.4", &user)
        .await
        .error(404, "NotFound");
}

crate::on_both_backends!(listing_filters_and_search, scope);

/// The totals the lists answer, for `viewer`, at `path` (a list with its query).
async fn total(app: &TestApp, viewer: &str, path: &str) -> i64 {
    app.get(path, viewer).await.expect(200)["totalRecords"]
        .as_i64()
        .unwrap()
}

/// The call and recording lists' totals come from counters kept by the database in the
/// writing transaction (`call_counts`), and stay exact: across directions, recordings
/// attached and deleted, repeated and concurrent reports of one call, concurrent new
/// calls, and every scope the counters can answer; a search or a branch's scope is
/// counted from the rows.
async fn counted_totals_stay_exact(app: TestApp) {
    let world = World::seed(&app).await;
    seed(&app, &world).await;
    let platform = app.login(world.platform).await;
    // Twenty new calls at once, and six concurrent reports of one more call (one insert
    // wins, the others move it forward or change nothing): counted once each.
    let mut pushes = Vec::new();
    for n in 0..20 {
        let direction = ["inbound", "outbound", "internal"][n % 3];
        pushes.push(call(
            world.tenant_a,
            &format!("race.{n}"),
            direction,
            "5557000",
            "101",
            n % 2 == 0,
        ));
    }
    for _ in 0..6 {
        pushes.push(call(
            world.tenant_a,
            "race.same",
            "inbound",
            "5557001",
            "101",
            true,
        ));
    }
    let answers = futures::future::join_all(
        pushes
            .into_iter()
            .map(|fields| app.post(PATH, &platform, fields)),
    )
    .await;
    for answer in answers {
        answer.expect(200);
    }
    // The ringing call ends: a report that rewrites its direction with the same value.
    app.post(
        PATH,
        &platform,
        call(world.tenant_a, "a.4", "inbound", "5550000", "201", true),
    )
    .await
    .expect(200);
    let rows = |tenant: i64| {
        let app = &app;
        async move { app.count_where("calls", "tenant_id", tenant).await }
    };
    let (a, b) = (rows(world.tenant_a).await, rows(world.tenant_b).await);
    assert_eq!(a, 4 + 21);
    let admin = app.login(world.admin_a).await;
    let partner = app.login(world.partner_admin_a).await;
    assert_eq!(total(&app, &admin, "/v2/admin/calls/").await, a);
    assert_eq!(total(&app, &partner, "/v2/admin/calls/").await, a);
    assert_eq!(total(&app, &platform, "/v2/admin/calls/").await, a + b);
    let only_b = format!("/v2/admin/calls/?tenantId={}", world.tenant_b);
    assert_eq!(total(&app, &platform, &only_b).await, b);
    // a.1, a.4 (as it was reported), 7 of the race, race.same.
    let inbound = "/v2/admin/calls/?direction=inbound&recordsPerPage=1";
    assert_eq!(total(&app, &admin, inbound).await, 2 + 7 + 1);
    assert_eq!(total(&app, &admin, "/v2/admin/call-recordings/").await, 1);
    // A search counts its matches from the rows.
    assert_eq!(
        total(&app, &admin, "/v2/admin/calls/?query=5557000").await,
        20
    );
    // A recording deleted moves its call from one counter to the other.
    app.delete("/v2/admin/call-recordings/a.1", &admin)
        .await
        .expect(200);
    assert_eq!(total(&app, &admin, "/v2/admin/call-recordings/").await, 0);
    assert_eq!(total(&app, &admin, "/v2/admin/calls/").await, a);
    // A branch admin's calls are those its extensions took part in: counted from the
    // rows, and as many as it is shown.
    let branch_admin = app.login(world.branch_admin_a).await;
    let mine = app
        .get("/v2/admin/calls/?paginated=0", &branch_admin)
        .await
        .expect(200);
    let shown = mine["records"].as_array().unwrap().len() as i64;
    assert_eq!(total(&app, &branch_admin, "/v2/admin/calls/").await, shown);
    // The totals really are the counters: one changed behind the service's back shows.
    let bump = format!(
        "UPDATE call_counts SET calls = calls + 1000 WHERE tenant_id = {} \
         AND direction = 'outbound' AND recorded = 0 AND slot = \
         (SELECT MIN(slot) FROM call_counts WHERE tenant_id = {} AND direction = 'outbound' AND recorded = 0)",
        world.tenant_a, world.tenant_a
    );
    app.raw_sql(&bump, &bump).await;
    assert_eq!(total(&app, &admin, "/v2/admin/calls/").await, a + 1000);
    assert_eq!(
        total(&app, &admin, "/v2/admin/calls/?query=Caller").await,
        a,
        "a search counts rows"
    );
}

crate::on_both_backends!(counted_totals_stay_exact);
