//! Paging groups exactly as the spec: members, intro media, numbers, and the scope rules.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

const SPEC_FIELDS: &[&str] = &[
    "checkInUse",
    "id",
    "introMessageMediaFile",
    "introMessageMediaFileId",
    "name",
    "number",
    "routingDestinations",
    "tenantId",
    "twoWayAudio",
];

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

async fn create_and_read_exactly_as_the_spec(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let extra = app
        .create(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "102", "name": "Stock room"}),
        )
        .await;
    let created = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({
                "tenantId": w.tenant_a, "number": "450", "name": "Whole store", "checkInUse": "on", "twoWayAudio": "yes",
                "introMessageMediaFileId": 0,
                "routingDestinations": [
                    {"id": extra["id"], "destType": "EXT", "order": 2, "typeSrc": "members"},
                    {"id": w.ext_a, "destType": "EXT", "order": 1, "ignored": true},
                ],
            }),
        )
        .await;
    assert_eq!(keys(&created), SPEC_FIELDS, "exactly the spec's fields");
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(created["number"], "450");
    assert_eq!(created["checkInUse"], "on");
    assert_eq!(created["twoWayAudio"], "yes");
    assert_eq!(created["introMessageMediaFileId"], 0);
    assert_eq!(created["introMessageMediaFile"], Value::Null);
    assert_eq!(
        created["routingDestinations"],
        json!([
            {"id": w.ext_a, "destType": "EXT", "order": 1, "name": "Front desk A", "number": "101"},
            {"id": extra["id"], "destType": "EXT", "order": 2, "typeSrc": "members", "name": "Stock room", "number": "102"},
        ]),
        "members resolved and listed by order"
    );
    assert_eq!(
        app.get(&format!("/v2/admin/paging-groups/{id}"), &token)
            .await
            .expect(200),
        created
    );

    let bare = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "51", "name": "Bare"}),
        )
        .await;
    assert_eq!(bare["routingDestinations"], json!([]));
    assert_eq!(bare["checkInUse"], Value::Null);
    assert_eq!(keys(&bare), SPEC_FIELDS);
}

async fn validation_messages(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = app
        .post(
            "/v2/admin/paging-groups/",
            &token,
            json!({
                "number": "5", "checkInUse": "off", "twoWayAudio": "no", "introMessageMediaFileId": -1,
                "routingDestinations": [{"id": w.ext_a}, {"destType": "IVR", "id": 1}, "x"],
            }),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' is required",
            "'body/number' must be at least 2 characters",
            "'body/name' is required",
            "'body/checkInUse' must be one of: on",
            "'body/twoWayAudio' must be one of: yes",
            "'body/introMessageMediaFileId' must be at least 0",
            "'body/routingDestinations/0/destType' is required",
            "'body/routingDestinations/1/destType' must be one of: EXT",
            "'body/routingDestinations/2' must be an object",
        ]
    );
    let problems = app
        .post(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "12a", "name": "x"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/number' must match pattern ^[0-9#+][0-9*#+]*$"]
    );
    let problems = app
        .post(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "60", "name": "x", "introMessageMediaFileId": 999,
                   "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}, {"id": w.ext_b, "destType": "EXT"}]}),
        )
        .await
        .error(400, "ValidationError");
    // Every foreign reference at once (issue 29), not the first one found.
    assert_eq!(
        problems,
        [
            "'body/routingDestinations/1/id' must name an extension of the tenant",
            "'body/introMessageMediaFileId' must name a media file of the tenant"
        ]
    );
}

async fn numbers_are_unique_per_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let body = json!({"tenantId": w.tenant_a, "number": "70", "name": "First"});
    app.post("/v2/admin/paging-groups/", &a, body.clone())
        .await
        .expect(200);
    let conflict = app.post("/v2/admin/paging-groups/", &a, body).await;
    assert!(
        conflict.body["message"]
            .as_str()
            .unwrap()
            .contains("number"),
        "{}",
        conflict.body
    );
    conflict.error(409, "Conflict");
    let b = app.login(w.admin_b).await;
    app.create(
        "/v2/admin/paging-groups/",
        &b,
        json!({"tenantId": w.tenant_b, "number": "70", "name": "B's"}),
    )
    .await;
}

