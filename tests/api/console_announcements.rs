//! The console's announcements: one made with its recording, dates, branch and IVR menus,
//! read back through the API, edited (a menu taken off, the end moved, paused) and
//! deleted; a refused form showing every broken field next to it and saving nothing; a
//! branch administrator's own, in their branch; and a person without the permission,
//! another tenant's announcement and a forged form refused.

use reqwest::StatusCode;
use serde_json::json;

use crate::console::{Browser, Page};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// An IVR menu of the caller's tenant, its id.
async fn menu(app: &TestApp, token: &str, number: &str, name: &str) -> i64 {
    app.create(
        "/v2/admin/ivrs/",
        token,
        json!({"number": number, "name": name}),
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

/// Whether the checkbox `id` is ticked.
fn ticked(page: &Page, id: &str) -> bool {
    page.tag(id).contains(" checked")
}

async fn an_announcement_is_made_edited_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let closed = app
        .upload_fixture_named(&admin, "tone.wav", "We are closed")
        .await;
    let main = menu(&app, &admin, "500", "Main menu").await;
    let after_hours = menu(&app, &admin, "510", "After hours").await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;

    let list = browser.get("/console/announcements").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body
            .contains("<a href=\"/console/announcements\" aria-current=\"page\">Announcements</a>"),
        "the side bar names the page: {}",
        list.body
    );
    let form = browser.get("/console/announcements/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains("We are closed"), "{}", form.body);
    assert!(form.body.contains("500 Main menu") && form.body.contains("510 After hours"));
    assert!(ticked(&form, "active"), "a new one is active");
    let token = form.token();
    let (main_box, after_box) = (format!("ivr-{main}"), format!("ivr-{after_hours}"));
    let created = browser
        .post(
            "/console/announcements",
            &[
                ("csrf", &token),
                ("name", "Holiday closure"),
                ("description", "Shut for the holidays"),
                ("mediaFileId", &closed.to_string()),
                ("startDate", "2026-12-24"),
                ("endDate", "2026-12-27"),
                ("branchId", &w.branch_a.to_string()),
                ("active", "1"),
                (&after_box, "on"),
                (&main_box, "on"),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    assert_eq!(created.location(), "/console/announcements?done=created");
    let made = app.records("/v2/admin/announcements/", &admin).await;
    assert_eq!(made.len(), 1, "{made:?}");
    let made = &made[0];
    assert_eq!(made["name"], "Holiday closure");
    assert_eq!(made["description"], "Shut for the holidays");
    assert_eq!(made["mediaFile"]["id"], closed);
    assert_eq!(made["active"], 1);
    assert_eq!(
        (&made["startDate"], &made["endDate"]),
        (&json!("2026-12-24"), &json!("2026-12-27"))
    );
    assert_eq!(made["branch"]["id"], w.branch_a);
    let menus: Vec<i64> = made["ivrs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ivr| ivr["id"].as_i64().unwrap())
        .collect();
    assert_eq!(menus, [main, after_hours], "in the menus' order");
    let entry = app.newest_audit_entry("announcement", &admin).await;
    assert_eq!(
        entry["userEmail"], w.admin_a,
        "audited as the person: {entry}"
    );

    let list = browser.get(created.location()).await;
    assert!(list.body.contains("The announcement is created."));
    assert!(
        list.body.contains(
            "<td>Holiday closure</td><td>We are closed</td><td>2026-12-24</td><td>2026-12-27</td>"
        ),
        "{}",
        list.body
    );
    assert!(
        list.body.contains("Main menu, After hours"),
        "{}",
        list.body
    );

    let id = made["id"].as_i64().unwrap();
    let path = format!("/console/announcements/{id}");
    let edit = browser.get(&path).await;
    assert_eq!(edit.status, StatusCode::OK, "{}", edit.body);
    assert_eq!(edit.selected("mediaFileId"), closed.to_string());
    assert_eq!(edit.selected("branchId"), w.branch_a.to_string());
    assert!(ticked(&edit, &main_box) && ticked(&edit, &after_box));
    assert!(edit.body.contains("value=\"2026-12-27\""));
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Holiday closure"),
                ("description", ""),
                ("mediaFileId", &closed.to_string()),
                ("startDate", "2026-12-24"),
                ("endDate", "2026-12-28T17:00:00-05:00"),
                ("branchId", &w.branch_a.to_string()),
                (&after_box, "on"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), "/console/announcements?done=updated");
    let changed = app
        .get(&format!("/v2/admin/announcements/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(changed["endDate"], "2026-12-28T22:00:00Z", "as UTC");
    assert_eq!(changed["active"], 0, "unticked: paused");
    assert_eq!(changed["description"], "", "cleared");
    assert_eq!(changed["ivrs"].as_array().unwrap().len(), 1, "{changed}");
    assert_eq!(changed["ivrs"][0]["id"], after_hours);

    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    assert_eq!(deleted.location(), "/console/announcements?done=deleted");
    app.get(&format!("/v2/admin/announcements/{id}"), &admin)
        .await
        .error(404, "NotFound");
}

async fn a_refused_announcement_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let closed = app.upload_fixture(&admin, "tone.wav").await.to_string();
    let main = menu(&app, &admin, "500", "Main menu").await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/announcements/new").await.token();
    let main_box = format!("ivr-{main}");
    let refused = browser
        .post(
            "/console/announcements",
            &[
                ("csrf", &token),
                ("name", "Storm"),
                ("description", "Closed for the storm"),
                ("startDate", "24/12/2026"),
                ("endDate", "2026-12-27"),
                ("active", "1"),
                (&main_box, "on"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused.body.contains("The announcement was not saved"),
        "{}",
        refused.body
    );
    for field in ["mediaFileId", "startDate", "branchId"] {
        assert!(
            refused.error_next_to(field).is_some(),
            "no error next to {field}: {}",
            refused.body
        );
        assert!(refused.marked_invalid(field), "{field} is not marked");
    }
    let message = refused.error_next_to("startDate").unwrap_or_default();
    assert!(
        message.contains("ISO 8601"),
        "in the API's words: {message}"
    );
    assert!(refused.error_next_to("name").is_none(), "the name is fine");
    // What was typed is kept.
    assert!(refused.body.contains("value=\"24/12/2026\""));
    assert!(refused.body.contains(">Closed for the storm</textarea>"));
    assert!(ticked(&refused, &main_box));
    assert!(
        app.records("/v2/admin/announcements/", &admin)
            .await
            .is_empty(),
        "nothing saved"
    );

    // The record's own rule across its fields: the end after the start.
    let refused = browser
        .post(
            "/console/announcements",
            &[
                ("csrf", &token),
                ("name", "Storm"),
                ("mediaFileId", &closed),
                ("branchId", &w.branch_a.to_string()),
                ("startDate", "2026-12-24"),
                ("endDate", "2026-12-20"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    let message = refused.error_next_to("endDate").unwrap_or_default();
    assert!(message.contains("must be after startDate"), "{message}");
    assert!(refused.marked_invalid("endDate"));
    assert_eq!(refused.selected("mediaFileId"), closed, "the pick is kept");
    assert!(
        app.records("/v2/admin/announcements/", &admin)
            .await
            .is_empty(),
        "nothing saved"
    );
}

async fn a_branch_administrator_announces_in_their_branch(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let closed = app
        .upload_fixture_named(&admin, "tone.wav", "We are closed")
        .await;
    let mut branch = Browser::new(&app.base);
    branch.sign_in(w.branch_admin_a).await;
    let form = branch.get("/console/announcements/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let created = branch
        .post(
            "/console/announcements",
            &[
                ("csrf", &form.token()),
                ("name", "Branch closed"),
                ("mediaFileId", &closed.to_string()),
                ("startDate", "2026-12-24"),
                ("endDate", "2026-12-25"),
                ("active", "1"),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    let made = app.records("/v2/admin/announcements/", &admin).await;
    assert_eq!(made.len(), 1, "{made:?}");
    assert_eq!(made[0]["branch"]["id"], w.branch_a, "their own branch");
}

async fn others_and_forged_forms_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin_b = app.login(w.admin_b).await;
    let theirs = app.upload_fixture(&admin_b, "tone.wav").await;
    let branches = app
        .get("/v2/admin/branches/?paginated=0", &admin_b)
        .await
        .expect(200);
    let theirs = app
        .create(
            "/v2/admin/announcements/",
            &admin_b,
            json!({"name": "B's", "mediaFileId": theirs, "startDate": "2026-12-24",
                   "endDate": "2026-12-25", "branchId": branches["records"][0]["id"]}),
        )
        .await;
    let theirs_path = format!("/console/announcements/{}", theirs["id"]);

    // A person without the permission is told so, and has no link to the page.
    let mut user = Browser::new(&app.base);
    user.sign_in(w.user_a).await;
    let today = user.get("/console/").await;
    assert!(
        !today.body.contains("/console/announcements"),
        "{}",
        today.body
    );
    let refused = user.get("/console/announcements").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);

    // Another tenant's announcement is no page of tenant A's administrator.
    let mut admin = Browser::new(&app.base);
    admin.sign_in(w.admin_a).await;
    let token = admin.get("/console/announcements/new").await.token();
    let other = admin.get(&theirs_path).await;
    assert_eq!(other.status, StatusCode::NOT_FOUND, "{}", other.body);
    let other = admin
        .post(&format!("{theirs_path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND, "{}", other.body);

    // A form without its token changes nothing: a create, a change, a delete.
    let ours = app.login(w.admin_a).await;
    let ours = app
        .create(
            "/v2/admin/announcements/",
            &ours,
            json!({"name": "Ours", "mediaFileId": app.upload_fixture(&ours, "tone.wav").await,
                   "startDate": "2026-12-24", "endDate": "2026-12-25", "branchId": w.branch_a}),
        )
        .await;
    let ours_path = format!("/console/announcements/{}", ours["id"]);
    let forged_form = [
        ("csrf", "forged"),
        ("name", "Forged"),
        ("startDate", "2026-12-24"),
    ];
    for (path, fields) in [
        ("/console/announcements".to_owned(), &forged_form[..]),
        (ours_path.clone(), &forged_form[..]),
        (format!("{ours_path}/delete"), &forged_form[..1]),
    ] {
        let forged = admin.post(&path, fields).await;
        assert_eq!(
            forged.status,
            StatusCode::FORBIDDEN,
            "{path}: {}",
            forged.body
        );
    }
    let kept = app.login(w.admin_a).await;
    let listed = app.records("/v2/admin/announcements/", &kept).await;
    assert_eq!(listed.len(), 1, "nothing made: {listed:?}");
    assert_eq!(listed[0]["name"], "Ours", "nothing changed or deleted");
    app.get(
        &format!("/v2/admin/announcements/{}", theirs["id"]),
        &admin_b,
    )
    .await
    .expect(200);
}

on_both_backends!(
    an_announcement_is_made_edited_and_deleted,
    a_refused_announcement_shows_every_broken_field,
    a_branch_administrator_announces_in_their_branch,
    others_and_forged_forms_are_refused,
);
