//! Announcements exactly as the spec: media file, dates, IVRs and branch resolved.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

async fn setup(app: &TestApp, token: &str) -> (Value, Value, Value) {
    let media = app
        .upload(
            token,
            &[("name", "Holiday greeting")],
            Some(("g.mp3", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    let main = app
        .create(
            "/v2/admin/ivrs/",
            token,
            json!({"name": "Main menu", "number": "700"}),
        )
        .await;
    let after = app
        .create(
            "/v2/admin/ivrs/",
            token,
            json!({"name": "After hours", "number": "701"}),
        )
        .await;
    (media, main, after)
}

async fn create_and_read_exactly_as_the_spec(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let (media, main, after) = setup(&app, &token).await;
    let created = app
        .create(
            "/v2/admin/announcements/",
            &token,
            json!({
                "name": "Holidays", "description": "Closed over the holidays", "mediaFileId": media["id"],
                "active": 1, "startDate": "2026-12-20T09:00:00-05:00", "endDate": "2027-01-02",
                "branchId": w.branch_a, "ivrs": [{"id": after["id"], "order": 2}, {"id": main["id"], "order": 1}],
            }),
        )
        .await;
    let id = created["id"].clone();
    assert_eq!(
        created,
        json!({
            "id": id, "tenantId": w.tenant_a, "name": "Holidays", "description": "Closed over the holidays",
            "mediaFile": {"id": media["id"], "name": "Holiday greeting", "tenantId": w.tenant_a},
            "active": 1, "startDate": "2026-12-20T14:00:00Z", "endDate": "2027-01-02",
            "ivrs": [
                {"id": main["id"], "name": "Main menu", "tenantId": w.tenant_a, "order": 1},
                {"id": after["id"], "name": "After hours", "tenantId": w.tenant_a, "order": 2},
            ],
            "branch": {"id": w.branch_a, "name": "A main"},
        })
    );
    assert_eq!(
        app.get(&format!("/v2/admin/announcements/{id}"), &token)
            .await
            .expect(200),
        created
    );
    let patched = app
        .patch(
            &format!("/v2/admin/announcements/{id}"),
            &token,
            json!({"active": 0, "ivrs": []}),
        )
        .await
        .expect(200);
    assert_eq!(
        (patched["active"].as_i64(), patched["ivrs"].clone()),
        (Some(0), json!([]))
    );
    let listed = app
        .get("/v2/admin/announcements/?active=0", &token)
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 1);
    // Attached IVRs and the media file cannot be deleted from under an announcement.
    app.patch(
        &format!("/v2/admin/announcements/{id}"),
        &token,
        json!({"ivrs": [{"id": main["id"]}]}),
    )
    .await
    .expect(200);
    let answer = app
        .delete(&format!("/v2/admin/ivrs/{}", main["id"]), &token)
        .await;
    assert_eq!(
        answer.body["message"],
        format!("the IVR is used by announcement 'Holidays' (id {id})")
    );
    answer.error(409, "Conflict");
    let answer = app
        .delete(&format!("/v2/admin/media-files/{}", media["id"]), &token)
        .await;
    assert_eq!(
        answer.body["message"],
        format!("the media file is used by announcement 'Holidays' (id {id})")
    );
    answer.error(409, "Conflict");
    assert_eq!(
        app.delete(&format!("/v2/admin/announcements/{id}"), &token)
            .await
            .expect(200)["name"],
        "Holidays"
    );
    app.delete(&format!("/v2/admin/ivrs/{}", main["id"]), &token)
        .await
        .expect(200);
}

async fn validation_messages(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let (media, _, _) = setup(&app, &token).await;
    let problems = app
        .post(
            "/v2/admin/announcements/",
            &token,
            json!({"active": 2, "startDate": "2026-12-24", "endDate": "2026-12-01", "ivrs": [{"order": 1}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/name' is required",
            "'body/mediaFileId' is required",
            "'body/active' must be at most 1",
            "'body/ivrs/0/id' is required",
            // A tenant admin has no branch of its own: reported with the rest.
            "'body/branchId' is required",
        ]
    );
    // Rules across fields are judged once every field reads: alone, the dates are refused.
    let problems = app
        .post(
            "/v2/admin/announcements/",
            &token,
            json!({"name": "x", "mediaFileId": media["id"], "startDate": "2026-12-24", "endDate": "2026-12-01"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/endDate' must be after startDate",
            "'body/branchId' is required"
        ]
    );
    let problems = app
        .post(
            "/v2/admin/announcements/",
            &token,
            json!({"name": "x", "mediaFileId": media["id"], "startDate": "24/12/2026", "endDate": "2027-01-01", "branchId": w.branch_a}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/startDate' must be an ISO 8601 date (2026-12-24) or date-time (2026-12-24T09:00:00Z)"
        ]
    );
}

async fn other_tenants_references_and_records_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let (media, main, _) = setup(&app, &a).await;
    let b = app.login(w.admin_b).await;
    let b_ivr = app
        .post(
            "/v2/admin/ivrs/",
            &b,
            json!({"name": "B menu", "number": "700"}),
        )
        .await
        .expect(200);
    let problems = app
        .post(
            "/v2/admin/announcements/",
            &a,
            json!({"name": "x", "mediaFileId": media["id"], "startDate": "2026-12-01", "endDate": "2026-12-02",
                   "branchId": w.branch_a, "ivrs": [{"id": main["id"]}, {"id": b_ivr["id"]}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/ivrs/1/id' must name an IVR of the tenant"]
    );
    let problems = app
        .post(
            "/v2/admin/announcements/",
            &b,
            json!({"name": "x", "mediaFileId": media["id"], "startDate": "2026-12-01", "endDate": "2026-12-02", "branchId": w.branch_b}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/mediaFileId' must name a media file of the tenant"]
    );
    let created = app
        .post(
            "/v2/admin/announcements/",
            &a,
            json!({"name": "A's", "mediaFileId": media["id"], "startDate": "2026-12-01", "endDate": "2026-12-02", "branchId": w.branch_a}),
        )
        .await
        .expect(200);
    let path = format!("/v2/admin/announcements/{}", created["id"]);
    app.get(&path, &b).await.error(404, "NotFound");
    app.patch(&path, &b, json!({"name": "x"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &b).await.error(404, "NotFound");
    app.post(
        "/v2/admin/announcements/",
        &b,
        json!({"tenantId": w.tenant_a, "name": "x", "mediaFileId": media["id"], "startDate": "2026-12-01", "endDate": "2026-12-02", "branchId": w.branch_a}),
    )
    .await
    .error(403, "Forbidden");
    assert_eq!(
        app.get("/v2/admin/announcements/", &b).await.expect(200)["totalRecords"],
        0
    );
}

on_both_backends!(
    create_and_read_exactly_as_the_spec,
    validation_messages,
    other_tenants_references_and_records_are_refused,
);
