//! The full set of operations on each record of the foundation, and their rules.

use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp};

async fn extensions_round_trip(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = app
        .create(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "177#", "name": "Voicemail access", "branchId": w.branch_a2}),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(
        created,
        json!({"id": id, "tenantId": w.tenant_a, "branchId": w.branch_a2, "number": "177#", "name": "Voicemail access"})
    );
    assert_eq!(
        app.get(&format!("/v2/admin/extensions/{id}"), &token)
            .await
            .expect(200),
        created
    );
    let patched = app
        .patch(
            &format!("/v2/admin/extensions/{id}"),
            &token,
            json!({"name": "VM"}),
        )
        .await
        .expect(200);
    assert_eq!(patched["name"], "VM");
    assert_eq!(patched["number"], "177#", "fields not sent stay unchanged");
    let detached = app
        .patch(
            &format!("/v2/admin/extensions/{id}"),
            &token,
            json!({"branchId": null}),
        )
        .await
        .expect(200);
    assert_eq!(detached["branchId"], json!(0));
    let unchanged = app
        .patch(&format!("/v2/admin/extensions/{id}"), &token, json!({}))
        .await
        .expect(200);
    assert_eq!(unchanged, detached);
    let deleted = app
        .delete(&format!("/v2/admin/extensions/{id}"), &token)
        .await
        .expect(200);
    assert_eq!(deleted, detached);
    app.get(&format!("/v2/admin/extensions/{id}"), &token)
        .await
        .error(404, "NotFound");
    app.delete(&format!("/v2/admin/extensions/{id}"), &token)
        .await
        .error(404, "NotFound");
}

async fn extension_numbers_are_unique_per_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let conflict = app
        .post(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "101", "name": "Again"}),
        )
        .await;
    assert_eq!(
        conflict.body["message"],
        format!(
            "the number 101 is taken by extension 'Front desk A' (id {})",
            w.ext_a
        )
    );
    conflict.error(409, "Conflict");
    let other = app
        .post(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "102", "name": "Free"}),
        )
        .await
        .expect(200);
    app.patch(
        &format!("/v2/admin/extensions/{}", other["id"]),
        &token,
        json!({"number": "101"}),
    )
    .await
    .error(409, "Conflict");
    // Tenant B's 101 is unaffected by tenant A's.
    let b = app.login(w.admin_b).await;
    app.create(
        "/v2/admin/extensions/",
        &b,
        json!({"number": "102", "name": "B's own"}),
    )
    .await;
}

async fn branches_round_trip_and_in_use(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let branch = app
        .create("/v2/admin/branches/", &token, json!({"name": "Warehouse"}))
        .await;
    assert_eq!(branch["tenantId"], w.tenant_a);
    let id = branch["id"].as_i64().unwrap();
    app.patch(
        &format!("/v2/admin/branches/{id}"),
        &token,
        json!({"name": "Depot"}),
    )
    .await
    .expect(200);
    app.create(
        "/v2/admin/extensions/",
        &token,
        json!({"number": "900", "name": "Depot", "branchId": id}),
    )
    .await;
    let in_use = app
        .delete(&format!("/v2/admin/branches/{id}"), &token)
        .await
        .error(409, "Conflict");
    assert!(in_use.is_empty());
    assert_eq!(
        app.get(&format!("/v2/admin/branches/{id}"), &token)
            .await
            .expect(200)["name"],
        "Depot",
        "nothing lost"
    );
    let problems = app
        .post(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "901", "name": "X", "branchId": w.branch_b}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/branchId' must name a branch of the tenant"]
    );
}

