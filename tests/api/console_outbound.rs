//! The console's outbound pages (issue 34): campaigns created, listed with their progress
//! and moved through their statuses through the API; a CSV import answering each row it
//! did not create, and the export streamed as a download; opt-out entries added, imported
//! and removed; faxes sent from the tenant's fax line and a failed one retried; a campaign
//! deleted after its confirm step; one number of a campaign opened with its calls, edited
//! and deleted; the fax retry policy read and set. A refused form shows every broken field
//! and changes nothing; a lower role, another tenant and a form without its token are
//! refused.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::console::Browser;
use crate::engine::{self, engine_token};
use crate::fixture::World;
use crate::on_both_backends;
use crate::outbound_work::wait_dialing;
use crate::support::TestApp;

/// A CSV file part named `file`.
fn csv(text: &str) -> Part {
    Part::bytes(text.as_bytes().to_vec())
        .file_name("numbers.csv")
        .mime_str("text/csv")
        .unwrap()
}

/// The campaign form, filled as a person would, with `changes` over the good values.
fn campaign_fields<'a>(
    token: &'a str,
    ext: &'a str,
    changes: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![
        ("csrf", token),
        ("name", "Flu shots"),
        ("callerIdNumber", "(202) 555-0100"),
        ("destination", ext),
        ("day1", "on"),
        ("day2", "on"),
        ("day3", "on"),
        ("windowFrom", "08:00"),
        ("windowTo", "18:00"),
        ("windowTimeZone", "America/New_York"),
        ("maxAttempts", "2"),
        ("retryDelayMinutes", "30"),
        ("startAt", ""),
        ("status", "draft"),
    ];
    for (name, value) in changes {
        match fields.iter_mut().find(|(n, _)| n == name) {
            Some(field) => field.1 = value,
            None => fields.push((name, value)),
        }
    }
    fields
}

/// A campaign made in the form reaches the API as typed (read back there); the list
/// shows its status and how far its numbers are, counted by the API's record statuses;
/// the picker offers only the kinds a campaign takes.
async fn a_campaign_is_created_and_listed_with_its_progress(app: TestApp) {
    let w = World::seed(&app).await;
    w.give_tenant_a_caller_id_line(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/campaigns/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(
        form.body.contains(&format!("value=\"EXT:{}\"", w.ext_a)),
        "{}",
        form.body
    );
    // A campaign's answered calls go to a record: no outside number, no hang-up.
    assert!(!form.body.contains("value=\"EXTERNAL\""));
    assert!(!form.body.contains("value=\"HANGUP\""));
    let token = form.token();
    let ext = format!("EXT:{}", w.ext_a);
    let created = browser
        .post("/console/campaigns", &campaign_fields(&token, &ext, &[]))
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    let saved = app.records("/v2/admin/call-campaigns/", &admin).await;
    assert_eq!(saved.len(), 1, "{saved:?}");
    let campaign = &saved[0];
    let id = campaign["id"].as_i64().unwrap();
    assert_eq!(
        created.location(),
        format!("/console/campaigns/{id}?done=created")
    );
    assert_eq!(campaign["name"], "Flu shots");
    assert_eq!(campaign["callerIdNumber"], "+12025550100");
    assert_eq!(campaign["destination"]["destType"], "EXT");
    assert_eq!(campaign["destination"]["id"], w.ext_a);
    assert_eq!(
        campaign["callingWindow"],
        json!({"days": [1, 2, 3], "from": "08:00", "to": "18:00", "timeZone": "America/New_York"})
    );
    assert_eq!(campaign["maxAttempts"], 2);
    assert_eq!(campaign["retryDelayMinutes"], 30);
    assert_eq!(campaign["status"], "draft");
    let audit = app.newest_audit_entry("call-campaign", &admin).await;
    assert_eq!(audit["userEmail"], w.admin_a, "{audit}");

    // Three numbers, one skipped: one of three done.
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    let mut ids = Vec::new();
    for number in ["2025550143", "2025550144", "2025550145"] {
        ids.push(
            app.post(&records, &admin, json!({"number": number}))
                .await
                .expect(200)["id"]
                .clone(),
        );
    }
    app.patch(
        &format!("{records}/{}", ids[2]),
        &admin,
        json!({"status": "skipped"}),
    )
    .await
    .expect(200);
    let list = browser.get("/console/campaigns").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body
            .contains("href=\"/console/campaigns\" aria-current=\"page\""),
        "{}",
        list.body
    );
    assert!(list.body.contains("1 of 3 numbers done"), "{}", list.body);
    assert!(
        list.body
            .contains(&format!("id=\"progress-{id}\" max=\"3\" value=\"1\"")),
        "{}",
        list.body
    );
    assert!(list.body.contains("2 waiting · 1 skipped"), "{}", list.body);
    assert!(list.body.contains(">draft</span>"), "{}", list.body);
    // The status filter is the API's: no running campaign.
    let running = browser.get("/console/campaigns?status=running").await;
    assert!(running.body.contains("0 campaigns"), "{}", running.body);
    // The campaign's page holds its saved values and its counts.
    let page = browser.get(&format!("/console/campaigns/{id}")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("value=\"America/New_York\""));
    assert!(
        page.body
            .contains(&format!("value=\"EXT:{}\" selected", w.ext_a))
    );
    assert!(page.body.contains("2 waiting</a>"), "{}", page.body);
    // Its records page, filtered by status.
    let skipped = browser
        .get(&format!("/console/campaigns/{id}/records?status=skipped"))
        .await;
    assert_eq!(skipped.status, StatusCode::OK, "{}", skipped.body);
    assert!(skipped.body.contains("1 numbers"), "{}", skipped.body);
    assert!(skipped.body.contains("+12025550145"));
    assert!(!skipped.body.contains("+12025550143"));
}

