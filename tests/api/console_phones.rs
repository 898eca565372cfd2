//! The console's phones and button layouts (issue 34): a phone added by MAC in any
//! notation with its model and lines (read back through the API), its provisioning
//! password shown once and working, rotated (the old one stops working), its registration
//! shown; a refused form naming every broken field and changing nothing; a button layout
//! edited in its grid of keys, a refused one naming every broken key in its cell; a branch
//! administrator kept to the API's scope, another tenant's phone no page, a form without
//! token refused.

use reqwest::StatusCode;
use serde_json::json;

use crate::console::Browser;
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// Fetches the phone's configuration file with Basic credentials: its status.
async fn fetch(app: &TestApp, url: &str, user: &str, password: &str) -> StatusCode {
    app.client
        .get(url)
        .basic_auth(user, Some(password))
        .send()
        .await
        .unwrap()
        .status()
}

/// A phone added with a MAC in hyphen notation is stored normalised with its model and
/// lines in order; its password is shown once and opens its file; rotating shows a new
/// one that works while the old one stops; the registration the engine reports is shown.
async fn a_phone_is_added_by_any_mac_and_its_password_rotated(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/phones/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains("<option value=\"yealink-t54w\""));
    assert!(
        form.body
            .contains("<option value=\"101 — Front desk A\"></option>"),
        "{}",
        form.body
    );
    let token = form.token();
    let added = browser
        .post(
            "/console/phones",
            &[
                ("csrf", &token),
                ("name", "Counter phone"),
                ("mac", "AA-BB-CC-DD-EE-0F"),
                ("model", "yealink-t54w"),
                ("line1", "201"),
                ("line2", ""),
                ("line3", "101 — Front desk A"),
                ("branchId", &w.branch_a.to_string()),
                ("buttonLayoutId", ""),
                ("description", "By the till"),
            ],
        )
        .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.body);
    let stored = app.records("/v2/admin/devices/", &admin).await;
    assert_eq!(stored.len(), 1);
    let device = &stored[0];
    assert_eq!(device["mac"], "aa:bb:cc:dd:ee:0f");
    assert_eq!(device["model"], "yealink-t54w");
    assert_eq!(device["branchId"], w.branch_a);
    assert_eq!(device["description"], "By the till");
    let lines: Vec<i64> = device["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, [w.ext_a2, w.ext_a], "in order, the gap closed");
    let id = device["id"].as_i64().unwrap();
    let user = added.test_id("provisioning-username").to_owned();
    let first = added.test_id("provisioning-password").to_owned();
    let url = added.test_id("provisioning-url").to_owned();
    assert_eq!(user, device["provisioningUsername"].as_str().unwrap());
    assert_eq!(url, format!("{}/provisioning/aabbccddee0f.cfg", app.base));
    assert!(first.len() >= 20, "{first}");
    assert_eq!(fetch(&app, &url, &user, &first).await, StatusCode::OK);

    // The phone's page: its provisioning address and user name, never its password.
    let path = format!("/console/phones/{id}");
    let page = browser.get(&path).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_eq!(page.test_id("provisioning-url"), url);
    assert_eq!(page.test_id("provisioning-username"), user);
    assert!(!page.body.contains(&first));
    assert_eq!(page.test_id("last-registered"), "never");
    let fetched = page.test_id("last-fetched");
    assert!(
        fetched.ends_with(" UTC") && fetched != "never",
        "the fetch above: {fetched}"
    );

    let rotated = browser
        .post(&format!("{path}/password"), &[("csrf", &token)])
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.body);
    let second = rotated.test_id("provisioning-password").to_owned();
    assert_ne!(second, first);
    assert_eq!(rotated.test_id("provisioning-url"), url);
    assert_eq!(fetch(&app, &url, &user, &second).await, StatusCode::OK);
    assert_eq!(
        fetch(&app, &url, &user, &first).await,
        StatusCode::UNAUTHORIZED,
        "the old password stops working"
    );

    // The registration the engine reports shows in the list and on the phone's page.
    let platform = app.login(w.platform).await;
    app.post(
        "/v2/ingest/device-registrations",
        &platform,
        json!({"mac": "aabb.ccdd.ee0f", "registered": true, "ipAddress": "192.0.2.10",
               "at": "2026-11-24T08:00:00Z"}),
    )
    .await
    .expect(200);
    let list = browser.get("/console/phones?registered=1").await;
    assert!(
        list.body
            .contains("href=\"/console/phones\" aria-current=\"page\"")
    );
    assert!(
        list.body.contains("<code>aa:bb:cc:dd:ee:0f</code>"),
        "{}",
        list.body
    );
    assert!(list.body.contains("2026-11-24 08:00 UTC"), "{}", list.body);
    assert!(list.body.contains("Yealink T54W"));
    let found = browser.get("/console/phones?query=AABBCC").await;
    assert!(found.body.contains("Counter phone"), "searched by MAC");
    let page = browser.get(&path).await;
    assert_eq!(page.test_id("registered"), "Yes");
    assert_eq!(page.test_id("last-registered"), "2026-11-24 08:00 UTC");
}