async fn tenants_and_partners_round_trip(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let partner = app
        .post(
            "/v2/admin/partners/",
            &platform,
            json!({"name": "Partner C"}),
        )
        .await
        .expect(200);
    let tenant = app
        .create(
            "/v2/admin/tenants/",
            &platform,
            json!({"name": "Tenant C", "partnerId": partner["id"]}),
        )
        .await;
    assert_eq!(tenant["partnerId"], partner["id"]);
    let problems = app
        .post("/v2/admin/tenants/", &platform, json!({"name": "Orphan"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/partnerId' is required"]);
    app.delete(&format!("/v2/admin/partners/{}", partner["id"]), &platform)
        .await
        .error(409, "Conflict");
    app.patch(
        &format!("/v2/admin/tenants/{}", tenant["id"]),
        &platform,
        json!({"name": "Tenant Sea"}),
    )
    .await
    .expect(200);
    let deleted = app
        .delete(&format!("/v2/admin/tenants/{}", tenant["id"]), &platform)
        .await
        .expect(200);
    assert_eq!(deleted["name"], "Tenant Sea");
    app.delete(&format!("/v2/admin/partners/{}", partner["id"]), &platform)
        .await
        .expect(200);
    // A partner admin creates tenants under its own partner without naming it.
    let partner_admin = app.login(w.partner_admin_a).await;
    let own = app
        .create(
            "/v2/admin/tenants/",
            &partner_admin,
            json!({"name": "Partner A's new tenant"}),
        )
        .await;
    assert_eq!(own["partnerId"], w.partner_a);
}

async fn users_round_trip(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = app
        .create(
            "/v2/admin/users/",
            &token,
            json!({
                "email": "New.Agent@Example.com", "password": "a long enough password", "userRole": 5,
                "branchId": w.branch_a, "extId": w.ext_a, "title": "Agent", "darkMode": 1,
                "peerSecret": "sip-secret", "timezone": "Europe/London",
            }),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(created["extNum"], "101");
    assert_eq!(created["extName"], "Front desk A");
    assert_eq!(created["darkMode"], 1);
    assert_eq!(created["timezone"], "Europe/London");
    assert_eq!(
        created["peerSecret"], "",
        "the SIP secret is shown to its owner only"
    );
    let own = app
        .login_answer("new.agent@example.com", "a long enough password")
        .await
        .expect(200);
    assert_eq!(own["user"]["peerSecret"], "sip-secret");
    assert_eq!(own["user"]["email"], "New.Agent@Example.com");
    app.post(
        "/v2/admin/users/",
        &token,
        json!({"email": "NEW.AGENT@example.com", "password": "another password", "userRole": 5}),
    )
    .await
    .error(409, "Conflict");
    let patched = app
        .patch(
            &format!("/v2/admin/users/{id}"),
            &token,
            json!({"title": "Lead", "extId": null, "userRole": 4}),
        )
        .await
        .expect(200);
    assert_eq!(
        (
            patched["title"].as_str(),
            patched["extId"].as_i64(),
            patched["userRole"].as_i64()
        ),
        (Some("Lead"), Some(0), Some(4))
    );
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &token,
        json!({"password": "a brand new password"}),
    )
    .await
    .expect(200);
    app.login_answer("new.agent@example.com", "a long enough password")
        .await
        .error(401, "Unauthorized");
    app.login_answer("new.agent@example.com", "a brand new password")
        .await
        .expect(200);
    app.delete(&format!("/v2/admin/users/{id}"), &token)
        .await
        .expect(200);
    app.login_answer("new.agent@example.com", "a brand new password")
        .await
        .error(401, "Unauthorized");
    let me = app.login_answer(w.admin_a, PASSWORD).await.expect(200)["user"]["id"]
        .as_i64()
        .unwrap();
    app.delete(&format!("/v2/admin/users/{me}"), &token)
        .await
        .error(409, "Conflict");
}

/// Writes racing each other: patches of one record all land (the last one stays), of
/// concurrent creates of one number exactly one wins (the rest 409), and of concurrent
/// deletes of one record exactly one deletes it (the rest 404) — nothing answers 500,
/// and the list afterwards holds exactly what the answers said.
async fn concurrent_writes_resolve_as_answered(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let path = format!("/v2/admin/extensions/{}", w.ext_a);
    let doomed = app
        .create(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "7700", "name": "Doomed"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let doomed_path = format!("/v2/admin/extensions/{doomed}");
    let patches = (0..16).map(|i| app.patch(&path, &token, json!({"name": format!("Desk {i}")})));
    let creates = (0..8).map(|_| {
        app.post(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "7711", "name": "Burst"}),
        )
    });
    let deletes = (0..8).map(|_| app.delete(&doomed_path, &token));
    let (patched, (created, deleted)) = futures::future::join(
        futures::future::join_all(patches),
        futures::future::join(
            futures::future::join_all(creates),
            futures::future::join_all(deletes),
        ),
    )
    .await;
    for answer in patched {
        answer.expect(200);
    }
    let statuses = |answers: &[crate::support::Answer]| {
        let mut statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
        statuses.sort_unstable();
        statuses
    };
    assert_eq!(
        statuses(&created),
        [200, 409, 409, 409, 409, 409, 409, 409],
        "one create of the number wins"
    );
    assert_eq!(
        statuses(&deleted),
        [200, 404, 404, 404, 404, 404, 404, 404],
        "one delete deletes"
    );
    let name = app.get(&path, &token).await.expect(200)["name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(name.starts_with("Desk "), "{name}");
    app.get(&doomed_path, &token).await.error(404, "NotFound");
    let listed = app
        .get("/v2/admin/extensions/?query=77", &token)
        .await
        .expect(200);
    let numbers: Vec<&str> = listed["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["number"].as_str().unwrap())
        .collect();
    assert_eq!(numbers, ["7711"], "{listed}");
}

/// Runs `sqlite` or `postgres` (several statements) on the app's database, as an operator
/// would: for injecting a failure the service cannot cause itself.
/// Deleting business hours removes its destinations, holidays and the record in one
/// transaction: when the last statement fails (a trigger injects the failure), the
/// destinations and holidays deleted before it are back, and the record answers as before.
async fn a_delete_failing_midway_removes_nothing(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = app
        .post(
            "/v2/admin/business-hours/",
            &token,
            json!({
                "name": "Store hours", "branchId": w.branch_a, "timezone": "UTC", "hours": {},
                "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
                "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}],
                "holidays": [{"name": "New year", "date": "2027-01-01"}],
            }),
        )
        .await
        .expect(200);
    let id = created["id"].as_i64().unwrap();
    let destinations_before = app.count("destinations", None).await;
    let holidays_before = app.count("holidays", None).await;
    assert!(destinations_before >= 2, "{destinations_before}");
    assert!(holidays_before >= 1, "{holidays_before}");
    app.inject_failure("DELETE", "business_hours").await;
    let failed = app
        .delete(&format!("/v2/admin/business-hours/{id}"), &token)
        .await;
    assert_eq!(failed.status, 500, "{}", failed.body);
    // Nothing of it went: the record, its holidays, its destinations (the extension is
    // still in use by it).
    let kept = app
        .get(&format!("/v2/admin/business-hours/{id}"), &token)
        .await
        .expect(200);
    assert_eq!(kept, created);
    let holidays = app
        .get(&format!("/v2/admin/business-hours/{id}/holidays"), &token)
        .await
        .expect(200);
    assert_eq!(holidays.as_array().unwrap().len(), 1);
    assert_eq!(app.count("destinations", None).await, destinations_before);
    assert_eq!(app.count("holidays", None).await, holidays_before);
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &token)
        .await
        .error(409, "Conflict");
    // Without the failure the same delete goes through.
    app.remove_failure("business_hours").await;
    app.delete(&format!("/v2/admin/business-hours/{id}"), &token)
        .await
        .expect(200);
    assert_eq!(app.count("holidays", None).await, holidays_before - 1);
    assert_eq!(
        app.count("destinations", None).await,
        destinations_before - 2
    );
}

/// Every in-use refusal names each holder the same way, by kind, name and id (issue 29
/// item 9): an extension held by a queue, a business hour's list and a BLF key of a
/// button layout (which was only "still used by other records"), a paging group held by
/// a layout's key, and the dial plan's 409.
async fn in_use_refusals_name_each_holder_alike(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let extension = app
        .create(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "150", "name": "Counter", "branchId": w.branch_a}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "460", "name": "Warehouse"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "Reception", "deviceModel": "yealink-t54w", "keys": [
                {"index": 1, "type": "line"},
                {"index": 2, "type": "blf", "value": extension.to_string()},
                {"index": 3, "type": "pagingGroup", "value": group.to_string()},
            ]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let message = |answer: crate::support::Answer| {
        let body = answer.expect(409);
        assert_eq!(body["name"], "Conflict", "{body}");
        body["message"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        message(
            app.delete(&format!("/v2/admin/extensions/{extension}"), &token)
                .await
        ),
        format!("the extension is used by button layout 'Reception' (id {layout})")
    );
    assert_eq!(
        message(
            app.delete(&format!("/v2/admin/paging-groups/{group}"), &token)
                .await
        ),
        format!("the paging group is used by button layout 'Reception' (id {layout})")
    );
    let queue = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Pharmacists", "number": "600", "members": [{"id": extension}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let hours = app
        .create(
            "/v2/admin/business-hours/",
            &token,
            json!({"name": "Open", "branchId": w.branch_a, "timezone": "UTC", "hours": {},
            "matchDestinations": [{"id": extension, "destType": "EXT"}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        message(
            app.delete(&format!("/v2/admin/extensions/{extension}"), &token)
                .await
        ),
        format!(
            "the extension is used by business hour 'Open' (id {hours}), \
             queue 'Pharmacists' (id {queue}), button layout 'Reception' (id {layout})"
        )
    );
    assert_eq!(
        message(
            app.post(
                "/v2/admin/ivrs/",
                &token,
                json!({"name": "Menu", "number": "600"})
            )
            .await
        ),
        format!("the number 600 is taken by queue 'Pharmacists' (id {queue})")
    );
}

on_both_backends!(
    a_delete_failing_midway_removes_nothing,
    concurrent_writes_resolve_as_answered,
    extensions_round_trip,
    extension_numbers_are_unique_per_tenant,
    branches_round_trip_and_in_use,
    tenants_and_partners_round_trip,
    users_round_trip,
    in_use_refusals_name_each_holder_alike,
);