/// A refused campaign shows every broken field next to its input, what was typed kept,
/// and nothing is created; an edit refused changes nothing either.
async fn a_refused_campaign_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/campaigns/new").await.token();
    let refused = browser
        .post(
            "/console/campaigns",
            &campaign_fields(
                &token,
                "",
                &[
                    ("name", ""),
                    ("windowFrom", "18:00"),
                    ("windowTo", "08:00"),
                    ("maxAttempts", "11"),
                    ("retryDelayMinutes", "0"),
                ],
            ),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for key in [
        "name",
        "destination",
        "windowTo",
        "maxAttempts",
        "retryDelayMinutes",
    ] {
        assert!(
            refused.error_next_to(key).is_some(),
            "no error at {key}: {}",
            refused.body
        );
        assert!(
            refused.marked_invalid(key),
            "{key} not marked: {}",
            refused.body
        );
    }
    assert!(refused.body.contains("value=\"11\""), "{}", refused.body);
    assert_eq!(
        app.records("/v2/admin/call-campaigns/", &admin).await.len(),
        1
    );

    // A caller id that is not the tenant's, on an edit: named, nothing saved.
    let path = format!("/console/campaigns/{id}");
    let token = browser.get(&path).await.token();
    let ext = format!("EXT:{}", w.ext_a);
    let edit = browser
        .post(
            &path,
            &campaign_fields(
                &token,
                &ext,
                &[
                    ("callerIdNumber", "+12025559999"),
                    ("windowTimeZone", "Mars/Base"),
                ],
            ),
        )
        .await;
    assert_eq!(edit.status, StatusCode::BAD_REQUEST, "{}", edit.body);
    assert!(
        edit.error_next_to("callerIdNumber").is_some(),
        "{}",
        edit.body
    );
    assert!(
        edit.error_next_to("windowTimeZone").is_some(),
        "{}",
        edit.body
    );
    let saved = app
        .get(&format!("/v2/admin/call-campaigns/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(saved["name"], "Reminders");
    assert_eq!(saved["callingWindow"]["timeZone"], "UTC");
}

/// Start, pause and stop are the API's status steps, read back there; a step the
/// campaign may not take is refused in the API's words and changes nothing.
async fn start_pause_and_stop_are_the_apis_steps(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let path = format!("/console/campaigns/{id}");
    let page = browser.get(&path).await;
    assert!(page.body.contains(">Start</button>"), "{}", page.body);
    let token = page.token();
    let status = format!("{path}/status");
    let api = format!("/v2/admin/call-campaigns/{id}");
    for step in ["running", "paused", "running", "completed"] {
        let moved = browser
            .post(&status, &[("csrf", &token), ("status", step)])
            .await;
        assert_eq!(
            moved.status,
            StatusCode::SEE_OTHER,
            "{step}: {}",
            moved.body
        );
        assert_eq!(moved.location(), format!("{path}?done={step}"));
        assert_eq!(app.get(&api, &admin).await.expect(200)["status"], step);
    }
    let stopped = browser.get(&format!("{path}?done=completed")).await;
    assert!(
        stopped.body.contains("The campaign is stopped."),
        "{}",
        stopped.body
    );
    assert!(
        stopped
            .body
            .contains("data-testid=\"campaign-status\">completed<"),
        "{}",
        stopped.body
    );
    // A finished campaign offers no step.
    assert!(!stopped.body.contains("/status\""), "{}", stopped.body);
    let refused = browser
        .post(&status, &[("csrf", &token), ("status", "running")])
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    assert!(
        refused.body.contains("The change was refused"),
        "{}",
        refused.body
    );
    assert_eq!(
        app.get(&api, &admin).await.expect(200)["status"],
        "completed"
    );
}

/// A CSV import shows each row the API did not create with its reason (two bad rows
/// here), the good ones reach the API; a file without a number column is refused whole
/// and imports nothing; the export is the API's CSV, as a download.
async fn an_import_shows_each_refused_row_and_the_export_downloads(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let path = format!("/console/campaigns/{id}/import");
    let form = browser.get(&path).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains("enctype=\"multipart/form-data\""));
    let token = form.token();
    let upload = Form::new().text("csrf", token.clone()).part(
        "file",
        csv("number,name\n(202) 555-0143,Ann\nnot a number,Bob\n2025550144,Cy\n12,Dee\n+12025550143,Ann again\n"),
    );
    let answer = browser.post_multipart(&path, upload).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(
        answer.body.contains("data-testid=\"import-created\">2<"),
        "{}",
        answer.body
    );
    assert!(
        answer.body.contains("data-testid=\"import-invalid\">2<"),
        "{}",
        answer.body
    );
    for (row, input) in [(2, "not a number"), (4, "12")] {
        let marker = format!(
            "<tr data-row=\"{row}\"><th scope=\"row\">{row}</th><td>{input}</td><td>refused</td><td>"
        );
        let start = answer
            .body
            .find(&marker)
            .unwrap_or_else(|| panic!("no row {row}: {}", answer.body));
        let reason = answer.body[start + marker.len()..]
            .split("</td>")
            .next()
            .unwrap();
        assert!(reason.contains("number"), "row {row}: {reason}");
    }
    assert!(
        answer.body.contains("<tr data-row=\"5\">"),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("already held"), "{}", answer.body);
    assert!(!answer.body.contains("<tr data-row=\"1\">"));
    let held: Vec<Value> = app
        .records(
            &format!("/v2/admin/call-campaigns/{id}/records?sortBy=id"),
            &admin,
        )
        .await
        .iter()
        .map(|r| r["number"].clone())
        .collect();
    assert_eq!(held, [json!("+12025550143"), json!("+12025550144")]);

    // No number column: refused as a whole, nothing imported.
    let upload = Form::new()
        .text("csrf", token.clone())
        .part("file", csv("phone\n2025550150\n"));
    let refused = browser.post_multipart(&path, upload).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(refused.body.contains("number column"), "{}", refused.body);
    assert_eq!(
        app.records(
            &format!("/v2/admin/call-campaigns/{id}/records?sortBy=id"),
            &admin
        )
        .await
        .len(),
        2
    );

    // The export: the API's CSV, streamed as a download, with the filter asked.
    let response = browser
        .get(&format!("/console/campaigns/{id}/export"))
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert!(
        response.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert_eq!(
        response.headers["content-disposition"],
        format!("attachment; filename=\"campaign-{id}-records.csv\"").as_str()
    );
    let body = response.body;
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(
        lines[0],
        "id,number,name,status,outcome,attempts,lastAttemptAt,nextAttemptAt,createdAt"
    );
    assert_eq!(lines.len(), 3, "{body}");
    assert!(lines[1].contains("+12025550143,Ann,pending"), "{body}");
    let skipped = browser
        .get(&format!("/console/campaigns/{id}/export?status=skipped"))
        .await;
    assert_eq!(skipped.body.lines().count(), 1, "{}", skipped.body);
    // Another tenant's admin gets no export of it.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    let refused = other.get(&format!("/console/campaigns/{id}/export")).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
}

/// An opt-out is added (read back over the API), a refused one shows its broken fields
/// and adds nothing, an import shows each row it did not create, and an entry is removed;
/// the export is the API's CSV.
async fn opt_outs_are_added_imported_and_removed(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let page = browser.get("/console/opt-outs").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(
        page.body
            .contains("href=\"/console/opt-outs\" aria-current=\"page\"")
    );
    let token = page.token();
    let added = browser
        .post(
            "/console/opt-outs",
            &[
                ("csrf", &token),
                ("number", "(202) 555-0150"),
                ("level", "tenant"),
                ("campaignId", ""),
                ("reason", "Asked at the counter"),
                ("expiresAt", ""),
            ],
        )
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER, "{}", added.body);
    let listed = app.records("/v2/admin/opt-outs/?sortBy=id", &admin).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["number"], "+12025550150");
    assert_eq!(listed[0]["level"], "tenant");
    assert_eq!(listed[0]["reason"], "Asked at the counter");
    let shown = browser.get("/console/opt-outs").await;
    assert!(shown.body.contains("+12025550150"), "{}", shown.body);

    // A campaign entry without its campaign and a number that is none: both named.
    let refused = browser
        .post(
            "/console/opt-outs",
            &[
                ("csrf", &token),
                ("number", "not a number"),
                ("level", "campaign"),
                ("campaignId", ""),
                ("reason", ""),
                ("expiresAt", ""),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused.error_next_to("campaignId").is_some(),
        "{}",
        refused.body
    );
    assert!(refused.marked_invalid("campaignId"));
    assert!(refused.body.contains("value=\"not a number\""));
    assert_eq!(
        app.records("/v2/admin/opt-outs/?sortBy=id", &admin)
            .await
            .len(),
        1
    );

    // A campaign's own list.
    let campaign_entry = browser
        .post(
            "/console/opt-outs",
            &[
                ("csrf", &token),
                ("number", "2025550151"),
                ("level", "campaign"),
                ("campaignId", &id.to_string()),
                ("reason", ""),
                ("expiresAt", "2099-01-31"),
            ],
        )
        .await;
    assert_eq!(
        campaign_entry.status,
        StatusCode::SEE_OTHER,
        "{}",
        campaign_entry.body
    );
    let listed = app.records("/v2/admin/opt-outs/?sortBy=id", &admin).await;
    assert_eq!(listed[1]["campaignId"], id);
    assert_eq!(listed[1]["expiresAt"], "2099-01-31T00:00:00Z");
    assert!(
        browser
            .get("/console/opt-outs")
            .await
            .body
            .contains("campaign Reminders")
    );

    // An import: one row created, one refused, one already held.
    let upload = Form::new().text("csrf", token.clone()).part(
        "file",
        csv("number,reason\n2025550152,Complaint\nnope,Bad row\n2025550150,Again\n"),
    );
    let imported = browser
        .post_multipart("/console/opt-outs/import", upload)
        .await;
    assert_eq!(imported.status, StatusCode::OK, "{}", imported.body);
    assert!(
        imported.body.contains("data-testid=\"import-created\">1<"),
        "{}",
        imported.body
    );
    assert!(
        imported
            .body
            .contains("<tr data-row=\"2\"><th scope=\"row\">2</th><td>nope</td><td>refused</td>"),
        "{}",
        imported.body
    );
    assert!(
        imported.body.contains(
            "<tr data-row=\"3\"><th scope=\"row\">3</th><td>2025550150</td><td>already held</td>"
        ),
        "{}",
        imported.body
    );
    let listed = app.records("/v2/admin/opt-outs/?sortBy=id", &admin).await;
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[2]["number"], "+12025550152");
    assert_eq!(listed[2]["source"], "import");

    // The export.
    let response = browser.get("/console/opt-outs/export").await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(
        response.headers["content-disposition"],
        "attachment; filename=\"opt-outs.csv\""
    );
    let body = response.body;
    assert!(
        body.starts_with("id,level,tenantId,campaignId,number,source,reason,createdAt,expiresAt")
    );
    assert_eq!(body.lines().count(), 4, "{body}");

    // Removed: gone from the API.
    let first = listed[0]["id"].as_i64().unwrap();
    let removed = browser
        .post(
            &format!("/console/opt-outs/{first}/delete"),
            &[("csrf", &token)],
        )
        .await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER, "{}", removed.body);
    app.get(&format!("/v2/admin/opt-outs/{first}"), &admin)
        .await
        .expect(404);
}

