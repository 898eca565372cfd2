//! One spelling for one kind of value, and every broken rule in one answer: boolean
//! filters take `true`/`false` as well as `1`/`0`, "no branch" is `0` on every record,
//! and a create body's missing `tenantId`/`branchId` is reported together with every
//! other problem (it depends on the caller, so the reader asks who is calling).

use serde_json::json;

use crate::fixture::World;
use crate::support::TestApp;

async fn boolean_filters_take_true_and_false(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    for (number, fax) in [("15550100001", "yes"), ("15550100002", "no")] {
        app.create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": world.tenant_a, "number": number, "fax": fax}),
        )
        .await;
    }
    let admin = app.login(world.admin_a).await;
    let numbers = |filter: &'static str| {
        let app = &app;
        let admin = admin.clone();
        async move {
            let page = app
                .get(&format!("/v2/admin/phone-numbers/?{filter}"), &admin)
                .await
                .expect(200);
            page["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["number"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(numbers("fax=true").await, vec!["15550100001"]);
    assert_eq!(numbers("fax=true").await, numbers("fax=1").await);
    assert_eq!(numbers("fax=false").await, vec!["15550100002"]);
    assert_eq!(numbers("fax=false").await, numbers("fax=0").await);
    let refused = app
        .get("/v2/admin/phone-numbers/?fax=yes", &admin)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        refused,
        vec!["'query/fax' must be one of: 0, 1, true, false"]
    );
    // The voicemail filter takes the spelling of the message's own `read` field.
    for read in ["true", "false", "1", "0"] {
        app.get(
            &format!("/v2/admin/voicemail-messages/?read={read}"),
            &admin,
        )
        .await
        .expect(200);
    }
}

async fn no_branch_is_zero_on_every_record(app: TestApp) {
    let world = World::seed(&app).await;
    let admin = app.login(world.admin_a).await;
    let extension = app
        .create(
            "/v2/admin/extensions/",
            &admin,
            json!({"number": "777", "name": "Lobby"}),
        )
        .await;
    assert_eq!(extension["branchId"], json!(0), "{extension}");
    let id = extension["id"].as_i64().unwrap();
    let moved = app
        .patch(
            &format!("/v2/admin/extensions/{id}"),
            &admin,
            json!({"branchId": world.branch_a}),
        )
        .await
        .expect(200);
    assert_eq!(moved["branchId"], json!(world.branch_a));
    let detached = app
        .patch(
            &format!("/v2/admin/extensions/{id}"),
            &admin,
            json!({"branchId": null}),
        )
        .await
        .expect(200);
    assert_eq!(detached["branchId"], json!(0));
    // The answer's 0 is taken back as none on a create too, as on a change.
    let copied = app
        .create(
            "/v2/admin/extensions/",
            &admin,
            json!({"branchId": 0, "number": "778", "name": "Lobby 2"}),
        )
        .await;
    assert_eq!(copied["branchId"], json!(0), "{copied}");
    let platform = app.login(world.platform).await;
    let number = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": world.tenant_a, "number": "15550100003"}),
        )
        .await;
    assert_eq!(number["branchId"], json!(0), "{number}");
}

async fn a_missing_place_is_reported_with_every_other_problem(app: TestApp) {
    let world = World::seed(&app).await;
    let broken = json!({"name": "", "timezone": "Mars/Olympus"});
    let platform = app.login(world.platform).await;
    let problems = app
        .post("/v2/admin/business-hours/", &platform, broken.clone())
        .await
        .error(400, "ValidationError");
    for field in ["name", "timezone", "hours", "tenantId", "branchId"] {
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with(&format!("'body/{field}'"))),
            "{field} missing from {problems:?}"
        );
    }
    // A tenant admin's own tenant is used, so only the branch is missing beside the rest.
    let admin = app.login(world.admin_a).await;
    let problems = app
        .post("/v2/admin/business-hours/", &admin, broken.clone())
        .await
        .error(400, "ValidationError");
    assert!(problems.contains(&"'body/branchId' is required".to_owned()));
    assert!(!problems.iter().any(|p| p.starts_with("'body/tenantId'")));
    // A branch admin's own branch is used.
    let branch_admin = app.login(world.branch_admin_a).await;
    let problems = app
        .post("/v2/admin/announcements/", &branch_admin, broken)
        .await
        .error(400, "ValidationError");
    assert!(
        !problems
            .iter()
            .any(|p| p.starts_with("'body/branchId'") || p.starts_with("'body/tenantId'")),
        "{problems:?}"
    );
    // A body whose only fault is the missing branch says exactly that.
    let valid_but_unplaced = json!({
        "name": "Front desk", "timezone": "Europe/London",
        "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
    });
    let problems = app
        .post("/v2/admin/business-hours/", &admin, valid_but_unplaced)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, vec!["'body/branchId' is required"]);
    // A platform admin's extension without a tenant: one answer naming it.
    let problems = app
        .post(
            "/v2/admin/extensions/",
            &platform,
            json!({"number": "", "name": "Lobby"}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        problems.iter().any(|p| p.starts_with("'body/number'"))
            && problems.contains(&"'body/tenantId' is required".to_owned()),
        "{problems:?}"
    );
}

crate::on_both_backends!(
    boolean_filters_take_true_and_false,
    no_branch_is_zero_on_every_record,
    a_missing_place_is_reported_with_every_other_problem,
);
