//! Pharmacy agents (`/v2/admin/pharmacy/agents` and `/admin/pharmacy/agents`): CRUD with
//! PATCH leaving what it does not name, `ivrBulk` strictly 1 or 0, bounds, references
//! confined to the tenant and protected while used, the dial plan, the `PHARMACY_AGENT`
//! destination in the graph, roles and scope, the audit trail, and the refill requests
//! the engine reports (`POST /v2/ingest/refill-requests`), once each, with their event.

use serde_json::{Value, json};

use crate::engine::{TOKEN, engine_token};
use crate::fixture::World;
use crate::support::{TestApp, actions};

const AGENTS: &str = "/v2/admin/pharmacy/agents/";
const INGEST: &str = "/v2/ingest/refill-requests";

async fn hours(app: &TestApp, token: &str, branch: i64, name: &str) -> i64 {
    app.create(
        "/v2/admin/business-hours/",
        token,
        json!({"name": name, "branchId": branch, "timezone": "UTC",
  "hours": {"1": [{"from": "09:00", "to": "17:00"}],
            "2": [{"from": "09:00", "to": "17:00"}]}}),
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

/// A conduit of `kind` for `tenant`, made by a platform admin (conduits are the
/// provider's to set up).
async fn conduit(app: &TestApp, platform: &str, tenant: i64, kind: &str) -> i64 {
    app.create(
        "/v2/admin/conduits/",
        platform,
        json!({"tenantId": tenant, "kind": kind, "name": format!("{kind} link")}),
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

/// Everything a full agent of tenant A refers to.
struct Refs {
    greeting: i64,
    prompt: i64,
    pharmacist: i64,
    hours: i64,
    conduit: i64,
}

async fn refs(app: &TestApp, w: &World, token: &str) -> Refs {
    let platform = app.login(w.platform).await;
    Refs {
        greeting: app.media_file(token, "Welcome").await,
        prompt: app.media_file(token, "Key your Rx").await,
        pharmacist: app.extension(token, "150", "Pharmacist").await,
        hours: hours(app, token, w.branch_a, "Pharmacy hours").await,
        conduit: conduit(app, &platform, w.tenant_a, "pharmacy-system").await,
    }
}

fn full_body(r: &Refs, number: &str) -> Value {
    json!({
        "name": "Refill line", "number": number, "ivrBulk": 1,
        "refillLoopAttempts": 4, "rxNumberLength": 7,
        "greetingMediaFileId": r.greeting, "promptMediaFileId": r.prompt,
        "fallbackDestination": {"id": r.pharmacist, "destType": "EXT"},
        "afterHours": {"businessHourId": r.hours,
                       "destination": {"id": r.pharmacist, "destType": "VOICEMAIL"}},
        "conduitId": r.conduit,
    })
}

async fn crud_and_patch_leaves_the_rest(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let r = refs(&app, &w, &token).await;
    let created = app
        .post(AGENTS, &token, full_body(&r, "700"))
        .await
        .expect(200);
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(created["name"], "Refill line");
    assert_eq!(created["number"], "700");
    assert_eq!(created["ivrBulk"], 1);
    assert_eq!(created["refillLoopAttempts"], 4);
    assert_eq!(created["rxNumberLength"], 7);
    assert_eq!(created["greetingMediaFileId"], r.greeting);
    assert_eq!(created["promptMediaFileId"], r.prompt);
    assert_eq!(created["conduitId"], r.conduit);
    assert_eq!(created["fallbackDestination"]["id"], r.pharmacist);
    assert_eq!(created["fallbackDestination"]["destType"], "EXT");
    assert_eq!(created["fallbackDestination"]["name"], "Pharmacist");
    assert_eq!(created["fallbackDestination"]["number"], "150");
    assert_eq!(created["afterHours"]["businessHourId"], r.hours);
    assert_eq!(created["afterHours"]["businessHourName"], "Pharmacy hours");
    assert_eq!(
        created["afterHours"]["destination"]["destType"],
        "VOICEMAIL"
    );
    let id = created["id"].as_i64().unwrap();
    let path = format!("{AGENTS}{id}");

    // Read back at both spellings of the path.
    for p in [path.clone(), format!("/admin/pharmacy/agents/{id}")] {
        assert_eq!(app.get(&p, &token).await.expect(200), created, "{p}");
    }

    // Defaults: one prescription per call, 3 tries, 7 digits, nothing referred to.
    let plain = app
        .post(AGENTS, &token, json!({"name": "Plain", "number": "701"}))
        .await
        .expect(200);
    assert_eq!(
        (
            plain["ivrBulk"].clone(),
            plain["refillLoopAttempts"].clone(),
            plain["rxNumberLength"].clone(),
            plain["greetingMediaFileId"].clone(),
            plain["promptMediaFileId"].clone(),
            plain["fallbackDestination"].clone(),
            plain["afterHours"].clone(),
            plain["conduitId"].clone(),
        ),
        (
            json!(0),
            json!(3),
            json!(7),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null
        )
    );

    // Lists: the shared contract, at both paths.
    for p in ["/v2/admin/pharmacy/agents", "/admin/pharmacy/agents/"] {
        let page = app
            .get(
                &format!("{p}?sortBy=number&sortDirection=desc&recordsPerPage=1"),
                &token,
            )
            .await
            .expect(200);
        assert_eq!(page["totalRecords"], 2, "{p}");
        assert_eq!(page["maxPage"], 2);
        assert_eq!(page["records"][0]["number"], "701");
    }
    let found = app
        .get(&format!("{AGENTS}?query=refill"), &token)
        .await
        .expect(200);
    assert_eq!(found["totalRecords"], 1);
    assert_eq!(found["records"][0], created);
    let all = app
        .get(&format!("{AGENTS}?paginated=0"), &token)
        .await
        .expect(200);
    assert_eq!(all["records"].as_array().unwrap().len(), 2);
    app.get(&format!("{AGENTS}?sortBy=ivrBulk"), &token)
        .await
        .error(400, "ValidationError");

    // A PATCH of one field changes that field only: each in turn, from the full agent.
    let other_greeting = app.media_file(&token, "Hello again").await;
    let other_ext = app.extension(&token, "151", "Second pharmacist").await;
    let other_hours = hours(&app, &token, w.branch_a, "Weekend hours").await;
    let platform = app.login(w.platform).await;
    let other_conduit = conduit(&app, &platform, w.tenant_a, "pharmacy-system").await;
    let changes: Vec<(&str, Value)> = vec![
        ("name", json!("Refills")),
        ("number", json!("702")),
        ("ivrBulk", json!(0)),
        ("refillLoopAttempts", json!(10)),
        ("rxNumberLength", json!(12)),
        ("greetingMediaFileId", json!(other_greeting)),
        ("promptMediaFileId", json!(other_greeting)),
        ("conduitId", json!(other_conduit)),
    ];
    let mut expected = created.clone();
    for (field, value) in changes {
        let answer = app
            .patch(&path, &token, json!({ field: value }))
            .await
            .expect(200);
        expected[field] = value;
        assert_eq!(answer, expected, "PATCH {field}");
        assert_eq!(app.get(&path, &token).await.expect(200), expected);
    }
    let answer = app
        .patch(
            &path,
            &token,
            json!({"fallbackDestination": {"id": other_ext, "destType": "EXT"}}),
        )
        .await
        .expect(200);
    expected["fallbackDestination"]["id"] = json!(other_ext);
    expected["fallbackDestination"]["name"] = json!("Second pharmacist");
    expected["fallbackDestination"]["number"] = json!("151");
    assert_eq!(answer, expected, "PATCH fallbackDestination");
    let answer = app
        .patch(
            &path,
            &token,
            json!({"afterHours": {"businessHourId": other_hours}}),
        )
        .await
        .expect(200);
    expected["afterHours"] = json!({"businessHourId": other_hours,
                                    "businessHourName": "Weekend hours",
                                    "destination": null});
    assert_eq!(answer, expected, "PATCH afterHours");
    // An empty PATCH changes nothing.
    assert_eq!(
        app.patch(&path, &token, json!({})).await.expect(200),
        expected
    );

    // Explicit null clears each nullable field, and only it.
    for field in [
        "greetingMediaFileId",
        "promptMediaFileId",
        "fallbackDestination",
        "afterHours",
        "conduitId",
    ] {
        let answer = app
            .patch(&path, &token, json!({ field: null }))
            .await
            .expect(200);
        expected[field] = Value::Null;
        assert_eq!(answer, expected, "PATCH {field}: null");
    }
    // Null is not a value of the fields that are not nullable.
    for field in [
        "name",
        "number",
        "ivrBulk",
        "refillLoopAttempts",
        "rxNumberLength",
    ] {
        let errors = app
            .patch(&path, &token, json!({ field: null }))
            .await
            .error(400, "ValidationError");
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with(&format!("'body/{field}'"))),
            "{field}: {errors:?}"
        );
    }
    app.patch(&path, &token, json!({"tenantId": w.tenant_b}))
        .await
        .error(400, "ValidationError");

    // Delete answers the agent as it was; it is gone after.
    assert_eq!(app.delete(&path, &token).await.expect(200), expected);
    app.get(&path, &token).await.error(404, "NotFound");
    app.delete(&format!("/admin/pharmacy/agents/{}", plain["id"]), &token)
        .await
        .expect(200);
    app.get("/v2/admin/pharmacy/agents/abc", &token)
        .await
        .error(400, "ValidationError");
}

async fn ivr_bulk_is_strictly_one_or_zero(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let agent = app
        .post(
            AGENTS,
            &token,
            json!({"name": "A", "number": "700", "ivrBulk": 1}),
        )
        .await
        .expect(200);
    let path = format!("{AGENTS}{}", agent["id"]);
    for bad in [
        json!(true),
        json!(false),
        json!("1"),
        json!("0"),
        json!(1.0),
        json!(0.0),
        json!(2),
        json!(-1),
        json!(0.5),
        json!([1]),
        json!({"value": 1}),
    ] {
        let errors = app
            .post(
                AGENTS,
                &token,
                json!({"name": "B", "number": "701", "ivrBulk": bad}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(errors, ["'body/ivrBulk' must be 1 or 0"], "POST {bad}");
        let errors = app
            .patch(&path, &token, json!({"ivrBulk": bad}))
            .await
            .error(400, "ValidationError");
        assert_eq!(errors, ["'body/ivrBulk' must be 1 or 0"], "PATCH {bad}");
    }
    // Nothing was half-written: the agent still takes several prescriptions.
    assert_eq!(app.get(&path, &token).await.expect(200)["ivrBulk"], 1);
    assert_eq!(
        app.get(&format!("{AGENTS}?paginated=0"), &token)
            .await
            .expect(200)["totalRecords"],
        1
    );
    for good in [0, 1] {
        let answer = app
            .patch(&path, &token, json!({"ivrBulk": good}))
            .await
            .expect(200);
        assert_eq!(answer["ivrBulk"], good);
    }
}

async fn bounds_are_the_release_notes(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for (field, value, message) in [
        ("refillLoopAttempts", json!(0), "must be at least 1"),
        ("refillLoopAttempts", json!(11), "must be at most 10"),
        ("refillLoopAttempts", json!(2.5), "must be an integer"),
        ("refillLoopAttempts", json!("3"), "must be an integer"),
        ("rxNumberLength", json!(3), "must be at least 4"),
        ("rxNumberLength", json!(21), "must be at most 20"),
    ] {
        let errors = app
            .post(
                AGENTS,
                &token,
                json!({"name": "A", "number": "700", field: value}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(
            errors,
            [format!("'body/{field}' {message}")],
            "{field} {value}"
        );
    }
    for (attempts, number) in [(1, "700"), (10, "701")] {
        let answer = app
            .post(
                AGENTS,
                &token,
                json!({"name": "A", "number": number, "refillLoopAttempts": attempts,
                       "rxNumberLength": 4 + attempts}),
            )
            .await
            .expect(200);
        assert_eq!(answer["refillLoopAttempts"], attempts);
    }
    let errors = app
        .post(AGENTS, &token, json!({"number": "702", "name": ""}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, ["'body/name' must be at least 1 character"]);
    let errors = app
        .post(AGENTS, &token, json!({"name": "A", "number": "*97"}))
        .await
        .error(400, "ValidationError");
    assert!(errors[0].starts_with("'body/number' must not start with *"));
    let errors = app
        .post(AGENTS, &token, json!({"name": "A"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, ["'body/number' is required"]);
}

async fn references_stay_in_the_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let other = app.login(w.admin_b).await;
    let platform = app.login(w.platform).await;
    let r = refs(&app, &w, &token).await;
    let foreign_file = app.media_file(&other, "Theirs").await;
    let foreign_hours = hours(&app, &other, w.branch_b, "Theirs").await;
    let foreign_conduit = conduit(&app, &platform, w.tenant_b, "pharmacy-system").await;
    let crm = conduit(&app, &platform, w.tenant_a, "crm").await;
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "greetingMediaFileId",
            json!(foreign_file),
            "'body/greetingMediaFileId' must name a media file of the tenant",
        ),
        (
            "promptMediaFileId",
            json!(foreign_file),
            "'body/promptMediaFileId' must name a media file of the tenant",
        ),
        (
            "fallbackDestination",
            json!({"id": w.ext_b, "destType": "EXT"}),
            "'body/fallbackDestination/id' must name an extension of the tenant",
        ),
        (
            "afterHours",
            json!({"businessHourId": foreign_hours}),
            "'body/afterHours/businessHourId' must name a business hour of the tenant",
        ),
        (
            "afterHours",
            json!({"businessHourId": r.hours, "destination": {"id": w.ext_b, "destType": "VOICEMAIL"}}),
            "'body/afterHours/destination/id' must name an extension of the tenant",
        ),
        (
            "conduitId",
            json!(foreign_conduit),
            "'body/conduitId' must name a conduit of the tenant",
        ),
        (
            "conduitId",
            json!(crm),
            "'body/conduitId' must name a conduit of kind pharmacy-system",
        ),
    ];
    let agent = app
        .post(AGENTS, &token, json!({"name": "A", "number": "700"}))
        .await
        .expect(200);
    let path = format!("{AGENTS}{}", agent["id"]);
    for (field, value, message) in &cases {
        let errors = app
            .post(
                AGENTS,
                &token,
                json!({"name": "B", "number": "701", *field: value}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(errors, [*message], "POST {field}");
        let errors = app
            .patch(&path, &token, json!({ *field: value }))
            .await
            .error(400, "ValidationError");
        assert_eq!(errors, [*message], "PATCH {field}");
    }
    assert_eq!(app.get(&path, &token).await.expect(200), agent);
    // A destination type no call can be routed to is refused by the reader.
    app.post(
        AGENTS,
        &token,
        json!({"name": "B", "number": "701",
               "fallbackDestination": {"id": r.greeting, "destType": "MEDIA_FILE"}}),
    )
    .await
    .error(400, "ValidationError");
}

/// A seeded world with a full agent of tenant A (number 700): the world, tenant A's
/// admin's and the platform admin's tokens, what the agent refers to, and its id.
async fn full_agent(app: &TestApp) -> (World, String, String, Refs, i64) {
    let w = World::seed(app).await;
    let token = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let r = refs(app, &w, &token).await;
    let agent = app
        .post(AGENTS, &token, full_body(&r, "700"))
        .await
        .expect(200);
    let id = agent["id"].as_i64().unwrap();
    (w, token, platform, r, id)
}

async fn what_an_agent_uses_cannot_go(app: TestApp) {
    let (w, token, platform, r, id) = full_agent(&app).await;
    let path = format!("{AGENTS}{id}");
    let used = [
        format!("/v2/admin/media-files/{}", r.greeting),
        format!("/v2/admin/media-files/{}", r.prompt),
        format!("/v2/admin/extensions/{}", r.pharmacist),
        format!("/v2/admin/business-hours/{}", r.hours),
    ];
    for p in &used {
        app.delete(p, &token).await.refusal_saying(
            409,
            "Conflict",
            &format!("pharmacy agent 'Refill line' (id {id})"),
        );
    }
    app.delete(&format!("/v2/admin/conduits/{}", r.conduit), &platform)
        .await
        .refusal_saying(
            409,
            "Conflict",
            &format!("pharmacy agent 'Refill line' (id {id})"),
        );

    // PHARMACY_AGENT is a destination: a phone number and an IVR route to the agent,
    // which then cannot be deleted.
    let number = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550107000",
            "destination": {"id": id, "destType": "PHARMACY_AGENT"}}),
        )
        .await;
    assert_eq!(number["destination"]["name"], "Refill line");
    assert_eq!(number["destination"]["number"], "700");
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Main", "number": "800",
            "options": [{"digit": "2", "destination": {"id": id, "destType": "PHARMACY_AGENT"}}]}),
        )
        .await;
    let refused = app.delete(&path, &token).await.expect(409);
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("phone number '")
            && message.contains(&format!("IVR 'Main' (id {})", ivr["id"])),
        "{refused}"
    );
    // Another tenant cannot route to it.
    app.post(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": w.tenant_b, "number": "15550107001",
               "destination": {"id": id, "destType": "PHARMACY_AGENT"}}),
    )
    .await
    .error(400, "ValidationError");

    // Once nothing routes to it, it goes; then so can what it used.
    app.delete(&format!("/v2/admin/ivrs/{}", ivr["id"]), &token)
        .await
        .expect(200);
    app.patch(
        &format!("/v2/admin/phone-numbers/{}", number["id"]),
        &platform,
        json!({"destination": null}),
    )
    .await
    .expect(200);
    app.delete(&path, &token).await.expect(200);
    for p in &used {
        app.delete(p, &token).await.expect(200);
    }
    app.delete(&format!("/v2/admin/conduits/{}", r.conduit), &platform)
        .await
        .expect(200);
}

