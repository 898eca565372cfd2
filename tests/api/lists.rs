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
        app.create(
            "/v2/admin/extensions/",
            token,
            json!({"number": format!("5{i:03}"), "name": name}),
        )
        .await;
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

/// Pages sorted by a column with many equal values: ties really occur (ten records share
/// each name, more than a page), and still every record shows on exactly one page, in
/// name order with ties broken by id the same way as the sort.
async fn paging_through_ties_keeps_every_record_once(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    for i in 0..30 {
        let name = ["Tie A", "Tie B", "Tie C"][i % 3];
        app.create(
            "/v2/admin/extensions/",
            &token,
            json!({"number": format!("6{i:03}"), "name": name}),
        )
        .await;
    }
    for direction in ["asc", "desc"] {
        let mut seen: Vec<(String, i64)> = Vec::new();
        for page in 1..=8 {
            let body = app
                .get(
                    &format!(
                        "/v2/admin/extensions/?recordsPerPage=4&page={page}&sortBy=name&sortDirection={direction}"
                    ),
                    &token,
                )
                .await
                .expect(200);
            assert_eq!(body["totalRecords"], 32);
            for record in body["records"].as_array().unwrap() {
                seen.push((
                    record["name"].as_str().unwrap().to_owned(),
                    record["id"].as_i64().unwrap(),
                ));
            }
        }
        assert_eq!(seen.len(), 32, "{direction}: {seen:?}");
        let ids: std::collections::HashSet<i64> = seen.iter().map(|(_, id)| *id).collect();
        assert_eq!(ids.len(), 32, "{direction}: every record once: {seen:?}");
        let ties = seen.iter().filter(|(name, _)| name == "Tie B").count();
        assert_eq!(ties, 10, "ties occur, across pages");
        let mut expected = seen.clone();
        expected.sort();
        if direction == "desc" {
            expected.reverse();
        }
        assert_eq!(seen, expected, "{direction}: by name, ties by id");
    }
}

/// `sortBy=duration` over distinct and equal durations: ordered by duration, equal ones
/// by id, both ways, and paging through the ties keeps every message once.
async fn voicemail_sorts_by_duration_with_ties(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    // Each message's audio plays its duration: the stored duration is the audio's.
    let durations = [30, 5, 12, 5, 30, 1, 5];
    for (i, duration) in durations.iter().enumerate() {
        let message = json!({
            "tenantId": w.tenant_a, "mailboxContext": "default", "mailboxUser": "101",
            "msgId": format!("1700000{i:03}-0000000{i}"), "messageNumber": i, "dir": "INBOX",
            "callerId": "5551234", "dateUnix": 1_700_000_000 + i as i64, "duration": duration,
            "extNum": "101",
        });
        app.push(
            &platform,
            "/v2/ingest/voicemail-messages",
            ("message", message),
            Some(("audio", crate::documents::wav(*duration))),
        )
        .await
        .expect(200);
    }
    let admin = app.login(w.admin_a).await;
    for direction in ["asc", "desc"] {
        let mut seen: Vec<(i64, i64)> = Vec::new();
        for page in 1..=3 {
            let body = app
                .get(
                    &format!(
                        "/v2/admin/voicemail-messages/?sortBy=duration&sortDirection={direction}&recordsPerPage=3&page={page}"
                    ),
                    &admin,
                )
                .await
                .expect(200);
            for record in body["records"].as_array().unwrap() {
                seen.push((
                    record["duration"].as_i64().unwrap(),
                    record["id"].as_i64().unwrap(),
                ));
            }
        }
        let got: Vec<i64> = seen.iter().map(|(d, _)| *d).collect();
        let mut want = durations.to_vec();
        want.sort();
        if direction == "desc" {
            want.reverse();
        }
        assert_eq!(got, want, "{direction}: by duration");
        let mut expected = seen.clone();
        expected.sort();
        if direction == "desc" {
            expected.reverse();
        }
        assert_eq!(seen, expected, "{direction}: equal durations by id");
    }
}

on_both_backends!(
    paging_through_ties_keeps_every_record_once,
    voicemail_sorts_by_duration_with_ties,
    pages_add_up,
    empty_lists_have_max_page_zero,
    sorting_both_ways,
    search_is_case_insensitive_and_literal,
    the_full_list_is_streamed,
    filters_narrow_the_list,
);