/// The engine takes the one queued fax and reports it failed.
async fn fail_the_fax(app: &TestApp) {
    let jobs = engine::claim(app, &["fax"], Some(300)).await;
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let result = json!({"attempt": jobs[0]["attempt"], "outcome": "failed", "resultCode": "busy"});
    engine::report(app, &jobs[0], result).await.expect(200);
}

/// A TIFF, as a fax document's form part.
fn tiff() -> Part {
    Part::bytes(crate::documents::tiff())
        .file_name("letter.tif")
        .mime_str("image/tiff")
        .unwrap()
}

/// A fax sent from the tenant's fax line reaches the API queued; a refused one names
/// each broken field; a failed one is shown with its attempts and retried through the
/// API's retry, which refuses a fax that is not failed in its own words.
async fn a_fax_is_sent_and_a_failed_one_retried(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550001000", "fax": "yes", "diCommentName": "Fax line"}),
        )
        .await;
    let admin = app.login(w.admin_a).await;
    app.call(
        reqwest::Method::PUT,
        "/v2/admin/faxes/retry-policy",
        Some(&admin),
        Some(json!({"maxAttempts": 1, "delaySeconds": 60})),
    )
    .await
    .expect(200);
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/faxes/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    assert!(form.body.contains("Fax line"), "{}", form.body);
    let token = form.token();

    // Nothing to send and nobody to send it to: both named, nothing sent.
    let refused = browser
        .post_multipart(
            "/console/faxes",
            Form::new()
                .text("csrf", token.clone())
                .text("from", "15550001000")
                .text("to", ""),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(refused.error_next_to("to").is_some(), "{}", refused.body);
    assert!(
        refused.error_next_to("document").is_some(),
        "{}",
        refused.body
    );
    assert!(refused.marked_invalid("document"));
    // A document that is no PDF: named at the document.
    let refused = browser
        .post_multipart(
            "/console/faxes",
            Form::new()
                .text("csrf", token.clone())
                .text("from", "15550001000")
                .text("to", "15559990000")
                .part(
                    "document",
                    Part::bytes(b"%PDF-1.4 not really".to_vec())
                        .file_name("letter.pdf")
                        .mime_str("application/pdf")
                        .unwrap(),
                ),
        )
        .await;
    assert_eq!(
        refused.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{}",
        refused.body
    );
    assert!(
        refused.error_next_to("document").is_some(),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("value=\"15559990000\""));
    assert!(app.records("/v2/admin/faxes", &admin).await.is_empty());

    let sent = browser
        .post_multipart(
            "/console/faxes",
            Form::new()
                .text("csrf", token.clone())
                .text("from", "15550001000")
                .text("to", "15559990000")
                .part("document", tiff()),
        )
        .await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let listed = app.records("/v2/admin/faxes", &admin).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["status"], "queued");
    assert_eq!(listed[0]["to"], "15559990000");
    let id = listed[0]["id"].as_i64().unwrap();

    // Not failed: the API's conflict, nothing changed.
    let retry = format!("/console/faxes/{id}/retry");
    let early = browser.post(&retry, &[("csrf", &token)]).await;
    assert_eq!(early.status, StatusCode::CONFLICT, "{}", early.body);
    assert!(
        early.body.contains("only a failed fax is retried"),
        "{}",
        early.body
    );

    fail_the_fax(&app).await;
    let list = browser.get("/console/faxes").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body.contains("data-testid=\"fax-status\">failed<"),
        "{}",
        list.body
    );
    assert!(list.body.contains("last: failed, busy"), "{}", list.body);
    assert!(
        list.body.contains(&format!("action=\"{retry}\"")),
        "{}",
        list.body
    );
    let retried = browser.post(&retry, &[("csrf", &token)]).await;
    assert_eq!(retried.status, StatusCode::SEE_OTHER, "{}", retried.body);
    assert_eq!(retried.location(), "/console/faxes?done=retried");
    let fax = app
        .get(&format!("/v2/admin/faxes/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(fax["status"], "queued");
    assert_eq!(fax["attempts"].as_array().unwrap().len(), 1);
    let sent_filter = browser.get("/console/faxes?direction=inbound").await;
    assert!(sent_filter.body.contains("0 faxes"), "{}", sent_filter.body);
}

/// A branch administrator and a user may not reach the outbound pages (the API's 403);
/// another tenant's campaign is not found and not changed; a form without its token, a
/// plain one or an upload, is refused and changes nothing.
async fn lower_roles_other_tenants_and_forged_forms_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    for email in [w.branch_admin_a, w.user_a] {
        let mut browser = Browser::new(&app.base);
        browser.sign_in(email).await;
        for path in ["/console/campaigns", "/console/opt-outs", "/console/faxes"] {
            let page = browser.get(path).await;
            assert_eq!(
                page.status,
                StatusCode::FORBIDDEN,
                "{email} {path}: {}",
                page.body
            );
        }
    }
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    let path = format!("/console/campaigns/{id}");
    assert_eq!(other.get(&path).await.status, StatusCode::NOT_FOUND);
    let token = other.get("/console/campaigns/new").await.token();
    let moved = other
        .post(
            &format!("{path}/status"),
            &[("csrf", &token), ("status", "running")],
        )
        .await;
    assert_eq!(moved.status, StatusCode::NOT_FOUND, "{}", moved.body);
    let api = format!("/v2/admin/call-campaigns/{id}");
    assert_eq!(app.get(&api, &admin).await.expect(200)["status"], "draft");

    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let forged = browser
        .post(&format!("{path}/status"), &[("status", "running")])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    assert_eq!(app.get(&api, &admin).await.expect(200)["status"], "draft");
    let forged = browser
        .post(
            "/console/opt-outs",
            &[
                ("csrf", "not-the-token"),
                ("number", "2025550150"),
                ("level", "tenant"),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    let upload = Form::new().part("file", csv("number\n2025550150\n"));
    let forged = browser
        .post_multipart(&format!("{path}/import"), upload)
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    assert!(
        app.records(
            &format!("/v2/admin/call-campaigns/{id}/records?sortBy=id"),
            &admin
        )
        .await
        .is_empty()
    );
    let opt_outs = app.get("/v2/admin/opt-outs/", &admin).await.expect(200);
    assert_eq!(opt_outs["totalRecords"], 0);
}

/// Text as a page's HTML holds it (askama's escapes).
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// The API's refusal of `token`'s `method` request at `path` (with `body`): its 403
/// message.
async fn forbidden_message(
    app: &TestApp,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> String {
    let body = app.call(method, path, Some(token), body).await.expect(403);
    body["message"].as_str().unwrap().to_owned()
}

/// A campaign is deleted only after its confirm step, which says what goes with it; a
/// running one is refused in the API's words and kept; the deletion is the API's (its
/// numbers and its own opt-out list gone, audited under the person's e-mail address).
async fn a_campaign_is_deleted_after_its_confirm_step(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    for number in ["2025550143", "2025550144"] {
        app.post(&records, &admin, json!({"number": number}))
            .await
            .expect(200);
    }
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "2025550150", "level": "campaign", "campaignId": id}),
    )
    .await;
    let api = format!("/v2/admin/call-campaigns/{id}");
    app.patch(&api, &admin, json!({"status": "running"}))
        .await
        .expect(200);
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let path = format!("/console/campaigns/{id}");
    let page = browser.get(&path).await;
    let confirm = format!("{path}/delete");
    assert!(
        page.body.contains(&format!("href=\"{confirm}\"")),
        "{}",
        page.body
    );
    // The confirm step deletes nothing, and says what would go.
    let step = browser.get(&confirm).await;
    assert_eq!(step.status, StatusCode::OK, "{}", step.body);
    assert!(
        step.body.contains("Delete the campaign Reminders?"),
        "{}",
        step.body
    );
    assert!(
        step.body
            .contains("<dt>Its numbers, with the calls placed for them</dt><dd>2</dd>"),
        "{}",
        step.body
    );
    assert!(
        step.body
            .contains("<dt>Numbers on its own opt-out list</dt><dd>1</dd>"),
        "{}",
        step.body
    );
    assert!(step.body.contains(&format!("action=\"{confirm}\"")));
    app.get(&api, &admin).await.expect(200);
    let token = step.token();

    // Running: the API's conflict, in its words; nothing deleted.
    let refused = browser.post(&confirm, &[("csrf", &token)]).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    let message = app.delete(&api, &admin).await.expect(409)["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        refused.body.contains(&escaped(&message)),
        "{message}: {}",
        refused.body
    );
    assert_eq!(
        app.records(
            &format!("/v2/admin/call-campaigns/{id}/records?sortBy=id"),
            &admin
        )
        .await
        .len(),
        2
    );
    // Without the form's token: refused, nothing deleted.
    app.patch(&api, &admin, json!({"status": "paused"}))
        .await
        .expect(200);
    let forged = browser.post(&confirm, &[]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", forged.body);
    app.get(&api, &admin).await.expect(200);
    // Another tenant's admin: not found, nothing deleted.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    assert_eq!(other.get(&confirm).await.status, StatusCode::NOT_FOUND);
    let other_token = other.get("/console/campaigns").await.token();
    let theirs = other.post(&confirm, &[("csrf", &other_token)]).await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND, "{}", theirs.body);
    app.get(&api, &admin).await.expect(200);

    // Paused: deleted, with its numbers and its own list.
    let deleted = browser.post(&confirm, &[("csrf", &token)]).await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    assert_eq!(deleted.location(), "/console/campaigns?done=deleted");
    app.get(&api, &admin).await.expect(404);
    app.get(&records, &admin).await.expect(404);
    assert!(
        app.records("/v2/admin/opt-outs/?sortBy=id", &admin)
            .await
            .is_empty()
    );
    let list = browser.get(deleted.location()).await;
    assert!(
        list.body.contains("The campaign is deleted."),
        "{}",
        list.body
    );
    assert!(!list.body.contains("Reminders"), "{}", list.body);
    let audit = app.newest_audit_entry("call-campaign", &admin).await;
    assert_eq!(audit["action"], "delete", "{audit}");
    assert_eq!(audit["userEmail"], w.admin_a, "{audit}");
}

