//! The console's phone-number page (issue 34): a number's destination and settings
//! changed through the API (read back over the API, followed by the call flow), a refused
//! form showing every broken field and changing nothing, a branch administrator, another
//! tenant and a form without token refused; and the refresh race: many requests of one
//! session whose access token has expired, sent at once, all answered and the session
//! kept.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::console::Browser;
use crate::fixture::World;
use crate::on_both_backends;
use crate::routing::routed_tenant;
use crate::support::TestApp;

/// The number `id` as the API answers it to `token`.
async fn number(app: &TestApp, token: &str, id: i64) -> Value {
    app.get(&format!("/v2/admin/phone-numbers/{id}"), token)
        .await
        .expect(200)
}

/// A tenant administrator sends a number's calls to the billing menu: the list links the
/// edit page, the API reads the new destination and settings back, the call-flow page
/// follows, and the list says so.
async fn a_numbers_destination_is_changed(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    assert_eq!(browser.sign_in(w.admin_a).await.location(), "/console/");
    let edit = format!("/console/phone-numbers/{}", r.number);
    let list = browser.get("/console/phone-numbers").await;
    assert!(
        list.body.contains(&format!("href=\"{edit}\"")),
        "{}",
        list.body
    );
    let flow = browser.get(&format!("{edit}/flow")).await;
    assert!(
        flow.body.contains(&format!("href=\"{edit}\"")),
        "{}",
        flow.body
    );

    let form = browser.get(&edit).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(
        form.body.contains("Business hours Store hours"),
        "{}",
        form.body
    );
    assert!(
        form.body.contains(&format!(
            "<option value=\"BUSINESS_HOUR:{}\" selected>",
            r.hours
        )),
        "the saved destination is picked"
    );
    // The outside number's label names its picker.
    assert!(
        form.body
            .contains("Calls to this number go to (None: nowhere): outside number"),
        "{}",
        form.body
    );
    let billing = format!("IVR:{}", r.second);
    let saved = browser
        .post(
            &edit,
            &[
                ("csrf", &form.token()),
                ("destination", &billing),
                ("destination-number", ""),
                ("diCommentName", "Billing line"),
                ("registeredCNAM", "RIVERSIDE"),
                ("namePrefix", "BILL"),
                ("storeAndForwardNumber", ""),
                ("recording", "yes"),
                ("faxEmail", ""),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let read = number(&app, &admin, r.number).await;
    assert_eq!(read["destination"]["destType"], "IVR", "{read}");
    assert_eq!(read["destination"]["id"], r.second, "{read}");
    assert_eq!(read["diCommentName"], "Billing line");
    assert_eq!(read["registeredCNAM"], "RIVERSIDE");
    assert_eq!(read["namePrefix"], "BILL");
    assert_eq!(read["recording"], "yes");
    assert_eq!(read["fax"], "no");

    let list = browser.get(saved.location()).await;
    assert!(list.body.contains("The phone number is saved."));
    assert!(list.body.contains("IVR menu 501 Billing"), "{}", list.body);
    let flow = browser.get(&format!("{edit}/flow")).await;
    assert!(
        flow.body.contains("<li>IVR menu Billing (501)"),
        "{}",
        flow.body
    );
    assert!(!flow.body.contains("<li>Business hours"), "{}", flow.body);

    // None picked: the number routes nowhere.
    let cleared = browser
        .post(
            &edit,
            &[
                ("csrf", &form.token()),
                ("destination", ""),
                ("diCommentName", "Spare"),
            ],
        )
        .await;
    assert_eq!(cleared.status, StatusCode::SEE_OTHER, "{}", cleared.body);
    assert_eq!(
        number(&app, &admin, r.number).await["destination"],
        Value::Null
    );
}

/// A form the API refuses shows each broken field next to it, what was typed kept, with
/// the API's status; the number is unchanged.
async fn a_refused_form_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    let before = number(&app, &admin, r.number).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let edit = format!("/console/phone-numbers/{}", r.number);
    let token = browser.get(&edit).await.token();
    let refused = browser
        .post(
            &edit,
            &[
                ("csrf", &token),
                ("destination", "EXTERNAL"),
                ("destination-number", "call me"),
                ("diCommentName", "Kept as typed"),
                ("registeredCNAM", "A NAME FAR TOO LONG FOR CNAM"),
                ("storeAndForwardNumber", "12ab"),
                ("faxEmail", "not an address"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for field in ["registeredCNAM", "storeAndForwardNumber", "faxEmail"] {
        assert!(
            refused.error_next_to(field).is_some(),
            "{field}: {}",
            refused.body
        );
        assert!(
            refused
                .body
                .contains(&format!("id=\"{field}\" name=\"{field}\" value=\"")),
            "{field}"
        );
    }
    assert!(refused.body.contains("value=\"Kept as typed\""));
    assert!(refused.body.contains("value=\"call me\""));
    assert!(refused.body.contains("aria-invalid=\"true\""));
    assert_eq!(number(&app, &admin, r.number).await, before);

    // A destination of nothing the tenant has: named next to the picker.
    let refused = browser
        .post(&edit, &[("csrf", &token), ("destination", "IVR:999999")])
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused.error_next_to("destination").is_some(),
        "{}",
        refused.body
    );
    assert_eq!(number(&app, &admin, r.number).await, before);
}

/// The number's branch, the conduit its calls arrive on and the extension its texts go
/// to are picked among the tenant's own (another tenant's not offered), saved through the
/// API with the rest of the form and read back; picks of another tenant's records are
/// refused next to their fields, changing nothing; "none" clears them.
async fn a_numbers_branch_conduit_and_texts_are_changed(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let ours = app
        .sip_trunk(&platform, w.tenant_a, "Carrier trunk A")
        .await;
    let theirs = app
        .sip_trunk(&platform, w.tenant_b, "Carrier trunk B")
        .await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let edit = format!("/console/phone-numbers/{}", r.number);
    let form = browser.get(&edit).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    for offered in [
        format!("<option value=\"{}\">A annex</option>", w.branch_a2),
        format!("<option value=\"{ours}\">Carrier trunk A (sip-trunk)</option>"),
        format!("<option value=\"{}\">201 Annex A</option>", w.ext_a2),
    ] {
        assert!(form.body.contains(&offered), "{offered}: {}", form.body);
    }
    assert!(!form.body.contains("Carrier trunk B"), "another tenant's");
    for (name, label) in [
        ("branchId", "Branch"),
        ("conduitId", "Arrives on conduit"),
        ("smsExtId", "Texts go to extension"),
    ] {
        assert!(
            form.body
                .contains(&format!("<label for=\"{name}\">{label}</label>")),
            "{name}"
        );
    }
    let hours = format!("BUSINESS_HOUR:{}", r.hours);
    let saved = browser
        .post(
            &edit,
            &[
                ("csrf", &form.token()),
                ("destination", &hours),
                ("branchId", &w.branch_a2.to_string()),
                ("conduitId", &ours.to_string()),
                ("smsExtId", &w.ext_a2.to_string()),
                ("diCommentName", "Main line"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let read = number(&app, &admin, r.number).await;
    assert_eq!(read["branchId"], w.branch_a2, "{read}");
    assert_eq!(read["conduitId"], ours, "{read}");
    assert_eq!(read["smsExtId"], w.ext_a2, "{read}");
    assert_eq!(read["destination"]["destType"], "BUSINESS_HOUR");
    assert_eq!(read["diCommentName"], "Main line");
    let form = browser.get(&edit).await;
    for picked in [
        format!("<option value=\"{}\" selected>", w.branch_a2),
        format!("<option value=\"{ours}\" selected>"),
        format!("<option value=\"{}\" selected>", w.ext_a2),
    ] {
        assert!(form.body.contains(&picked), "{picked}: {}", form.body);
    }

    // Another tenant's branch, conduit and extension: each refused by its field.
    let refused = browser
        .post(
            &edit,
            &[
                ("csrf", &form.token()),
                ("destination", &hours),
                ("branchId", &w.branch_b.to_string()),
                ("conduitId", &theirs.to_string()),
                ("smsExtId", &w.ext_b.to_string()),
                ("diCommentName", "Theirs"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for name in ["branchId", "conduitId", "smsExtId"] {
        assert!(
            refused.error_next_to(name).is_some(),
            "{name}: {}",
            refused.body
        );
    }
    assert!(refused.body.contains("value=\"Theirs\""), "typed text kept");
    assert_eq!(number(&app, &admin, r.number).await, read);

    // None picked: the number has no branch, no conduit, and its texts go nowhere.
    let cleared = browser
        .post(
            &edit,
            &[
                ("csrf", &form.token()),
                ("destination", &hours),
                ("branchId", ""),
                ("conduitId", ""),
                ("smsExtId", ""),
            ],
        )
        .await;
    assert_eq!(cleared.status, StatusCode::SEE_OTHER, "{}", cleared.body);
    let read = number(&app, &admin, r.number).await;
    for name in ["branchId", "conduitId", "smsExtId"] {
        assert_eq!(read[name], 0, "{name}: {read}");
    }
}

/// A branch administrator may read a number of their branch but not change it; another
/// tenant's number is not found; a form without this session's token changes nothing.
async fn who_may_not_change_a_number_is_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let admin = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    app.patch(
        &format!("/v2/admin/phone-numbers/{}", r.number),
        &admin,
        json!({"branchId": w.branch_a}),
    )
    .await
    .expect(200);
    let before = number(&app, &admin, r.number).await;
    let edit = format!("/console/phone-numbers/{}", r.number);
    let billing = format!("IVR:{}", r.second);

    let mut branch = Browser::new(&app.base);
    branch.sign_in(w.branch_admin_a).await;
    let form = branch.get(&edit).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let refused = branch
        .post(&edit, &[("csrf", &form.token()), ("destination", &billing)])
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert_eq!(number(&app, &admin, r.number).await, before);

    let other = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_b, "number": "15550208080"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get(&edit).await.token();
    let elsewhere = format!("/console/phone-numbers/{other}");
    assert_eq!(browser.get(&elsewhere).await.status, StatusCode::NOT_FOUND);
    let refused = browser
        .post(&elsewhere, &[("csrf", &token), ("diCommentName", "Mine")])
        .await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
    assert_eq!(number(&app, &platform, other).await["diCommentName"], "");

    let forged = browser
        .post(
            &edit,
            &[("destination", &billing), ("diCommentName", "Forged")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    let forged = browser
        .post(
            &edit,
            &[
                ("csrf", "00ff"),
                ("destination", &billing),
                ("diCommentName", "Forged"),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    assert_eq!(number(&app, &admin, r.number).await, before);
}

/// The refresh race: access tokens of 31 seconds (kept 1 s by the console); once it has
/// expired, eight requests of the session sent at once — pages and the flow picture, as
/// a page and its image or several tabs do — are all answered, every answer carries the
/// same new session, and the session goes on working (the API did not take the shared
/// refresh token for a stolen one).
async fn concurrent_requests_of_an_expired_session_keep_it(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let short = app
        .start_sibling_with(|config| config.token_ttl_seconds = 31)
        .await;
    let mut browser = Browser::new(&short.base);
    assert_eq!(browser.sign_in(w.admin_a).await.location(), "/console/");
    let first = browser.cookie().map(str::to_owned);
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;

    let paths = [
        format!("/console/phone-numbers/{}", r.number),
        format!("/console/phone-numbers/{}/flow", r.number),
        format!("/console/phone-numbers/{}/flow.svg", r.number),
        "/console/phone-numbers".to_owned(),
        "/console/extensions".to_owned(),
        "/console/".to_owned(),
        format!("/console/phone-numbers/{}/flow.svg", r.number),
        "/console/ivrs".to_owned(),
    ];
    let mut tabs: Vec<Browser> = paths.iter().map(|_| browser.tab()).collect();
    let pages = futures::future::join_all(
        tabs.iter_mut()
            .zip(&paths)
            .map(|(tab, path)| async move { tab.get(path).await }),
    )
    .await;
    for (page, path) in pages.iter().zip(&paths) {
        assert_eq!(page.status, StatusCode::OK, "{path}: {}", page.location());
    }
    let cookies: Vec<Option<&str>> = tabs.iter().map(Browser::cookie).collect();
    assert!(
        cookies.iter().all(|c| *c != first.as_deref()),
        "each was refreshed"
    );
    // The session goes on, in every tab, and after the new access token too.
    for tab in &mut tabs {
        assert_eq!(
            tab.get("/console/phone-numbers").await.status,
            StatusCode::OK
        );
    }
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    for tab in &mut tabs {
        let page = tab.get("/console/extensions").await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.location());
    }
    // The API did not revoke the session: no token reuse in its audit trail.
    assert_eq!(
        app.count("audit_log", Some(("action", "token.reuse")))
            .await,
        0
    );
}

on_both_backends!(
    a_numbers_destination_is_changed,
    a_numbers_branch_conduit_and_texts_are_changed,
    a_refused_form_shows_every_broken_field,
    who_may_not_change_a_number_is_refused,
    concurrent_requests_of_an_expired_session_keep_it,
);
