//! The console's people and calls pages (issue 34). People: the tenant's accounts with
//! their role and branch in words, created, changed and deleted through the API (read
//! back there), a refused form naming every broken field and changing nothing, a branch
//! administrator seeing only their branch and unable to give a role above theirs, another
//! tenant's admin and a plain user refused, a form without token refused. Calls: the list
//! filtered as the API filters it, a refused range named next to its field, a call's
//! report with its recording played through the console's own stream (whatever name the
//! browser uses for the service) and its transcript by speaker, and another tenant
//! refused.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::console::{Browser, Page};
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp, fixture};

/// The rows of the people table: each `data-person` e-mail.
fn people_of(page: &Page) -> Vec<String> {
    page.body
        .split("data-person=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
        .collect()
}

/// The row of `email` in the people table.
fn person_row<'a>(page: &'a Page, email: &str) -> &'a str {
    let start = page
        .body
        .find(&format!("data-person=\"{email}\""))
        .unwrap_or_else(|| panic!("no row for {email}: {}", page.body));
    let row = &page.body[start..];
    &row[..row.find("</tr>").unwrap()]
}

/// The account of `email` as the API answers it to `token`.
async fn account(app: &TestApp, token: &str, email: &str) -> Option<Value> {
    let found = app
        .get(&format!("/v2/admin/users/?query={email}"), token)
        .await
        .expect(200);
    found["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["email"] == email)
        .cloned()
}

/// The list shows the tenant's people with their role and branch in words (not another
/// tenant's), searched and filtered by role as the API does.
async fn the_list_shows_roles_and_branches(app: TestApp) {
    let w = World::seed(&app).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let list = browser.get("/console/people").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body
            .contains("href=\"/console/people\" aria-current=\"page\"")
    );
    let people = people_of(&list);
    for email in [w.admin_a, w.branch_admin_a, w.user_a] {
        assert!(people.contains(&email.to_owned()), "{email}: {people:?}");
    }
    assert!(!people.contains(&w.admin_b.to_owned()), "{people:?}");
    let row = person_row(&list, w.branch_admin_a);
    assert!(row.contains("<td>branch administrator</td>"), "{row}");
    assert!(row.contains("<td>A main</td>"), "{row}");
    let searched = browser.get("/console/people?query=branch-a").await;
    assert_eq!(people_of(&searched), vec![w.branch_admin_a.to_owned()]);
    assert!(
        searched.body.contains("value=\"branch-a\""),
        "the search is kept"
    );
    let users = browser.get("/console/people?userRole=5").await;
    assert_eq!(people_of(&users), vec![w.user_a.to_owned()]);
}