/// A refused phone form names every broken field next to its input (the MAC, the model,
/// a line listed twice), keeps what was typed, and adds nothing; an edit saves through
/// the API; delete removes it.
async fn a_refused_phone_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/phones/new").await.token();
    let ext = "101".to_owned();
    let refused = browser
        .post(
            "/console/phones",
            &[
                ("csrf", &token),
                ("name", ""),
                ("mac", "aa-bb-cc-dd-ee"),
                ("model", ""),
                ("line1", &ext),
                ("line2", &ext),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for field in ["name", "mac", "model"] {
        assert!(
            refused.error_next_to(field).is_some(),
            "no error next to {field}: {}",
            refused.body
        );
        assert!(
            refused.tag(field).contains("aria-invalid=\"true\""),
            "{field}"
        );
    }
    assert!(
        refused.body.contains("value=\"aa-bb-cc-dd-ee\""),
        "typed MAC kept"
    );
    // An extension picked twice is named at its second pick (the API checks the lines
    // once the fields read).
    let twice = browser
        .post(
            "/console/phones",
            &[
                ("csrf", &token),
                ("name", "Twice"),
                ("mac", "aabbccddeeff"),
                ("model", "yealink-t54w"),
                ("line1", &ext),
                ("line2", ""),
                ("line3", &ext),
            ],
        )
        .await;
    assert_eq!(twice.status, StatusCode::BAD_REQUEST, "{}", twice.body);
    assert!(twice.error_next_to("line3").is_some(), "{}", twice.body);
    assert!(twice.tag("line3").contains("aria-invalid=\"true\""));
    assert!(twice.error_next_to("line1").is_none());
    assert!(app.records("/v2/admin/devices/", &admin).await.is_empty());

    // A good one, then an edit and a delete.
    let added = browser
        .post(
            "/console/phones",
            &[
                ("csrf", &token),
                ("name", "Back office"),
                ("mac", "aabb.ccdd.eeff"),
                ("model", "yealink-t31p"),
                ("line1", &ext),
            ],
        )
        .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.body);
    let id = app.records("/v2/admin/devices/", &admin).await[0]["id"]
        .as_i64()
        .unwrap();
    let path = format!("/console/phones/{id}");
    // Three lines on a two-line model: the API's refusal shown by the lines.
    app.create(
        "/v2/admin/extensions/",
        &admin,
        json!({"number": "301", "name": "Back office", "branchId": w.branch_a}),
    )
    .await;
    let three = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Back office"),
                ("mac", "aabb.ccdd.eeff"),
                ("model", "yealink-t31p"),
                ("line1", &ext),
                ("line2", "201 — Annex A"),
                ("line3", "301"),
            ],
        )
        .await;
    assert_eq!(three.status, StatusCode::BAD_REQUEST, "{}", three.body);
    assert!(three.error_next_to("lines").is_some(), "{}", three.body);
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Back office desk"),
                ("mac", "AA:BB:CC:DD:EE:FF"),
                ("model", "yealink-t31p"),
                ("line1", "201"),
                ("branchId", &w.branch_a2.to_string()),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), format!("{path}?done=saved"));
    let stored = app
        .get(&format!("/v2/admin/devices/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Back office desk");
    assert_eq!(stored["branchId"], w.branch_a2);
    assert_eq!(stored["lines"][0]["id"], w.ext_a2);
    assert_eq!(stored["lines"].as_array().unwrap().len(), 1);
    let gone = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(gone.status, StatusCode::SEE_OTHER, "{}", gone.body);
    assert!(app.records("/v2/admin/devices/", &admin).await.is_empty());
}

