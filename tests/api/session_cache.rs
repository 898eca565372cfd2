//! The verified-session cache (issue 17): an authenticated request checks its account and
//! session from memory, yet a logout, a disabled account or a changed role still takes
//! effect on the next request in the same process, and in another process on the same
//! PostgreSQL database within [`BOUND`] (its listener hears the change's notification).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Backend, PASSWORD, TestApp};

/// The promised bound on another process serving a changed account (docs/decisions.md,
/// "Session cache"); measured in milliseconds, far below.
const BOUND: Duration = Duration::from_millis(1000);

/// Polls `GET /v2/admin/extensions/` on `base` with `token` until it answers `status`,
/// answering how long that took (or failing past twice the bound).
async fn until_status(app: &TestApp, base: &str, token: &str, status: u16) -> Duration {
    until_status_of(app, base, "/v2/admin/extensions/", token, status).await
}

/// Polls `GET path` on `base` with `token` until it answers `status`, answering how long
/// that took (or failing past twice the bound).
async fn until_status_of(
    app: &TestApp,
    base: &str,
    path: &str,
    token: &str,
    status: u16,
) -> Duration {
    let start = Instant::now();
    loop {
        let answer = app
            .client
            .get(format!("{base}{path}"))
            .bearer_auth(token)
            .send()
            .await
            .expect("the server answers");
        if answer.status().as_u16() == status {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < BOUND * 2,
            "still {} after {:?}",
            answer.status(),
            start.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Two processes on one PostgreSQL database: a session checked (and cached) by the
/// second one stops working there within the bound when the first one logs it out,
/// disables its account or changes its role.
async fn changes_reach_another_process_within_the_bound() {
    let app = TestApp::start(Backend::Postgres).await.unwrap();
    let sibling = app.start_sibling().await;
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let mut measured = Vec::new();

    // A logout on the first process.
    let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    let access = login["accessToken"].as_str().unwrap();
    until_status(&app, &sibling.base, access, 200).await;
    assert!(
        !sibling.state.db.sessions().is_empty(),
        "the second process cached the session"
    );
    app.call(
        reqwest::Method::POST,
        "/v2/authentication/logout",
        None,
        Some(json!({"refreshToken": login["refreshToken"]})),
    )
    .await
    .expect(200);
    measured.push((
        "logout",
        until_status(&app, &sibling.base, access, 401).await,
    ));

    // The account disabled by an administrator on the first process.
    let login = app.login_answer(w.admin_b, PASSWORD).await.expect(200);
    let access = login["accessToken"].as_str().unwrap();
    let id = login["user"]["id"].as_i64().unwrap();
    until_status(&app, &sibling.base, access, 200).await;
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &platform,
        json!({"disabled": 1}),
    )
    .await
    .expect(200);
    measured.push((
        "disable",
        until_status(&app, &sibling.base, access, 401).await,
    ));

    // A role lowered: a tenant administrator made the administrator of one branch no
    // longer reaches the other branch's extension.
    let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    let access = login["accessToken"].as_str().unwrap();
    let id = login["user"]["id"].as_i64().unwrap();
    let annex = format!("/v2/admin/extensions/{}", w.ext_a2);
    until_status_of(&app, &sibling.base, &annex, access, 200).await;
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &platform,
        json!({"userRole": 4, "branchId": w.branch_a}),
    )
    .await
    .expect(200);
    let after = until_status_of(&app, &sibling.base, &annex, access, 404).await;
    measured.push(("role change", after));
    for (what, took) in &measured {
        eprintln!("{what}: the other process refused the token after {took:?}");
        assert!(*took < BOUND, "{what} took {took:?}");
    }
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; changes_reach_another_process_within_the_bound);

/// On one process, every change takes effect on the very next request even though the
/// session was just served from the cache: a role lowered (a narrower scope), the account
/// disabled
/// (401).
async fn changes_take_effect_on_the_next_request_of_the_same_process(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    let access = login["accessToken"].as_str().unwrap();
    let id = login["user"]["id"].as_i64().unwrap();
    for _ in 0..3 {
        app.get(&format!("/v2/admin/extensions/{}", w.ext_a2), access)
            .await
            .expect(200);
    }
    assert!(!app.state.db.sessions().is_empty(), "the session is cached");
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &platform,
        json!({"userRole": 4, "branchId": w.branch_a}),
    )
    .await
    .expect(200);
    // A branch administrator of the first branch no longer reaches the annex's extension.
    app.get(&format!("/v2/admin/extensions/{}", w.ext_a2), access)
        .await
        .error(404, "NotFound");
    app.get(&format!("/v2/admin/extensions/{}", w.ext_a), access)
        .await
        .expect(200);
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &platform,
        json!({"disabled": 1}),
    )
    .await
    .expect(200);
    app.get("/v2/admin/extensions/", access)
        .await
        .error(401, "Unauthorized");
}

on_both_backends!(changes_take_effect_on_the_next_request_of_the_same_process);
