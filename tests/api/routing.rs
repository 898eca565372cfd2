//! Inbound routing: call queues, IVR menus, phone numbers' destinations, the routing
//! graph (cycles, dangling references, `?at=` on a holiday, the reverse question,
//! Mermaid and DOT) and the phone-number search — each with its tenant checks, in-use
//! 409s and lower roles.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, actions};

/// `wrapUpSeconds`: stored, answered, changed by PATCH, refused out of 0..=3600.
async fn queue_members_rest_for_the_wrap_up_after_a_call(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let bare = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Bare", "number": "610"}),
        )
        .await;
    assert_eq!(bare["wrapUpSeconds"], 0);
    let queue = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Rested", "number": "611", "wrapUpSeconds": 30}),
        )
        .await;
    assert_eq!(queue["wrapUpSeconds"], 30);
    let path = format!("/v2/admin/queues/{}", queue["id"]);
    assert_eq!(app.get(&path, &token).await.expect(200), queue);
    let changed = app
        .patch(&path, &token, json!({"wrapUpSeconds": 3600}))
        .await
        .expect(200);
    assert_eq!(changed["wrapUpSeconds"], 3600);
    assert_eq!(changed["name"], "Rested");
    let kept = app
        .patch(&path, &token, json!({"name": "Still rested"}))
        .await
        .expect(200);
    assert_eq!(kept["wrapUpSeconds"], 3600);
    assert_eq!(app.get(&path, &token).await.expect(200), kept);
    let problems = app
        .patch(&path, &token, json!({"wrapUpSeconds": 3601}))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/wrapUpSeconds' must be at most 3600"]);
    let problems = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Restless", "number": "612", "wrapUpSeconds": -1}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/wrapUpSeconds' must be at least 0"]);
    assert_eq!(
        app.get(&path, &token).await.expect(200)["wrapUpSeconds"],
        3600
    );
}

