//! A refusal lists every reason at once (interface §5, issue 29): a rule across a body's
//! items (a duplicate) and a field the record keeps for good are reported together with
//! the rules each value breaks on its own, not once those are fixed.

use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Two keys at index 2 and one at 9999: the bound and the duplicate in one answer.
async fn a_duplicate_is_reported_with_the_broken_values(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let keys = json!([
        {"index": 1, "type": "line"},
        {"index": 2, "type": "dnd"},
        {"index": 2, "type": "dnd"},
        {"index": 9999, "type": "dnd"},
    ]);
    let problems = app
        .post(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w", "keys": keys}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/keys/3/index' must be at most 1000",
            "'body/keys/2/index' is already used by keys/1",
        ]
    );
    // The same on a change.
    let layout = app
        .post(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w"}),
        )
        .await
        .expect(200);
    let problems = app
        .patch(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
            json!({"keys": keys}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/keys/3/index' must be at most 1000",
            "'body/keys/2/index' is already used by keys/1",
        ]
    );
}

/// A field the record keeps for good, sent with another value, is reported together with
/// the body's other broken rules.
async fn a_fixed_field_is_reported_with_the_broken_values(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let layout = app
        .post(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w"}),
        )
        .await
        .expect(200);
    let problems = app
        .patch(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
            json!({"tenantId": w.tenant_b, "name": "", "keys": [{"index": 1, "type": "line"}, {"index": 1, "type": "line"}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' cannot be changed",
            "'body/name' must be at least 1 character",
            "'body/keys/1/index' is already used by keys/0",
        ]
    );
}

/// A key naming another tenant's extension (a rule needing the database) is reported
/// with a field sent that the record keeps for good, and with a duplicate.
async fn a_reference_is_reported_with_the_rest(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let layout = app
        .post(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w"}),
        )
        .await
        .expect(200);
    let problems = app
        .patch(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
            json!({"tenantId": w.tenant_b, "keys": [
                {"index": 1, "type": "line"},
                {"index": 2, "type": "blf", "value": w.ext_b.to_string()},
                {"index": 2, "type": "dnd"},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' cannot be changed",
            "'body/keys/2/index' is already used by keys/1",
            "'body/keys/1/value' must name an extension of the tenant",
        ]
    );
}

on_both_backends!(
    a_reference_is_reported_with_the_rest,
    a_duplicate_is_reported_with_the_broken_values,
    a_fixed_field_is_reported_with_the_broken_values,
);