/// A number of a campaign opens from the campaign's list with its fields and every call
/// placed for it (as the engine reported them); it is edited through the API's PATCH
/// (renamed, skipped, dialled again — the calls kept), a refused edit shows every broken
/// field and changes nothing, a number on an opt-out list is refused at the number, a
/// number opted out since may still be renamed, and it is deleted.
async fn a_campaign_number_is_opened_edited_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let records = format!("/v2/admin/call-campaigns/{id}/records");
    let ann = app
        .post(
            &records,
            &admin,
            json!({"number": "2025550143", "name": "Ann"}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let bo = app
        .post(
            &records,
            &admin,
            json!({"number": "2025550144", "name": "Bo"}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let api = format!("/v2/admin/call-campaigns/{id}");
    app.patch(&api, &admin, json!({"status": "running"}))
        .await
        .expect(200);
    wait_dialing(&app, &admin, id, 2).await;
    let jobs = engine::claim(&app, &["campaign-call"], None).await;
    assert_eq!(jobs.len(), 2, "{jobs:?}");
    for job in &jobs {
        let result = if job["subjectId"] == ann {
            json!({"attempt": job["attempt"], "outcome": "busy", "resultCode": "486",
                   "startedAt": "2026-11-20T10:00:00Z", "endedAt": "2026-11-20T10:00:07Z",
                   "durationSeconds": 7, "reference": "1700000000.7", "message": "line busy"})
        } else {
            json!({"attempt": job["attempt"], "outcome": "opted-out"})
        };
        engine::report(&app, job, result).await.expect(200);
    }
    app.patch(&api, &admin, json!({"status": "paused"}))
        .await
        .expect(200);

    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let list = browser
        .get(&format!("/console/campaigns/{id}/records"))
        .await;
    let path = format!("/console/campaigns/{id}/records/{ann}");
    assert!(
        list.body
            .contains(&format!("<a href=\"{path}\">+12025550143</a>")),
        "{}",
        list.body
    );
    let page = browser.get(&path).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(
        page.body.contains("data-testid=\"record-status\">pending<"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("data-testid=\"record-attempts\">1<"),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(
            "<tr data-attempt=\"1\"><td>busy</td><td>2026-11-20 10:00 UTC</td><td>2026-11-20 10:00 UTC</td><td>7 s</td><td>486</td><td>line busy</td>"
        ),
        "{}",
        page.body
    );
    assert!(page.body.contains("1700000000.7"), "{}", page.body);
    assert!(page.body.contains("value=\"Ann\""), "{}", page.body);
    assert!(
        page.body
            .contains("name=\"shownNumber\" value=\"+12025550143\""),
        "{}",
        page.body
    );
    let token = page.token();
    let record_api = format!("{records}/{ann}");

    // Renamed and skipped: read back over the API, audited under the person.
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("shownNumber", "+12025550143"),
                ("number", "+12025550143"),
                ("shownName", "Ann"),
                ("name", "Ann Lee"),
                ("status", "skipped"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), format!("{path}?done=saved"));
    let record = app.get(&record_api, &admin).await.expect(200);
    assert_eq!(record["name"], "Ann Lee");
    assert_eq!(record["status"], "skipped");
    assert_eq!(record["number"], "+12025550143");
    let audit = app.newest_audit_entry("call-campaign-record", &admin).await;
    assert_eq!(audit["action"], "update", "{audit}");
    assert_eq!(audit["userEmail"], w.admin_a, "{audit}");
    let shown = browser.get(saved.location()).await;
    assert!(
        shown.body.contains("The number is saved."),
        "{}",
        shown.body
    );
    // Dialled again: its attempts start over, its calls are kept.
    let again = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("shownNumber", "+12025550143"),
                ("number", "+12025550143"),
                ("shownName", "Ann Lee"),
                ("name", "Ann Lee"),
                ("status", "pending"),
            ],
        )
        .await;
    assert_eq!(again.status, StatusCode::SEE_OTHER, "{}", again.body);
    let record = app.get(&record_api, &admin).await.expect(200);
    assert_eq!(record["status"], "pending");
    assert_eq!(record["attempts"], 0);
    assert_eq!(record["attemptHistory"].as_array().unwrap().len(), 1);
    let shown = browser.get(&path).await;
    assert!(
        shown.body.contains("<tr data-attempt=\"1\">"),
        "{}",
        shown.body
    );

    // Every broken field named, what was typed kept, nothing changed.
    let long_name = "N".repeat(256);
    let refused = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("shownNumber", "+12025550143"),
                ("number", "12"),
                ("shownName", "Ann Lee"),
                ("name", &long_name),
                ("status", "dialing"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for key in ["number", "name", "status"] {
        assert!(
            refused.error_next_to(key).is_some(),
            "no error at {key}: {}",
            refused.body
        );
        assert!(
            refused.marked_invalid(key),
            "{key} not marked: {}",
            refused.body
        );
    }
    assert!(refused.body.contains("value=\"12\""), "{}", refused.body);
    let record = app.get(&record_api, &admin).await.expect(200);
    assert_eq!(record["number"], "+12025550143");
    assert_eq!(record["name"], "Ann Lee");

    // A number on the tenant's opt-out list: the API's 403 next to the number.
    app.create(
        "/v2/admin/opt-outs/",
        &admin,
        json!({"number": "2025550150", "level": "tenant"}),
    )
    .await;
    let opted = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("shownNumber", "+12025550143"),
                ("number", "(202) 555-0150"),
                ("shownName", "Ann Lee"),
                ("name", "Ann Lee"),
                ("status", ""),
            ],
        )
        .await;
    assert_eq!(opted.status, StatusCode::FORBIDDEN, "{}", opted.body);
    let message = opted.error_next_to("number").unwrap_or_default();
    assert!(
        message.contains(&escaped("the tenant's opt-out list")),
        "{}",
        opted.body
    );
    assert!(opted.marked_invalid("number"));
    assert_eq!(
        app.get(&record_api, &admin).await.expect(200)["number"],
        "+12025550143"
    );

    // Bo opted out on the call, his number now on the tenant's list: still renamed, the
    // number not sent again.
    let bo_path = format!("/console/campaigns/{id}/records/{bo}");
    let renamed = browser
        .post(
            &bo_path,
            &[
                ("csrf", &token),
                ("shownNumber", "+12025550144"),
                ("number", "+12025550144"),
                ("shownName", "Bo"),
                ("name", "Bo Diaz"),
                ("status", ""),
            ],
        )
        .await;
    assert_eq!(renamed.status, StatusCode::SEE_OTHER, "{}", renamed.body);
    let bo_record = app
        .get(&format!("{records}/{bo}"), &admin)
        .await
        .expect(200);
    assert_eq!(bo_record["name"], "Bo Diaz");
    assert_eq!(bo_record["status"], "opted-out");

    // Another tenant's admin: not found, nothing deleted.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    assert_eq!(other.get(&path).await.status, StatusCode::NOT_FOUND);
    let other_token = other.get("/console/campaigns").await.token();
    let theirs = other
        .post(&format!("{path}/delete"), &[("csrf", &other_token)])
        .await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND, "{}", theirs.body);
    app.get(&record_api, &admin).await.expect(200);

    // Deleted: gone from the API, back at the campaign's numbers.
    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    assert_eq!(
        deleted.location(),
        format!("/console/campaigns/{id}/records?done=deleted")
    );
    app.get(&record_api, &admin).await.expect(404);
    let list = browser.get(deleted.location()).await;
    assert!(
        list.body
            .contains("The number is deleted from the campaign."),
        "{}",
        list.body
    );
    assert!(!list.body.contains("+12025550143"), "{}", list.body);
}

