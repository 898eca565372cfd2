//! Button layouts: every validation rule answered at its `'body/keys/N/…'` path, the
//! model a device's layout must share, in-use refusals, re-provisioning on change, scope.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

async fn paging_group(app: &TestApp, token: &str, tenant: i64) -> i64 {
    app.create(
        "/v2/admin/paging-groups/",
        token,
        json!({"tenantId": tenant, "number": "460", "name": "Warehouse"}),
    )
    .await["id"]
        .as_i64()
        .unwrap()
}

async fn layout(app: &TestApp, token: &str, body: Value) -> Value {
    app.post("/v2/admin/button-layouts/", token, body)
        .await
        .expect(200)
}

async fn every_rule_is_answered_at_its_key(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let other = app.login(w.admin_b).await;
    let foreign_group = paging_group(&app, &other, w.tenant_b).await;
    let errors = app
        .post(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "Broken", "deviceModel": "yealink-t54w", "keys": [
                {"index": 1, "type": "blf", "value": w.ext_a.to_string()},
                {"index": 2, "type": "blf", "value": w.ext_b.to_string()},
                {"index": 3, "type": "blf", "value": w.ext_a.to_string()},
                {"index": 3, "type": "speedDial", "value": "call me"},
                {"index": 208, "type": "dnd"},
                {"index": 5, "type": "pagingGroup", "value": foreign_group.to_string()},
                {"index": 6, "type": "line", "value": "17"},
                {"index": 7, "type": "voicemail", "value": "*97"},
                {"index": 8, "type": "park", "label": "Park\u{7}"},
                {"index": 9, "type": "fax"},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        [
            "'body/keys/8/label' must match pattern ^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
            "'body/keys/9/type' must be one of: line, blf, speedDial, park, voicemail, pagingGroup, dnd, none",
            "'body/keys/3/index' is already used by keys/2",
        ],
        "a key that cannot be read hides no duplicate"
    );
    let errors = app
        .post(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "Broken", "deviceModel": "yealink-t54w", "keys": [
                {"index": 1, "type": "blf", "value": w.ext_a.to_string()},
                {"index": 2, "type": "blf", "value": w.ext_a.to_string()},
                {"index": 3, "type": "blf", "value": w.ext_a.to_string()},
                {"index": 3, "type": "speedDial", "value": "call me"},
                {"index": 208, "type": "dnd"},
                {"index": 5, "type": "pagingGroup", "value": foreign_group.to_string()},
                {"index": 6, "type": "line", "value": "17"},
                {"index": 7, "type": "voicemail", "value": "*97"},
                {"index": 9, "type": "blf", "value": w.ext_b.to_string()},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        [
            "'body/keys/3/index' is already used by keys/2",
            "'body/keys/0/type' must be line: index 1 is the primary line",
            "'body/keys/2/value' is already the target of keys/1",
            "'body/keys/3/value' must be the number to dial (1 to 32 of 0-9 * # +)",
            "'body/keys/4/index' must be at most 207 (the keys of yealink-t54w with its expansion modules)",
            "'body/keys/6/value' must be a line number from 1 to 16 (the accounts of yealink-t54w)",
            "'body/keys/7/value' must be empty for a voicemail key",
            "'body/keys/5/value' must name a paging group of the tenant",
            "'body/keys/8/value' must name an extension of the tenant",
        ]
    );
    let errors = app
        .post(
            "/v2/admin/button-layouts/",
            &token,
            json!({"name": "SPA", "deviceModel": "cisco-spa504g", "keys": [
                {"index": 2, "type": "park", "value": "701"},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        [
            "'body/keys/0/type' is not supported by cisco-spa504g (one of: line, blf, speedDial, none)",
            "'body/keys' must hold index 1, the primary line",
        ]
    );
    // Keys that the phone's file cannot make a line: Grandstream's past its fixed virtual
    // keys (its screen and GBX20 keys included), a Cisco sidecar's.
    for (model, index, last) in [
        ("grandstream-grp2614", 5, 4),
        ("grandstream-grp2614", 41, 4),
        ("cisco-spa504g", 5, 4),
    ] {
        let errors = app
            .post(
                "/v2/admin/button-layouts/",
                &token,
                json!({"name": "Lines", "deviceModel": model, "keys": [
                    {"index": 1, "type": "line"},
                    {"index": index, "type": "line", "value": "1"},
                ]}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(
            errors,
            [format!(
                "'body/keys/1/type' cannot be line at index {index}: {model} takes lines on keys 1 to {last} only"
            )]
        );
    }
    assert_eq!(app.count("button_layouts", None).await, 0);
    assert_eq!(app.count("button_layout_keys", None).await, 0);
}

async fn a_sound_layout_is_kept_key_by_key(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let group = paging_group(&app, &token, w.tenant_a).await;
    let created = layout(
        &app,
        &token,
        json!({"name": "Reception", "deviceModel": "yealink-t54w", "keys": [
            {"index": 3, "type": "blf", "value": w.ext_a2.to_string(), "label": "Annex"},
            {"index": 1, "type": "line"},
            {"index": 2, "type": "pagingGroup", "value": group.to_string()},
            {"index": 28, "type": "speedDial", "value": "+15555550100", "label": "Supplier"},
        ]}),
    )
    .await;
    assert_eq!(created["tenantId"], w.tenant_a);
    assert_eq!(
        created["keys"],
        json!([
            {"index": 1, "type": "line", "value": null, "label": null},
            {"index": 2, "type": "pagingGroup", "value": group.to_string(), "label": null},
            {"index": 3, "type": "blf", "value": w.ext_a2.to_string(), "label": "Annex"},
            {"index": 28, "type": "speedDial", "value": "+15555550100", "label": "Supplier"},
        ])
    );
    assert_eq!(app.count("button_layout_keys", None).await, 4);
    let id = created["id"].as_i64().unwrap();
    let page = app
        .get(
            "/v2/admin/button-layouts/?query=recep&sortBy=deviceModel",
            &token,
        )
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 1);
    assert_eq!(page["records"][0], created);
    // The BLF's extension and the paging group are in use while the layout points at them.
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a2), &token)
        .await
        .expect(409);
    let replaced = app
        .patch(
            &format!("/v2/admin/button-layouts/{id}"),
            &token,
            json!({"keys": [{"index": 1, "type": "line", "label": "Main"}]}),
        )
        .await
        .expect(200);
    assert_eq!(replaced["keys"].as_array().unwrap().len(), 1);
    assert_eq!(app.count("button_layout_keys", None).await, 1);
    app.delete(&format!("/v2/admin/extensions/{}", w.ext_a2), &token)
        .await
        .expect(200);
}

async fn a_layout_serves_its_model_and_cannot_go_while_used(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let poly = layout(
        &app,
        &token,
        json!({"name": "Poly", "deviceModel": "poly-vvx450", "keys": [{"index": 1, "type": "line"}]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let yealink = layout(
        &app,
        &token,
        json!({"name": "Yealink", "deviceModel": "yealink-t54w", "keys": [{"index": 1, "type": "line"}]}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let errors = app
        .post(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Desk", "mac": "805ec0000060", "model": "yealink-t54w", "buttonLayoutId": poly}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        errors,
        [
            "'body/buttonLayoutId' is a layout for poly-vvx450, not for the device's model yealink-t54w"
        ]
    );
    let device = app
        .post(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Desk", "mac": "805ec0000060", "model": "yealink-t54w", "buttonLayoutId": yealink}),
        )
        .await
        .expect(200);
    let id = device["id"].as_i64().unwrap();
    assert_eq!(device["buttonLayoutId"], yealink);
    let path = format!("/v2/admin/devices/{id}");
    app.patch(&path, &token, json!({"buttonLayoutId": poly}))
        .await
        .error(400, "ValidationError");
    app.patch(&path, &token, json!({"model": "poly-vvx450"}))
        .await
        .error(400, "ValidationError");
    let other = app.login(w.admin_b).await;
    let foreign = layout(
        &app,
        &other,
        json!({"name": "B", "deviceModel": "yealink-t54w"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        app.patch(&path, &token, json!({"buttonLayoutId": foreign}))
            .await
            .error(400, "ValidationError"),
        ["'body/buttonLayoutId' must name a button layout of the tenant"]
    );

    let version = device["configVersion"].as_i64().unwrap();
    // A second phone on the layout, and one without it, which the change leaves alone.
    let second = app
        .create(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Desk 2", "mac": "805ec0000061", "model": "yealink-t54w", "buttonLayoutId": yealink}),
        )
        .await;
    let second_id = second["id"].as_i64().unwrap();
    app.create(
        "/v2/admin/devices/",
        &token,
        json!({"name": "Bare", "mac": "805ec0000062", "model": "yealink-t54w"}),
    )
    .await;
    let before = app.event_data("DEVICE_CONFIG_CHANGED").await.len();
    app.patch(
        &format!("/v2/admin/button-layouts/{yealink}"),
        &token,
        json!({"keys": [{"index": 1, "type": "line"}, {"index": 2, "type": "dnd"}]}),
    )
    .await
    .expect(200);
    let read = app.get(&path, &token).await.expect(200);
    assert_eq!(read["configVersion"], version + 1, "its layout changed");
    let mut emitted = app.event_data("DEVICE_CONFIG_CHANGED").await[before..].to_vec();
    emitted.sort_by_key(|event| event["deviceId"].as_i64());
    assert_eq!(
        emitted,
        [
            json!({"deviceId": id, "mac": "80:5e:c0:00:00:60", "configVersion": version + 1,
                   "reason": "button-layout"}),
            json!({"deviceId": second_id, "mac": "80:5e:c0:00:00:61",
                   "configVersion": second["configVersion"].as_i64().unwrap() + 1,
                   "reason": "button-layout"}),
        ],
        "one event for each phone using the layout, none for the others"
    );
    app.patch(
        &format!("/v2/admin/button-layouts/{yealink}"),
        &token,
        json!({"deviceModel": "yealink-t57w"}),
    )
    .await
    .error(409, "Conflict");

    app.delete(&format!("/v2/admin/devices/{second_id}"), &token)
        .await
        .expect(200);
    let refused = app
        .delete(&format!("/v2/admin/button-layouts/{yealink}"), &token)
        .await
        .expect(409);
    assert_eq!(
        refused["message"],
        format!("the button layout is used by device 'Desk' (id {id})"),
        "{refused}"
    );
    assert_eq!(app.count_where("button_layouts", "id", yealink).await, 1);
    app.patch(&path, &token, json!({"buttonLayoutId": null}))
        .await
        .expect(200);
    let deleted = app
        .delete(&format!("/v2/admin/button-layouts/{yealink}"), &token)
        .await
        .expect(200);
    assert_eq!(deleted["name"], "Yealink");
    assert_eq!(app.count_where("button_layouts", "id", yealink).await, 0);
    assert_eq!(
        app.count_where("button_layout_keys", "layout_id", yealink)
            .await,
        0
    );
}

async fn layouts_are_tenant_wide(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let id = layout(
        &app,
        &token,
        json!({"name": "Shared", "deviceModel": "yealink-t31p"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let branch_admin = app.login(w.branch_admin_a).await;
    let page = app
        .get("/v2/admin/button-layouts/", &branch_admin)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 1);
    app.post(
        "/v2/admin/button-layouts/",
        &branch_admin,
        json!({"name": "Mine", "deviceModel": "yealink-t31p"}),
    )
    .await
    .error(403, "Forbidden");
    app.delete(&format!("/v2/admin/button-layouts/{id}"), &branch_admin)
        .await
        .error(403, "Forbidden");
    let other = app.login(w.admin_b).await;
    app.get(&format!("/v2/admin/button-layouts/{id}"), &other)
        .await
        .error(404, "NotFound");
    app.get(
        &format!("/v2/admin/button-layouts/?tenantId={}", w.tenant_a),
        &other,
    )
    .await
    .error(403, "Forbidden");
    assert_eq!(app.count("button_layouts", None).await, 1);
}

/// A layout deleted while a phone is being put on it: the delete checks its users inside
/// its transaction with the layout locked (`in_use`), so either the phone lands first and
/// the delete is a 409 naming it, or the layout goes first and the assignment is refused;
/// never a phone on a layout that is gone, never a 500.
async fn a_layout_delete_races_no_assignment(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let device = app
        .post(
            "/v2/admin/devices/",
            &token,
            json!({"name": "Racer", "mac": "805ec0000077", "model": "yealink-t54w"}),
        )
        .await
        .expect(200);
    let path = format!("/v2/admin/devices/{}", device["id"]);
    for round in 0..10 {
        let id = layout(
            &app,
            &token,
            json!({"name": format!("Race {round}"), "deviceModel": "yealink-t54w"}),
        )
        .await["id"]
            .as_i64()
            .unwrap();
        let layout_path = format!("/v2/admin/button-layouts/{id}");
        let (deleted, assigned) = tokio::join!(
            app.delete(&layout_path, &token),
            app.patch(&path, &token, json!({"buttonLayoutId": id})),
        );
        let (deleted, assigned) = (deleted.status.as_u16(), assigned.status.as_u16());
        assert!(
            deleted != 500 && assigned != 500,
            "round {round}: {deleted} {assigned}"
        );
        let on = app.get(&path, &token).await.expect(200)["buttonLayoutId"].clone();
        if deleted == 200 {
            assert_ne!(assigned, 200, "round {round}: assigned to a deleted layout");
            assert_eq!(on, Value::Null, "round {round}");
        } else {
            assert_eq!((deleted, assigned), (409, 200), "round {round}");
            assert_eq!(on, id, "round {round}");
            app.patch(&path, &token, json!({"buttonLayoutId": null}))
                .await
                .expect(200);
            app.delete(&layout_path, &token).await.expect(200);
        }
    }
}

/// A new model is checked against the keys the layout keeps, with the body's other rules:
/// one 400 names them all, and nothing is changed.
async fn a_new_model_is_checked_against_the_kept_keys(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = layout(
        &app,
        &token,
        json!({"name": "Wide", "deviceModel": "yealink-t54w", "keys": [
            {"index": 1, "type": "line"},
            {"index": 20, "type": "line", "value": "16"},
        ]}),
    )
    .await;
    let path = format!("/v2/admin/button-layouts/{}", created["id"]);
    let errors = app
        .patch(
            &path,
            &token,
            json!({"deviceModel": "yealink-t31p", "name": ""}),
        )
        .await
        .error(400, "ValidationError");
    let kept_keys = [
        "'body/keys/1/index' must be at most 2 (the keys of yealink-t31p with its expansion modules)",
        "'body/keys/1/type' cannot be line at index 20: yealink-t31p takes lines on keys 1 to 2 only",
    ];
    assert_eq!(
        errors,
        [
            &["'body/name' must be at least 1 character"][..],
            &kept_keys[..]
        ]
        .concat(),
        "the body's own rule and the kept keys against the new model, in one answer"
    );
    let errors = app
        .patch(&path, &token, json!({"deviceModel": "yealink-t31p"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors, kept_keys, "the kept keys alone");
    let kept = app.get(&path, &token).await.expect(200);
    assert_eq!(
        (kept["name"].as_str(), kept["deviceModel"].as_str()),
        (Some("Wide"), Some("yealink-t54w"))
    );
    app.patch(&path, &token, json!({"deviceModel": "yealink-t57w"}))
        .await
        .expect(200);
}

on_both_backends!(
    a_layout_delete_races_no_assignment,
    every_rule_is_answered_at_its_key,
    a_sound_layout_is_kept_key_by_key,
    a_layout_serves_its_model_and_cannot_go_while_used,
    layouts_are_tenant_wide,
    a_new_model_is_checked_against_the_kept_keys,
);
