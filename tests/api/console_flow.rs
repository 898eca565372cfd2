//! The console's call-flow page (issue 34): where a call to a number goes at a moment
//! picked in the tenant's time zone, as a picture drawn on the server and in words, with
//! the graph's scope (another tenant's number is not found) and a wrong moment named
//! next to its picker.

use reqwest::StatusCode;
use serde_json::json;

use crate::console::{Browser, Page};
use crate::fixture::World;
use crate::on_both_backends;
use crate::routing::routed_tenant;
use crate::support::TestApp;

/// The steps of the path the page lists (`data-testid="flow-path"`), in order.
fn path_steps(page: &Page) -> Vec<String> {
    let start = page
        .body
        .find("data-testid=\"flow-path\"")
        .expect("the path on the page");
    let section = &page.body[start..];
    let section = &section[..section.find("</section>").expect("the path's end")];
    section
        .split("<li>")
        .skip(1)
        .map(|item| item.split("</li>").next().unwrap_or_default().to_owned())
        .collect()
}

/// The tenant reads moments in New York: on Christmas Eve at 06:00 there (12:00 in
/// Berlin, where the store's hours are kept) the main menu answers; on Christmas Day at
/// 07:00 the holiday sends the call to voicemail. The picture changes with the moment.
async fn the_flow_shows_the_path_at_the_moment_picked(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let platform = app.login(w.platform).await;
    app.patch(
        &format!("/v2/admin/tenants/{}", w.tenant_a),
        &platform,
        json!({"timezone": "America/New_York"}),
    )
    .await
    .expect(200);
    let mut browser = Browser::new(&app.base);
    assert_eq!(browser.sign_in(w.admin_a).await.location(), "/console/");
    let flow = format!("/console/phone-numbers/{}/flow", r.number);
    let numbers = browser.get("/console/phone-numbers").await;
    assert!(
        numbers.body.contains(&format!("href=\"{flow}\"")),
        "{}",
        numbers.body
    );

    let open = browser.get(&format!("{flow}?at=2026-12-24T06%3A00")).await;
    assert_eq!(open.status, StatusCode::OK, "{}", open.body);
    assert!(open.body.contains("America/New_York"), "{}", open.body);
    assert!(open.body.contains("value=\"2026-12-24T06:00\""));
    let steps = path_steps(&open);
    assert!(steps[0].starts_with("Phone number"), "{steps:?}");
    assert!(
        steps[1].starts_with("Business hours Store hours"),
        "{steps:?}"
    );
    // Open: the hours lead to the menu (and on to what its keys reach).
    assert!(steps[2].starts_with("IVR menu Main"), "{steps:?}");
    assert!(
        steps.iter().any(|s| s.starts_with("Queue Support")),
        "{steps:?}"
    );

    let closed = browser.get(&format!("{flow}?at=2026-12-25T07%3A00")).await;
    let steps = path_steps(&closed);
    // The holiday: straight to the mailbox, nothing else.
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(
        steps[2].starts_with("Voicemail of Front desk A"),
        "{steps:?}"
    );

    // The picture: an SVG image with a policy of its own, naming the records, its
    // highlighted path following the moment.
    let picture = |at: &str| format!("{flow}.svg?at={at}");
    let open_svg = browser.get(&picture("2026-12-24T06%3A00")).await;
    assert_eq!(open_svg.status, StatusCode::OK);
    assert_eq!(open_svg.headers["content-type"], "image/svg+xml");
    assert_eq!(
        open_svg.headers["content-security-policy"],
        "default-src 'none'; style-src 'unsafe-inline'"
    );
    assert!(open_svg.body.contains("<svg"), "{}", open_svg.body);
    assert!(open_svg.body.contains("Support"), "the queue is drawn");
    let closed_svg = browser.get(&picture("2026-12-25T07%3A00")).await;
    assert_eq!(closed_svg.status, StatusCode::OK);
    assert_ne!(
        open_svg.body, closed_svg.body,
        "the highlighted path follows the moment"
    );
}

/// A moment that is no date, or that does not exist in the tenant's zone, is named next
/// to the picker, and the flow is shown for now.
async fn a_wrong_moment_is_named_next_to_its_picker(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let page = browser
        .get(&format!(
            "/console/phone-numbers/{}/flow?at=next+tuesday",
            r.number
        ))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("aria-invalid=\"true\""), "{}", page.body);
    assert!(
        page.body.contains("must be a date and time"),
        "{}",
        page.body
    );
    assert!(
        !path_steps(&page).is_empty(),
        "the flow of now is still shown"
    );
}

/// Another tenant's number is not found, as a page and as a picture; nobody signed in is
/// sent to sign in.
async fn another_tenants_flow_is_not_found(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let flow = format!("/console/phone-numbers/{}/flow", r.number);
    let mut stranger = Browser::new(&app.base);
    assert_eq!(stranger.get(&flow).await.location(), "/console/sign-in");
    assert_eq!(
        stranger.get(&format!("{flow}.svg")).await.location(),
        "/console/sign-in"
    );
    stranger.sign_in(w.admin_b).await;
    let page = stranger.get(&flow).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.body.contains("Support"), "{}", page.body);
    let picture = stranger.get(&format!("{flow}.svg")).await;
    assert_eq!(picture.status, StatusCode::NOT_FOUND);
    assert!(!picture.body.contains("<svg"));
}

on_both_backends!(
    the_flow_shows_the_path_at_the_moment_picked,
    a_wrong_moment_is_named_next_to_its_picker,
    another_tenants_flow_is_not_found,
);
