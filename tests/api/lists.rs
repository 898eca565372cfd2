//! The list machinery (CONTRACT §6): the envelope, paging arithmetic, sorting, search and
//! the streamed full list.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

fn numbers(page: &Value) -> Vec<String> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["number"].as_str().unwrap().to_owned())
        .collect()
}

async fn seed_extensions(app: &TestApp, token: &str, count: usize) {
    for i in 0..count {
        let name = if i % 5 == 0 {
            format!("Sales_{i}%")
        } else {
            format!("Support {i}")
        };
        app.post(
            "/v2/admin/extensions/",
            token,
            json!({"number": format!("5{i:03}"), "name": name}),
        )
        .await
        .expect(200);
    }
}

async fn pages_add_up(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    seed_extensions(&app, &token, 30).await; // 32 with the fixture's two
    let first = app
        .get("/v2/admin/extensions/?recordsPerPage=7", &token)
        .await
        .expect(200);
    assert_eq!(
        (
            first["totalRecords"].as_i64(),
            first["page"].as_i64(),
            first["maxPage"].as_i64()
        ),
        (Some(32), Some(1), Some(5))
    );
    assert_eq!(first["records"].as_array().unwrap().len(), 7);
    let mut seen = Vec::new();
    for page in 1..=5 {
        let body = app
            .get(
                &format!("/v2/admin/extensions/?recordsPerPage=7&page={page}&sortBy=number"),
                &token,
            )
            .await
            .expect(200);
        assert_eq!(body["page"], page);
        seen.extend(numbers(&body));
    }
    assert_eq!(seen.len(), 32, "every record once");
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "sorted by number across pages");
    let past = app
        .get("/v2/admin/extensions/?recordsPerPage=7&page=6", &token)
        .await
        .expect(200);
    assert_eq!(past["records"], json!([]));
    assert_eq!(
        (past["totalRecords"].as_i64(), past["maxPage"].as_i64()),
        (Some(32), Some(5))
    );
    let default = app.get("/v2/admin/extensions/", &token).await.expect(200);
    assert_eq!(
        default["records"].as_array().unwrap().len(),
        25,
        "25 records by default"
    );
}

async fn empty_lists_have_max_page_zero(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let body = app
        .get("/v2/admin/extensions/?query=nothing-matches-this", &token)
        .await
        .expect(200);
    assert_eq!(
        body,
        json!({"records": [], "totalRecords": 0, "page": 1, "maxPage": 0})
    );
}

async fn sorting_both_ways(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    seed_extensions(&app, &token, 6).await;
    let asc = numbers(
        &app.get(
            "/v2/admin/extensions/?sortBy=number&sortDirection=asc",
            &token,
        )
        .await
        .expect(200),
    );
    let mut desc = numbers(
        &app.get(
            "/v2/admin/extensions/?sortBy=number&sortDirection=desc",
            &token,
        )
        .await
        .expect(200),
    );
    desc.reverse();
    assert_eq!(asc, desc);
    assert_eq!(asc.first().map(String::as_str), Some("101"));
    let by_name = app
        .get("/v2/admin/extensions/?sortBy=name", &token)
        .await
        .expect(200);
    let names: Vec<&str> = by_name["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

async fn search_is_case_insensitive_and_literal(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    seed_extensions(&app, &token, 11).await;
    let body = app
        .get("/v2/admin/extensions/?query=sALES", &token)
        .await
        .expect(200);
    assert_eq!(
        body["totalRecords"], 3,
        "Sales_0%, Sales_5%, Sales_10%: {body}"
    );
    // `%` and `_` are literal characters, not wildcards.
    let body = app
        .get("/v2/admin/extensions/?query=%25", &token)
        .await
        .expect(200);
    assert_eq!(body["totalRecords"], 3);
    let body = app
        .get("/v2/admin/extensions/?query=s_1", &token)
        .await
        .expect(200);
    assert_eq!(numbers(&body), ["5010"]);
    let body = app
        .get("/v2/admin/extensions/?query=5002", &token)
        .await
        .expect(200);
    assert_eq!(numbers(&body), ["5002"], "search covers the number too");
}

async fn the_full_list_is_streamed(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    seed_extensions(&app, &token, 40).await;
    let body = app
        .get(
            "/v2/admin/extensions/?paginated=0&sortBy=number&sortDirection=desc",
            &token,
        )
        .await
        .expect(200);
    assert_eq!(body["totalRecords"], 42);
    assert_eq!(
        (body["page"].as_i64(), body["maxPage"].as_i64()),
        (Some(1), Some(1))
    );
    let all = numbers(&body);
    assert_eq!(all.len(), 42);
    assert_eq!(all[0], "5039");
    let filtered = app
        .get("/v2/admin/extensions/?paginated=0&query=sales", &token)
        .await
        .expect(200);
    assert_eq!(filtered["totalRecords"], 8);
    let empty = app
        .get("/v2/admin/extensions/?paginated=0&query=zzz", &token)
        .await
        .expect(200);
    assert_eq!(
        empty,
        json!({"records": [], "totalRecords": 0, "page": 1, "maxPage": 1})
    );
}

async fn filters_narrow_the_list(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let body = app
        .get(
            &format!("/v2/admin/extensions/?branchId={}", w.branch_a2),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(numbers(&body), ["201"]);
    let platform = app.login(w.platform).await;
    let body = app
        .get(
            &format!("/v2/admin/extensions/?tenantId={}", w.tenant_b),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(body["totalRecords"], 1);
    assert_eq!(body["records"][0]["tenantId"], w.tenant_b);
    let body = app
        .get("/v2/admin/users/?userRole=4", &platform)
        .await
        .expect(200);
    assert_eq!(body["totalRecords"], 1);
    let body = app
        .get(
            &format!("/v2/admin/tenants/?partnerId={}", w.partner_b),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(body["totalRecords"], 1);
    assert_eq!(body["records"][0]["name"], "Tenant B");
}

on_both_backends!(
    pages_add_up,
    empty_lists_have_max_page_zero,
    sorting_both_ways,
    search_is_case_insensitive_and_literal,
    the_full_list_is_streamed,
    filters_narrow_the_list,
);