/// The fax retry policy is shown as the API answers it (its default first), set through
/// the API's PUT (read back there, audited under the person), reached from the faxes
/// page; a refused one shows every broken field (a bad result code by name) and changes
/// nothing; a platform admin sets the policy of the tenant they act on.
async fn the_fax_retry_policy_is_read_and_set(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let faxes = browser.get("/console/faxes").await;
    assert!(
        faxes.body.contains("href=\"/console/faxes/retry-policy\""),
        "{}",
        faxes.body
    );
    let path = "/console/faxes/retry-policy";
    let page = browser.get(path).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    // The API's default: three attempts, five minutes apart, every failure.
    assert!(
        page.body
            .contains("id=\"maxAttempts\" name=\"maxAttempts\" value=\"3\""),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("id=\"delaySeconds\" name=\"delaySeconds\" value=\"300\""),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("href=\"/console/faxes\" aria-current=\"page\""),
        "{}",
        page.body
    );
    let token = page.token();
    let saved = browser
        .post(
            path,
            &[
                ("csrf", &token),
                ("maxAttempts", "5"),
                ("delaySeconds", "120"),
                ("retryCodes", "busy\r\nno-answer\r\n"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(saved.location(), "/console/faxes/retry-policy?done=saved");
    let api = "/v2/admin/faxes/retry-policy";
    let policy = app.get(api, &admin).await.expect(200);
    assert_eq!(
        policy,
        json!({"tenantId": w.tenant_a, "maxAttempts": 5, "delaySeconds": 120, "retryCodes": ["busy", "no-answer"]})
    );
    let audit = app.newest_audit_entry("fax-retry-policy", &admin).await;
    assert_eq!(audit["userEmail"], w.admin_a, "{audit}");
    let shown = browser.get(saved.location()).await;
    assert!(
        shown.body.contains("The retry policy is saved."),
        "{}",
        shown.body
    );
    assert!(
        shown.body.contains(">busy\nno-answer</textarea>"),
        "{}",
        shown.body
    );

    // Every broken field named, the bad code by name, what was typed kept.
    let long_code = "x".repeat(65);
    let codes = format!("busy\n{long_code}");
    let refused = browser
        .post(
            path,
            &[
                ("csrf", &token),
                ("maxAttempts", "11"),
                ("delaySeconds", "ten"),
                ("retryCodes", &codes),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    for key in ["maxAttempts", "delaySeconds", "retryCodes"] {
        assert!(
            refused.error_next_to(key).is_some(),
            "no error at {key}: {}",
            refused.body
        );
        assert!(
            refused.marked_invalid(key),
            "{key} not marked: {}",
            refused.body
        );
    }
    assert!(
        refused
            .error_next_to("retryCodes")
            .unwrap()
            .contains(&long_code),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("value=\"ten\""), "{}", refused.body);
    assert_eq!(app.get(api, &admin).await.expect(200), policy);

    // A platform admin acting on tenant A sets tenant A's policy.
    let mut platform = Browser::new(&app.base);
    platform.sign_in(w.platform).await;
    let picker = platform.get("/console/tenants").await.token();
    let tenant = w.tenant_a.to_string();
    platform
        .post(
            "/console/tenants",
            &[("csrf", &picker), ("tenantId", &tenant)],
        )
        .await;
    let page = platform.get(path).await;
    assert!(page.body.contains("value=\"120\""), "{}", page.body);
    let set = platform
        .post(
            path,
            &[
                ("csrf", &page.token()),
                ("maxAttempts", "2"),
                ("delaySeconds", "60"),
                ("retryCodes", ""),
            ],
        )
        .await;
    assert_eq!(set.status, StatusCode::SEE_OTHER, "{}", set.body);
    assert_eq!(
        app.get(api, &admin).await.expect(200),
        json!({"tenantId": w.tenant_a, "maxAttempts": 2, "delaySeconds": 60, "retryCodes": []})
    );
}

/// A form's fields as posted.
type FormFields<'a> = &'a [(&'a str, &'a str)];

/// A branch administrator and a user are refused the new outbound pages exactly as the
/// API refuses them (its 403 and its words for the same request), reading or changing,
/// and nothing changes.
async fn lower_roles_are_refused_the_record_and_policy_pages(app: TestApp) {
    use reqwest::Method;
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let id = w.campaign(&app, &admin, json!({})).await;
    let campaign_api = format!("/v2/admin/call-campaigns/{id}");
    let records = format!("{campaign_api}/records");
    let record = app
        .post(
            &records,
            &admin,
            json!({"number": "2025550143", "name": "Ann"}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let record_api = format!("{records}/{record}");
    let policy_api = "/v2/admin/faxes/retry-policy";
    let policy = app.get(policy_api, &admin).await.expect(200);
    let path = format!("/console/campaigns/{id}/records/{record}");
    let confirm = format!("/console/campaigns/{id}/delete");
    let policy_page = "/console/faxes/retry-policy";
    for email in [w.branch_admin_a, w.user_a] {
        let token = app.login(email).await;
        let refusal = async |method: Method, api: &str, body: Option<Value>| {
            forbidden_message(&app, &token, method, api, body).await
        };
        let mut browser = Browser::new(&app.base);
        browser.sign_in(email).await;
        let form = browser.get("/console/").await.token();
        let reads = [
            (&path, refusal(Method::GET, &record_api, None).await),
            (&confirm, refusal(Method::GET, &campaign_api, None).await),
            (
                &policy_page.to_owned(),
                refusal(Method::GET, policy_api, None).await,
            ),
        ];
        for (page_path, message) in reads {
            let page = browser.get(page_path).await;
            assert_eq!(
                page.status,
                StatusCode::FORBIDDEN,
                "{email} {page_path}: {}",
                page.body
            );
            assert!(
                page.body.contains(&escaped(&message)),
                "{email} {page_path}: {message}: {}",
                page.body
            );
        }
        let edit = [
            ("csrf", form.as_str()),
            ("shownNumber", "+12025550143"),
            ("number", "+12025550143"),
            ("shownName", "Ann"),
            ("name", "Changed"),
            ("status", "skipped"),
        ];
        let set_policy = [
            ("csrf", form.as_str()),
            ("maxAttempts", "1"),
            ("delaySeconds", "30"),
            ("retryCodes", ""),
        ];
        let only_token = [("csrf", form.as_str())];
        let writes: [(String, FormFields, String); 4] = [
            (
                path.clone(),
                &edit,
                refusal(
                    Method::PATCH,
                    &record_api,
                    Some(json!({"name": "Changed", "status": "skipped"})),
                )
                .await,
            ),
            (
                format!("{path}/delete"),
                &only_token,
                refusal(Method::DELETE, &record_api, None).await,
            ),
            (
                confirm.clone(),
                &only_token,
                refusal(Method::DELETE, &campaign_api, None).await,
            ),
            (
                policy_page.to_owned(),
                &set_policy,
                refusal(
                    Method::PUT,
                    policy_api,
                    Some(json!({"maxAttempts": 1, "delaySeconds": 30, "retryCodes": []})),
                )
                .await,
            ),
        ];
        for (page_path, fields, message) in writes {
            let refused = browser.post(&page_path, fields).await;
            assert_eq!(
                refused.status,
                StatusCode::FORBIDDEN,
                "{email} {page_path}: {}",
                refused.body
            );
            assert!(
                refused.body.contains(&escaped(&message)),
                "{email} {page_path}: {message}: {}",
                refused.body
            );
        }
    }
    let kept = app.get(&record_api, &admin).await.expect(200);
    assert_eq!(kept["name"], "Ann");
    assert_eq!(kept["status"], "pending");
    app.get(&campaign_api, &admin).await.expect(200);
    assert_eq!(app.get(policy_api, &admin).await.expect(200), policy);
}

on_both_backends!(
    a_campaign_is_created_and_listed_with_its_progress,
    a_refused_campaign_shows_every_broken_field,
    start_pause_and_stop_are_the_apis_steps,
    an_import_shows_each_refused_row_and_the_export_downloads,
    opt_outs_are_added_imported_and_removed,
    lower_roles_other_tenants_and_forged_forms_are_refused,
    a_campaign_is_deleted_after_its_confirm_step,
    the_fax_retry_policy_is_read_and_set,
    lower_roles_are_refused_the_record_and_policy_pages,
);

on_both_backends!(with engine_token;
    a_fax_is_sent_and_a_failed_one_retried,
    a_campaign_number_is_opened_edited_and_deleted,
);