async fn one_number_one_owner(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    app.extension(&token, "150", "Counter").await;
    app.post(AGENTS, &token, json!({"name": "A", "number": "150"}))
        .await
        .refusal_saying(
            409,
            "Conflict",
            "the number 150 is taken by extension 'Counter' (id ",
        );
    let agent = app
        .post(AGENTS, &token, json!({"name": "Refills", "number": "700"}))
        .await
        .expect(200);
    app.post(
        "/v2/admin/extensions/",
        &token,
        json!({"number": "700", "name": "Late"}),
    )
    .await
    .refusal_saying(
        409,
        "Conflict",
        &format!("pharmacy agent 'Refills' (id {})", agent["id"]),
    );
    // Renumbering frees the old number; another tenant's plan is its own.
    app.patch(
        &format!("{AGENTS}{}", agent["id"]),
        &token,
        json!({"number": "150"}),
    )
    .await
    .expect(409);
    app.patch(
        &format!("{AGENTS}{}", agent["id"]),
        &token,
        json!({"number": "701"}),
    )
    .await
    .expect(200);
    app.extension(&token, "700", "Now free").await;
    let other = app.login(w.admin_b).await;
    app.post(AGENTS, &other, json!({"name": "Theirs", "number": "701"}))
        .await
        .expect(200);

    // Two agents claiming one number at once: one wins, the other is a 409.
    for round in 0..5 {
        let number = format!("9{round:02}");
        let (a, b) = tokio::join!(
            app.post(AGENTS, &token, json!({"name": "A", "number": number})),
            app.post(AGENTS, &token, json!({"name": "B", "number": number})),
        );
        let mut statuses = [a.status.as_u16(), b.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "round {round}: {} {}", a.body, b.body);
    }
}

