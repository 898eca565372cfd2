//! Conduits: managed by platform and partner admins at `/v2/admin/conduits`, read by a
//! tenant's admins at `/tenants/conduits`; credentials sealed in the database and never
//! in any answer (nor in the audit trail).

use serde_json::{Value, json};

use crate::fixture::World;
use crate::support::TestApp;

const ADMIN: &str = "/v2/admin/conduits/";

const USERNAME: &str = "trunk-user-7f3a9c";
const SECRET: &str = "s3cr3t-API-key-5b2e81d4c0";

fn trunk(tenant: i64) -> Value {
    json!({
        "tenantId": tenant,
        "kind": "sip-trunk",
        "name": "Main trunk",
        "direction": "both",
        "address": "sip.carrier.example:5061",
        "username": USERNAME,
        "secret": SECRET,
    })
}

/// The sealed credential columns of conduit `id`, as stored.
async fn sealed(app: &TestApp, id: i64) -> (Option<String>, Option<String>) {
    use sea_query::{Expr, ExprTrait, Query};
    let select = Query::select()
        .columns(["username_sealed", "secret_sealed"])
        .from("conduits")
        .and_where(Expr::col("id").eq(id))
        .take();
    app.state
        .db
        .conn()
        .fetch_one(&select)
        .await
        .expect("the conduit")
}

/// Fails when `answer` (any JSON) holds either credential anywhere.
fn no_secrets(answer: &Value) {
    let text = answer.to_string();
    assert!(
        !text.contains(USERNAME) && !text.contains(SECRET) && !text.contains("xc2:"),
        "{text}"
    );
}

async fn managed_and_never_showing_secrets(app: TestApp) {
    let world = World::seed(&app).await;
    let partner = app.login(world.partner_admin_a).await;
    let created = app
        .post(ADMIN, &partner, trunk(world.tenant_a))
        .await
        .expect(200);
    no_secrets(&created);
    assert_eq!(
        (
            created["kind"].clone(),
            created["status"].clone(),
            created["hasCredentials"].clone(),
            created["lastCheckedAt"].clone(),
            created["numbersCount"].clone(),
            created["tenantId"].clone(),
        ),
        (
            json!("sip-trunk"),
            json!("active"),
            json!(true),
            Value::Null,
            json!(0),
            json!(world.tenant_a)
        )
    );
    let id = created["id"].as_i64().unwrap();
    let crm = app
        .post(
            ADMIN,
            &partner,
            json!({"tenantId": world.tenant_a, "kind": "crm", "name": "HubSpot", "direction": "outbound"}),
        )
        .await
        .expect(200);
    assert_eq!(crm["hasCredentials"], false);
    // Stored sealed, bound to the row: the database holds neither credential in the
    // clear.
    let (username, secret) = sealed(&app, id).await;
    for value in [&username, &secret] {
        let value = value.as_deref().unwrap();
        assert!(value.starts_with("xc2:"), "{value}");
        assert!(!value.contains(USERNAME) && !value.contains(SECRET));
    }
    // A number routed through the trunk counts.
    app.raw_sql(
        &format!("INSERT INTO phone_numbers (tenant_id, number, conduit_id, created_at) VALUES ({}, '15550001111', {id}, 0)", world.tenant_a),
        &format!("INSERT INTO phone_numbers (tenant_id, number, conduit_id, created_at) VALUES ({}, '15550001111', {id}, 0)", world.tenant_a),
    )
    .await;

    // The tenant's admin reads them at the release notes' path and under /v2, by kind.
    let admin = app.login(world.admin_a).await;
    for path in [
        "/tenants/conduits",
        "/v2/tenants/conduits",
        "/v2/tenants/conduits/",
    ] {
        let page = app
            .get(&format!("{path}?sortBy=id"), &admin)
            .await
            .expect(200);
        no_secrets(&page);
        assert_eq!(page["totalRecords"], 2, "{path}");
        assert_eq!(page["records"][0]["numbersCount"], 1);
    }
    let crms = app
        .get("/tenants/conduits?kind=crm", &admin)
        .await
        .expect(200);
    assert_eq!(crms["totalRecords"], 1);
    assert_eq!(crms["records"][0]["name"], "HubSpot");
    app.get("/tenants/conduits?kind=fax", &admin)
        .await
        .error(400, "ValidationError");
    no_secrets(&app.get(&format!("{ADMIN}{id}"), &admin).await.expect(200));

    // PATCH: fields not sent stay; a new secret is sealed; null removes both.
    let renamed = app
        .patch(
            &format!("{ADMIN}{id}"),
            &partner,
            json!({"name": "Backup trunk"}),
        )
        .await
        .expect(200);
    no_secrets(&renamed);
    assert_eq!(
        (
            renamed["name"].clone(),
            renamed["address"].clone(),
            renamed["hasCredentials"].clone()
        ),
        (
            json!("Backup trunk"),
            json!("sip.carrier.example:5061"),
            json!(true)
        )
    );
    let cleared = app
        .patch(
            &format!("{ADMIN}{id}"),
            &partner,
            json!({"username": null, "secret": null}),
        )
        .await
        .expect(200);
    assert_eq!(cleared["hasCredentials"], false);
    let resealed = app
        .patch(&format!("{ADMIN}{id}"), &partner, json!({"secret": SECRET}))
        .await
        .expect(200);
    no_secrets(&resealed);
    assert_eq!(resealed["hasCredentials"], true);
    app.patch(
        &format!("{ADMIN}{id}"),
        &partner,
        json!({"tenantId": world.tenant_b}),
    )
    .await
    .error(400, "ValidationError");

    // The audit trail records the writes, the credentials masked.
    let platform = app.login(world.platform).await;
    let trail = app.audit_entries(&platform, "entities=conduit").await;
    no_secrets(&Value::from(trail.clone()));
    assert!(trail.len() >= 4, "{trail:?}");

    // Deleting answers the conduit, without its secrets; the number stays, without it.
    let deleted = app
        .delete(&format!("{ADMIN}{id}"), &partner)
        .await
        .expect(200);
    no_secrets(&deleted);
    app.get(&format!("{ADMIN}{id}"), &partner)
        .await
        .error(404, "NotFound");
    assert_eq!(
        app.count("phone_numbers", Some(("number", "15550001111")))
            .await,
        1
    );
}

