//! The audit trail of every change: each create, update and delete is recorded in the
//! change's transaction with who, from where, and the changed fields before and after;
//! secrets never.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, fixture};

const LOG: &str = "/v2/admin/audit-log/";

/// Every stored audit row, as raw text, for searching.
async fn raw_rows(app: &TestApp) -> String {
    use sea_query::{Expr, Query};
    let select = Query::select()
        .expr(Expr::cust(
            "entity || '|' || action || '|' || COALESCE(entity_id, '') || '|' || details",
        ))
        .from("audit_log")
        .take();
    let rows: Vec<(String,)> = app.state.db.conn().fetch_all(&select).await.unwrap();
    rows.into_iter()
        .map(|(row,)| row)
        .collect::<Vec<_>>()
        .join("\n")
}

async fn creates_updates_and_deletes_are_recorded(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let created = app
        .create(
            "/v2/admin/extensions/",
            &a,
            json!({"number": "150", "name": "Lobby"}),
        )
        .await;
    let id = created["id"].as_i64().unwrap();
    let path = format!("/v2/admin/extensions/{id}");
    app.patch(&path, &a, json!({"name": "Lobby phone"}))
        .await
        .expect(200);
    // A patch that changes nothing records nothing.
    app.patch(&path, &a, json!({"name": "Lobby phone"}))
        .await
        .expect(200);
    app.delete(&path, &a).await.expect(200);
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &a,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "Store",
            "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await;

    let log = app
        .audit_entries(&a, &format!("entities=extension&entityId={id}"))
        .await;
    let actions: Vec<&str> = log.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["create", "update", "delete"]);
    for entry in &log {
        assert_eq!(entry["entity"], "extension");
        assert_eq!(entry["entityId"], id.to_string());
        assert_eq!(entry["userEmail"], w.admin_a);
        assert_eq!(entry["tenantId"], w.tenant_a);
        assert_eq!(entry["tenantName"], "Tenant A");
        assert!(entry["userId"].as_i64().is_some_and(|u| u > 0), "{entry}");
        assert!(!entry["clientAddress"].as_str().unwrap().is_empty());
    }
    let (create, update, delete) = (&log[0], &log[1], &log[2]);
    assert_eq!(create["before"], Value::Null);
    assert_eq!(create["after"]["number"], "150");
    assert_eq!(create["after"]["name"], "Lobby");
    assert_eq!(create["after"]["tenantId"], w.tenant_a);
    assert_eq!(
        update["before"],
        json!({"name": "Lobby"}),
        "only the changed fields"
    );
    assert_eq!(update["after"], json!({"name": "Lobby phone"}));
    assert_eq!(delete["before"]["name"], "Lobby phone");
    assert_eq!(delete["before"]["number"], "150");
    assert_eq!(delete["after"], Value::Null);

    let groups = app.audit_entries(&a, "entities=paging-group").await;
    assert_eq!(groups.len(), 1);
    assert_eq!(
        groups[0]["entityId"],
        group["id"].as_i64().unwrap().to_string()
    );
    assert_eq!(groups[0]["after"]["number"], "80");
    // Several kinds at once, the release notes' names accepted before their resources.
    let both = app
        .audit_entries(&a, "entities=extension,paging-group,queue")
        .await;
    assert_eq!(both.len(), 4);
}

