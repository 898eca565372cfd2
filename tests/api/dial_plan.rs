//! One dial plan per tenant: extensions, IVRs and paging groups share one number space,
//! held by the database; feature codes (`*…`) belong to the platform.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

const EXTENSIONS: &str = "/v2/admin/extensions/";
const IVRS: &str = "/v2/admin/ivrs/";
const PAGING: &str = "/v2/admin/paging-groups/";

/// Rows of the dial plan holding `number` in `tenant`.
async fn holders(app: &TestApp, tenant: i64, number: &str) -> Vec<(String, i64)> {
    use sea_query::{Expr, ExprTrait, Query};
    let select = Query::select()
        .columns(["owner_kind", "owner_id"])
        .from("dial_plan")
        .and_where(Expr::col("tenant_id").eq(tenant))
        .and_where(Expr::col("number").eq(number))
        .take();
    app.state.db.conn().fetch_all(&select).await.unwrap()
}

fn message(answer: Value) -> String {
    answer["message"].as_str().unwrap().to_owned()
}

async fn one_number_reaches_one_record(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    // Extension 101 ("Front desk A") holds 101: neither a paging group nor an IVR gets it.
    let taken = app
        .post(
            PAGING,
            &a,
            json!({"tenantId": w.tenant_a, "number": "101", "name": "G"}),
        )
        .await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 101 is taken by extension 'Front desk A' (id {})",
            w.ext_a
        )
    );
    let taken = app
        .post(IVRS, &a, json!({"name": "Menu", "number": "101"}))
        .await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 101 is taken by extension 'Front desk A' (id {})",
            w.ext_a
        )
    );
    // An IVR's number is refused to an extension, and a paging group's to an IVR.
    let menu = app
        .post(IVRS, &a, json!({"name": "Main menu", "number": "700"}))
        .await
        .expect(200);
    let taken = app
        .post(EXTENSIONS, &a, json!({"number": "700", "name": "X"}))
        .await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 700 is taken by IVR 'Main menu' (id {})",
            menu["id"]
        )
    );
    let store = app
        .post(
            PAGING,
            &a,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "Store"}),
        )
        .await
        .expect(200);
    let taken = app
        .post(IVRS, &a, json!({"name": "Y", "number": "80"}))
        .await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 80 is taken by paging group 'Store' (id {})",
            store["id"]
        )
    );
    assert_eq!(
        holders(&app, w.tenant_a, "101").await,
        [("extension".to_owned(), w.ext_a)]
    );
    assert_eq!(holders(&app, w.tenant_a, "700").await.len(), 1);
    assert_eq!(
        app.count("ivrs", None).await,
        1,
        "no refused record was written"
    );
    assert_eq!(app.count("paging_groups", None).await, 1);
}

async fn feature_codes_are_the_platforms(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let refused = app
        .post(EXTENSIONS, &a, json!({"number": "*51", "name": "X"}))
        .await
        .error(400, "ValidationError");
    assert!(
        refused[0].starts_with("'body/number' must not start with *"),
        "{refused:?}"
    );
    app.post(
        PAGING,
        &a,
        json!({"tenantId": w.tenant_a, "number": "*51", "name": "G"}),
    )
    .await
    .error(400, "ValidationError");
    app.post(IVRS, &a, json!({"name": "M", "number": "*97"}))
        .await
        .error(400, "ValidationError");
    app.patch(
        &format!("{EXTENSIONS}{}", w.ext_a),
        &a,
        json!({"number": "*8"}),
    )
    .await
    .error(400, "ValidationError");
    assert_eq!(app.count("dial_plan", Some(("number", "*51"))).await, 0);
    // `*` is kept inside a number, and `#` may lead.
    app.post(EXTENSIONS, &a, json!({"number": "1*2", "name": "Star"}))
        .await
        .expect(200);
    app.post(EXTENSIONS, &a, json!({"number": "#9", "name": "Hash"}))
        .await
        .expect(200);
}