async fn scope_and_roles(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let a = app
        .post(ADMIN, &platform, trunk(world.tenant_a))
        .await
        .expect(200);
    let b = app
        .post(ADMIN, &platform, trunk(world.tenant_b))
        .await
        .expect(200);
    let (a, b) = (a["id"].as_i64().unwrap(), b["id"].as_i64().unwrap());

    // A tenant admin reads its own, not another tenant's (404), and writes nothing.
    let admin_a = app.login(world.admin_a).await;
    let own = app.get("/tenants/conduits", &admin_a).await.expect(200);
    assert_eq!(own["totalRecords"], 1);
    assert_eq!(own["records"][0]["id"], a);
    app.get(&format!("{ADMIN}{b}"), &admin_a)
        .await
        .error(404, "NotFound");
    app.get(
        &format!("/tenants/conduits?tenantId={}", world.tenant_b),
        &admin_a,
    )
    .await
    .error(403, "Forbidden");
    app.post(ADMIN, &admin_a, trunk(world.tenant_a))
        .await
        .error(403, "Forbidden");
    app.patch(&format!("{ADMIN}{a}"), &admin_a, json!({"name": "x"}))
        .await
        .error(403, "Forbidden");
    app.delete(&format!("{ADMIN}{a}"), &admin_a)
        .await
        .error(403, "Forbidden");
    // Branch admins and users do not read conduits.
    for who in [world.branch_admin_a, world.user_a] {
        let token = app.login(who).await;
        app.get("/tenants/conduits", &token)
            .await
            .error(403, "Forbidden");
    }
    // A partner admin manages its partner's tenants only.
    let partner_a = app.login(world.partner_admin_a).await;
    app.post(ADMIN, &partner_a, trunk(world.tenant_b))
        .await
        .error(403, "Forbidden");
    app.patch(
        &format!("{ADMIN}{b}"),
        &partner_a,
        json!({"name": "mine now"}),
    )
    .await
    .error(404, "NotFound");
    app.delete(&format!("{ADMIN}{b}"), &partner_a)
        .await
        .error(404, "NotFound");
    let scoped = app.get(ADMIN, &partner_a).await.expect(200);
    assert_eq!(scoped["totalRecords"], 1);
    // Bodies are checked.
    let errors = app
        .post(
            ADMIN,
            &platform,
            json!({"tenantId": world.tenant_a, "kind": "fax", "name": "", "direction": "sideways", "secret": ""}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        [
            "'body/kind' must be one of: sip-trunk, carrier, pharmacy-system, crm",
            "'body/name' must be at least 1 character",
            "'body/direction' must be one of: inbound, outbound, both",
            "'body/secret' must be at least 1 character",
        ]
    );
}

crate::on_both_backends!(managed_and_never_showing_secrets, scope_and_roles);