async fn queues_hold_members_in_order_within_the_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let second = app.extension(&token, "102", "Stock room").await;
    let music = app.media_file(&token, "Hold music").await;
    let queue = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({
                "name": "Support", "number": "600", "strategy": "roundRobin",
                "members": [{"id": second, "order": 2, "penalty": 5}, {"id": w.ext_a, "order": 1}],
                "maxWaitSeconds": 120, "maxCallers": 8, "holdMediaFileId": music,
                "announcePosition": 1, "timeoutDestination": {"id": w.ext_a, "destType": "VOICEMAIL"},
            }),
        )
        .await
        .expect(200);
    let id = queue["id"].as_i64().unwrap();
    assert_eq!(queue["tenantId"], w.tenant_a);
    assert_eq!(queue["strategy"], "roundRobin");
    assert_eq!(
        queue["members"],
        json!([
            {"id": w.ext_a, "name": "Front desk A", "number": "101", "order": 1, "penalty": 0},
            {"id": second, "name": "Stock room", "number": "102", "order": 2, "penalty": 5},
        ])
    );
    assert_eq!(queue["holdMediaFileId"], music);
    assert_eq!(queue["timeoutDestination"]["destType"], "VOICEMAIL");
    assert_eq!(queue["timeoutDestination"]["number"], "101");
    let path = format!("/v2/admin/queues/{id}");
    assert_eq!(app.get(&path, &token).await.expect(200), queue);
    let bare = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Bare", "number": "601"}),
        )
        .await;
    assert_eq!(bare["strategy"], "ringAll");
    assert_eq!(bare["members"], json!([]));
    assert_eq!(bare["maxWaitSeconds"], 300);
    assert_eq!(bare["timeoutDestination"], Value::Null);

    // One dial plan: a queue cannot take an extension's number, nor an extension a queue's.
    let taken = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Clash", "number": "101"}),
        )
        .await
        .error(409, "Conflict");
    assert!(taken.is_empty());
    app.post(
        "/v2/admin/extensions/",
        &token,
        json!({"number": "600", "name": "Clash"}),
    )
    .await
    .error(409, "Conflict");

    // Rules no schema states, and the shared ones.
    let problems = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Bad", "number": "602", "strategy": "loudest",
                   "members": [{"id": w.ext_a}, {"id": w.ext_a, "penalty": 101}]}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("'body/strategy' must be one of")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("'body/members/1/penalty'")),
        "{problems:?}"
    );
    let problems = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Twice", "number": "602", "members": [{"id": w.ext_a}, {"id": w.ext_a}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/members/1/id' is listed twice"]);

    // Another tenant's extension, media file or destination is refused by name.
    let problems = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Foreign", "number": "603", "members": [{"id": w.ext_b}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/members/0/id' must name an extension of the tenant"]
    );
    let b = app.login(w.admin_b).await;
    let foreign_music = app.media_file(&b, "Other music").await;
    app.patch(&path, &token, json!({"holdMediaFileId": foreign_music}))
        .await
        .error(400, "ValidationError");
    let problems = app
        .patch(
            &path,
            &token,
            json!({"timeoutDestination": {"id": w.ext_b, "destType": "EXT"}}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/timeoutDestination/id' must name an extension of the tenant"]
    );

    // In use: the member extension and the hold music cannot go while the queue holds them.
    app.delete(&format!("/v2/admin/extensions/{second}"), &token)
        .await
        .refusal_saying(409, "Conflict", &format!("queue 'Support' (id {id})"));
    app.delete(&format!("/v2/admin/media-files/{music}"), &token)
        .await
        .error(409, "Conflict");

    // PATCH leaves what is not sent; members and timeout replaced or cleared.
    let changed = app
        .patch(
            &path,
            &token,
            json!({"members": [{"id": second}], "timeoutDestination": null}),
        )
        .await
        .expect(200);
    assert_eq!(changed["name"], "Support");
    assert_eq!(changed["members"][0]["id"], second);
    assert_eq!(changed["members"].as_array().unwrap().len(), 1);
    assert_eq!(changed["timeoutDestination"], Value::Null);

    // Other tenants and lower roles.
    app.get(&path, &b).await.error(404, "NotFound");
    app.patch(&path, &b, json!({"name": "Mine"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &b).await.error(404, "NotFound");
    assert_eq!(
        app.get("/v2/admin/queues/", &b).await.expect(200)["totalRecords"],
        0
    );
    app.get(&format!("/v2/admin/queues/?tenantId={}", w.tenant_a), &b)
        .await
        .error(403, "Forbidden");
    app.post(
        "/v2/admin/queues/",
        &b,
        json!({"tenantId": w.tenant_a, "name": "X", "number": "700"}),
    )
    .await
    .error(403, "Forbidden");
    let branch = app.login(w.branch_admin_a).await;
    assert_eq!(app.get(&path, &branch).await.expect(200)["id"], id);
    app.patch(&path, &branch, json!({"name": "Mine"}))
        .await
        .error(403, "Forbidden");
    let user = app.login(w.user_a).await;
    app.get(&path, &user).await.error(403, "Forbidden");

    // QUEUE is a destination type: a business hour routes to the queue, which then
    // cannot be deleted.
    let hours = app
        .post(
            "/v2/admin/business-hours/",
            &token,
            json!({"name": "Hours", "branchId": w.branch_a, "timezone": "UTC",
                   "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
                   "matchDestinations": [{"id": id, "destType": "QUEUE"}]}),
        )
        .await
        .expect(200);
    assert_eq!(hours["matchDestinations"][0]["name"], "Support");
    assert_eq!(hours["matchDestinations"][0]["number"], "600");
    app.delete(&path, &token)
        .await
        .refusal_saying(409, "Conflict", "business hour");
    app.delete(&format!("/v2/admin/business-hours/{}", hours["id"]), &token)
        .await
        .expect(200);
    assert_eq!(app.delete(&path, &token).await.expect(200)["id"], id);
    app.delete(&format!("/v2/admin/extensions/{second}"), &token)
        .await
        .expect(200);

    // Audited under the entity `queue`, members included.
    let trail = app.audit_trail("queue", id, &token).await;
    let actions = actions(&trail);
    assert!(
        ["create", "update", "delete"]
            .iter()
            .all(|action| actions.contains(action)),
        "{actions:?}"
    );
}

async fn ivr_menus_route_each_key_once(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    // An existing client's IVR: name and number only, answered with the menu's defaults.
    let plain = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "After hours", "number": "501"}),
        )
        .await;
    assert_eq!(plain["options"], json!([]));
    assert_eq!(plain["timeoutSeconds"], 10);
    assert_eq!(plain["invalidRetries"], 3);
    assert_eq!(plain["directDial"], 0);
    assert_eq!(plain["timeoutDestination"], Value::Null);
    let greeting = app.media_file(&token, "Welcome").await;
    let menu = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({
                "name": "Main", "number": "500", "greetingMediaFileId": greeting,
                "options": [
                    {"digit": "#", "destination": {"id": 0, "destType": "HANGUP"}},
                    {"digit": "2", "destination": {"id": plain["id"], "destType": "IVR"}},
                    {"digit": "1", "destination": {"id": w.ext_a, "destType": "EXT"}},
                ],
                "timeoutSeconds": 7, "timeoutDestination": {"id": w.ext_a, "destType": "VOICEMAIL"},
                "invalidRetries": 2, "invalidDestination": {"id": 0, "destType": "EXTERNAL", "number": "+15550001234"},
                "directDial": 1,
            }),
        )
        .await;
    let id = menu["id"].as_i64().unwrap();
    let digits: Vec<&str> = menu["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["digit"].as_str().unwrap())
        .collect();
    assert_eq!(digits, ["1", "2", "#"], "options by key");
    assert_eq!(menu["options"][1]["destination"]["name"], "After hours");
    assert_eq!(menu["options"][0]["destination"]["number"], "101");
    assert_eq!(menu["invalidDestination"]["number"], "+15550001234");
    assert_eq!(menu["greetingMediaFileId"], greeting);
    assert_eq!(menu["directDial"], 1);
    let path = format!("/v2/admin/ivrs/{id}");
    assert_eq!(app.get(&path, &token).await.expect(200), menu);

    // One destination per digit; digits 0-9, * and # only; one greeting kind.
    let problems = app
        .post(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Dup", "number": "502", "options": [
                {"digit": "1", "destination": {"id": 0, "destType": "HANGUP"}},
                {"digit": "1", "destination": {"id": w.ext_a, "destType": "EXT"}},
                {"digit": "A", "destination": {"id": 0, "destType": "HANGUP"}},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("'body/options/2/digit' must be one of")),
        "{problems:?}"
    );
    let problems = app
        .patch(
            &path,
            &token,
            json!({"options": [
                {"digit": "5", "destination": {"id": 0, "destType": "HANGUP"}},
                {"digit": "5", "destination": {"id": w.ext_a, "destType": "EXT"}},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/options/1/digit' is already used by options/0"]
    );
    app.patch(
        &path,
        &token,
        json!({"greetingMediaFileId": greeting, "greetingAnnouncementId": 1}),
    )
    .await
    .error(400, "ValidationError");

    // Every reference is the tenant's.
    let b = app.login(w.admin_b).await;
    let foreign = app
        .post(
            "/v2/admin/ivrs/",
            &b,
            json!({"name": "B menu", "number": "500"}),
        )
        .await
        .expect(200);
    let problems = app
        .patch(
            &path,
            &token,
            json!({"options": [{"digit": "3", "destination": {"id": foreign["id"], "destType": "IVR"}}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/options/0/destination/id' must name an IVR of the tenant"]
    );
    app.patch(
        &path,
        &token,
        json!({"invalidDestination": {"id": w.ext_b, "destType": "EXT"}}),
    )
    .await
    .error(400, "ValidationError");
    let foreign_media = app.media_file(&b, "B greeting").await;
    app.patch(&path, &token, json!({"greetingMediaFileId": foreign_media}))
        .await
        .error(400, "ValidationError");
    let foreign_announcement = app
        .create(
            "/v2/admin/announcements/",
            &b,
            json!({"name": "B notice", "mediaFileId": foreign_media, "branchId": w.branch_b,
            "startDate": "2026-12-20", "endDate": "2027-01-02"}),
        )
        .await;
    let problems = app
        .patch(
            &path,
            &token,
            json!({"greetingAnnouncementId": foreign_announcement["id"]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/greetingAnnouncementId' must name an announcement of the tenant"]
    );
    app.patch(&path, &b, json!({"name": "Mine"}))
        .await
        .error(404, "NotFound");
    let branch = app.login(w.branch_admin_a).await;
    app.patch(&path, &branch, json!({"name": "Mine"}))
        .await
        .error(403, "Forbidden");

    // In use: the IVR an option routes to, the greeting, the extension.
    app.delete(&format!("/v2/admin/ivrs/{}", plain["id"]), &token)
        .await
        .refusal_saying(409, "Conflict", &format!("IVR 'Main' (id {id})"));
    app.delete(&format!("/v2/admin/media-files/{greeting}"), &token)
        .await
        .error(409, "Conflict");
    // Greeting with an announcement instead: the media file greeting is cleared, and the
    // announcement is in use.
    let notice = app
        .create(
            "/v2/admin/announcements/",
            &token,
            json!({"name": "Notice", "mediaFileId": greeting, "branchId": w.branch_a,
            "startDate": "2026-12-20", "endDate": "2027-01-02"}),
        )
        .await;
    let greeted = app
        .patch(
            &path,
            &token,
            json!({"greetingAnnouncementId": notice["id"]}),
        )
        .await
        .expect(200);
    assert_eq!(
        (
            greeted["greetingMediaFileId"].as_i64(),
            &greeted["greetingAnnouncementId"]
        ),
        (Some(0), &notice["id"])
    );
    app.delete(&format!("/v2/admin/announcements/{}", notice["id"]), &token)
        .await
        .refusal_saying(409, "Conflict", &format!("IVR 'Main' (id {id})"));
    // 0 names no announcement: the greeting is cleared and the announcement is free.
    let cleared = app
        .patch(&path, &token, json!({"greetingAnnouncementId": 0}))
        .await
        .expect(200);
    assert_eq!(cleared["greetingAnnouncementId"], 0);
    app.delete(&format!("/v2/admin/announcements/{}", notice["id"]), &token)
        .await
        .expect(200);

    // A menu leading back to itself still goes when deleted; PATCH keeps what is not sent.
    let changed = app
        .patch(
            &path,
            &token,
            json!({"options": [{"digit": "0", "destination": {"id": id, "destType": "IVR"}}], "timeoutDestination": null}),
        )
        .await
        .expect(200);
    assert_eq!(changed["options"].as_array().unwrap().len(), 1);
    assert_eq!(changed["timeoutDestination"], Value::Null);
    assert_eq!(changed["invalidDestination"]["destType"], "EXTERNAL");
    assert_eq!(changed["timeoutSeconds"], 7);
    let trail = app
        .audit_entries(&token, &format!("entities=ivr&entityId={id}"))
        .await;
    let update = trail
        .iter()
        .find(|r| r["action"] == "update" && r["after"].get("options").is_some())
        .expect("the menu change is audited");
    assert_eq!(update["after"]["options"][0]["digit"], "0", "{update}");
    app.delete(&path, &token).await.expect(200);
    app.delete(&format!("/v2/admin/ivrs/{}", plain["id"]), &token)
        .await
        .expect(200);
}

async fn phone_numbers_route_somewhere_of_their_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let token = app.login(w.admin_a).await;
    let ivr = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Main", "number": "500"}),
        )
        .await;
    let number = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550102030",
            "destination": {"id": ivr["id"], "destType": "IVR"}}),
        )
        .await;
    assert_eq!(number["destination"]["name"], "Main");
    let path = format!("/v2/admin/phone-numbers/{}", number["id"]);
    let queue = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Sales", "number": "610"}),
        )
        .await;
    let changed = app
        .patch(
            &path,
            &token,
            json!({"destination": {"id": queue["id"], "destType": "QUEUE"}}),
        )
        .await
        .expect(200);
    assert_eq!(changed["destination"]["destType"], "QUEUE");
    assert_eq!(changed["destination"]["number"], "610");
    // Listed with its destination.
    let page = app
        .get("/v2/admin/phone-numbers/", &token)
        .await
        .expect(200);
    assert_eq!(page["records"][0]["destination"]["destType"], "QUEUE");
    // Only the routing kinds, only the tenant's records.
    app.patch(
        &path,
        &token,
        json!({"destination": {"id": 0, "destType": "HANGUP"}}),
    )
    .await
    .error(400, "ValidationError");
    let problems = app
        .patch(
            &path,
            &token,
            json!({"destination": {"id": w.ext_b, "destType": "EXT"}}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/destination/id' must name an extension of the tenant"]
    );
    // In use: the queue a number routes to.
    app.delete(&format!("/v2/admin/queues/{}", queue["id"]), &token)
        .await
        .refusal_saying(409, "Conflict", "phone number");
    // Cleared with null (audited), then the queue may go.
    let cleared = app
        .patch(&path, &token, json!({"destination": null}))
        .await
        .expect(200);
    assert_eq!(cleared["destination"], Value::Null);
    app.delete(&format!("/v2/admin/queues/{}", queue["id"]), &token)
        .await
        .expect(200);
    let trail = app
        .audit_entries(
            &token,
            &format!("entities=phone-number&entityId={}", number["id"]),
        )
        .await;
    let trail = Value::from(trail).to_string();
    assert!(trail.contains("destination"), "{trail}");
    let b = app.login(w.admin_b).await;
    app.patch(&path, &b, json!({"destination": null}))
        .await
        .error(404, "NotFound");
    let user = app.login(w.user_a).await;
    app.patch(&path, &user, json!({"destination": null}))
        .await
        .error(403, "Forbidden");
}

/// A tenant whose main number goes to business hours: open → the main menu (1 → a queue
/// of two extensions, 2 → a second menu whose timeout leads back: a cycle), closed → the
/// front desk's mailbox; a holiday on Christmas. A second number goes straight to an
/// IVR without a timeout path.
pub(crate) struct Routed {
    pub(crate) number: i64,
    pub(crate) other_number: i64,
    pub(crate) hours: i64,
    pub(crate) main: i64,
    pub(crate) second: i64,
    pub(crate) queue: i64,
    pub(crate) member: i64,
}

pub(crate) async fn routed_tenant(app: &TestApp, w: &World) -> Routed {
    let token = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let member = app.extension(&token, "102", "Stock room").await;
    let queue = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Support", "number": "600",
            "members": [{"id": w.ext_a}, {"id": member}],
            "timeoutDestination": {"id": w.ext_a, "destType": "VOICEMAIL"}}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let main = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Main", "number": "500"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let second = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Billing", "number": "501",
            "timeoutDestination": {"id": main, "destType": "IVR"}}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    app.patch(
        &format!("/v2/admin/ivrs/{main}"),
        &token,
        json!({"options": [
            {"digit": "1", "destination": {"id": queue, "destType": "QUEUE"}},
            {"digit": "2", "destination": {"id": second, "destType": "IVR"}},
        ], "timeoutDestination": {"id": 0, "destType": "HANGUP"}}),
    )
    .await
    .expect(200);
    let hours = app
        .create(
            "/v2/admin/business-hours/",
            &token,
            json!({"name": "Store hours", "branchId": w.branch_a, "timezone": "Europe/Berlin",
            "hours": {"1": [{"from": "09:00", "to": "17:00"}], "2": [{"from": "09:00", "to": "17:00"}],
                      "3": [{"from": "09:00", "to": "17:00"}], "4": [{"from": "09:00", "to": "17:00"}],
                      "5": [{"from": "09:00", "to": "17:00"}]},
            "matchDestinations": [{"id": main, "destType": "IVR"}],
            "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}],
            "holidays": [{"name": "Christmas", "date": "2026-12-25"}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let number = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550102030",
            "destination": {"id": hours, "destType": "BUSINESS_HOUR"}}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let other_number = app
        .create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": "15550109999",
            "destination": {"id": second, "destType": "IVR"}}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    Routed {
        number,
        other_number,
        hours,
        main,
        second,
        queue,
        member,
    }
}

fn edge<'a>(graph: &'a Value, from: &str, to: &str) -> Option<&'a Value> {
    graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["from"] == from && e["to"] == to)
}

