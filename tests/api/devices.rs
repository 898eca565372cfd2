//! Desk phones: MAC notations, platform-wide uniqueness without a leak, search by name and
//! partial MAC on every path the release notes name, lines, in-use refusals, scope, the
//! engine's registrations and the configuration version with its event.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{TestApp, record_ids};

const T54W: &str = "yealink-t54w";

async fn device(app: &TestApp, token: &str, body: Value) -> Value {
    app.post("/v2/admin/devices/", token, body)
        .await
        .expect(200)
}

async fn stored_mac(app: &TestApp, id: i64) -> String {
    use sea_query::{Expr, ExprTrait, Query};
    let select = Query::select()
        .column("mac")
        .from("devices")
        .and_where(Expr::col("id").eq(id))
        .take();
    let (mac,): (String,) = app.state.db.conn().fetch_one(&select).await.unwrap();
    mac
}

async fn mac_notations_are_one_address(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = device(
        &app,
        &token,
        json!({"name": "Front desk", "mac": "80:5E:C0:AB:CD:01", "model": T54W, "lines": [w.ext_a]}),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["mac"], "80:5e:c0:ab:cd:01");
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(created["configVersion"], 1);
    assert_eq!(created["registered"], false);
    assert_eq!(created["provisioningUsername"], "805ec0abcd01");
    let password = created["provisioningPassword"].as_str().unwrap();
    assert!(password.len() >= 24, "{password}");
    assert_eq!(stored_mac(&app, id).await, "805ec0abcd01");
    let read = app
        .get(&format!("/v2/admin/devices/{id}"), &token)
        .await
        .expect(200);
    assert!(read.get("provisioningPassword").is_none(), "shown once");
    assert_eq!(
        read["lines"],
        json!([{"id": w.ext_a, "number": "101", "name": "Front desk A"}])
    );

    for notation in ["80-5e-c0-ab-cd-01", "805e.c0ab.cd01", "805EC0ABCD01"] {
        let refused = app
            .post(
                "/v2/admin/devices/",
                &token,
                json!({"name": "Twin", "mac": notation, "model": T54W}),
            )
            .await;
        assert_eq!(refused.status.as_u16(), 409, "{notation}: {}", refused.body);
    }
    for bad in [
        "80:5e:c0:ab:cd",
        "80:5e-c0:ab:cd:01",
        "80:5e:c0:ab:cd:0g",
        "805e.c0ab.cd01.00",
    ] {
        let errors = app
            .post(
                "/v2/admin/devices/",
                &token,
                json!({"name": "Bad", "mac": bad, "model": T54W}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(
            errors,
            [
                "'body/mac' must be a MAC address (aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff, aabb.ccdd.eeff or aabbccddeeff)"
            ],
            "{bad}"
        );
    }
    let changed = app
        .patch(
            &format!("/v2/admin/devices/{id}"),
            &token,
            json!({"mac": "80-5E-C0-AB-CD-02"}),
        )
        .await
        .expect(200);
    assert_eq!(changed["mac"], "80:5e:c0:ab:cd:02");
    assert_eq!(stored_mac(&app, id).await, "805ec0abcd02");
    assert_eq!(app.count("devices", None).await, 1);
}

async fn a_mac_is_unique_on_the_platform_without_saying_whose(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let b = app.login(w.admin_b).await;
    device(
        &app,
        &a,
        json!({"name": "Tenant A's phone", "mac": "00:15:65:00:00:01", "model": T54W}),
    )
    .await;
    let from_b = app
        .post(
            "/v2/admin/devices/",
            &b,
            json!({"name": "Mine", "mac": "001565000001", "model": T54W}),
        )
        .await
        .expect(409);
    let from_a = app
        .post(
            "/v2/admin/devices/",
            &a,
            json!({"name": "Again", "mac": "0015.6500.0001", "model": T54W}),
        )
        .await
        .expect(409);
    assert_eq!(from_b["name"], "Conflict");
    assert_eq!(
        from_b["message"], "a device with this MAC address is already registered",
        "{from_b}"
    );
    assert_eq!(
        from_b, from_a,
        "the owner's own admin and another tenant's get one answer"
    );
    assert_eq!(app.count("devices", None).await, 1);
    assert_eq!(app.count_where("devices", "tenant_id", w.tenant_b).await, 0);
}

async fn search_by_name_and_partial_mac_on_every_path(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let lobby = device(
        &app,
        &token,
        json!({"name": "Lobby phone", "mac": "80:5e:c0:11:22:33", "model": T54W, "lines": [w.ext_a]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let office = device(
        &app,
        &token,
        json!({"name": "Back office", "mac": "80:5e:c0:44:55:66", "model": "yealink-t31p", "lines": [w.ext_a2]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let poly = device(
        &app,
        &token,
        json!({"name": "Conference", "mac": "64:16:7f:44:55:66", "model": "poly-vvx450"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let other = app.login(w.admin_b).await;
    device(
        &app,
        &other,
        json!({"name": "Lobby phone", "mac": "80:5e:c0:99:99:99", "model": T54W}),
    )
    .await;

    for path in [
        "/v2/admin/devices/",
        "/v2/admin/devices",
        "/admin/devices/",
        "/admin/devices",
        "/devices/search",
        "/v2/devices/search",
    ] {
        for (query, expected) in [
            ("805EC0", vec![lobby, office]),
            ("80:5e:c0", vec![lobby, office]),
            ("80-5E-C0-44", vec![office]),
            ("805e.c011", vec![lobby]),
            ("44:55:66", vec![office, poly]),
            ("lobby", vec![lobby]),
            ("OFFICE", vec![office]),
            ("80:5e", vec![]),
        ] {
            let page = app
                .get(&format!("{path}?query={query}&sortBy=id"), &token)
                .await
                .expect(200);
            assert_eq!(record_ids(&page), expected, "{path}?query={query}");
            assert_eq!(page["totalRecords"], expected.len(), "{path}?query={query}");
        }
    }
    let page = app
        .get(
            "/devices/search?query=805ec0&recordsPerPage=1&sortBy=mac&sortDirection=desc",
            &token,
        )
        .await
        .expect(200);
    assert_eq!(record_ids(&page), [office]);
    assert_eq!(
        (page["totalRecords"].as_i64(), page["maxPage"].as_i64()),
        (Some(2), Some(2))
    );

    let filtered = |q: String| {
        let app = &app;
        let token = token.clone();
        async move {
            record_ids(
                &app.get(&format!("/v2/admin/devices/?{q}"), &token)
                    .await
                    .expect(200),
            )
        }
    };
    assert_eq!(filtered("model=poly-vvx450".into()).await, [poly]);
    // Unsearched totals come from the counters the triggers keep: they follow every write.
    let total = |q: &'static str| {
        let app = &app;
        let token = token.clone();
        async move {
            app.get(&format!("/v2/admin/devices/?{q}"), &token)
                .await
                .expect(200)["totalRecords"]
                .as_i64()
                .unwrap()
        }
    };
    assert_eq!(total("").await, 3);
    assert_eq!(total("model=poly-vvx450").await, 1);
    app.patch(
        &format!("/v2/admin/devices/{poly}"),
        &token,
        json!({"model": "yealink-t54w"}),
    )
    .await
    .expect(200);
    assert_eq!(total("model=poly-vvx450").await, 0);
    assert_eq!(total("model=yealink-t54w").await, 2);
    app.delete(&format!("/v2/admin/devices/{poly}"), &token)
        .await
        .expect(200);
    assert_eq!(total("").await, 2);
    assert_eq!(total("recordsPerPage=1").await, 2);
    assert_eq!(
        filtered(format!("lineExtensionId={}", w.ext_a2)).await,
        [office]
    );
    assert_eq!(
        filtered(format!("branchId={}", w.branch_a)).await,
        Vec::<i64>::new()
    );
    assert_eq!(filtered("registered=0".into()).await, [lobby, office]);
    assert_eq!(filtered("registered=1".into()).await, Vec::<i64>::new());
    assert_eq!(filtered("sortBy=name".into()).await, [office, lobby]);
    let errors = app
        .get("/v2/admin/devices/?sortBy=secret&model=acme-1", &token)
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("'query/sortBy' must be one of: id, name, mac, model")),
        "{errors:?}"
    );
    assert!(
        errors.contains(&"'query/model' must be a model of GET /v2/admin/device-models".to_owned()),
        "{errors:?}"
    );
}

async fn lines_are_ordered_extensions_of_the_tenant(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = device(
        &app,
        &token,
        json!({"name": "Two lines", "mac": "805ec0000010", "model": "yealink-t31p", "lines": [w.ext_a2, w.ext_a]}),
    )
    .await;
    let numbers: Vec<&str> = created["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["number"].as_str().unwrap())
        .collect();
    assert_eq!(
        numbers,
        ["201", "101"],
        "in the order sent: the first is primary"
    );
    let errors = app
        .post(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Bad", "mac": "805ec0000011", "model": "yealink-t31p", "lines": [w.ext_b, w.ext_a, w.ext_a]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, ["'body/lines/2' is listed twice"]);
    let errors = app
        .post(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Bad", "mac": "805ec0000011", "model": "yealink-t31p", "lines": [w.ext_b]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/lines/0' must name an extension of the tenant"]
    );
    let third = app
        .post(
            "/v2/admin/extensions/",
            &token,
            json!({"number": "102", "name": "Third"}),
        )
        .await
        .expect(200)["id"]
        .as_i64()
        .unwrap();
    let id = created["id"].as_i64().unwrap();
    let errors = app
        .patch(
            &format!("/v2/admin/devices/{id}"),
            &token,
            json!({"lines": [w.ext_a, w.ext_a2, third]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/lines' must hold at most 2 lines (the accounts of yealink-t31p)"]
    );
    assert_eq!(app.count("device_lines", None).await, 2, "nothing written");
}

async fn an_extension_a_phone_registers_as_cannot_be_deleted(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let id = device(
        &app,
        &token,
        json!({"name": "Reception phone", "mac": "805ec0000020", "model": T54W, "lines": [w.ext_a]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &token)
        .await
        .refusal_saying(
            409,
            "Conflict",
            &format!("device 'Reception phone' (id {id})"),
        );
    assert_eq!(app.count_where("extensions", "id", w.ext_a).await, 1);
    app.patch(
        &format!("/v2/admin/devices/{id}"),
        &token,
        json!({"lines": []}),
    )
    .await
    .expect(200);
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a), &token)
        .await
        .expect(200);
    let deleted = app
        .delete(&format!("/v2/admin/devices/{id}"), &token)
        .await
        .expect(200);
    assert_eq!(deleted["id"], id);
    assert_eq!(app.count("devices", None).await, 0);
}

async fn scope_cross_tenant_and_branch(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let b = app.login(w.admin_b).await;
    let branch_admin = app.login(w.branch_admin_a).await;
    let annex = device(
        &app,
        &a,
        json!({"name": "Annex", "mac": "805ec0000030", "model": T54W, "branchId": w.branch_a2}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    app.get(&format!("/v2/admin/devices/{annex}"), &b)
        .await
        .error(404, "NotFound");
    app.patch(
        &format!("/v2/admin/devices/{annex}"),
        &b,
        json!({"name": "Mine"}),
    )
    .await
    .error(404, "NotFound");
    app.delete(&format!("/v2/admin/devices/{annex}"), &b)
        .await
        .error(404, "NotFound");
    app.get(&format!("/v2/admin/devices/?tenantId={}", w.tenant_a), &b)
        .await
        .error(403, "Forbidden");
    app.post(
        "/v2/admin/devices/",
        &b,
        json!({"tenantId": w.tenant_a, "name": "X", "mac": "805ec0000031", "model": T54W}),
    )
    .await
    .error(403, "Forbidden");

    let own = app
        .post(
            "/v2/admin/devices/",
            &branch_admin,
            json!({"name": "Main desk", "mac": "805ec0000032", "model": T54W, "lines": [w.ext_a]}),
        )
        .await
        .expect(200);
    assert_eq!(own["branchId"], w.branch_a, "a branch admin's own branch");
    assert_eq!(own["branch"]["name"], "A main");
    let errors = app
        .post(
            "/v2/admin/devices/",
            &branch_admin,
            json!({"name": "Annex line", "mac": "805ec0000033", "model": T54W, "lines": [w.ext_a2]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        ["'body/lines/0' must name an extension of the tenant"],
        "another branch's extension"
    );
    app.get(&format!("/v2/admin/devices/{annex}"), &branch_admin)
        .await
        .error(404, "NotFound");
    let listed = app.get("/devices/search", &branch_admin).await.expect(200);
    assert_eq!(record_ids(&listed), [own["id"].as_i64().unwrap()]);
    let user = app.login(w.user_a).await;
    app.get("/v2/admin/devices/", &user)
        .await
        .error(403, "Forbidden");
    app.get("/v2/admin/device-models", &user)
        .await
        .error(403, "Forbidden");
}

async fn the_catalogue_lists_real_models(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let models = app
        .get("/v2/admin/device-models/", &token)
        .await
        .expect(200);
    let models = models.as_array().unwrap();
    let find = |id: &str| {
        models
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
            .clone()
    };
    let t54w = find(T54W);
    assert_eq!(t54w["vendor"], "Yealink");
    assert_eq!(t54w["lineKeys"], 27);
    assert_eq!(t54w["expansionModules"][0]["id"], "EXP50");
    assert_eq!(t54w["maxKeys"], 27 + 180);
    assert_eq!(t54w["provisioningFile"], "{mac}.cfg");
    assert_eq!(find("poly-vvx450")["provisioningFormat"], "polycom-xml");
    assert_eq!(find("cisco-spa504g")["expansionModules"][0]["keys"], 32);
    let grp2614 = find("grandstream-grp2614");
    assert_eq!(grp2614["vendor"], "Grandstream");
    assert_eq!(
        grp2614["lineKeys"], 40,
        "16 virtual keys and 24 screen keys"
    );
    assert_eq!(grp2614["maxKeys"], 40 + 4 * 40, "and four GBX20 of 40 keys");
    assert_eq!(
        grp2614["maxLineIndex"], 4,
        "lines on its fixed virtual keys"
    );
    assert!(grp2614.get("virtualKeys").is_none(), "{grp2614}");
    assert_eq!(
        grp2614["keyTypes"],
        json!([
            "line",
            "blf",
            "speedDial",
            "park",
            "voicemail",
            "pagingGroup",
            "dnd",
            "none"
        ])
    );
    assert_eq!(t54w["maxLineIndex"], 27 + 180);
    assert_eq!(find("cisco-spa504g")["maxLineIndex"], 4);
    let vendors: std::collections::BTreeSet<&str> = models
        .iter()
        .map(|m| m["vendor"].as_str().unwrap())
        .collect();
    assert_eq!(
        vendors.into_iter().collect::<Vec<_>>(),
        ["Cisco", "Grandstream", "Poly", "Yealink"]
    );
}

async fn the_engine_reports_registrations(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let id = device(
        &app,
        &token,
        json!({"name": "Desk", "mac": "805ec0000040", "model": T54W}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let seen = app
        .post(
            "/v2/ingest/device-registrations",
            &platform,
            json!({"mac": "805E.C000.0040", "registered": true, "ipAddress": "192.0.2.10",
                   "userAgent": "Yealink SIP-T54W 96.86.0.100", "at": "2026-11-24T08:00:00Z"}),
        )
        .await
        .expect(200);
    assert_eq!(seen["id"], id);
    assert_eq!(seen["registered"], true);
    assert_eq!(seen["lastRegisteredAt"], "2026-11-24T08:00:00Z");
    assert_eq!(seen["ipAddress"], "192.0.2.10");
    let page = app
        .get("/v2/admin/devices/?registered=1", &token)
        .await
        .expect(200);
    assert_eq!(record_ids(&page), [id]);
    assert_eq!(page["totalRecords"], 1);
    let gone = app
        .post(
            "/v2/ingest/device-registrations",
            &platform,
            json!({"mac": "80:5e:c0:00:00:40", "registered": false}),
        )
        .await
        .expect(200);
    assert_eq!(gone["registered"], false);
    assert_eq!(gone["lastRegisteredAt"], "2026-11-24T08:00:00Z", "kept");
    let page = app
        .get("/v2/admin/devices/?registered=1", &token)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 0);
    app.post(
        "/v2/ingest/device-registrations",
        &platform,
        json!({"mac": "80:5e:c0:00:00:41", "registered": true}),
    )
    .await
    .error(404, "NotFound");
    app.post(
        "/v2/ingest/device-registrations",
        &token,
        json!({"mac": "80:5e:c0:00:00:40", "registered": true}),
    )
    .await
    .error(403, "Forbidden");
    let errors = app
        .post(
            "/v2/ingest/device-registrations",
            &platform,
            json!({"mac": "nope", "registered": "yes"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 2, "{errors:?}");
}

async fn events(app: &TestApp) -> i64 {
    app.count("webhook_events", Some(("type", "DEVICE_CONFIG_CHANGED")))
        .await
}

async fn changes_grow_the_config_version_with_an_event(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = device(
        &app,
        &token,
        json!({"name": "Desk", "mac": "805ec0000050", "model": T54W, "lines": [w.ext_a]}),
    )
    .await;
    let id = created["id"].as_i64().unwrap();
    assert_eq!(created["configVersion"], 1);
    assert_eq!(events(&app).await, 1);
    let path = format!("/v2/admin/devices/{id}");
    let described = app
        .patch(&path, &token, json!({"description": "By the door"}))
        .await
        .expect(200);
    assert_eq!(described["configVersion"], 1, "not in the file");
    let lined = app
        .patch(&path, &token, json!({"lines": [w.ext_a, w.ext_a2]}))
        .await
        .expect(200);
    assert_eq!(lined["configVersion"], 2);
    assert_eq!(events(&app).await, 2);
    app.patch(
        &format!("/v2/admin/extensions/{}", w.ext_a2),
        &token,
        json!({"name": "Annex desk"}),
    )
    .await
    .expect(200);
    let read = app.get(&path, &token).await.expect(200);
    assert_eq!(read["configVersion"], 3, "its line's extension changed");
    assert_eq!(read["lines"][1]["name"], "Annex desk");
    assert_eq!(events(&app).await, 3);
    app.patch(
        &format!("/v2/admin/extensions/{}", w.ext_b),
        &app.login(w.admin_b).await,
        json!({"name": "Elsewhere"}),
    )
    .await
    .expect(200);
    assert_eq!(events(&app).await, 3, "other phones are left alone");
}

async fn a_changed_sip_password_reaches_the_phones(app: TestApp) {
    let w = World::seed(&app).await;
    w.give_user_a_extension(&app).await;
    let token = app.login(w.admin_a).await;
    let carrying = device(
        &app,
        &token,
        json!({"name": "Desk", "mac": "805ec0000060", "model": T54W, "lines": [w.ext_a2, w.ext_a]}),
    )
    .await;
    let other = device(
        &app,
        &token,
        json!({"name": "Annex", "mac": "805ec0000061", "model": T54W, "lines": [w.ext_a2]}),
    )
    .await;
    let before = events(&app).await;
    let users = app
        .get(&format!("/v2/admin/users/?query={}", w.user_a), &token)
        .await
        .expect(200);
    let user = users["records"][0]["id"].as_i64().unwrap();
    app.patch(
        &format!("/v2/admin/users/{user}"),
        &token,
        json!({"peerSecret": "fresh-sip-secret"}),
    )
    .await
    .expect(200);
    let read = app
        .get(&format!("/v2/admin/devices/{}", carrying["id"]), &token)
        .await
        .expect(200);
    assert_eq!(read["configVersion"], 2, "its line's SIP password changed");
    let read = app
        .get(&format!("/v2/admin/devices/{}", other["id"]), &token)
        .await
        .expect(200);
    assert_eq!(read["configVersion"], 1, "other phones are left alone");
    assert_eq!(events(&app).await, before + 1);
    let file = app
        .client
        .get(app.url("/provisioning/805ec0000060.cfg"))
        .basic_auth(
            carrying["provisioningUsername"].as_str().unwrap(),
            carrying["provisioningPassword"].as_str(),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        file.contains("account.2.password = fresh-sip-secret\n"),
        "{file}"
    );
    // Moving the user off the extension changes the account the phone registers with.
    app.patch(
        &format!("/v2/admin/users/{user}"),
        &token,
        json!({"extId": null}),
    )
    .await
    .expect(200);
    let read = app
        .get(&format!("/v2/admin/devices/{}", carrying["id"]), &token)
        .await
        .expect(200);
    assert_eq!(read["configVersion"], 3, "the line lost its user");
    assert_eq!(events(&app).await, before + 2);
}

/// When a phone last fetched its configuration is kept (issue 34): null before its
/// first fetch, unchanged by a refused one, set by a served one — and not a change of
/// the phone (no new configuration version, no audit entry).
async fn the_last_configuration_fetch_is_kept(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let phone = device(
        &app,
        &token,
        json!({"name": "Desk", "mac": "805ec0000070", "model": T54W, "lines": [w.ext_a]}),
    )
    .await;
    let path = format!("/v2/admin/devices/{}", phone["id"]);
    let read = app.get(&path, &token).await.expect(200);
    assert_eq!(read["lastFetchedAt"], Value::Null, "never fetched");
    let fetch = |password: &str| {
        app.client
            .get(app.url("/provisioning/805ec0000070.cfg"))
            .basic_auth(
                phone["provisioningUsername"].as_str().unwrap(),
                Some(password),
            )
            .send()
    };
    let refused = fetch("not-the-password").await.unwrap();
    assert_eq!(refused.status(), 401);
    let read = app.get(&path, &token).await.expect(200);
    assert_eq!(
        read["lastFetchedAt"],
        Value::Null,
        "a refused fetch is no fetch"
    );
    let started = chrono::Utc::now() - chrono::Duration::seconds(1);
    let served = fetch(phone["provisioningPassword"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    let read = app.get(&path, &token).await.expect(200);
    let at = chrono::DateTime::parse_from_rfc3339(read["lastFetchedAt"].as_str().unwrap())
        .expect("an ISO 8601 time");
    assert!(at >= started, "{at} is the fetch's time");
    assert_eq!(
        read["configVersion"], phone["configVersion"],
        "not a change"
    );
    let trail = app
        .audit_entries(&token, &format!("entities=device&entityId={}", phone["id"]))
        .await;
    assert_eq!(trail.len(), 1, "only its creation: {trail:?}");
}

/// A vendor's prefix under more phones than the search gathers first (the walk of the
/// list's index, the total from counters): the total stays exact through creates, a MAC
/// change, a delete, branches and tenants, with the phones matching by name or by the
/// digits further in counted once, and agrees with the streamed list.
async fn a_vendor_search_counts_exactly_at_scale(app: TestApp) {
    let w = World::seed(&app).await;
    let tenant = switchboard_domain::ids::TenantId(w.tenant_a);
    switchboard_db::synthetic::devices(&app.state.db, tenant, 4_400)
        .await
        .unwrap();
    let token = app.login(w.admin_a).await;
    let total = |query: &str, token: String| {
        let query = query.to_owned();
        let app = &app;
        async move {
            let page = app
                .get(&format!("/v2/admin/devices/?query={query}"), &token)
                .await
                .expect(200);
            let streamed = app
                .get(
                    &format!("/devices/search?query={query}&paginated=0"),
                    &token,
                )
                .await
                .expect(200);
            let records = streamed["records"].as_array().unwrap().len() as i64;
            assert_eq!(page["totalRecords"], records, "{query}: counted as listed");
            records
        }
    };
    assert_eq!(total("80:5e:c0", token.clone()).await, 1_100);
    let inside = device(
        &app,
        &token,
        json!({"name": "Oddball", "mac": "00:80:5e:c0:00:01", "model": T54W}),
    )
    .await;
    device(
        &app,
        &token,
        json!({"name": "Spare 805ec0", "mac": "0014bf999999", "model": "cisco-spa504g"}),
    )
    .await;
    let branched = device(
        &app,
        &token,
        json!({"name": "Annex", "mac": "80:5e:c0:ee:00:01", "model": T54W, "branchId": w.branch_a}),
    )
    .await;
    let other = app.login(w.admin_b).await;
    device(
        &app,
        &other,
        json!({"name": "Theirs", "mac": "80:5e:c0:ff:00:01", "model": T54W}),
    )
    .await;
    assert_eq!(
        total("80:5e:c0", token.clone()).await,
        1_102,
        "the digits further in"
    );
    assert_eq!(total("805ec0", token.clone()).await, 1_103, "and a name");
    assert_eq!(
        total("805EC0", other.clone()).await,
        1,
        "another tenant's own"
    );
    let branch_admin = app.login(w.branch_admin_a).await;
    assert_eq!(total("805ec0", branch_admin).await, 1, "a branch's own");
    let page = app
        .get(
            "/v2/admin/devices/?query=80-5e-c0&sortBy=name&page=3",
            &token,
        )
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 1_102);
    for record in page["records"].as_array().unwrap() {
        let mac = record["mac"].as_str().unwrap().replace(':', "");
        assert!(mac.contains("805ec0"), "{record}");
    }
    app.patch(
        &format!("/v2/admin/devices/{}", inside["id"]),
        &token,
        json!({"mac": "11:22:33:44:55:66"}),
    )
    .await
    .expect(200);
    app.delete(&format!("/v2/admin/devices/{}", branched["id"]), &token)
        .await
        .expect(200);
    assert_eq!(total("805ec0", token.clone()).await, 1_101);
    assert_eq!(total("805ec0ee", token.clone()).await, 0, "a longer prefix");
    let seeded = format!("805ec0{:x}", w.tenant_a % 16);
    assert_eq!(
        total(&seeded, token.clone()).await,
        1_100,
        "the tenant's digit"
    );
    let filtered = app
        .get("/v2/admin/devices/?query=805ec0&registered=1", &token)
        .await
        .expect(200);
    let streamed = app
        .get(
            "/v2/admin/devices/?query=805ec0&registered=1&paginated=0",
            &token,
        )
        .await
        .expect(200);
    assert_eq!(
        filtered["totalRecords"],
        streamed["records"].as_array().unwrap().len()
    );
}

/// A new time zone reaches every phone of the tenant, however many: a job announces them
/// in bounded batches after the change is answered, each phone once.
async fn a_time_zone_change_reaches_every_phone_in_batches(app: TestApp) {
    let w = World::seed(&app).await;
    let tenant = switchboard_domain::ids::TenantId(w.tenant_a);
    switchboard_db::synthetic::devices(&app.state.db, tenant, 1_201)
        .await
        .unwrap();
    let theirs = device(
        &app,
        &app.login(w.admin_b).await,
        json!({"name": "Theirs", "mac": "805ec0ff0001", "model": T54W}),
    )
    .await;
    let before = events(&app).await;
    let platform = app.login(w.platform).await;
    app.patch(
        &format!("/v2/admin/tenants/{}", w.tenant_a),
        &platform,
        json!({"timezone": "Europe/Berlin"}),
    )
    .await
    .expect(200);
    app.jobs_done().await;
    assert_eq!(events(&app).await, before + 1_201, "each phone once");
    assert_eq!(
        app.count_where("devices", "config_version", 2i64).await,
        1_201
    );
    assert_eq!(app.count("jobs", Some(("state", "failed"))).await, 0);
    let token = app.login(w.admin_b).await;
    let read = app
        .get(&format!("/v2/admin/devices/{}", theirs["id"]), &token)
        .await
        .expect(200);
    assert_eq!(
        read["configVersion"], 1,
        "another tenant's phone is left alone"
    );
}

/// A layout's model changing while a phone of the old model is being assigned to it: one
/// of the two is refused, never a phone on a layout for another model.
async fn a_layout_model_change_races_no_device_assignment(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "Race", "deviceModel": "poly-vvx450", "keys": [{"index": 1, "type": "line"}]}),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let phone = device(
        &app,
        &token,
        json!({"name": "Racer", "mac": "64167f0000aa", "model": "poly-vvx450"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let layout_path = format!("/v2/admin/button-layouts/{layout}");
    let phone_path = format!("/v2/admin/devices/{phone}");
    for round in 0..25 {
        let (moved, assigned) = tokio::join!(
            app.patch(&layout_path, &token, json!({"deviceModel": "poly-vvx350"})),
            app.patch(&phone_path, &token, json!({"buttonLayoutId": layout})),
        );
        let (moved, assigned) = (moved.status.as_u16(), assigned.status.as_u16());
        let read = app.get(&phone_path, &token).await.expect(200);
        let on = app.get(&layout_path, &token).await.expect(200);
        let stuck = read["buttonLayoutId"] == layout && on["deviceModel"] != read["model"];
        assert!(
            !stuck,
            "round {round}: layout {moved}, assignment {assigned}: {read} on {on}"
        );
        assert!(
            (moved == 200) != (assigned == 200),
            "round {round}: exactly one wins, not {moved} and {assigned}"
        );
        app.patch(&phone_path, &token, json!({"buttonLayoutId": null}))
            .await
            .expect(200);
        app.patch(&layout_path, &token, json!({"deviceModel": "poly-vvx450"}))
            .await
            .expect(200);
    }
}

on_both_backends!(
    mac_notations_are_one_address,
    the_last_configuration_fetch_is_kept,
    a_mac_is_unique_on_the_platform_without_saying_whose,
    search_by_name_and_partial_mac_on_every_path,
    lines_are_ordered_extensions_of_the_tenant,
    an_extension_a_phone_registers_as_cannot_be_deleted,
    scope_cross_tenant_and_branch,
    the_catalogue_lists_real_models,
    the_engine_reports_registrations,
    changes_grow_the_config_version_with_an_event,
    a_changed_sip_password_reaches_the_phones,
    a_vendor_search_counts_exactly_at_scale,
    a_time_zone_change_reaches_every_phone_in_batches,
    a_layout_model_change_races_no_device_assignment,
);