async fn patch_replaces_members_and_clears_flags(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = app
        .create(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "G", "checkInUse": "on",
            "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await;
    let path = format!("/v2/admin/paging-groups/{}", created["id"]);
    let patched = app
        .patch(&path, &token, json!({"checkInUse": null, "routingDestinations": [{"id": w.ext_a2, "destType": "EXT"}]}))
        .await
        .expect(200);
    assert_eq!(patched["checkInUse"], Value::Null);
    assert_eq!(patched["number"], "80");
    assert_eq!(patched["routingDestinations"][0]["id"], w.ext_a2);
    assert_eq!(patched["routingDestinations"].as_array().unwrap().len(), 1);
    let renamed = app
        .patch(&path, &token, json!({"name": "Renamed"}))
        .await
        .expect(200);
    assert_eq!(
        renamed["routingDestinations"], patched["routingDestinations"],
        "members kept when not sent"
    );
    // A member extension cannot be deleted from under the group.
    let in_use = app
        .delete(&format!("/v2/admin/extensions/{}", w.ext_a2), &token)
        .await;
    assert!(
        in_use.body["message"].as_str().unwrap().contains(&format!(
            "paging group '{}' (id {})",
            renamed["name"].as_str().unwrap(),
            created["id"]
        )),
        "{}",
        in_use.body
    );
    in_use.error(409, "Conflict");
    let deleted = app.delete(&path, &token).await.expect(200);
    assert_eq!(deleted["name"], "Renamed");
    app.get(&path, &token).await.error(404, "NotFound");
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a2), &token)
        .await
        .expect(200);
}

async fn other_tenants_groups_are_out_of_reach(app: TestApp) {
    let w = World::seed(&app).await;
    let b = app.login(w.admin_b).await;
    let theirs = app
        .create(
            "/v2/admin/paging-groups/",
            &b,
            json!({"tenantId": w.tenant_b, "number": "90", "name": "B group"}),
        )
        .await;
    let path = format!("/v2/admin/paging-groups/{}", theirs["id"]);
    let a = app.login(w.admin_a).await;
    app.get(&path, &a).await.error(404, "NotFound");
    app.patch(&path, &a, json!({"name": "taken"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &a).await.error(404, "NotFound");
    app.post(
        "/v2/admin/paging-groups/",
        &a,
        json!({"tenantId": w.tenant_b, "number": "91", "name": "x"}),
    )
    .await
    .error(403, "Forbidden");
    app.get(
        &format!("/v2/admin/paging-groups/?tenantId={}", w.tenant_b),
        &a,
    )
    .await
    .error(403, "Forbidden");
    let listed = app.get("/v2/admin/paging-groups/", &a).await.expect(200);
    assert_eq!(listed["totalRecords"], 0);
    assert_eq!(
        app.get(&path, &b).await.expect(200)["name"],
        "B group",
        "untouched"
    );
    let user = app.login(w.user_a).await;
    app.get("/v2/admin/paging-groups/", &user)
        .await
        .error(403, "Forbidden");
}

async fn lists_carry_members_paged_and_streamed(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for i in 0..5 {
        app.post(
            "/v2/admin/paging-groups/",
            &token,
            json!({"tenantId": w.tenant_a, "number": format!("4{i}"), "name": format!("G{i}"),
                   "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await
        .expect(200);
    }
    let page = app
        .get(
            "/v2/admin/paging-groups/?recordsPerPage=2&page=2&sortBy=number",
            &token,
        )
        .await
        .expect(200);
    assert_eq!(
        (page["totalRecords"].as_i64(), page["maxPage"].as_i64()),
        (Some(5), Some(3))
    );
    assert_eq!(page["records"][0]["number"], "42");
    assert_eq!(
        page["records"][0]["routingDestinations"][0]["name"],
        "Front desk A"
    );
    let all = app
        .get("/v2/admin/paging-groups/?paginated=0", &token)
        .await
        .expect(200);
    assert_eq!(all["records"].as_array().unwrap().len(), 5);
    assert!(
        all["records"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["routingDestinations"].as_array().unwrap().len() == 1)
    );
}

async fn ivrs_round_trip(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Main menu", "number": "500"}),
        )
        .await;
    assert_eq!(ivr["tenantId"], w.tenant_a);
    app.post(
        "/v2/admin/ivrs/",
        &token,
        json!({"name": "Dup", "number": "500"}),
    )
    .await
    .error(409, "Conflict");
    let path = format!("/v2/admin/ivrs/{}", ivr["id"]);
    assert_eq!(
        app.patch(&path, &token, json!({"name": "Menu"}))
            .await
            .expect(200)["name"],
        "Menu"
    );
    let b = app.login(w.admin_b).await;
    app.get(&path, &b).await.error(404, "NotFound");
    app.patch(&path, &b, json!({"name": "taken"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &b).await.error(404, "NotFound");
    app.post(
        "/v2/admin/ivrs/",
        &b,
        json!({"tenantId": w.tenant_a, "name": "x", "number": "9"}),
    )
    .await
    .error(403, "Forbidden");
    app.get(&format!("/v2/admin/ivrs/?tenantId={}", w.tenant_a), &b)
        .await
        .error(403, "Forbidden");
    assert_eq!(
        app.get("/v2/admin/ivrs/", &b).await.expect(200)["totalRecords"],
        0
    );
    app.delete(&path, &token).await.expect(200);
}

on_both_backends!(
    create_and_read_exactly_as_the_spec,
    validation_messages,
    numbers_are_unique_per_tenant,
    patch_replaces_members_and_clears_flags,
    other_tenants_groups_are_out_of_reach,
    lists_carry_members_paged_and_streamed,
    ivrs_round_trip,
);