async fn the_graph_shows_every_path_once_with_its_issues(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let token = app.login(w.admin_a).await;
    for path in ["/v2/destinations/graph", "/destinations/graph"] {
        let graph = app.get(path, &token).await.expect(200);
        assert_eq!(
            graph["roots"],
            json!([
                format!("number:{}", r.number),
                format!("number:{}", r.other_number)
            ])
        );
        let ids: Vec<&str> = graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap())
            .collect();
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "each node once: {ids:?}");
        let hours = format!("business-hours:{}", r.hours);
        let main = format!("ivr:{}", r.main);
        let second = format!("ivr:{}", r.second);
        let queue = format!("queue:{}", r.queue);
        let node = graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == main)
            .unwrap();
        assert_eq!(node["type"], "ivr");
        assert_eq!(node["label"], "Main (500)");
        assert_eq!(node["href"], format!("/v2/admin/ivrs/{}", r.main));
        assert_eq!(
            edge(&graph, &format!("number:{}", r.number), &hours).unwrap()["kind"],
            "route"
        );
        assert_eq!(edge(&graph, &hours, &main).unwrap()["kind"], "open");
        assert_eq!(
            edge(&graph, &hours, &format!("voicemail:{}", w.ext_a)).unwrap()["kind"],
            "closed"
        );
        assert_eq!(edge(&graph, &main, &queue).unwrap()["kind"], "digit:1");
        assert_eq!(edge(&graph, &main, &second).unwrap()["kind"], "digit:2");
        assert_eq!(edge(&graph, &main, "hangup").unwrap()["kind"], "timeout");
        let member = edge(&graph, &queue, &format!("extension:{}", r.member)).unwrap();
        assert_eq!(
            (member["kind"].as_str(), member["order"].as_i64()),
            (Some("member"), Some(2))
        );
        assert_eq!(
            edge(&graph, &queue, &format!("voicemail:{}", w.ext_a)).unwrap()["kind"],
            "overflow"
        );
        // The cycle: Billing's timeout leads back to Main, marked and not followed.
        let back = edge(&graph, &second, &main).unwrap();
        assert_eq!(
            (back["kind"].as_str(), back["cycle"].as_bool()),
            (Some("timeout"), Some(true))
        );
        assert_eq!(
            graph["edges"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["cycle"] == true)
                .count(),
            1
        );
        assert_eq!(graph["issues"], json!([]), "no issue yet");
    }

    // Issues: an IVR without a timeout path, business hours without a closed path, and
    // a dangling reference (written behind the API's back, as a damaged database would).
    let lonely = app
        .create(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Lonely", "number": "502"}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    app.patch(
        &format!("/v2/admin/ivrs/{}", r.second),
        &token,
        json!({"options": [{"digit": "9", "destination": {"id": lonely, "destType": "IVR"}}]}),
    )
    .await
    .expect(200);
    app.patch(
        &format!("/v2/admin/business-hours/{}", r.hours),
        &token,
        json!({"notMatchDestinations": []}),
    )
    .await
    .expect(200);
    let sql = format!(
        "INSERT INTO destinations (tenant_id, owner_type, owner_id, list, position, sort_order, dest_type, target_id, type_src) \
         VALUES ({}, 'ivr', {lonely}, 'options', 0, 1, 'EXT', 987654, '4');",
        w.tenant_a
    );
    app.raw_sql(&sql, &sql).await;
    let graph = app.get("/v2/destinations/graph", &token).await.expect(200);
    let issues: Vec<(String, String)> = graph["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap().to_owned(),
                i["node"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        issues.contains(&(
            "no-closed-path".into(),
            format!("business-hours:{}", r.hours)
        )),
        "{issues:?}"
    );
    assert!(
        issues.contains(&("no-timeout-path".into(), format!("ivr:{lonely}"))),
        "{issues:?}"
    );
    assert!(
        issues.contains(&("dangling".into(), format!("ivr:{lonely}"))),
        "{issues:?}"
    );
    let missing = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "extension:987654")
        .unwrap();
    assert_eq!(missing["missing"], true);

    // maxDepth: one edge from the root, the next node marked truncated.
    let shallow = app
        .get(
            &format!("/v2/destinations/graph?root=number:{}&maxDepth=1", r.number),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(shallow["edges"].as_array().unwrap().len(), 1);
    assert_eq!(shallow["nodes"][1]["truncated"], true);
    // A root of another kind.
    let from_ivr = app
        .get(
            &format!("/v2/destinations/graph?root=ivr:{}", r.second),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(from_ivr["roots"], json!([format!("ivr:{}", r.second)]));

    // The business hours a number routes to are in use.
    app.delete(&format!("/v2/admin/business-hours/{}", r.hours), &token)
        .await
        .refusal_saying(
            409,
            "Conflict",
            &format!("phone number '15550102030' (id {})", r.number),
        );
}

async fn the_graph_answers_christmas_and_the_reverse_question(app: TestApp) {
    let w = World::seed(&app).await;
    let r = routed_tenant(&app, &w).await;
    let token = app.login(w.admin_a).await;
    let hours = format!("business-hours:{}", r.hours);
    let main = format!("ivr:{}", r.main);
    let mailbox = format!("voicemail:{}", w.ext_a);
    // Christmas Day 2026 is a Friday: inside the weekly hours, closed by the holiday.
    let christmas = app
        .get("/v2/destinations/graph?at=2026-12-25T12:00:00Z", &token)
        .await
        .expect(200);
    let node = christmas["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == hours)
        .unwrap();
    assert_eq!(
        (node["open"].as_bool(), node["reason"].as_str()),
        (Some(false), Some("holiday"))
    );
    assert_eq!(edge(&christmas, &hours, &main).unwrap()["active"], false);
    assert_eq!(edge(&christmas, &hours, &mailbox).unwrap()["active"], true);
    // The other number still reaches the menu through Billing's timeout.
    assert_eq!(
        edge(&christmas, &main, &format!("queue:{}", r.queue)).unwrap()["active"],
        true
    );
    // The day before, at noon: open, the menu reached.
    let open = app
        .get("/v2/destinations/graph?at=2026-12-24T11:00:00Z", &token)
        .await
        .expect(200);
    assert_eq!(edge(&open, &hours, &main).unwrap()["active"], true);
    assert_eq!(edge(&open, &hours, &mailbox).unwrap()["active"], false);
    assert_eq!(
        edge(&open, &main, &format!("queue:{}", r.queue)).unwrap()["active"],
        true
    );

    // Which numbers reach the stock room's extension? Both: the main number through the
    // hours, the menu and the queue; the other through Billing's timeout back to Main.
    let target = format!("extension:{}", r.member);
    let reverse = app
        .get(&format!("/v2/destinations/graph?target={target}"), &token)
        .await
        .expect(200);
    assert_eq!(
        reverse["reachedFrom"],
        json!(["15550102030", "15550109999"]),
        "the numbers as dialled, not their node ids"
    );
    assert!(
        reverse["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["id"] != "hangup"),
        "only what reaches it"
    );
    let nobody = app
        .get(
            &format!("/v2/destinations/graph?target=extension:{}", w.ext_a2),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(nobody["reachedFrom"], json!([]));

    // Mermaid and DOT.
    for (format, kind, start) in [
        ("mermaid", "text/vnd.mermaid", "flowchart LR\n"),
        ("dot", "text/vnd.graphviz", "digraph routing {\n"),
    ] {
        let response = app
            .client
            .get(app.url(&format!("/v2/destinations/graph?format={format}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(content_type.starts_with(kind), "{content_type}");
        let text = response.text().await.unwrap();
        assert!(text.starts_with(start), "{text}");
        assert!(text.contains("digit:1"), "{text}");
        assert!(text.contains("Main (500)"), "{text}");
    }
    let dot = app
        .client
        .get(app.url("/destinations/graph?format=dot"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        dot.contains(&format!(
            "\"{main}\" -> \"queue:{}\" [label=\"digit:1\"];",
            r.queue
        )),
        "{dot}"
    );

    // Bad input, other tenants, lower roles.
    let problems = app
        .get(
            "/v2/destinations/graph?root=ivr:x&maxDepth=0&format=png&at=yesterday",
            &token,
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems.len(), 4, "{problems:?}");
    let b = app.login(w.admin_b).await;
    app.get(&format!("/v2/destinations/graph?root={main}"), &b)
        .await
        .error(404, "NotFound");
    app.get(
        &format!("/v2/destinations/graph?tenantId={}", w.tenant_a),
        &b,
    )
    .await
    .error(403, "Forbidden");
    let theirs = app.get("/v2/destinations/graph", &b).await.expect(200);
    assert_eq!(theirs["nodes"], json!([]));
    let user = app.login(w.user_a).await;
    app.get("/v2/destinations/graph", &user)
        .await
        .error(403, "Forbidden");
    let platform = app.login(w.platform).await;
    app.get("/v2/destinations/graph", &platform)
        .await
        .error(400, "ValidationError");
    let graph = app
        .get(
            &format!("/v2/destinations/graph?tenantId={}", w.tenant_a),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(graph["roots"].as_array().unwrap().len(), 2);
    let partner = app.login(w.partner_admin_a).await;
    app.get(
        &format!("/v2/destinations/graph?tenantId={}", w.tenant_b),
        &partner,
    )
    .await
    .error(403, "Forbidden");
}

async fn the_number_search_reads_any_formatting(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    for (tenant, number, comment, cnam) in [
        (w.tenant_a, "15550102030", "Front desk line", "ACME"),
        (w.tenant_a, "+15550109999", "Fax", "ACME FAX"),
        (w.tenant_a, "4930123456", "Berlin office", "Zweig"),
        (w.tenant_b, "15550102031", "Other tenant", "ACME"),
    ] {
        app
            .create(
                "/v2/admin/phone-numbers/",
                &platform,
                json!({"tenantId": tenant, "number": number, "diCommentName": comment, "registeredCNAM": cnam}),
            )
            .await;
    }
    let token = app.login(w.admin_a).await;
    let search = |query: &str| {
        let query: String = url_escape(query);
        format!("/v2/admin/phone-numbers/search?query={query}")
    };
    let numbers = |page: &Value| -> Vec<String> {
        page["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["number"].as_str().unwrap().to_owned())
            .collect()
    };
    for (query, expected) in [
        ("+1 (555) 010-2030", vec!["15550102030"]),
        ("555.010", vec!["15550102030", "+15550109999"]),
        ("+1 555 010 9999", vec!["+15550109999"]),
        ("front DESK", vec!["15550102030"]),
        ("acme", vec!["15550102030", "+15550109999"]),
        ("zweig", vec!["4930123456"]),
        ("(49) 30-12", vec!["4930123456"]),
        ("nothing", vec![]),
    ] {
        let page = app.get(&search(query), &token).await.expect(200);
        assert_eq!(numbers(&page), expected, "{query}");
        assert_eq!(page["totalRecords"], expected.len(), "{query}");
    }
    // The list's filters and limits, and the release notes' path.
    let page = app
        .get("/admin/phone-numbers/search?query=acme&recordsPerPage=1&sortBy=number&sortDirection=desc", &token)
        .await
        .expect(200);
    assert_eq!(numbers(&page), ["15550102030"]);
    assert_eq!(
        (page["totalRecords"].as_i64(), page["maxPage"].as_i64()),
        (Some(2), Some(2))
    );
    app.get("/v2/admin/phone-numbers/search?recordsPerPage=1001", &token)
        .await
        .error(400, "ValidationError");
    let all = app
        .get("/v2/admin/phone-numbers/search", &token)
        .await
        .expect(200);
    assert_eq!(all["totalRecords"], 3);
    let filtered = app
        .get(
            &format!(
                "/v2/admin/phone-numbers/search?number=0109&tenantId={}",
                w.tenant_a
            ),
            &token,
        )
        .await
        .expect(200);
    assert_eq!(numbers(&filtered), ["+15550109999"]);
    app.get(
        &format!("/v2/admin/phone-numbers/search?tenantId={}", w.tenant_b),
        &token,
    )
    .await
    .error(403, "Forbidden");
    let everywhere = app.get(&search("acme"), &platform).await.expect(200);
    assert_eq!(everywhere["totalRecords"], 3);
    let user = app.login(w.user_a).await;
    app.get(&search("acme"), &user)
        .await
        .error(403, "Forbidden");
}

fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A queue's hold music may be a music on hold of its tenant: set on create and patch,
/// cleared with null, beside `holdMediaFileId` (kept); another tenant's is a 400; the
/// music on hold cannot be deleted while a queue names it (409 naming the queue).
async fn queues_play_music_on_hold_of_their_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let file = app.media_file(&token, "Hold music").await;
    let jazz = app.music_on_hold(&token, "Jazz", &[file]).await;
    let queue = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Support", "number": "600", "musicOnHoldId": jazz, "holdMediaFileId": file}),
        )
        .await;
    assert_eq!(queue["musicOnHoldId"], jazz);
    assert_eq!(queue["holdMediaFileId"], file);
    let path = format!("/v2/admin/queues/{}", queue["id"]);
    assert_eq!(app.get(&path, &token).await.expect(200), queue);
    // Without one, null.
    let bare = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Sales", "number": "601"}),
        )
        .await;
    assert_eq!(bare["musicOnHoldId"], Value::Null);

    // Deleting the music on hold a queue plays is refused, naming the queue.
    let refused = app
        .delete(&format!("/v2/admin/music-on-hold/{jazz}"), &token)
        .await
        .expect(409);
    assert_eq!(
        refused["message"],
        format!(
            "the music on hold is used by queue 'Support' (id {})",
            queue["id"]
        )
    );
    // Another tenant's music on hold is not this queue's to play.
    let b = app.login(w.admin_b).await;
    let foreign_file = app.media_file(&b, "B's music").await;
    let foreign = app.music_on_hold(&b, "B's", &[foreign_file]).await;
    let problems = app
        .patch(&path, &token, json!({"musicOnHoldId": foreign}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/musicOnHoldId' must name a music on hold of the tenant"]
    );
    let problems = app
        .post(
            "/v2/admin/queues/",
            &token,
            json!({"name": "X", "number": "602", "musicOnHoldId": 0}),
        )
        .await
        .error(400, "ValidationError");
    assert!(
        problems[0].starts_with("'body/musicOnHoldId'"),
        "{problems:?}"
    );
    // Another music on hold of the tenant; then none, and the old one can go.
    let blues = app.music_on_hold(&token, "Blues", &[file]).await;
    let changed = app
        .patch(&path, &token, json!({"musicOnHoldId": blues}))
        .await
        .expect(200);
    assert_eq!(changed["musicOnHoldId"], blues);
    assert_eq!(changed["holdMediaFileId"], file, "left as it was");
    app.delete(&format!("/v2/admin/music-on-hold/{jazz}"), &token)
        .await
        .expect(200);
    let cleared = app
        .patch(&path, &token, json!({"musicOnHoldId": null}))
        .await
        .expect(200);
    assert_eq!(cleared["musicOnHoldId"], Value::Null);
    app.delete(&format!("/v2/admin/music-on-hold/{blues}"), &token)
        .await
        .expect(200);
}

/// A queue put on a music on hold while that music on hold is deleted: either the queue
/// write commits first and the delete is a 409 naming it, or the delete does and the
/// queue write is refused — never a 500, never a queue naming a deleted record.
async fn queue_music_on_hold_races_its_delete(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let file = app.media_file(&token, "Hold music").await;
    let queue = app
        .create(
            "/v2/admin/queues/",
            &token,
            json!({"name": "Support", "number": "600"}),
        )
        .await;
    let path = format!("/v2/admin/queues/{}", queue["id"]);
    for round in 0..6 {
        let music = app
            .music_on_hold(&token, &format!("Round {round}"), &[file])
            .await;
        let body = json!({"musicOnHoldId": music});
        let patch = app.patch(&path, &token, body);
        let delete_path = format!("/v2/admin/music-on-hold/{music}");
        let delete = app.delete(&delete_path, &token);
        let (patched, deleted) = tokio::join!(patch, delete);
        let now = app.get(&path, &token).await.expect(200);
        match (patched.status.as_u16(), deleted.status.as_u16()) {
            (200, 409) => assert_eq!(now["musicOnHoldId"], music, "round {round}"),
            (400 | 409, 200) => assert_ne!(now["musicOnHoldId"], music, "round {round}"),
            other => panic!("round {round}: {other:?}"),
        }
        // Leave the queue without it for the next round.
        app.patch(&path, &token, json!({"musicOnHoldId": null}))
            .await
            .expect(200);
    }
}

/// Two holidays, each playing its own media file: at `?at=` on one, only that holiday's
/// edge is taken (the `closed` list is where the call then goes, as on any holiday).
async fn at_a_holiday_only_its_own_file_plays(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let christmas_file = app.media_file(&token, "Merry Christmas").await;
    let new_year_file = app.media_file(&token, "Happy New Year").await;
    let hours = app
        .create(
            "/v2/admin/business-hours/",
            &token,
            json!({"name": "Store hours", "branchId": w.branch_a, "timezone": "Europe/Berlin",
        "hours": {"5": [{"from": "09:00", "to": "17:00"}]},
        "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
        "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}],
        "holidays": [
            {"name": "Christmas", "date": "2026-12-25", "mediaFileId": christmas_file},
            {"name": "New Year", "date": "2027-01-01", "mediaFileId": new_year_file}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    app.create(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": w.tenant_a, "number": "15550102030",
            "destination": {"id": hours, "destType": "BUSINESS_HOUR"}}),
    )
    .await;
    let hours = format!("business-hours:{hours}");
    let christmas = format!("media-file:{christmas_file}");
    let new_year = format!("media-file:{new_year_file}");
    let mailbox = format!("voicemail:{}", w.ext_a);
    let desk = format!("extension:{}", w.ext_a);
    // Both Fridays, inside the weekly hours but for the holiday; and an ordinary Friday.
    for (at, reason, christmas_plays, new_year_plays) in [
        ("2026-12-25T12:00:00Z", "holiday", true, false),
        ("2027-01-01T12:00:00Z", "holiday", false, true),
        ("2027-01-08T12:00:00Z", "inside-hours", false, false),
    ] {
        let graph = app
            .get(&format!("/v2/destinations/graph?at={at}"), &token)
            .await
            .expect(200);
        let node = graph["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == hours)
            .unwrap();
        assert_eq!(node["reason"], reason, "{at}");
        let holiday = reason == "holiday";
        for (to, kind, active) in [
            (&christmas, "holiday", christmas_plays),
            (&new_year, "holiday", new_year_plays),
            (&mailbox, "closed", holiday),
            (&desk, "open", !holiday),
        ] {
            let edge = edge(&graph, &hours, to).unwrap();
            assert_eq!(
                (edge["kind"].as_str(), edge["active"].as_bool()),
                (Some(kind), Some(active)),
                "{at}: {to}"
            );
        }
    }
}

on_both_backends!(
    at_a_holiday_only_its_own_file_plays,
    queues_play_music_on_hold_of_their_tenant,
    queue_music_on_hold_races_its_delete,
    queues_hold_members_in_order_within_the_tenant,
    queue_members_rest_for_the_wrap_up_after_a_call,
    ivr_menus_route_each_key_once,
    phone_numbers_route_somewhere_of_their_tenant,
    the_graph_shows_every_path_once_with_its_issues,
    the_graph_answers_christmas_and_the_reverse_question,
    the_number_search_reads_any_formatting,
);