async fn secrets_never_reach_the_trail(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let hook = app
        .create(
            "/v2/webhooks/",
            &a,
            json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": "https://crm.example.com/hooks",
            "username": "crm", "password": "hook-pass-4711", "authtoken": "hook-token-4711"}),
        )
        .await;
    let signing = hook["signingSecret"].as_str().unwrap().to_owned();
    let hook_path = format!("/v2/webhooks/{}", hook["id"]);
    app.patch(&hook_path, &a, json!({"password": "hook-pass-4712"}))
        .await
        .expect(200);
    let rotated = app
        .post(&format!("{hook_path}/rotate-secret"), &a, json!({}))
        .await
        .expect(200);
    let user = app
        .create(
            "/v2/admin/users/",
            &a,
            json!({"email": "agent@example.com", "password": "user-pass-4711-long", "userRole": 5,
            "branchId": w.branch_a, "peerSecret": "sip-peer-4711"}),
        )
        .await;
    app.patch(
        &format!("/v2/admin/users/{}", user["id"]),
        &a,
        json!({"password": "user-pass-4712-long"}),
    )
    .await
    .expect(200);

    let raw = raw_rows(&app).await;
    for secret in [
        "hook-pass-4711",
        "hook-pass-4712",
        "hook-token-4711",
        signing.as_str(),
        rotated["signingSecret"].as_str().unwrap(),
        "user-pass-4711-long",
        "user-pass-4712-long",
        "sip-peer-4711",
        "$argon2",
    ] {
        assert!(!raw.contains(secret), "{secret} is in the trail:\n{raw}");
    }
    // The changes are there, a changed secret noted without its value under the field
    // the API's body names it by.
    let hooks = app.audit_entries(&a, "entities=webhook").await;
    let actions: Vec<&str> = hooks
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["create", "update", "update"]);
    assert_eq!(hooks[0]["after"]["url"], "https://crm.example.com/hooks");
    assert_eq!(hooks[1]["after"]["password"], "********");
    assert_eq!(hooks[2]["after"]["signingSecret"], "********");
    let users = app
        .audit_entries(&a, &format!("entities=user&entityId={}", user["id"]))
        .await;
    assert_eq!(users.len(), 2);
    assert_eq!(users[0]["after"]["email"], "agent@example.com");
    assert_eq!(users[1]["after"]["password"], "********");
    assert!(users[1]["after"].get("passwordHash").is_none());
}

async fn a_failed_change_writes_no_entry_and_a_failed_entry_fails_the_change(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    app.post(
        "/v2/admin/extensions/",
        &a,
        json!({"number": "101", "name": "Clash"}),
    )
    .await
    .error(409, "Conflict");
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &a)
        .await
        .expect(200);
    assert_eq!(
        app.count("audit_log", Some(("entity", "extension"))).await,
        1
    );
    assert_eq!(app.count("audit_log", Some(("action", "create"))).await, 0);
    // With the trail unwritable, the change itself is refused and nothing is written.
    rename_audit_log(&app).await;
    app.post(
        "/v2/admin/extensions/",
        &a,
        json!({"number": "160", "name": "Unaudited"}),
    )
    .await
    .error(500, "InternalServerError");
    assert_eq!(app.count("extensions", Some(("number", "160"))).await, 0);
}

/// Moves the audit table away behind the service's back, so writing an entry fails.
async fn rename_audit_log(app: &TestApp) {
    use sqlx::Connection;
    let url = app.config.database_url.clone().expect("a database URL");
    let sql = "ALTER TABLE audit_log RENAME TO audit_log_away";
    if url.starts_with("postgres") {
        let mut connection = sqlx::PgConnection::connect(&url).await.unwrap();
        sqlx::query(sql).execute(&mut connection).await.unwrap();
    } else {
        let mut connection = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::query(sql).execute(&mut connection).await.unwrap();
    }
}