/// An account is created with its role and branch, changed (role, branch, disabled) and
/// deleted, each read back through the API.
async fn an_account_is_created_changed_and_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let form = browser.get("/console/people/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    let token = form.token();
    let branch_a2 = w.branch_a2.to_string();
    let created = browser
        .post(
            "/console/people",
            &[
                ("csrf", &token),
                ("email", "new-clerk@example.com"),
                ("password", PASSWORD),
                ("userRole", "4"),
                ("branchId", &branch_a2),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.body);
    assert_eq!(created.location(), "/console/people?done=created");
    let stored = account(&app, &admin, "new-clerk@example.com")
        .await
        .expect("the account is created");
    assert_eq!(stored["userRole"], 4);
    assert_eq!(stored["branchId"], w.branch_a2);
    assert_eq!(stored["tenantId"], w.tenant_a);
    // The new account signs in with the password given.
    app.login_answer("new-clerk@example.com", PASSWORD)
        .await
        .expect(200);
    let list = browser.get(created.location()).await;
    assert!(list.body.contains("The account is created."));
    assert!(person_row(&list, "new-clerk@example.com").contains("<td>A annex</td>"));

    let id = stored["id"].as_i64().unwrap();
    let path = format!("/console/people/{id}");
    let edit = browser.get(&path).await;
    assert_eq!(edit.status, StatusCode::OK, "{}", edit.body);
    assert!(edit.body.contains("<option value=\"4\" selected>"));
    let branch_a = w.branch_a.to_string();
    let saved = browser
        .post(
            &path,
            &[
                ("csrf", &token),
                ("userRole", "5"),
                ("branchId", &branch_a),
                ("disabled", "1"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let stored = app
        .get(&format!("/v2/admin/users/{id}"), &admin)
        .await
        .expect(200);
    assert_eq!(stored["userRole"], 5);
    assert_eq!(stored["branchId"], w.branch_a);
    assert_eq!(stored["disabled"], 1);
    let row = browser.get("/console/people").await;
    assert!(person_row(&row, "new-clerk@example.com").contains("<td>Disabled</td>"));

    let deleted = browser
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.body);
    assert_eq!(deleted.location(), "/console/people?done=deleted");
    app.get(&format!("/v2/admin/users/{id}"), &admin)
        .await
        .expect(404);
}

/// A refused form names every broken field next to its input, keeps what was typed and
/// creates nothing; a refused change names its field and changes nothing.
async fn a_refused_form_shows_every_broken_field(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let before = app.get("/v2/admin/users/", &admin).await.expect(200)["totalRecords"].clone();
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let token = browser.get("/console/people/new").await.token();
    let page = browser
        .post(
            "/console/people",
            &[
                ("csrf", &token),
                ("email", "not an address"),
                ("password", "short"),
                ("userRole", "5"),
                ("branchId", ""),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    for field in ["email", "password"] {
        assert!(
            page.body
                .contains(&format!("id=\"{field}-error\" data-field=\"{field}\"")),
            "no error next to {field}: {}",
            page.body
        );
        assert!(
            page.body
                .contains(&format!("id=\"{field}\" name=\"{field}\""))
                && page.body.contains("aria-invalid=\"true\""),
            "{field} is not marked"
        );
    }
    assert!(page.body.contains("value=\"not an address\""), "kept");
    let after = app.get("/v2/admin/users/", &admin).await.expect(200)["totalRecords"].clone();
    assert_eq!(before, after, "nothing is created");

    // A branch administrator needs a branch: the API says so next to the branch.
    let page = browser
        .post(
            "/console/people",
            &[
                ("csrf", &token),
                ("email", "nobranch@example.com"),
                ("password", PASSWORD),
                ("userRole", "4"),
                ("branchId", ""),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST, "{}", page.body);
    assert!(
        page.body
            .contains("id=\"branchId-error\" data-field=\"branchId\""),
        "{}",
        page.body
    );
    assert!(
        account(&app, &admin, "nobranch@example.com")
            .await
            .is_none()
    );
}

/// A branch administrator sees only their branch's people, is offered no role above
/// theirs, and the API's refusal of one (a tampered form) is shown in its words with
/// nothing created; another branch's account is no page for them.
async fn a_branch_admin_sees_only_their_branch(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let annex = app
        .create(
            "/v2/admin/users/",
            &admin,
            json!({"email": "annex-clerk@example.com", "password": PASSWORD, "userRole": 5,
            "branchId": w.branch_a2}),
        )
        .await;
    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.branch_admin_a).await;
    let list = browser.get("/console/people").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    let people = people_of(&list);
    assert!(people.contains(&w.user_a.to_owned()), "{people:?}");
    assert!(
        !people.contains(&"annex-clerk@example.com".to_owned()),
        "{people:?}"
    );
    let form = browser.get("/console/people/new").await;
    assert!(
        !form.body.contains(">tenant administrator</option>"),
        "a branch admin is offered no tenant admin role: {}",
        form.body
    );
    assert!(form.body.contains(">branch administrator</option>"));
    let token = form.token();
    let branch_a = w.branch_a.to_string();
    let refused = browser
        .post(
            "/console/people",
            &[
                ("csrf", &token),
                ("email", "promoted@example.com"),
                ("password", PASSWORD),
                ("userRole", "3"),
                ("branchId", &branch_a),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("you may not manage accounts of this role"),
        "{}",
        refused.body
    );
    assert!(
        account(&app, &admin, "promoted@example.com")
            .await
            .is_none()
    );
    let other = format!("/console/people/{}", annex["id"]);
    assert_eq!(browser.get(&other).await.status, StatusCode::NOT_FOUND);
    let changed = browser
        .post(
            &other,
            &[("csrf", &token), ("userRole", "5"), ("branchId", &branch_a)],
        )
        .await;
    assert_eq!(changed.status, StatusCode::NOT_FOUND);
    let deleted = browser
        .post(&format!("{other}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::NOT_FOUND);
    let stored = app
        .get(&format!("/v2/admin/users/{}", annex["id"]), &admin)
        .await
        .expect(200);
    assert_eq!(stored["branchId"], w.branch_a2);
}

/// Another tenant's admin cannot open or delete this tenant's account; a user (who may
/// not write accounts) is refused in the API's words; a form without token is refused;
/// nothing changes.
async fn other_tenants_users_and_forged_forms_are_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let target = account(&app, &admin, w.user_a).await.unwrap();
    let path = format!("/console/people/{}", target["id"]);

    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    assert_eq!(other.get(&path).await.status, StatusCode::NOT_FOUND);
    let token = other.get("/console/people/new").await.token();
    let deleted = other
        .post(&format!("{path}/delete"), &[("csrf", &token)])
        .await;
    assert_eq!(deleted.status, StatusCode::NOT_FOUND);
    assert!(!people_of(&other.get("/console/people").await).contains(&w.user_a.to_owned()));

    let mut user = Browser::new(&app.base);
    user.sign_in(w.user_a).await;
    let token = user.get("/console/people/new").await.token();
    let refused = user
        .post(
            "/console/people",
            &[
                ("csrf", &token),
                ("email", "by-a-user@example.com"),
                ("password", PASSWORD),
                ("userRole", "5"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert!(
        account(&app, &admin, "by-a-user@example.com")
            .await
            .is_none()
    );

    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let forged = browser
        .post(
            "/console/people",
            &[
                ("email", "forged@example.com"),
                ("password", PASSWORD),
                ("userRole", "5"),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(forged.body.contains("This form was refused"));
    let forged_delete = browser.post(&format!("{path}/delete"), &[]).await;
    assert_eq!(forged_delete.status, StatusCode::FORBIDDEN);
    assert!(account(&app, &admin, "forged@example.com").await.is_none());
    assert!(account(&app, &admin, w.user_a).await.is_some());
}

/// An ingested call of `tenant`, `ago` seconds before now: answered after 5 s and talking
/// `talk` seconds, or (`talk` 0) missed.
fn ingested_call(tenant: i64, unique_id: &str, from: &str, ago: i64, talk: i64) -> Value {
    let start = chrono::Utc::now() - chrono::Duration::seconds(ago);
    let iso =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut call = json!({
        "tenantId": tenant, "uniqueId": unique_id, "event": "ended", "direction": "inbound",
        "callerIdNum": from, "callerIdName": "A caller", "dialedNum": "101",
        "dstChannel": "PJSIP/101-0000001a", "time": iso(start),
    });
    if talk > 0 {
        let answer = start + chrono::Duration::seconds(5);
        call["answerTime"] = json!(iso(answer));
        call["endTime"] = json!(iso(answer + chrono::Duration::seconds(talk)));
        call["disposition"] = json!("ANSWERED");
    } else {
        call["endTime"] = json!(iso(start + chrono::Duration::seconds(20)));
        call["disposition"] = json!("NO ANSWER");
    }
    call
}

/// The `src` of the page's recording player.
fn player_src(page: &Page) -> String {
    let start = page
        .body
        .find("<audio controls")
        .unwrap_or_else(|| panic!("no player: {}", page.body));
    let tag = &page.body[start..];
    let src = &tag[tag.find("src=\"").unwrap() + 5..];
    src[..src.find('"').unwrap()]
        .replace("&amp;", "&")
        .replace("&#38;", "&")
}

/// The calls list filters as the API does; a call's page shows its report, plays its
/// recording through the console's own stream (under any name of the service) and its
/// transcript by speaker; a refused range is named next to its field;
/// another tenant's admin gets no page and no audio.
async fn calls_with_their_recording_and_transcript(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    app.push(
        &platform,
        "/v2/ingest/calls",
        (
            "call",
            ingested_call(w.tenant_a, "c.rec", "5550001", 3600, 30),
        ),
        Some(("recording", fixture("tone.mp3"))),
    )
    .await
    .expect(200);
    app.post(
        "/v2/ingest/calls",
        &platform,
        ingested_call(w.tenant_a, "c.missed", "5550002", 1800, 0),
    )
    .await
    .expect(200);
    app.post(
        "/v2/ingest/calls",
        &platform,
        ingested_call(w.tenant_b, "c.other", "5550003", 1800, 10),
    )
    .await
    .expect(200);
    app.post(
        "/v2/ingest/transcripts",
        &platform,
        json!({"tenantId": w.tenant_a, "uniqueId": "c.rec",
               "channels": [{"channel": 0, "role": "caller", "party": "5550001"},
                            {"channel": 1, "role": "agent", "party": "101"}],
               "segments": [
                   {"channel": 0, "startMs": 0, "endMs": 2000, "text": "I need a refill."},
                   {"channel": 1, "startMs": 2500, "endMs": 4000, "text": "Which prescription?"}]}),
    )
    .await
    .expect(200);

    let mut browser = Browser::new(&app.base);
    browser.sign_in(w.admin_a).await;
    let list = browser.get("/console/calls").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert!(
        list.body.contains("href=\"/console/calls/c.rec\""),
        "{}",
        list.body
    );
    assert!(list.body.contains("href=\"/console/calls/c.missed\""));
    assert!(!list.body.contains("c.other"), "another tenant's call");
    assert!(
        list.body
            .contains("<strong>2</strong> calls, 1 answered, 1 missed"),
        "{}",
        list.body
    );
    let missed = browser.get("/console/calls?disposition=NO+ANSWER").await;
    assert!(missed.body.contains("c.missed") && !missed.body.contains("c.rec"));
    assert!(
        missed
            .body
            .contains("<option value=\"NO ANSWER\" selected>")
    );
    let by_number = browser.get("/console/calls?number=5550001").await;
    assert!(by_number.body.contains("c.rec") && !by_number.body.contains("c.missed"));
    // Yesterday and today, in the tenant's zone (UTC here), hold both; days long past
    // hold none.
    let now = chrono::Utc::now();
    let (yesterday, today) = (
        (now - chrono::Duration::days(1)).format("%Y-%m-%d"),
        now.format("%Y-%m-%d"),
    );
    let ranged = browser
        .get(&format!("/console/calls?from={yesterday}&to={today}"))
        .await;
    assert!(ranged.body.contains("c.rec") && ranged.body.contains("c.missed"));
    let past = browser
        .get("/console/calls?from=2020-01-01&to=2020-01-02")
        .await;
    assert_eq!(past.status, StatusCode::OK);
    assert!(!past.body.contains("c.rec") && !past.body.contains("c.missed"));
    // A range the API refuses is named next to its field, what was typed kept.
    let refused = browser
        .get("/console/calls?from=2026-05-02&to=2026-05-01")
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert!(
        refused.body.contains("data-field=\"from\""),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("value=\"2026-05-02\""));

    let page = browser.get("/console/calls/c.rec").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("Call from A caller (5550001) to 101"));
    assert!(
        page.body.contains(
            "<th scope=\"row\" class=\"speaker speaker-0\">Caller 5550001</th><td>I need a refill.</td>"
        ),
        "{}",
        page.body
    );
    assert!(page.body.contains(
        "<th scope=\"row\" class=\"speaker speaker-1\">Agent 101</th><td>Which prescription?</td>"
    ));
    let recording = app
        .get(
            "/v2/admin/call-recordings/c.rec",
            &app.login(w.admin_a).await,
        )
        .await
        .expect(200);
    let media_url = recording["mediaURL"].as_str().unwrap();
    let (status, _, audio) = app.fetch(media_url, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!audio.is_empty());
    // Under its public URL or another name (localhost), the page plays the console's own
    // stream of the recording: the same bytes as the API's link.
    let port = app.base.rsplit(':').next().unwrap();
    let mut local = Browser::new(&format!("http://localhost:{port}"));
    local.sign_in(w.admin_a).await;
    let page_there = local.get("/console/calls/c.rec").await;
    assert_eq!(page_there.status, StatusCode::OK, "{}", page_there.body);
    for (browser, page) in [(&mut browser, &page), (&mut local, &page_there)] {
        assert_eq!(player_src(page), "/console/calls/c.rec/recording");
        let (status, headers, streamed) =
            browser.fetch("/console/calls/c.rec/recording", None).await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("audio/"),
            "{headers:?}"
        );
        assert_eq!(streamed, audio, "the same recording");
    }

    // A call without recording or transcript says so.
    let missed = browser.get("/console/calls/c.missed").await;
    assert!(missed.body.contains("This call was not recorded."));
    assert!(missed.body.contains("No transcript was recorded"));

    // Another tenant's admin: no page, no audio.
    let mut other = Browser::new(&app.base);
    other.sign_in(w.admin_b).await;
    assert_eq!(
        other.get("/console/calls/c.rec").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        other.get("/console/calls/c.rec/recording").await.status,
        StatusCode::NOT_FOUND
    );
    assert!(!other.get("/console/calls").await.body.contains("c.rec"));
}

on_both_backends!(
    the_list_shows_roles_and_branches,
    an_account_is_created_changed_and_deleted,
    a_refused_form_shows_every_broken_field,
    a_branch_admin_sees_only_their_branch,
    other_tenants_users_and_forged_forms_are_refused,
    calls_with_their_recording_and_transcript,
);