async fn scope_and_roles(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let agent = app
        .post(AGENTS, &admin, json!({"name": "A", "number": "700"}))
        .await
        .expect(200);
    let path = format!("{AGENTS}{}", agent["id"]);

    // Another tenant's admin: 404 for the record, 403 for naming our tenant.
    let other = app.login(w.admin_b).await;
    app.get(&path, &other).await.error(404, "NotFound");
    app.patch(&path, &other, json!({"name": "Mine"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &other).await.error(404, "NotFound");
    app.get(&format!("{path}/refill-requests"), &other)
        .await
        .error(404, "NotFound");
    app.get(&format!("{AGENTS}?tenantId={}", w.tenant_a), &other)
        .await
        .error(403, "Forbidden");
    app.post(
        AGENTS,
        &other,
        json!({"tenantId": w.tenant_a, "name": "B", "number": "701"}),
    )
    .await
    .error(403, "Forbidden");
    assert_eq!(app.get(AGENTS, &other).await.expect(200)["totalRecords"], 0);

    // A partner admin manages its tenants' agents, not another partner's.
    let partner = app.login(w.partner_admin_a).await;
    app.patch(&path, &partner, json!({"name": "By partner"}))
        .await
        .expect(200);
    app.post(
        AGENTS,
        &partner,
        json!({"tenantId": w.tenant_b, "name": "B", "number": "701"}),
    )
    .await
    .error(403, "Forbidden");
    let platform = app.login(w.platform).await;
    let all = app.get(AGENTS, &platform).await.expect(200);
    assert_eq!(all["totalRecords"], 1);

    // A branch admin reads (tenant-wide routing, as queues) but does not change, and
    // never reads the tenant's refill requests (callers' prescriptions).
    let branch = app.login(w.branch_admin_a).await;
    app.get(&path, &branch).await.expect(200);
    app.get(&format!("{path}/refill-requests"), &branch)
        .await
        .error(403, "Forbidden");
    let admin = app.login(w.admin_a).await;
    app.get(&format!("{path}/refill-requests"), &admin)
        .await
        .expect(200);
    app.patch(&path, &branch, json!({"name": "Mine"}))
        .await
        .error(403, "Forbidden");
    app.post(AGENTS, &branch, json!({"name": "B", "number": "701"}))
        .await
        .error(403, "Forbidden");
    app.delete(&path, &branch).await.error(403, "Forbidden");
    // A user has none of it.
    let user = app.login(w.user_a).await;
    app.get(AGENTS, &user).await.error(403, "Forbidden");
    app.get(&path, &user).await.error(403, "Forbidden");
    // Nor may a tenant admin push refill requests: that is the engine's.
    app.post(
        INGEST,
        &admin,
        json!({"tenantId": w.tenant_a, "agentId": agent["id"], "uniqueId": "1.1",
               "callerNumber": "+15550100000", "outcome": "abandoned"}),
    )
    .await
    .error(403, "Forbidden");
    // The login answer lists the permissions of each role.
    let login = app
        .login_answer(w.branch_admin_a, crate::support::PASSWORD)
        .await;
    let permissions = login.expect(200)["user"]["permissions"].to_string();
    assert!(
        permissions.contains("pharmacy:read")
            && !permissions.contains("pharmacy:write")
            && !permissions.contains("refill-requests:read"),
        "{permissions}"
    );
}

async fn audited_as_pharmacy_agent(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let pharmacist = app.extension(&token, "150", "Pharmacist").await;
    let agent = app
        .post(
            AGENTS,
            &token,
            json!({"name": "A", "number": "700",
                   "fallbackDestination": {"id": pharmacist, "destType": "EXT"}}),
        )
        .await
        .expect(200);
    let id = agent["id"].as_i64().unwrap();
    let path = format!("{AGENTS}{id}");
    app.patch(&path, &token, json!({"ivrBulk": 1}))
        .await
        .expect(200);
    app.patch(&path, &token, json!({"fallbackDestination": null}))
        .await
        .expect(200);
    app.delete(&path, &token).await.expect(200);
    let records = app.audit_trail("pharmacy-agent", id, &token).await;
    assert_eq!(
        actions(&records),
        ["create", "update", "update", "delete"],
        "{records:?}"
    );
    assert!(records.iter().all(|r| r["entity"] == "pharmacy-agent"));
    assert_eq!(records[0]["after"]["number"], "700");
    assert_eq!(
        records[0]["after"]["fallbackDestination"]["id"], pharmacist,
        "{}",
        records[0]
    );
    assert_eq!(records[1]["before"], json!({"ivrBulk": 0}));
    assert_eq!(records[1]["after"], json!({"ivrBulk": 1}));
    assert_eq!(records[2]["after"]["fallbackDestination"], Value::Null);
    assert_eq!(records[3]["before"]["name"], "A");
}

async fn the_graph_shows_agents(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let pharmacist = app.extension(&token, "150", "Pharmacist").await;
    let open = hours(&app, &token, w.branch_a, "Weekdays").await;
    let agent = app
        .post(
            AGENTS,
            &token,
            json!({"name": "Refills", "number": "700",
                   "fallbackDestination": {"id": pharmacist, "destType": "EXT"},
                   "afterHours": {"businessHourId": open,
                                  "destination": {"id": pharmacist, "destType": "VOICEMAIL"}}}),
        )
        .await
        .expect(200);
    let id = agent["id"].as_i64().unwrap();
    let number = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550107000",
            "destination": {"id": id, "destType": "PHARMACY_AGENT"}}),
        )
        .await;
    let node = format!("pharmacy-agent:{id}");
    let edge = |graph: &Value, to: String, kind: &str| -> Value {
        graph["edges"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["from"] == node && e["to"] == to && e["kind"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} edge to {to}: {graph}"))
    };
    // Monday 2026-11-23 10:00 UTC is open; 20:00 is closed.
    let at_open = app
        .get("/v2/destinations/graph?at=2026-11-23T10:00:00Z", &token)
        .await
        .expect(200);
    let shown = at_open["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == node)
        .cloned()
        .unwrap();
    assert_eq!(shown["type"], "pharmacy-agent");
    assert_eq!(shown["label"], "Refills (700)");
    assert_eq!(shown["href"], format!("/v2/admin/pharmacy/agents/{id}"));
    let route = at_open["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["from"] == format!("number:{}", number["id"]) && e["to"] == node)
        .cloned()
        .unwrap();
    assert_eq!(route["kind"], "route");
    assert_eq!(
        edge(&at_open, format!("extension:{pharmacist}"), "fallback")["active"],
        true
    );
    assert_eq!(
        edge(&at_open, format!("voicemail:{pharmacist}"), "closed")["active"],
        false
    );
    let at_night = app
        .get("/destinations/graph?at=2026-11-23T20:00:00Z", &token)
        .await
        .expect(200);
    assert_eq!(
        edge(&at_night, format!("voicemail:{pharmacist}"), "closed")["active"],
        true
    );
    // The reverse question: the pharmacist's mailbox is reached from the number.
    let reaching = app
        .get(
            &format!("/v2/destinations/graph?target=voicemail:{pharmacist}"),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(reaching["reachedFrom"], json!([number["number"]]));
    let rooted = app
        .get(&format!("/v2/destinations/graph?root={node}"), &token)
        .await
        .expect(200);
    assert_eq!(rooted["roots"], json!([node]));
}

fn refill(tenant: i64, agent: i64, unique_id: &str, rx: &[&str], outcome: &str) -> Value {
    json!({"tenantId": tenant, "agentId": agent, "uniqueId": unique_id,
           "callerNumber": "+15550102030", "rxNumbers": rx, "outcome": outcome,
           "time": "2026-11-23T10:00:00Z"})
}

async fn refill_requests_are_recorded_once_with_their_event(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let bulk = app
        .post(
            AGENTS,
            &token,
            json!({"name": "Bulk", "number": "700", "ivrBulk": 1, "rxNumberLength": 7}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let single = app
        .post(
            AGENTS,
            &token,
            json!({"name": "Single", "number": "701", "rxNumberLength": 5}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let other = app.login(w.admin_b).await;
    let theirs = app
        .post(AGENTS, &other, json!({"name": "Theirs", "number": "700"}))
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();

    let first = app
        .post(
            INGEST,
            TOKEN,
            refill(
                w.tenant_a,
                bulk,
                "1700000000.1",
                &["1234567", "7654321"],
                "submitted",
            ),
        )
        .await
        .expect(200);
    assert_eq!(first["recorded"], true);
    // A repeat (same call, same agent) changes nothing, even with other values.
    let again = app
        .post(
            INGEST,
            TOKEN,
            refill(w.tenant_a, bulk, "1700000000.1", &["1111111"], "failed"),
        )
        .await
        .expect(200);
    assert_eq!(again, json!({"recorded": false, "id": first["id"]}));
    // By the agent's number, with the engine's own request id, at another time.
    let by_number = app
        .post(
            INGEST,
            TOKEN,
            json!({"tenantId": w.tenant_a, "agentNumber": "701", "requestId": "req-9",
                   "callerNumber": "+15550109999", "rxNumbers": ["12345"],
                   "outcome": "transferred", "time": "2026-11-24T08:30:00Z"}),
        )
        .await
        .expect(200);
    assert_eq!(by_number["recorded"], true);
    // One call may file with two agents.
    app.post(
        INGEST,
        TOKEN,
        refill(w.tenant_a, single, "1700000000.1", &[], "abandoned"),
    )
    .await
    .expect(200);
    assert_eq!(
        app.count("webhook_events", Some(("type", "REFILL_REQUESTED")))
            .await,
        3
    );

    // Refused: each wrong thing named at its field, nothing recorded.
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            refill(w.tenant_a, bulk, "2.1", &["123456"], "submitted"),
            vec!["'body/rxNumbers/0' must be 7 digits (the agent's rxNumberLength)"],
        ),
        (
            refill(w.tenant_a, bulk, "2.2", &["12345a7"], "submitted"),
            vec!["'body/rxNumbers/0' must be digits only"],
        ),
        (
            refill(w.tenant_a, single, "2.3", &["12345", "54321"], "submitted"),
            vec![
                "'body/rxNumbers' must hold at most 1 number: the agent takes one prescription per call (ivrBulk 0)",
            ],
        ),
        (
            refill(w.tenant_a, bulk, "2.4", &[], "submitted"),
            vec!["'body/rxNumbers' must hold at least 1 number when the outcome is submitted"],
        ),
        (
            refill(w.tenant_a, bulk, "2.5", &["1234567"], "lost"),
            vec!["'body/outcome' must be one of: submitted, failed, transferred, abandoned"],
        ),
        (
            refill(w.tenant_a, theirs, "2.6", &["1234567"], "submitted"),
            vec!["'body/agentId' must name a pharmacy agent of the tenant"],
        ),
        (
            json!({"tenantId": w.tenant_a, "agentNumber": "799", "uniqueId": "2.7",
                   "callerNumber": "1", "outcome": "abandoned"}),
            vec!["'body/agentNumber' must be the number of a pharmacy agent of the tenant"],
        ),
        (
            json!({"tenantId": w.tenant_a, "agentId": bulk, "agentNumber": "701",
                   "uniqueId": "2.8", "callerNumber": "1", "outcome": "abandoned"}),
            vec!["'body/agentNumber' must be the number of the agent agentId names"],
        ),
        (
            json!({"tenantId": w.tenant_a, "callerNumber": "1", "outcome": "abandoned"}),
            vec![
                "'body/agentId' is required (or agentNumber)",
                "'body/requestId' is required (or uniqueId)",
            ],
        ),
    ];
    for (body, expected) in cases {
        let errors = app
            .post(INGEST, TOKEN, body.clone())
            .await
            .error(400, "ValidationError");
        assert_eq!(errors, expected, "{body}");
    }
    assert_eq!(app.count("refill_requests", None).await, 3);

    // Listed under the agent, with the shared list contract and its filters.
    let path = format!("{AGENTS}{bulk}/refill-requests");
    let page = app.get(&path, &token).await.expect(200);
    assert_eq!(page["totalRecords"], 1);
    assert_eq!(
        page["records"][0],
        json!({"id": first["id"], "agentId": bulk, "requestId": "1700000000.1",
               "uniqueId": "1700000000.1", "callerNumber": "+15550102030",
               "rxNumbers": ["1234567", "7654321"], "outcome": "submitted",
               "time": "2026-11-23T10:00:00Z"})
    );
    let single_path = format!("/admin/pharmacy/agents/{single}/refill-requests");
    let listed = app
        .get(
            &format!("{single_path}?sortBy=time&sortDirection=desc"),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 2);
    assert_eq!(listed["records"][0]["requestId"], "req-9");
    assert_eq!(listed["records"][0]["uniqueId"], Value::Null);
    for (filter, count) in [
        ("outcome=transferred", 1),
        ("outcome=abandoned", 1),
        ("outcome=submitted", 0),
        ("dateFrom=2026-11-24T00:00:00Z", 1),
        ("dateTo=2026-11-24T00:00:00Z", 1),
        (
            "dateFrom=2026-11-23T10:00:00Z&dateTo=2026-11-24T08:30:01Z",
            2,
        ),
        ("query=%2B15550109999", 1),
        ("paginated=0", 2),
    ] {
        let page = app
            .get(&format!("{single_path}?{filter}"), &token)
            .await
            .expect(200);
        assert_eq!(page["totalRecords"], count, "{filter}");
    }
    for bad in ["outcome=lost", "dateFrom=yesterday", "sortBy=callerNumber"] {
        app.get(&format!("{single_path}?{bad}"), &token)
            .await
            .error(400, "ValidationError");
    }

    // Racing repeats of one report record it once and queue one event.
    let report = refill(w.tenant_a, bulk, "1700000000.77", &["7777777"], "submitted");
    let (a, b, c) = tokio::join!(
        app.post(INGEST, TOKEN, report.clone()),
        app.post(INGEST, TOKEN, report.clone()),
        app.post(INGEST, TOKEN, report.clone()),
    );
    let answers = [a.expect(200), b.expect(200), c.expect(200)];
    assert_eq!(
        answers.iter().filter(|a| a["recorded"] == true).count(),
        1,
        "{answers:?}"
    );
    assert!(answers.iter().all(|a| a["id"] == answers[0]["id"]));
    assert_eq!(
        app.count("webhook_events", Some(("type", "REFILL_REQUESTED")))
            .await,
        4
    );

    // A webhook may subscribe to the event (and list-types lists it).
    app.create(
        "/v2/webhooks/",
        &token,
        json!({"tenantId": w.tenant_a, "type": "REFILL_REQUESTED",
            "url": "https://crm.example.com/hooks/refills"}),
    )
    .await;

    // Deleting the agent takes its requests with it.
    app.delete(&format!("{AGENTS}{single}"), &token)
        .await
        .expect(200);
    assert_eq!(app.count("refill_requests", None).await, 2);
}

async fn a_deleted_pharmacist_and_a_new_fallback_race(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let agent = app
        .post(AGENTS, &token, json!({"name": "A", "number": "700"}))
        .await
        .expect(200);
    let path = format!("{AGENTS}{}", agent["id"]);
    for round in 0..6 {
        let ext = app
            .extension(&token, &format!("3{round:02}"), "Racing")
            .await;
        let ext_path = format!("/v2/admin/extensions/{ext}");
        let (delete, write) = tokio::join!(
            app.delete(&ext_path, &token),
            app.patch(
                &path,
                &token,
                json!({"fallbackDestination": {"id": ext, "destType": "EXT"}})
            ),
        );
        let (d, p) = (delete.status.as_u16(), write.status.as_u16());
        assert!(
            (d == 200 && matches!(p, 400 | 409)) || (d == 409 && p == 200),
            "round {round}: delete {d} {}, patch {p} {}",
            delete.body,
            write.body
        );
        let now = app.get(&path, &token).await.expect(200);
        if p == 200 {
            assert_eq!(now["fallbackDestination"]["id"], ext);
            app.patch(&path, &token, json!({"fallbackDestination": null}))
                .await
                .expect(200);
            app.delete(&ext_path, &token).await.expect(200);
        } else {
            assert_eq!(now["fallbackDestination"], Value::Null);
        }
    }
}

/// An agent files refills through a `pharmacy-system` conduit: while one names it, the
/// conduit's `kind` cannot change (409 naming the agent, nothing changed); other fields
/// can, and so can the kind once no agent names it.
async fn a_named_conduit_keeps_its_kind(app: TestApp) {
    let (_, token, platform, r, id) = full_agent(&app).await;
    let conduit = format!("/v2/admin/conduits/{}", r.conduit);
    for kind in ["crm", "sip-trunk"] {
        let refused = app
            .patch(
                &conduit,
                &platform,
                json!({"kind": kind, "name": "Renamed"}),
            )
            .await;
        let message = refused.body["message"].clone();
        refused.error(409, "Conflict");
        assert_eq!(
            message,
            format!(
                "the conduit's kind cannot change while it is used by pharmacy agent 'Refill line' (id {id})"
            ),
            "{kind}"
        );
    }
    let now = app.get(&conduit, &platform).await.expect(200);
    assert_eq!(
        (now["kind"].as_str(), now["name"].as_str()),
        (Some("pharmacy-system"), Some("pharmacy-system link")),
        "the refused PATCH changed nothing"
    );
    // The same kind again, and other fields, are fine.
    let renamed = app
        .patch(
            &conduit,
            &platform,
            json!({"kind": "pharmacy-system", "name": "Dispensary"}),
        )
        .await
        .expect(200);
    assert_eq!(renamed["name"], "Dispensary");
    // Once the agent lets go of it, its kind may change.
    app.patch(&format!("{AGENTS}{id}"), &token, json!({"conduitId": null}))
        .await
        .expect(200);
    let changed = app
        .patch(&conduit, &platform, json!({"kind": "crm"}))
        .await
        .expect(200);
    assert_eq!(changed["kind"], "crm");
    // And an agent cannot take it now.
    let errors = app
        .patch(
            &format!("{AGENTS}{id}"),
            &token,
            json!({"conduitId": r.conduit}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/conduitId' must name a conduit of kind pharmacy-system"]
    );
}

/// An agent naming a conduit and a change of that conduit's kind, racing: either the
/// agent is created and the kind stays (409), or the kind changes and the agent is
/// refused — never an agent filing through a CRM.
async fn an_agent_and_a_kind_change_race(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    // One request starts a little after the other, by a lag swept across the rounds,
    // so some round lands the kind change between the agent's first check and its write.
    for round in 0..16u64 {
        let conduit = conduit(&app, &platform, w.tenant_a, "pharmacy-system").await;
        let path = format!("/v2/admin/conduits/{conduit}");
        let lag = |of: u64| std::time::Duration::from_millis(of * 2);
        let (created, changed) = tokio::join!(
            async {
                tokio::time::sleep(lag(round.saturating_sub(8))).await;
                app.post(
                    AGENTS,
                    &token,
                    json!({"name": "Racing", "number": format!("7{round:02}"), "conduitId": conduit}),
                )
                .await
            },
            async {
                tokio::time::sleep(lag(8u64.saturating_sub(round))).await;
                app.patch(&path, &platform, json!({"kind": "crm"})).await
            },
        );
        let (c, k) = (created.status.as_u16(), changed.status.as_u16());
        let kind = app.get(&path, &platform).await.expect(200)["kind"].clone();
        let agents = app
            .count_where("pharmacy_agents", "conduit_id", conduit)
            .await;
        match (c, k) {
            (200, 409) => assert_eq!((kind, agents), (json!("pharmacy-system"), 1)),
            (400 | 409, 200) => assert_eq!((kind, agents), (json!("crm"), 0)),
            _ => panic!(
                "round {round}: create {c} {}, kind change {k} {}",
                created.body, changed.body
            ),
        }
    }
}

crate::on_both_backends!(
    a_named_conduit_keeps_its_kind,
    an_agent_and_a_kind_change_race,
    crud_and_patch_leaves_the_rest,
    ivr_bulk_is_strictly_one_or_zero,
    bounds_are_the_release_notes,
    references_stay_in_the_tenant,
    what_an_agent_uses_cannot_go,
    one_number_one_owner,
    scope_and_roles,
    audited_as_pharmacy_agent,
    the_graph_shows_agents,
    a_deleted_pharmacist_and_a_new_fallback_race,
);

crate::on_both_backends!(with engine_token;
    refill_requests_are_recorded_once_with_their_event,
);