async fn the_trail_keeps_to_its_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let b = app.login(w.admin_b).await;
    app.post(
        "/v2/admin/extensions/",
        &a,
        json!({"number": "150", "name": "A only"}),
    )
    .await
    .expect(200);
    assert_eq!(app.audit_entries(&a, "entities=extension").await.len(), 1);
    assert!(app.audit_entries(&b, "entities=extension").await.is_empty());
    app.get(&format!("{LOG}?tenantId={}", w.tenant_a), &b)
        .await
        .error(403, "Forbidden");
    let branch = app.login(w.branch_admin_a).await;
    app.get(LOG, &branch).await.error(403, "Forbidden");
    // A branch admin granted the trail reads what it did itself, not the tenant's.
    app.create(
        "/v2/admin/users/",
        &a,
        json!({"email": "auditor@example.com", "password": "a long enough password", "userRole": 4,
            "branchId": w.branch_a, "permissions": ["audit-log:read"]}),
    )
    .await;
    let auditor = app
        .login_answer("auditor@example.com", "a long enough password")
        .await
        .expect(200)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    app.create(
        "/v2/admin/extensions/",
        &auditor,
        json!({"number": "151", "name": "Auditor's own"}),
    )
    .await;
    let seen = app.audit_entries(&auditor, "entities=extension,user").await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["userEmail"], "auditor@example.com");
    assert_eq!(seen[0]["after"]["name"], "Auditor's own", "{seen:?}");
    let platform = app.login(w.platform).await;
    let all = app.audit_entries(&platform, "entities=extension").await;
    assert_eq!(all.len(), 2, "the tenant admin's and the auditor's");
    assert!(all.iter().all(|e| e["tenantName"] == "Tenant A"), "{all:?}");
}

async fn entity_names_are_checked(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    for accepted in [
        "extension,queue",
        "call-outcome,custom-voice,theme",
        "voicemail-message",
    ] {
        app.get(&format!("{LOG}?entities={accepted}"), &a)
            .await
            .expect(200);
    }
    let problems = app
        .get(&format!("{LOG}?entities=bogus"), &a)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("'query/entities"), "{problems:?}");
}

