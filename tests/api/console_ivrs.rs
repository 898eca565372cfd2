//! The console's IVR menu and queue pages (issue 34): a menu built key by key with its
//! timeout and invalid paths and a queue with its members in order, both read back through
//! the API; edits, reorders and deletes; refused forms showing every broken field (a key's
//! next to that key, a member's next to that row) and changing nothing; and the API's
//! roles and tenant scope, and the form token, applied to every change.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::console::{Browser, Page};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Asserts each of `fields` is marked invalid and has its error next to it.
fn assert_broken(page: &Page, fields: &[(&str, &str)]) {
    for (id, error) in fields {
        assert!(
            page.error_next_to(error).is_some(),
            "no error next to {error}: {}",
            page.body
        );
        let tag = page.tag(id);
        assert!(
            tag.contains("aria-invalid=\"true\"") && tag.contains(&format!("{error}-error")),
            "{id} is not marked invalid: {tag}"
        );
    }
}

/// A third extension of tenant A, answering its id.
async fn third_extension(app: &TestApp, admin: &str, w: &World) -> i64 {
    app.create(
        "/v2/admin/extensions/",
        admin,
        json!({"number": "1203", "name": "Third desk", "branchId": w.branch_a}),
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

/// The options of an IVR as `digit → (destType, id, number)`, by key.
fn options_of(ivr: &Value) -> Vec<(String, String, i64, String)> {
    ivr["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let d = &o["destination"];
            (
                o["digit"].as_str().unwrap().to_owned(),
                d["destType"].as_str().unwrap().to_owned(),
                d["id"].as_i64().unwrap(),
                if d["destType"] == "EXTERNAL" {
                    d["number"].as_str().unwrap_or_default().to_owned()
                } else {
                    String::new()
                },
            )
        })
        .collect()
}

fn option(digit: &str, dest_type: &str, id: i64, number: &str) -> (String, String, i64, String) {
    (
        digit.to_owned(),
        dest_type.to_owned(),
        id,
        number.to_owned(),
    )
}

/// A menu is built in the form: a greeting, three keys (an extension, an outside number,
/// a mailbox), a timeout path and an invalid path, direct dial; the API holds exactly that
/// and the list shows it in words.
async fn an_ivr_menu_is_built_key_by_key(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let greeting = app.upload_fixture(&admin, "tone.wav").await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/ivrs/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(
        form.body
            .contains("href=\"/console/ivrs\" aria-current=\"page\"")
    );
    assert!(
        form.body.contains(&format!("value=\"media:{greeting}\"")),
        "the media file is offered as a greeting"
    );
    let token = form.token();
    let (ext, mailbox) = (
        format!("EXT:{}", w.ext_a),
        format!("VOICEMAIL:{}", w.ext_a2),
    );
    let greeting_value = format!("media:{greeting}");
    let timeout = format!("EXT:{}", w.ext_a2);
    let saved = browser
        .post(
            "/console/ivrs",
            &[
                ("csrf", &token),
                ("name", "Main menu"),
                ("number", "7500"),
                ("greeting", &greeting_value),
                ("key-1", &ext),
                ("key-1-number", ""),
                ("key-2", "EXTERNAL"),
                ("key-2-number", "5551234"),
                ("key-hash", &mailbox),
                ("key-3", ""),
                ("timeoutSeconds", "7"),
                ("timeoutDestination", &timeout),
                ("invalidRetries", "2"),
                ("invalidDestination", "HANGUP"),
                ("directDial", "1"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), "/console/ivrs?done=created");
    let listed = app.get("/v2/admin/ivrs/", &admin).await.expect(200);
    assert_eq!(listed["totalRecords"], 1, "{listed}");
    let ivr = &listed["records"][0];
    assert_eq!(ivr["name"], "Main menu");
    assert_eq!(ivr["number"], "7500");
    assert_eq!(ivr["greetingMediaFileId"], greeting);
    assert_eq!(ivr["greetingAnnouncementId"], 0);
    assert_eq!(
        options_of(ivr),
        vec![
            option("1", "EXT", w.ext_a, ""),
            option("2", "EXTERNAL", 0, "5551234"),
            option("#", "VOICEMAIL", w.ext_a2, ""),
        ]
    );
    assert_eq!(ivr["timeoutSeconds"], 7);
    assert_eq!(ivr["timeoutDestination"]["destType"], "EXT");
    assert_eq!(ivr["timeoutDestination"]["id"], w.ext_a2);
    assert_eq!(ivr["invalidRetries"], 2);
    assert_eq!(ivr["invalidDestination"]["destType"], "HANGUP");
    assert_eq!(ivr["directDial"], 1);

    let list = browser.get(saved.location()).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(list.body.contains("The IVR menu is created."));
    assert!(list.body.contains("<td>7500</td><td>Main menu</td>"));
    assert!(
        list.body.contains("<kbd>2</kbd> External number 5551234"),
        "{}",
        list.body
    );
    let search = browser.get("/console/ivrs?query=nothing-like-it").await;
    assert!(
        !search.body.contains("Main menu"),
        "the search is the API's"
    );
}

/// The edit form shows the saved menu (each key's destination picked); a save changes a
/// key, clears one and changes the paths, read back through the API; a delete removes it.
async fn an_ivr_menu_is_edited_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &admin,
            json!({"name": "Old menu", "number": "7600", "options": [
                {"digit": "1", "destination": {"destType": "EXT", "id": w.ext_a}},
                {"digit": "*", "destination": {"destType": "EXT", "id": w.ext_a2}},
            ], "timeoutDestination": {"destType": "EXT", "id": w.ext_a}}),
        )
        .await;
    let id = ivr["id"].as_i64().unwrap();
    let path = format!("/console/ivrs/{id}");
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get(&path).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert_eq!(form.selected("key-1"), format!("EXT:{}", w.ext_a));
    assert_eq!(form.selected("key-star"), format!("EXT:{}", w.ext_a2));
    assert_eq!(form.selected("key-2"), "");
    assert_eq!(
        form.selected("timeoutDestination"),
        format!("EXT:{}", w.ext_a)
    );
    let token = form.token();
    let ext_a2 = format!("EXT:{}", w.ext_a2);
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "New menu"),
                ("number", "7601"),
                ("greeting", ""),
                ("key-1", &ext_a2),
                ("key-star", ""),
                ("timeoutSeconds", "12"),
                ("timeoutDestination", ""),
                ("invalidRetries", "0"),
                ("invalidDestination", &ext_a2),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let stored = app
        .get(&format!("/v2/admin/ivrs/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "New menu");
    assert_eq!(stored["number"], "7601");
    assert_eq!(options_of(&stored), vec![option("1", "EXT", w.ext_a2, "")]);
    assert_eq!(stored["timeoutSeconds"], 12);
    assert_eq!(stored["timeoutDestination"], Value::Null);
    assert_eq!(stored["invalidRetries"], 0);
    assert_eq!(stored["invalidDestination"]["id"], w.ext_a2);
    assert_eq!(stored["directDial"], 0);

    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    assert_eq!(deleted.location(), "/console/ivrs?done=deleted");
    app.get(&format!("/v2/admin/ivrs/{id}"), &admin)
        .await
        .expect(404);
}

/// A refused menu names every broken field next to its input — the name, the number,
/// the timeout, the retries, each broken key next to that key — keeps what was typed,
/// and creates nothing. References of another tenant (a key's, the greeting's, a path's)
/// are named where they were picked; a refused edit changes nothing.
async fn a_refused_ivr_menu_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/ivrs/new").await.token();
    let fine = format!("EXT:{}", w.ext_a);
    let page = browser
        .post(
            "/console/ivrs",
            &[
                ("csrf", token.as_str()),
                ("name", ""),
                ("number", "menu"),
                ("key-1", &fine),
                ("key-4", "EXTERNAL"),
                ("key-4-number", "call me"),
                ("timeoutSeconds", "0"),
                ("invalidRetries", "many"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    assert_broken(
        &page,
        &[
            ("name", "name"),
            ("number", "number"),
            ("timeoutSeconds", "timeoutSeconds"),
            ("invalidRetries", "invalidRetries"),
            ("key-4", "key-4"),
        ],
    );
    assert!(page.error_next_to("key-1").is_none(), "key 1 is fine");
    assert!(
        page.body.contains("value=\"call me\""),
        "the number is kept"
    );
    assert!(page.body.contains("value=\"many\""), "the retries are kept");
    assert_eq!(page.selected("key-1"), fine, "the pick is kept");
    let listed = app.get("/v2/admin/ivrs/", &admin).await.expect(200);
    assert_eq!(listed["totalRecords"], 0, "nothing is created");

    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &admin,
            json!({"name": "Kept", "number": "7700"}),
        )
        .await;
    let foreign = format!("EXT:{}", w.ext_b);
    let page = browser
        .post(
            &format!("/console/ivrs/{}", ivr["id"]),
            &[
                ("csrf", token.as_str()),
                ("name", "Changed"),
                ("number", "7701"),
                ("greeting", "media:999999"),
                ("key-1", &fine),
                ("key-5", &foreign),
                ("timeoutSeconds", "10"),
                ("timeoutDestination", &foreign),
                ("invalidRetries", "3"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    assert_broken(
        &page,
        &[
            ("greeting", "greeting"),
            ("key-5", "key-5"),
            ("timeoutDestination", "timeoutDestination"),
        ],
    );
    assert!(page.error_next_to("key-1").is_none(), "key 1 is fine");
    let stored = app
        .get(&format!("/v2/admin/ivrs/{}", ivr["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored, ivr, "a refused edit changes nothing");
}

/// A queue is built in the form with three members whose positions put them in another
/// order than the rows, penalties, a playlist as hold music and a timeout path; the API
/// holds the members in that order. An edit reorders them and removes one.
async fn a_queue_is_built_and_its_members_reordered(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let third = third_extension(&app, &admin, &w).await;
    let tone = app.upload_fixture(&admin, "tone.wav").await;
    let moh = app.music_on_hold(&admin, "Calm", &[tone]).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/queues/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains(&format!("value=\"moh:{moh}\"")));
    let token = form.token();
    let (a, a2, t) = (w.ext_a.to_string(), w.ext_a2.to_string(), third.to_string());
    let hold = format!("moh:{moh}");
    let voicemail = format!("VOICEMAIL:{}", w.ext_a);
    let saved = browser
        .post(
            "/console/queues",
            &[
                ("csrf", &token),
                ("name", "Support"),
                ("number", "7800"),
                ("strategy", "roundRobin"),
                ("member-0-id", &a),
                ("member-0-order", "3"),
                ("member-0-penalty", "5"),
                ("member-1-id", &a2),
                ("member-1-order", "1"),
                ("member-1-penalty", "0"),
                ("member-2-id", ""),
                ("member-2-order", "4"),
                ("member-3-id", &t),
                ("member-3-order", "2"),
                ("member-3-penalty", "10"),
                ("hold", &hold),
                ("maxWaitSeconds", "90"),
                ("maxCallers", "4"),
                ("announcePosition", "1"),
                ("timeoutDestination", &voicemail),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), "/console/queues?done=created");
    let listed = app.get("/v2/admin/queues/", &admin).await.expect(200);
    assert_eq!(listed["totalRecords"], 1, "{listed}");
    let queue = listed["records"][0].clone();
    let members = |queue: &Value| -> Vec<(i64, i64)> {
        queue["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["id"].as_i64().unwrap(), m["penalty"].as_i64().unwrap()))
            .collect()
    };
    assert_eq!(
        members(&queue),
        vec![(w.ext_a2, 0), (third, 10), (w.ext_a, 5)]
    );
    assert_eq!(queue["strategy"], "roundRobin");
    assert_eq!(queue["musicOnHoldId"], moh);
    assert_eq!(queue["maxWaitSeconds"], 90);
    assert_eq!(queue["maxCallers"], 4);
    assert_eq!(queue["announcePosition"], 1);
    assert_eq!(queue["timeoutDestination"]["destType"], "VOICEMAIL");

    let id = queue["id"].as_i64().unwrap();
    let path = format!("/console/queues/{id}");
    let form = browser.get(&path).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    // The rows are the members in their order, then free rows.
    assert_eq!(form.selected("member-0-id"), a2);
    assert_eq!(form.selected("member-1-id"), t);
    assert_eq!(form.selected("member-2-id"), a);
    assert_eq!(form.selected("member-3-id"), "");
    assert_eq!(form.selected("hold"), hold);
    // The third desk moves first, the first member leaves.
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Support"),
                ("number", "7800"),
                ("strategy", "ringAll"),
                ("member-0-id", ""),
                ("member-0-order", "1"),
                ("member-1-id", &t),
                ("member-1-order", "1"),
                ("member-1-penalty", "10"),
                ("member-2-id", &a),
                ("member-2-order", "2"),
                ("member-2-penalty", "5"),
                ("hold", ""),
                ("maxWaitSeconds", "90"),
                ("maxCallers", "4"),
                ("timeoutDestination", ""),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let stored = app
        .get(&format!("/v2/admin/queues/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(members(&stored), vec![(third, 10), (w.ext_a, 5)]);
    assert_eq!(stored["strategy"], "ringAll");
    assert_eq!(stored["musicOnHoldId"], Value::Null);
    assert_eq!(stored["announcePosition"], 0);
    assert_eq!(stored["timeoutDestination"], Value::Null);
    let list = browser.get(saved.location()).await;
    assert!(list.body.contains("The queue is saved."));
    assert!(
        list.body
            .contains("<ol class=\"members\"><li>1203 Third desk</li>"),
        "{}",
        list.body
    );

    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    app.get(&format!("/v2/admin/queues/{id}"), &admin)
        .await
        .expect(404);
}

/// A refused queue names every broken field — a member's next to its row — keeps what was
/// typed and changes nothing.
async fn a_refused_queue_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let queue = app
        .create(
            "/v2/admin/queues/",
            &admin,
            json!({"name": "Kept", "number": "7900", "members": [{"id": w.ext_a}]}),
        )
        .await;
    let path = format!("/console/queues/{}", queue["id"]);
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get(&path).await.token();
    let (a, a2, b) = (
        w.ext_a.to_string(),
        w.ext_a2.to_string(),
        w.ext_b.to_string(),
    );
    let page = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", ""),
                ("number", "7900"),
                ("strategy", "ringAll"),
                ("member-0-id", &a),
                ("member-0-order", "1"),
                ("member-0-penalty", "0"),
                ("member-1-id", &a2),
                ("member-1-order", "2"),
                ("member-1-penalty", "500"),
                ("member-2-id", ""),
                ("maxWaitSeconds", "-1"),
                ("maxCallers", "lots"),
                ("hold", "media:999999"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    assert_broken(
        &page,
        &[
            ("name", "name"),
            ("maxWaitSeconds", "maxWaitSeconds"),
            ("maxCallers", "maxCallers"),
            ("member-1-id", "member-1"),
            ("member-1-penalty", "member-1"),
            ("hold", "hold"),
        ],
    );
    assert!(page.error_next_to("member-0").is_none(), "member 0 is fine");
    assert!(page.body.contains("value=\"500\""), "the penalty is kept");
    assert!(page.body.contains("value=\"lots\""));
    // Another tenant's extension is named on its row.
    let page = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Kept"),
                ("number", "7900"),
                ("strategy", "ringAll"),
                ("member-0-id", &a),
                ("member-0-order", "1"),
                ("member-1-id", &b),
                ("member-1-order", "2"),
                ("maxWaitSeconds", "300"),
                ("maxCallers", "0"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    assert_broken(&page, &[("member-1-id", "member-1")]);
    assert!(page.error_next_to("member-0").is_none(), "member 0 is fine");
    let stored = app
        .get(&format!("/v2/admin/queues/{}", queue["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored, queue, "a refused edit changes nothing");
}

/// The API's scope and roles decide: a branch administrator sees the menus and queues but
/// may not change them; another tenant's admin finds no such record; a plain user may not
/// list them; a form without the token changes nothing.
async fn roles_scope_and_the_form_token_are_the_apis(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &admin,
            json!({"name": "Front", "number": "7100"}),
        )
        .await;
    let queue = app
        .create(
            "/v2/admin/queues/",
            &admin,
            json!({"name": "Line", "number": "7200"}),
        )
        .await;
    let ivr_path = format!("/console/ivrs/{}", ivr["id"]);
    let queue_path = format!("/console/queues/{}", queue["id"]);
    let change = |token: &str| {
        vec![
            ("csrf".to_owned(), token.to_owned()),
            ("name".to_owned(), "Taken".to_owned()),
            ("number".to_owned(), "7300".to_owned()),
            ("timeoutSeconds".to_owned(), "10".to_owned()),
            ("invalidRetries".to_owned(), "3".to_owned()),
            ("strategy".to_owned(), "ringAll".to_owned()),
            ("maxWaitSeconds".to_owned(), "300".to_owned()),
            ("maxCallers".to_owned(), "0".to_owned()),
        ]
    };
    async fn post(browser: &mut Browser, path: &str, fields: &[(String, String)]) -> Page {
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        browser.post(path, &fields).await
    }

    // A branch administrator reads but may not change.
    let mut branch = Browser::new(&app.base);
    branch.sign_in(w.branch_admin_a).await;
    let list = branch.get("/console/ivrs").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(list.body.contains("Front"));
    let list = branch.get("/console/queues").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(list.body.contains("Line"));
    let token = branch.get(&ivr_path).await.token();
    for path in [&ivr_path, &queue_path] {
        let refused = post(&mut branch, path, &change(&token)).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
        let refused = post(&mut branch, &format!("{path}/delete"), &change(&token)).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    }
    let created = post(&mut branch, "/console/ivrs", &change(&token)).await;
    assert_eq!(created.status, StatusCode::FORBIDDEN, "{}", created.body);
    let created = post(&mut branch, "/console/queues", &change(&token)).await;
    assert_eq!(created.status, StatusCode::FORBIDDEN, "{}", created.body);

    // Another tenant's admin finds no such record.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    let token_b = other.get("/console/ivrs/new").await.token();
    for path in [&ivr_path, &queue_path] {
        assert_eq!(other.get(path).await.status, StatusCode::NOT_FOUND);
        let refused = post(&mut other, path, &change(&token_b)).await;
        assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
        let refused = post(&mut other, &format!("{path}/delete"), &change(&token_b)).await;
        assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
    }
    let list = other.get("/console/ivrs").await;
    assert!(!list.body.contains("Front"), "{}", list.body);

    // A plain user may not list them.
    let mut user = Browser::new(&app.base);
    user.sign_in(w.user_a).await;
    assert_eq!(
        user.get("/console/ivrs").await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        user.get("/console/queues").await.status,
        StatusCode::FORBIDDEN
    );

    // The admin's own form without its token, or with another session's, is refused.
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    for path in [&ivr_path, &queue_path] {
        let mut fields = change("");
        fields.remove(0);
        let refused = post(&mut browser, path, &fields).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
        let refused = post(&mut browser, path, &change(&token_b)).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
        let refused = post(&mut browser, &format!("{path}/delete"), &fields).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    }
    assert_eq!(
        app.get(&format!("/v2/admin/ivrs/{}", ivr["id"]), &admin)
            .await
            .expect(200),
        ivr
    );
    assert_eq!(
        app.get(&format!("/v2/admin/queues/{}", queue["id"]), &admin)
            .await
            .expect(200),
        queue
    );
}

/// A menu something routes to is not deleted: the API's refusal names the user.
async fn a_menu_in_use_is_not_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &admin,
            json!({"name": "Busy menu", "number": "7400"}),
        )
        .await;
    app.create(
        "/v2/admin/queues/",
        &admin,
        json!({"name": "Overflow", "number": "7401",
            "timeoutDestination": {"destType": "IVR", "id": ivr["id"]}}),
    )
    .await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let path = format!("/console/ivrs/{}", ivr["id"]);
    let token = browser.get(&path).await.token();
    let refused = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    assert!(refused.body.contains("The change was refused"));
    app.get(&format!("/v2/admin/ivrs/{}", ivr["id"]), &admin)
        .await
        .expect(200);
}

on_both_backends!(
    an_ivr_menu_is_built_key_by_key,
    an_ivr_menu_is_edited_and_deleted,
    a_refused_ivr_menu_shows_every_broken_field,
    a_queue_is_built_and_its_members_reordered,
    a_refused_queue_shows_every_broken_field,
    roles_scope_and_the_form_token_are_the_apis,
    a_menu_in_use_is_not_deleted,
);
