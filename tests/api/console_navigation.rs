//! The console's side bar (issue 34) offers only what the signed-in person may open: for
//! each role the API has, the entries shown are exactly those whose page answers 200 to
//! that person, decided by the API's own permissions — a permission granted to one user
//! beyond their role shows its page at once, with no new sign-in.

use reqwest::StatusCode;
use serde_json::json;

use crate::console::Browser;
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// The paths the side bar of `body` links, in order.
fn side_bar(body: &str) -> Vec<String> {
    let start = body
        .find("<nav class=\"side\"")
        .unwrap_or_else(|| panic!("no side bar: {body}"));
    let nav = &body[start..start + body[start..].find("</nav>").expect("the nav's end")];
    nav.split("<a href=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default().to_owned())
        .collect()
}

/// A browser signed in as `email`, acting on `tenant` when the person picks one.
async fn signed_in(app: &TestApp, email: &str, tenant: Option<i64>) -> Browser {
    let mut browser = Browser::new(&app.base);
    browser.sign_in(email).await;
    if let Some(tenant) = tenant {
        let token = browser.get("/console/tenants").await.token();
        let picked = browser
            .post(
                "/console/tenants",
                &[("csrf", &token), ("tenantId", &tenant.to_string())],
            )
            .await;
        assert_eq!(picked.location(), "/console/", "{}", picked.body);
    }
    browser
}

/// Walks every entry of `all` as `browser`'s person: each is in the side bar exactly
/// when its page answers 200; answers the entries shown.
async fn walk(browser: &mut Browser, who: &str, all: &[String]) -> Vec<String> {
    let home = browser.get("/console/").await;
    assert_eq!(home.status, StatusCode::OK, "{who}: {}", home.body);
    let shown = side_bar(&home.body);
    for path in all {
        let page = browser.get(path).await;
        let opens = page.status == StatusCode::OK;
        assert_eq!(
            shown.contains(path),
            opens,
            "{who}: {path} answers {} yet is {}in the side bar",
            page.status,
            if opens { "not " } else { "" }
        );
        if opens {
            // Every page's side bar is the same, this one's entry marked.
            assert_eq!(side_bar(&page.body), shown, "{who} on {path}");
        }
    }
    shown
}

/// Per role (platform and partner administrators acting on tenant A, its tenant and
/// branch administrators, a user), the side bar's entries are exactly the pages that
/// open; lower roles see fewer; a permission granted to the user shows its page.
async fn the_side_bar_offers_exactly_the_pages_that_open(app: TestApp) {
    let w = World::seed(&app).await;
    let mut platform = signed_in(&app, w.platform, Some(w.tenant_a)).await;
    // The whole navigation: what the platform administrator, holding every permission,
    // is offered.
    let all = side_bar(&platform.get("/console/").await.body);
    assert!(all.len() >= 20, "{all:?}");
    assert!(all.contains(&"/console/tenants".to_owned()));
    let everything = walk(&mut platform, w.platform, &all).await;
    assert_eq!(everything, all);

    let mut shown = Vec::new();
    for (email, tenant) in [
        (w.partner_admin_a, Some(w.tenant_a)),
        (w.admin_a, None),
        (w.branch_admin_a, None),
        (w.user_a, None),
    ] {
        let mut browser = signed_in(&app, email, tenant).await;
        shown.push(walk(&mut browser, email, &all).await);
    }
    let [partner, admin, branch, user] = &shown[..] else {
        unreachable!()
    };
    // The tenant picker only for those who pick a tenant.
    assert!(partner.contains(&"/console/tenants".to_owned()));
    assert!(!admin.contains(&"/console/tenants".to_owned()));
    // Each lower role is offered a part of what the one above is.
    for (lower, higher) in [(branch, admin), (user, branch)] {
        assert!(lower.len() < higher.len(), "{lower:?} / {higher:?}");
        assert!(lower.iter().all(|p| higher.contains(p)), "{lower:?}");
    }
    assert!(!branch.contains(&"/console/campaigns".to_owned()));
    assert!(!user.contains(&"/console/phone-numbers".to_owned()));
    assert!(!user.contains(&"/console/audit".to_owned()));
    assert!(user.contains(&"/console/voicemail".to_owned()));

    // The audit log granted to the user beyond their role: offered (and opening) on the
    // next page, without signing in again — the side bar follows the API's permissions.
    let mut browser = signed_in(&app, w.user_a, None).await;
    let admin_token = app.login(w.admin_a).await;
    let found = app
        .get(
            &format!("/v2/admin/users/?query={}", w.user_a),
            &admin_token,
        )
        .await
        .expect(200);
    let id = found["records"][0]["id"].as_i64().expect("user A's id");
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &admin_token,
        json!({"permissions": ["audit-log:read"]}),
    )
    .await
    .expect(200);
    let granted = walk(&mut browser, w.user_a, &all).await;
    assert!(
        granted.contains(&"/console/audit".to_owned()),
        "{granted:?}"
    );
    assert_eq!(granted.len(), user.len() + 1);
}

on_both_backends!(the_side_bar_offers_exactly_the_pages_that_open);