/// A change made from above (the platform admin, who has no tenant) is entered in the
/// trail of the record's tenant — the tenant of the row after an update, of the row as
/// it was for a delete — so that tenant sees it and no other does; and no update moves a
/// record to another tenant (the tenant is refused as unchangeable), so the tenant
/// before and after are one.
async fn changes_from_above_are_in_the_records_tenants_trail(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let (a, b) = (app.login(w.admin_a).await, app.login(w.admin_b).await);
    let path = format!("/v2/admin/extensions/{}", w.ext_a);
    app.patch(&path, &platform, json!({"name": "Renamed from above"}))
        .await
        .expect(200);
    app.delete(&path, &platform).await.expect(200);
    let ext = w.ext_a.to_string();
    let seen: Vec<(String, i64)> = app
        .audit_entries(&a, &format!("entities=extension&tenantId={}", w.tenant_a))
        .await
        .iter()
        .filter(|e| e["entityId"].as_str() == Some(ext.as_str()))
        .map(|e| {
            (
                e["action"].as_str().unwrap().to_owned(),
                e["tenantId"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("update".to_owned(), w.tenant_a),
            ("delete".to_owned(), w.tenant_a)
        ]
    );
    assert!(
        app.audit_entries(&b, "entities=extension")
            .await
            .iter()
            .all(|e| e["entityId"].as_str() != Some(ext.as_str()))
    );
    // A webhook of A cannot be moved to B by its tenantId.
    let hook = app
        .create(
            "/v2/webhooks/",
            &platform,
            json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": "https://crm.example.com/a"}),
        )
        .await;
    app.patch(
        &format!("/v2/webhooks/{}", hook["id"]),
        &platform,
        json!({"tenantId": w.tenant_b}),
    )
    .await
    .error(400, "ValidationError");
}

/// The one entry of `entity` `id` with `action`.
async fn only(app: &TestApp, token: &str, entity: &str, id: &Value, action: &str) -> Value {
    let log = app
        .audit_entries(
            token,
            &format!("entities={entity}&entityId={id}&action={action}"),
        )
        .await;
    assert_eq!(log.len(), 1, "{entity} {id} {action}: {log:?}");
    log[0].clone()
}

async fn child_lists_show_in_their_owners_entries(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;

    // A paging group's members: a change of the list alone is an update of the group.
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &a,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "Store",
            "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await;
    let path = format!("/v2/admin/paging-groups/{}", group["id"]);
    app.patch(
        &path,
        &a,
        json!({"routingDestinations": [{"id": w.ext_a2, "destType": "EXT"}]}),
    )
    .await
    .expect(200);
    let create = only(&app, &a, "paging-group", &group["id"], "create").await;
    assert_eq!(
        create["after"]["routingDestinations"][0]["id"], w.ext_a,
        "{create}"
    );
    let update = only(&app, &a, "paging-group", &group["id"], "update").await;
    assert_eq!(
        update["before"]["routingDestinations"][0]["id"], w.ext_a,
        "{update}"
    );
    assert_eq!(update["after"]["routingDestinations"][0]["id"], w.ext_a2);
    assert_eq!(
        update["after"]["routingDestinations"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    app.delete(&path, &a).await.expect(200);
    let delete = only(&app, &a, "paging-group", &group["id"], "delete").await;
    assert_eq!(
        delete["before"]["routingDestinations"][0]["id"], w.ext_a2,
        "the members it had: {delete}"
    );

    // A business hour's destination lists and holidays.
    let hours = app
        .create(
            "/v2/admin/business-hours/",
            &a,
            json!({"name": "Store hours", "branchId": w.branch_a, "timezone": "Europe/Berlin",
            "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
            "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
            "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}],
            "holidays": [{"name": "New Year", "date": "2027-01-01"}]}),
        )
        .await;
    let path = format!("/v2/admin/business-hours/{}", hours["id"]);
    app.patch(
        &path,
        &a,
        json!({"notMatchDestinations": [{"id": w.ext_a2, "destType": "VOICEMAIL"}],
               "holidays": [{"name": "Christmas", "date": "2026-12-25"}]}),
    )
    .await
    .expect(200);
    let update = only(&app, &a, "business-hours", &hours["id"], "update").await;
    assert_eq!(
        update["before"]["notMatchDestinations"][0]["id"], w.ext_a,
        "{update}"
    );
    assert_eq!(update["after"]["notMatchDestinations"][0]["id"], w.ext_a2);
    assert_eq!(update["before"]["holidays"][0]["name"], "New Year");
    assert_eq!(update["after"]["holidays"][0]["name"], "Christmas");
    assert!(
        update["after"].get("matchDestinations").is_none(),
        "an unchanged list is not shown: {update}"
    );

    // An announcement's IVRs.
    let media = app
        .upload(
            &a,
            &[("name", "Holiday greeting")],
            Some(("g.mp3", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    let mut ivrs = Vec::new();
    for number in ["700", "701"] {
        let ivr = app
            .create(
                "/v2/admin/ivrs/",
                &a,
                json!({"name": format!("Menu {number}"), "number": number}),
            )
            .await;
        ivrs.push(ivr["id"].clone());
    }
    let announcement = app
        .create(
            "/v2/admin/announcements/",
            &a,
            json!({"name": "Holidays", "description": "Closed", "mediaFileId": media["id"],
            "active": 1, "startDate": "2026-12-20", "endDate": "2027-01-02",
            "branchId": w.branch_a, "ivrs": [{"id": ivrs[0], "order": 1}]}),
        )
        .await;
    app.patch(
        &format!("/v2/admin/announcements/{}", announcement["id"]),
        &a,
        json!({"ivrs": [{"id": ivrs[1], "order": 1}]}),
    )
    .await
    .expect(200);
    let update = only(&app, &a, "announcement", &announcement["id"], "update").await;
    assert_eq!(update["before"]["ivrs"][0]["id"], ivrs[0], "{update}");
    assert_eq!(update["after"]["ivrs"][0]["id"], ivrs[1]);

    // A device's lines.
    let device = app
        .create(
            "/v2/admin/devices/",
            &a,
            json!({"name": "Front desk", "mac": "80:5E:C0:AB:CD:01", "model": "yealink-t54w",
            "lines": [w.ext_a]}),
        )
        .await;
    app.patch(
        &format!("/v2/admin/devices/{}", device["id"]),
        &a,
        json!({"lines": [w.ext_a2, w.ext_a]}),
    )
    .await
    .expect(200);
    let update = only(&app, &a, "device", &device["id"], "update").await;
    let ids = |side: &str| -> Vec<Value> {
        update[side]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|line| line["id"].clone())
            .collect()
    };
    assert_eq!(ids("before"), [json!(w.ext_a)], "{update}");
    assert_eq!(ids("after"), [json!(w.ext_a2), json!(w.ext_a)]);
}

/// An entry's side without the secrets it notes as changed (`********`): not fields the
/// API answers.
fn answered(side: &Value) -> Value {
    let mut side = side.clone();
    if let Some(fields) = side.as_object_mut() {
        fields.retain(|_, value| value != "********");
    }
    side
}

/// The fields in which two answers of one record differ.
fn changed(first: &Value, second: &Value) -> Vec<String> {
    let (Some(first), Some(second)) = (first.as_object(), second.as_object()) else {
        panic!("records are objects: {first} {second}");
    };
    let mut keys: Vec<String> = second
        .iter()
        .filter(|(key, value)| first.get(*key) != Some(*value))
        .map(|(key, _)| key.clone())
        .collect();
    keys.sort();
    keys
}

/// The trail speaks the API's language (issue 29): for each record that owns lists, the
/// create's `after` is what `GET` answers, an update's `before` and `after` are the fields
/// that changed between two `GET`s, as each answered them (a queue's `members` and
/// `timeoutDestination`, `holdMediaFileId: 0`), and the delete's `before` is the last
/// `GET` — so a client can diff an entry against what it read.
async fn entries_are_what_the_api_answers(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let media = app
        .upload(
            &a,
            &[("name", "Tone")],
            Some(("t.mp3", fixture("tone.mp3"))),
        )
        .await
        .expect(200)["id"]
        .clone();
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &a,
            json!({"name": "Menu", "number": "709"}),
        )
        .await["id"]
        .clone();
    app.create(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": w.tenant_a, "number": "12025550100"}),
    )
    .await;
    let ext = |id: i64| json!({"id": id, "destType": "EXT"});
    let resources: Vec<(&str, &str, &str, Value, Value)> = vec![
        (
            "queue",
            "/v2/admin/queues/",
            &a,
            json!({"name": "Support", "number": "610", "strategy": "ringAll",
                   "members": [{"id": w.ext_a, "order": 1}]}),
            json!({"members": [{"id": w.ext_a2, "order": 1}, {"id": w.ext_a, "order": 2}],
                   "timeoutDestination": ext(w.ext_a), "holdMediaFileId": media}),
        ),
        (
            "ivr",
            "/v2/admin/ivrs/",
            &a,
            json!({"name": "Main", "number": "710", "timeoutDestination": ext(w.ext_a)}),
            json!({"timeoutDestination": ext(w.ext_a2), "greetingMediaFileId": media}),
        ),
        (
            "paging-group",
            "/v2/admin/paging-groups/",
            &a,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "Store",
                   "routingDestinations": [ext(w.ext_a)]}),
            json!({"routingDestinations": [ext(w.ext_a2)], "introMessageMediaFileId": media}),
        ),
        (
            "business-hours",
            "/v2/admin/business-hours/",
            &a,
            json!({"name": "Store hours", "branchId": w.branch_a, "timezone": "Europe/Berlin",
                   "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
                   "matchDestinations": [ext(w.ext_a)],
                   "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}]}),
            json!({"matchDestinations": [ext(w.ext_a2)],
                   "holidays": [{"name": "Christmas", "date": "2026-12-25"}]}),
        ),
        (
            "phone-number",
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "12025550101"}),
            json!({"destination": ext(w.ext_a), "diCommentName": "Sales"}),
        ),
        (
            "pharmacy-agent",
            "/v2/admin/pharmacy/agents/",
            &a,
            json!({"name": "Refills", "number": "711"}),
            json!({"fallbackDestination": ext(w.ext_a), "greetingMediaFileId": media}),
        ),
        (
            "music-on-hold",
            "/v2/admin/music-on-hold/",
            &a,
            json!({"name": "Jazz", "routingDestinations": [{"id": media, "destType": "MEDIA_FILE"}]}),
            json!({"name": "Smooth jazz"}),
        ),
        (
            "call-campaign",
            "/v2/admin/call-campaigns/",
            &a,
            json!({"name": "Recall", "callerIdNumber": "+12025550100",
                   "destination": [ext(w.ext_a)],
                   "callingWindow": {"days": [1], "from": "09:00", "to": "17:00", "timeZone": "UTC"}}),
            json!({"destination": [ext(w.ext_a2)], "name": "Recall 2"}),
        ),
        (
            "device",
            "/v2/admin/devices/",
            &a,
            json!({"name": "Desk", "mac": "805ec0abcd77", "model": "yealink-t54w", "lines": [w.ext_a]}),
            json!({"lines": [w.ext_a2, w.ext_a], "name": "Front desk"}),
        ),
        (
            "announcement",
            "/v2/admin/announcements/",
            &a,
            json!({"name": "Holidays", "description": "Closed", "mediaFileId": media,
                   "active": 1, "startDate": "2026-12-20", "endDate": "2027-01-02",
                   "branchId": w.branch_a, "ivrs": [{"id": ivr, "order": 1}]}),
            json!({"ivrs": [], "description": "Open again"}),
        ),
    ];
    for (entity, collection, token, create, change) in resources {
        let id = app.post(collection, token, create).await.expect(200)["id"].clone();
        let path = format!("{collection}{id}");
        let first = app.get(&path, token).await.expect(200);
        let created = only(&app, &a, entity, &id, "create").await;
        assert_eq!(
            answered(&created["after"]),
            first,
            "{entity}: the create is the first GET"
        );
        app.patch(&path, token, change).await.expect(200);
        let second = app.get(&path, token).await.expect(200);
        let updated = only(&app, &a, entity, &id, "update").await;
        let fields = changed(&first, &second);
        assert!(!fields.is_empty(), "{entity}: the change shows");
        assert_eq!(
            changed(&json!({}), &answered(&updated["after"])),
            fields,
            "{entity}: the update names the fields that changed: {updated}"
        );
        for field in &fields {
            assert_eq!(
                updated["before"][field], first[field],
                "{entity} {field} before"
            );
            assert_eq!(
                updated["after"][field], second[field],
                "{entity} {field} after"
            );
        }
        let delete_token = if entity == "phone-number" {
            &platform
        } else {
            token
        };
        app.delete(&path, delete_token).await.expect(200);
        let deleted = only(&app, &a, entity, &id, "delete").await;
        assert_eq!(
            answered(&deleted["before"]),
            second,
            "{entity}: the delete is the last GET"
        );
    }
    // The example, spelled out: a queue's hold music none is 0, as answered.
    let queue = app
        .create(
            "/v2/admin/queues/",
            &a,
            json!({"name": "Plain", "number": "612", "strategy": "ringAll"}),
        )
        .await;
    let created = only(&app, &a, "queue", &queue["id"], "create").await;
    assert_eq!(created["after"]["holdMediaFileId"], 0);
    assert_eq!(created["after"]["members"], json!([]));
}

/// The audited entity of each record path of the document.
const ENTITIES: &[(&str, &str)] = &[
    ("/v2/admin/announcements/{id}", "announcement"),
    ("/v2/admin/branches/{id}", "branch"),
    ("/v2/admin/business-hours/{id}", "business-hours"),
    (
        "/v2/admin/business-hours/{id}/holidays/{holidayId}",
        "holiday",
    ),
    ("/v2/admin/button-layouts/{id}", "button-layout"),
    ("/v2/admin/call-campaigns/{id}", "call-campaign"),
    (
        "/v2/admin/call-campaigns/{id}/records/{recordId}",
        "call-campaign-record",
    ),
    ("/v2/admin/call-outcomes/{id}", "call-outcome"),
    ("/v2/admin/conduits/{id}", "conduit"),
    ("/v2/admin/custom-voices/{id}", "custom-voice"),
    ("/v2/admin/devices/{id}", "device"),
    ("/v2/admin/extensions/{id}", "extension"),
    ("/v2/admin/ivrs/{id}", "ivr"),
    ("/v2/admin/media-files/{id}", "media-file"),
    ("/v2/admin/music-on-hold/{id}", "music-on-hold"),
    ("/v2/admin/opt-outs/{id}", "opt-out"),
    ("/v2/admin/paging-groups/{id}", "paging-group"),
    ("/v2/admin/partners/{id}", "partner"),
    ("/v2/admin/pharmacy/agents/{id}", "pharmacy-agent"),
    ("/v2/admin/phone-numbers/{id}", "phone-number"),
    ("/v2/admin/queues/{id}", "queue"),
    ("/v2/admin/tenants/{id}", "tenant"),
    ("/v2/admin/users/{id}", "user"),
    ("/v2/admin/voicemail-messages/{id}", "voicemail-message"),
    ("/v2/webhooks/{id}", "webhook"),
];

/// A field a change can set on any record that has it, and the value it takes.
const CHANGEABLE: &[&str] = &["name", "description", "reason", "title", "diCommentName"];

/// What an answer holds that the trail leaves out, by entity (docs/decisions.md): links
/// signed for one reader, which expire, and a campaign record's calls, which the engine
/// reports (an entry would grow with every attempt).
const NOT_IN_THE_TRAIL: &[(&str, &[&str])] = &[
    ("media-file", &["url", "renditionUrl", "urlExpiresAt"]),
    ("voicemail-message", &["mediaURL"]),
    ("call-campaign-record", &["attemptHistory"]),
];

/// A record of `entity` as answered or as the trail keeps it, for comparing the two:
/// without what the trail leaves out, masked secrets left out.
fn comparable(entity: &str, record: &Value) -> Value {
    let mut record = answered(record);
    if let Some(fields) = record.as_object_mut() {
        for (of, left_out) in NOT_IN_THE_TRAIL {
            if *of == entity {
                fields.retain(|field, _| !left_out.contains(&field.as_str()));
            }
        }
    }
    record
}

/// The trail speaks the API's language for every record of the served document (issue
/// 29): the create's `after` is what the first `GET` answers, an update's `before` and
/// `after` are the fields that changed between two `GET`s, and the delete's `before` is
/// the last `GET`. The walk comes from the document, so a new resource is checked as soon
/// as it is routed (and fails until [`ENTITIES`] names its entity). Records made without
/// a person (a voicemail pushed by the engine, a voice made through the library) have no
/// create entry; their update and delete are checked all the same.
async fn every_record_of_the_document_is_audited_as_answered(app: TestApp) {
    use crate::round_trip::{Ctx, create, record_paths};
    let ctx = Ctx::new(&app).await;
    let document = app.get("/v2/openapi.json", &ctx.admin).await.expect(200);
    let mut wrong = Vec::new();
    let templates: Vec<String> = record_paths(&document)
        .into_iter()
        .filter(|template| template.starts_with("/v2/"))
        .collect();
    assert!(templates.len() >= 25, "too few records: {templates:?}");
    for template in &templates {
        let entity = ENTITIES
            .iter()
            .find(|(path, _)| path == template)
            .map(|(_, entity)| *entity)
            .unwrap_or_else(|| panic!("{template}: name its audited entity in ENTITIES"));
        let (path, token) = create(&ctx, template)
            .await
            .unwrap_or_else(|| panic!("no way to make a record of {template}"));
        let id = json!(path.rsplit('/').next().unwrap().parse::<i64>().unwrap());
        let first = app.get(&path, &token).await.expect(200);
        let (app, platform) = (&app, &ctx.platform);
        let trail = |action: &str| {
            let query = format!("entities={entity}&entityId={id}&action={action}");
            async move { app.audit_entries(platform, &query).await }
        };
        let created = trail("create").await;
        let made_by_a_person = !matches!(entity, "voicemail-message" | "custom-voice");
        match (created.as_slice(), made_by_a_person) {
            ([entry], true)
                if comparable(entity, &entry["after"]) != comparable(entity, &first) =>
            {
                wrong.push(format!(
                    "{template}: create\n  trail: {}\n  GET:   {first}",
                    entry["after"]
                ))
            }
            ([_], true) | ([], false) => {}
            (other, _) => wrong.push(format!("{template}: {} create entries", other.len())),
        }

        let schema = &document["paths"][template.as_str()]["patch"]["requestBody"]["content"]["application/json"]
            ["schema"];
        let schema = match schema["$ref"].as_str() {
            Some(reference) => {
                &document["components"]["schemas"][reference.rsplit('/').next().unwrap()]
            }
            None => schema,
        };
        let change = match CHANGEABLE
            .iter()
            .find(|field| schema["properties"].get(**field).is_some())
        {
            Some(field) => {
                json!({ *field: format!("{} changed", first[*field].as_str().unwrap_or("it")) })
            }
            // A webhook has no name: it is pointed elsewhere.
            None if schema["properties"].get("url").is_some() => {
                json!({"url": "https://crm.example.com/hooks/changed"})
            }
            // A voicemail message has no name: it is filed.
            None if schema["properties"].get("read").is_some() => json!({"read": true}),
            None => panic!("{template}: no field of CHANGEABLE to change"),
        };
        app.patch(&path, &token, change).await.expect(200);
        let second = app.get(&path, &token).await.expect(200);
        match trail("update").await.as_slice() {
            [entry] => {
                let fields = changed(&comparable(entity, &first), &comparable(entity, &second));
                let after = comparable(entity, &entry["after"]);
                if changed(&json!({}), &after) != fields
                    || fields.iter().any(|f| {
                        entry["before"][f] != comparable(entity, &first)[f] || after[f] != second[f]
                    })
                {
                    wrong.push(format!(
                        "{template}: update\n  trail: {} -> {}\n  GETs:  {first} -> {second}",
                        entry["before"], entry["after"]
                    ));
                }
            }
            other => wrong.push(format!("{template}: {} update entries", other.len())),
        }

        let deleted = app.delete(&path, &token).await;
        if deleted.status == 403 {
            app.delete(&path, &ctx.platform).await.expect(200);
        } else {
            deleted.expect(200);
        }
        match trail("delete").await.as_slice() {
            [entry] if comparable(entity, &entry["before"]) != comparable(entity, &second) => wrong
                .push(format!(
                    "{template}: delete\n  trail: {}\n  GET:   {second}",
                    entry["before"]
                )),
            [_] => {}
            other => wrong.push(format!("{template}: {} delete entries", other.len())),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Records no `PATCH` changes are kept as answered too: an MMS upload's create and
/// delete entries are the list's answer of it, its signed link left out.
async fn an_upload_is_audited_as_answered(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    crate::mms_media::upload(&app, &admin, 1).await.expect(200);
    let listed = app.get("/v2/messaging/media/", &admin).await.expect(200);
    let mut answered = listed["records"][0].clone();
    let id = answered["id"].clone();
    answered.as_object_mut().unwrap().remove("url");
    let created = only(&app, &admin, "mms-media", &id, "create").await;
    assert_eq!(created["after"], answered, "{created}");
    app.delete(&format!("/v2/messaging/media/{id}"), &admin)
        .await
        .expect(200);
    let deleted = only(&app, &admin, "mms-media", &id, "delete").await;
    assert_eq!(deleted["before"], answered, "{deleted}");
    assert_eq!(deleted["after"], Value::Null);
}

on_both_backends!(
    an_upload_is_audited_as_answered,
    every_record_of_the_document_is_audited_as_answered,
    entries_are_what_the_api_answers,
    child_lists_show_in_their_owners_entries,
    changes_from_above_are_in_the_records_tenants_trail,
    creates_updates_and_deletes_are_recorded,
    secrets_never_reach_the_trail,
    a_failed_change_writes_no_entry_and_a_failed_entry_fails_the_change,
    the_trail_keeps_to_its_tenant,
    entity_names_are_checked,
);