/// A layout is created for a model and its keys edited in the grid laid out like the
/// phone (read back through the API); a refused edit shows every broken key in its cell
/// (a position used twice, a bad speed dial) and changes nothing.
async fn a_layout_is_edited_key_by_key(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/button-layouts/new").await.token();
    let created = browser
        .post(
            "/console/button-layouts",
            &[
                ("csrf", &token),
                ("name", "Counter"),
                ("deviceModel", "yealink-t54w"),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    let path = created.location().split('?').next().unwrap().to_owned();
    let editor = browser.get(created.location()).await;
    assert_eq!(editor.status, StatusCode::OK, "{}", editor.body);
    // The T54W's 27 keys, then three EXP50 modules of 60.
    assert!(
        editor.body.contains("Phone keys (keys 1–27)"),
        "{}",
        editor.body
    );
    assert!(
        editor
            .body
            .contains("Expansion module 3 (EXP50): keys 148–207")
    );
    assert!(editor.body.contains("id=\"key207-type\""));
    assert!(!editor.body.contains("id=\"key208-type\""));
    let ext = w.ext_a.to_string();
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Counter keys"),
                ("deviceModel", "yealink-t54w"),
                ("key1-type", "line"),
                ("key1-index", "1"),
                ("key2-type", "blf"),
                ("key2-value", &ext),
                ("key2-label", "Front desk"),
                ("key2-index", "2"),
                ("key3-type", ""),
                ("key3-index", "3"),
                ("key30-type", "speedDial"),
                ("key30-value", "*97"),
                ("key30-index", "30"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let id = path.rsplit('/').next().unwrap();
    let stored = app
        .get(&format!("/v2/admin/button-layouts/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Counter keys");
    assert_eq!(
        stored["keys"],
        json!([
            {"index": 1, "type": "line", "value": null, "label": null},
            {"index": 2, "type": "blf", "value": ext, "label": "Front desk"},
            {"index": 30, "type": "speedDial", "value": "*97", "label": null},
        ])
    );
    let page = browser.get(saved.location()).await;
    assert!(page.body.contains("The button layout is saved."));
    assert!(
        page.body
            .contains("data-testid=\"key2-names\">Extension 101 Front desk A</p>"),
        "a busy lamp's extension in words: {}",
        page.body
    );
    assert!(
        page.body.contains("<details class=\"module\" open>"),
        "key 30 is on module 1"
    );

    let refused = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Counter keys"),
                ("deviceModel", "yealink-t54w"),
                ("key1-type", "line"),
                ("key1-index", "1"),
                ("key2-type", "blf"),
                ("key2-value", &ext),
                ("key2-index", "2"),
                ("key3-type", "dnd"),
                ("key3-index", "2"),
                ("key4-type", "speedDial"),
                ("key4-value", "call me"),
                ("key4-index", "4"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("role=\"alert\"><p>The button layout was not saved")
    );
    assert!(refused.error_next_to("key3").is_some(), "{}", refused.body);
    assert!(
        refused
            .body
            .contains("Key 3: position: is already used by key 2"),
        "{}",
        refused.body
    );
    assert!(refused.tag("key3-index").contains("aria-invalid=\"true\""));
    assert!(refused.error_next_to("key4").is_some());
    assert!(refused.tag("key4-value").contains("aria-invalid=\"true\""));
    assert!(refused.body.contains("value=\"call me\""), "typed kept");
    assert!(refused.error_next_to("key2").is_none());
    let unchanged = app
        .get(&format!("/v2/admin/button-layouts/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(unchanged["keys"], stored["keys"]);

    // A layout is deleted from its page.
    let gone = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(gone.status, StatusCode::SEE_OTHER);
    app.get(&format!("/v2/admin/button-layouts/{id}"), &admin)
        .await
        .expect(404);
}

/// A branch administrator sees their branch's phones only: another branch's is no page
/// and cannot be changed, rotated or deleted; they may not change a layout (the API's
/// 403). Another tenant's phone is no page for a tenant admin. A form without its token
/// changes nothing.
async fn scope_and_form_tokens_are_the_apis(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let own = app
        .create(
            "/v2/admin/devices/",
            &admin,
            json!({"name": "Main desk", "mac": "00:11:22:33:44:01", "model": "yealink-t31p",
            "branchId": w.branch_a, "lines": [w.ext_a]}),
        )
        .await;
    let annex = app
        .create(
            "/v2/admin/devices/",
            &admin,
            json!({"name": "Annex desk", "mac": "00:11:22:33:44:02", "model": "yealink-t31p",
            "branchId": w.branch_a2, "lines": [w.ext_a2]}),
        )
        .await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Plain", "deviceModel": "yealink-t31p",
            "keys": [{"index": 1, "type": "line"}]}),
        )
        .await;
    let other_admin = app.login(w.admin_b).await;
    let foreign = app
        .create(
            "/v2/admin/devices/",
            &other_admin,
            json!({"name": "B desk", "mac": "00:11:22:33:44:03", "model": "yealink-t31p"}),
        )
        .await;

    let mut branch = Browser::new(&app.base);
    branch.sign_in(w.branch_admin_a).await;
    let list = branch.get("/console/phones").await;
    assert!(list.body.contains("Main desk"), "{}", list.body);
    assert!(!list.body.contains("Annex desk"));
    let token = branch
        .get(&format!("/console/phones/{}", own["id"]))
        .await
        .token();
    let annex_path = format!("/console/phones/{}", annex["id"]);
    assert_eq!(branch.get(&annex_path).await.status, StatusCode::NOT_FOUND);
    for (path, fields) in [
        (
            annex_path.clone(),
            vec![
                ("csrf", token.as_str()),
                ("name", "Taken"),
                ("mac", "00:11:22:33:44:02"),
                ("model", "yealink-t31p"),
            ],
        ),
        (
            format!("{annex_path}/password"),
            vec![("csrf", token.as_str())],
        ),
        (
            format!("{annex_path}/delete"),
            vec![("csrf", token.as_str())],
        ),
    ] {
        let answer = branch.post(&path, &fields).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
    }
    let layout_path = format!("/console/button-layouts/{}", layout["id"]);
    assert_eq!(branch.get(&layout_path).await.status, StatusCode::OK);
    let edit = branch
        .post(
            &layout_path,
            &[
                ("csrf", &token),
                ("name", "Mine now"),
                ("deviceModel", "yealink-t31p"),
                ("key1-type", "line"),
            ],
        )
        .await;
    assert_eq!(edit.status, StatusCode::FORBIDDEN, "{}", edit.body);
    let stored = app
        .get(&format!("/v2/admin/devices/{}", annex["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Annex desk");
    assert_eq!(
        stored["provisioningUsername"],
        annex["provisioningUsername"]
    );
    let stored = app
        .get(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(stored["name"], "Plain");

    let mut tenant_admin = Browser::new(&app.base);
    tenant_admin.sign_in(w.admin_a).await;
    let foreign_path = format!("/console/phones/{}", foreign["id"]);
    assert_eq!(
        tenant_admin.get(&foreign_path).await.status,
        StatusCode::NOT_FOUND
    );
    // No token: refused before anything changes.
    let path = format!("/console/phones/{}", own["id"]);
    for (path, fields) in [
        (
            path.clone(),
            vec![
                ("name", "Forged"),
                ("mac", "00:11:22:33:44:01"),
                ("model", "yealink-t31p"),
            ],
        ),
        (format!("{path}/password"), vec![]),
        (format!("{path}/delete"), vec![]),
        (
            layout_path.clone(),
            vec![("name", "Forged"), ("deviceModel", "yealink-t31p")],
        ),
        (
            "/console/phones".to_owned(),
            vec![
                ("name", "Forged"),
                ("mac", "00:11:22:33:44:09"),
                ("model", "yealink-t31p"),
            ],
        ),
    ] {
        let answer = tenant_admin.post(&path, &fields).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{path}");
    }
    let stored = app
        .get(&format!("/v2/admin/devices/{}", own["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Main desk");
    assert_eq!(app.records("/v2/admin/devices/", &admin).await.len(), 2);
}

/// The extensions of a tenant created straight in the database (as many as a scale
/// tenant has, quickly): numbers 1000, 1001 …, named `Desk N`.
async fn many_extensions(app: &TestApp, tenant: i64, branch: i64, count: usize) -> Vec<i64> {
    use switchboard_domain::ids::{BranchId, TenantId};
    use switchboard_domain::records::extension::CreateExtension;
    let mut ids = Vec::new();
    for n in 0..count {
        let number = 1000 + n;
        let created = switchboard_db::extensions::create(
            &app.state.db,
            TenantId(tenant),
            CreateExtension {
                tenant_id: None,
                branch_id: Some(BranchId(branch)),
                number: number.to_string(),
                name: format!("Desk {number}"),
            },
        )
        .await
        .expect("an extension");
        ids.push(created.id.get());
    }
    ids
}

/// On a tenant of many extensions, the page of a phone with several lines lists each
/// extension once (one list every line field offers, not one per line), each saved line
/// showing its extension; a line naming no extension of the tenant is refused next to
/// its field, the rest of the form kept, and nothing changes.
async fn the_line_pickers_list_each_extension_once(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let many = many_extensions(&app, w.tenant_a, w.branch_a, 150).await;
    let device = app
        .create(
            "/v2/admin/devices/",
            &admin,
            json!({"name": "Reception", "mac": "aabbccddee10", "model": "yealink-t54w",
            "lines": [many[0], many[75], many[149], w.ext_a]}),
        )
        .await;
    let id = device["id"].as_i64().unwrap();
    let path = format!("/console/phones/{id}");
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let page = browser.get(&path).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    for n in 0..150 {
        let label = format!("{} — Desk {}", 1000 + n, 1000 + n);
        let offered = page
            .body
            .matches(&format!("<option value=\"{label}\">"))
            .count();
        assert_eq!(offered, 1, "{label} offered {offered} times");
    }
    assert_eq!(
        page.body.matches("<datalist").count(),
        1,
        "one list for every line"
    );
    // Every line field offers that list, each saved line showing its extension.
    for (line, shown) in [
        ("line1", "1000 — Desk 1000"),
        ("line2", "1075 — Desk 1075"),
        ("line3", "1149 — Desk 1149"),
        ("line4", "101 — Front desk A"),
        ("line5", ""),
    ] {
        let input = page.tag(line);
        assert!(input.contains("list=\"extension-list\""), "{input}");
        assert!(input.contains(&format!("value=\"{shown}\"")), "{input}");
    }
    // The page holds as many options as the tenant's extensions, models, branches and
    // layouts: no more for more lines.
    let options = page.body.matches("<option").count();
    assert!(options < 150 + 100, "{options} options");

    // A number no extension of the tenant has: refused next to its line, nothing saved.
    let token = page.token();
    let refused = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Reception desk"),
                ("mac", "aabbccddee10"),
                ("model", "yealink-t54w"),
                ("line1", "1000 — Desk 1000"),
                ("line2", "4321"),
                ("line3", "1149"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(refused.error_next_to("line2").is_some(), "{}", refused.body);
    assert!(
        refused
            .body
            .contains("no extension of this tenant has the number 4321"),
        "{}",
        refused.body
    );
    assert!(refused.tag("line2").contains("aria-invalid=\"true\""));
    assert!(
        refused.tag("line2").contains("value=\"4321\""),
        "kept as typed"
    );
    assert!(refused.error_next_to("line1").is_none());
    assert!(refused.error_next_to("line3").is_none());
    assert!(refused.body.contains("value=\"Reception desk\""));
    let stored = app
        .get(&format!("/v2/admin/devices/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["name"], "Reception");
    assert_eq!(stored["lines"].as_array().unwrap().len(), 4);

    // Typed as numbers, the lines resolve to the extensions and save.
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("name", "Reception"),
                ("mac", "aabbccddee10"),
                ("model", "yealink-t54w"),
                ("line1", "1149"),
                ("line2", "101 — Front desk A"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let stored = app
        .get(&format!("/v2/admin/devices/{id}"), &admin)
        .await
        .expect(200);
    let lines: Vec<i64> = stored["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, [many[149], w.ext_a]);
}

on_both_backends!(
    a_phone_is_added_by_any_mac_and_its_password_rotated,
    the_line_pickers_list_each_extension_once,
    a_refused_phone_shows_every_broken_field,
    a_layout_is_edited_key_by_key,
    scope_and_form_tokens_are_the_apis,
);