async fn renumbering_claims_and_frees(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let ivr = app
        .post(IVRS, &a, json!({"name": "Main menu", "number": "700"}))
        .await
        .expect(200);
    let group = app
        .post(
            PAGING,
            &a,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "Store"}),
        )
        .await
        .expect(200);
    // Renumbering into a taken number is refused and changes nothing.
    let ext_a2 = format!("{EXTENSIONS}{}", w.ext_a2);
    let taken = app.patch(&ext_a2, &a, json!({"number": "700"})).await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 700 is taken by IVR 'Main menu' (id {})",
            ivr["id"]
        )
    );
    let group_path = format!("{PAGING}{}", group["id"]);
    app.patch(&group_path, &a, json!({"number": "201"}))
        .await
        .error(409, "Conflict");
    assert_eq!(app.get(&ext_a2, &a).await.expect(200)["number"], "201");
    assert_eq!(
        holders(&app, w.tenant_a, "201").await,
        [("extension".to_owned(), w.ext_a2)]
    );
    // A renumbered record frees its old number and holds the new one.
    app.patch(&ext_a2, &a, json!({"number": "202"}))
        .await
        .expect(200);
    assert!(holders(&app, w.tenant_a, "201").await.is_empty());
    assert_eq!(
        holders(&app, w.tenant_a, "202").await,
        [("extension".to_owned(), w.ext_a2)]
    );
    app.patch(&group_path, &a, json!({"number": "201"}))
        .await
        .expect(200);
    // Renaming keeps the number and names the holder anew.
    app.patch(&group_path, &a, json!({"name": "Whole store"}))
        .await
        .expect(200);
    let taken = app
        .post(EXTENSIONS, &a, json!({"number": "201", "name": "X"}))
        .await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 201 is taken by paging group 'Whole store' (id {})",
            group["id"]
        )
    );
    // A deleted record frees its number.
    app.delete(&format!("{IVRS}{}", ivr["id"]), &a)
        .await
        .expect(200);
    assert!(holders(&app, w.tenant_a, "700").await.is_empty());
    let extension = app
        .post(EXTENSIONS, &a, json!({"number": "700", "name": "Now mine"}))
        .await
        .expect(200);
    assert_eq!(
        holders(&app, w.tenant_a, "700").await,
        [("extension".to_owned(), extension["id"].as_i64().unwrap())]
    );
}

async fn another_tenant_may_use_the_number(app: TestApp) {
    let w = World::seed(&app).await;
    let b = app.login(w.admin_b).await;
    // 201 is extension "Annex A" of tenant A; tenant B's dial plan is its own.
    app.post(IVRS, &b, json!({"name": "B menu", "number": "201"}))
        .await
        .expect(200);
    let taken = app
        .post(
            PAGING,
            &b,
            json!({"tenantId": w.tenant_b, "number": "101", "name": "G"}),
        )
        .await;
    assert_eq!(
        message(taken.expect(409)),
        format!(
            "the number 101 is taken by extension 'Front desk B' (id {})",
            w.ext_b
        ),
        "only tenant B's own holder is named"
    );
    assert_eq!(holders(&app, w.tenant_a, "201").await.len(), 1);
    assert_eq!(holders(&app, w.tenant_b, "201").await.len(), 1);
}

async fn concurrent_claims_of_one_number(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    for round in 0..12 {
        let number = format!("9{round:02}");
        let (ext, group) = tokio::join!(
            app.post(EXTENSIONS, &a, json!({"number": number, "name": "E"})),
            app.post(
                PAGING,
                &a,
                json!({"tenantId": w.tenant_a, "number": number, "name": "G"})
            ),
        );
        let mut statuses = [ext.status.as_u16(), group.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [200, 409],
            "round {round}: {} / {}",
            ext.body,
            group.body
        );
        assert_eq!(holders(&app, w.tenant_a, &number).await.len(), 1);
    }
    let extensions = app.count("extensions", None).await;
    let groups = app.count("paging_groups", None).await;
    // The fixture's three extensions, and one record per round.
    assert_eq!(extensions + groups, 3 + 12);
}

on_both_backends!(
    one_number_reaches_one_record,
    feature_codes_are_the_platforms,
    renumbering_claims_and_frees,
    another_tenant_may_use_the_number,
    concurrent_claims_of_one_number,
);
