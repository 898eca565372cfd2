//! Phone numbers: provisioning by platform and partner admins, settings by the tenant,
//! and every filter, limit and sort of the list.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

const INTEGERS: &[&str] = &["id", "tenantId", "branchId", "smsExtId", "inUse"];
const STRINGS: &[&str] = &[
    "number",
    "registeredCNAM",
    "diCommentName",
    "recording",
    "fax",
    "faxEmail",
    "faxStore",
    "namePrefix",
    "unconditionalStatus",
    "emailRecording",
    "storeAndForwardNumber",
    "tenantName",
];

async fn provision(app: &TestApp, token: &str, tenant: i64, number: &str, extra: Value) -> Value {
    let mut body = json!({"tenantId": tenant, "number": number});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    app.post("/v2/admin/phone-numbers/", token, body)
        .await
        .expect(200)
}

fn numbers(page: &Value) -> Vec<&str> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["number"].as_str().unwrap())
        .collect()
}

async fn provisioning_and_settings(app: TestApp) {
    let w = World::seed(&app).await;
    let partner = app.login(w.partner_admin_a).await;
    let created = provision(
        &app,
        &partner,
        w.tenant_a,
        "15550001111",
        json!({"registeredCNAM": "RIVERSIDE", "fax": "yes", "branchId": w.branch_a}),
    )
    .await;
    for field in INTEGERS {
        assert!(created[field].is_i64(), "{field}: {created}");
    }
    for field in STRINGS {
        assert!(created[field].is_string(), "{field}: {created}");
    }
    assert_eq!(created["tenantName"], "Tenant A");
    assert_eq!(
        (created["branchId"].as_i64(), created["smsExtId"].as_i64()),
        (Some(w.branch_a), Some(0))
    );
    assert_eq!(created["recording"], "no");
    app.post(
        "/v2/admin/phone-numbers/",
        &partner,
        json!({"tenantId": w.tenant_a, "number": "15550001111"}),
    )
    .await
    .error(409, "Conflict");
    app.post(
        "/v2/admin/phone-numbers/",
        &partner,
        json!({"tenantId": w.tenant_b, "number": "15550002222"}),
    )
    .await
    .error(403, "Forbidden");
    // The tenant edits its number's settings but cannot provision or release numbers.
    let admin = app.login(w.admin_a).await;
    let id = created["id"].as_i64().unwrap();
    let patched = app
        .patch(
            &format!("/v2/admin/phone-numbers/{id}"),
            &admin,
            json!({"recording": "yes", "smsExtId": w.ext_a, "faxEmail": "fax@riverside.example"}),
        )
        .await
        .expect(200);
    assert_eq!(
        (patched["recording"].as_str(), patched["smsExtId"].as_i64()),
        (Some("yes"), Some(w.ext_a))
    );
    let problems = app
        .patch(&format!("/v2/admin/phone-numbers/{id}"), &admin, json!({"recording": "maybe", "number": "1", "smsExtId": w.ext_b, "registeredCNAM": "A NAME TOO LONG FOR CNAM"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/number' cannot be changed: release the number and provision it again",
            "'body/registeredCNAM' must be at most 15 characters",
            "'body/recording' must be one of: yes, no",
            "'body/smsExtId' must name an extension of the tenant",
        ]
    );
    let problems = app
        .patch(
            &format!("/v2/admin/phone-numbers/{id}"),
            &admin,
            json!({"smsExtId": w.ext_b}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/smsExtId' must name an extension of the tenant"]
    );
    app.post(
        "/v2/admin/phone-numbers/",
        &admin,
        json!({"tenantId": w.tenant_a, "number": "15550003333"}),
    )
    .await
    .error(403, "Forbidden");
    app.delete(&format!("/v2/admin/phone-numbers/{id}"), &admin)
        .await
        .error(403, "Forbidden");
    let b = app.login(w.admin_b).await;
    app.get(&format!("/v2/admin/phone-numbers/{id}"), &b)
        .await
        .error(404, "NotFound");
    app.patch(
        &format!("/v2/admin/phone-numbers/{id}"),
        &b,
        json!({"recording": "yes"}),
    )
    .await
    .error(404, "NotFound");
    assert_eq!(
        app.delete(&format!("/v2/admin/phone-numbers/{id}"), &partner)
            .await
            .expect(200)["number"],
        "15550001111"
    );
}

async fn every_filter_limit_and_sort(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    provision(
        &app,
        &platform,
        w.tenant_a,
        "15550000001",
        json!({"diCommentName": "Main Line", "branchId": w.branch_a,
               "destination": {"id": w.ext_a, "destType": "EXT"}}),
    )
    .await;
    provision(
        &app,
        &platform,
        w.tenant_a,
        "15550000002",
        json!({"registeredCNAM": "PHARMACY", "fax": "yes"}),
    )
    .await;
    provision(
        &app,
        &platform,
        w.tenant_a,
        "15550000003",
        json!({"diCommentName": "Drive-thru", "branchId": w.branch_a2}),
    )
    .await;
    provision(
        &app,
        &platform,
        w.tenant_b,
        "15559990001",
        json!({"diCommentName": "B main line"}),
    )
    .await;
    let admin = app.login(w.admin_a).await;
    let list = |query: &str| format!("/v2/admin/phone-numbers/{query}");
    let all = app.get(&list(""), &admin).await.expect(200);
    assert_eq!(all["totalRecords"], 3, "tenant A's numbers only");
    assert_eq!(
        numbers(&app.get(&list("?query=main line"), &admin).await.expect(200)),
        ["15550000001"]
    );
    assert_eq!(
        numbers(&app.get(&list("?query=pharm"), &admin).await.expect(200)),
        ["15550000002"],
        "CNAM, case-insensitive"
    );
    assert_eq!(
        numbers(&app.get(&list("?query=0003"), &admin).await.expect(200)),
        ["15550000003"]
    );
    assert_eq!(
        numbers(&app.get(&list("?number=0000002"), &admin).await.expect(200)),
        ["15550000002"]
    );
    assert_eq!(
        numbers(&app.get(&list("?fax=1"), &admin).await.expect(200)),
        ["15550000002"]
    );
    assert_eq!(
        app.get(&list("?fax=0"), &admin).await.expect(200)["totalRecords"],
        2
    );
    assert_eq!(
        numbers(&app.get(&list("?inUse=1"), &admin).await.expect(200)),
        ["15550000001"]
    );
    assert_eq!(
        numbers(
            &app.get(&list(&format!("?branchId={}", w.branch_a2)), &admin)
                .await
                .expect(200)
        ),
        ["15550000003"]
    );
    let paged = app
        .get(
            &list("?resultsPerPage=2&page=2&sortBy=number&sortDirection=desc"),
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(
        (paged["maxPage"].as_i64(), numbers(&paged)),
        (Some(2), vec!["15550000001"])
    );
    let sorted = app
        .get(&list("?sortBy=diCommentName"), &admin)
        .await
        .expect(200);
    assert_eq!(
        numbers(&sorted),
        ["15550000002", "15550000003", "15550000001"],
        "'' < Drive-thru < Main Line"
    );
    let problems = app
        .get(
            &list(&format!(
                "?number=155500000011&query={}&sortBy={}&resultsPerPage=0&fax=2&inUse=x&tenantId=0",
                "q".repeat(256),
                "s".repeat(51)
            )),
            &admin,
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'query/resultsPerPage' must be at least 1",
            "'query/sortBy' must be at most 50 characters",
            "'query/query' must be at most 255 characters",
            "'query/tenantId' must match pattern ^[1-9][0-9]*$",
            "'query/number' must be at most 11 characters",
            "'query/fax' must be one of: 0, 1, true, false",
            "'query/inUse' must be one of: 0, 1, true, false",
        ]
    );
    app.get(&list(&format!("?tenantId={}", w.tenant_b)), &admin)
        .await
        .error(403, "Forbidden");
    let everything = app.get(&list("?paginated=0"), &platform).await.expect(200);
    assert_eq!(everything["totalRecords"], 4);
    let b_only = app
        .get(&list(&format!("?tenantId={}", w.tenant_b)), &platform)
        .await
        .expect(200);
    assert_eq!(b_only["records"][0]["tenantName"], "Tenant B");
}

/// Totals come from counters the database keeps; after every kind of change, each
/// filter's `totalRecords` equals the number of records the same filter streams.
async fn totals_follow_every_change(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let mut ids = Vec::new();
    for i in 0..6 {
        // Odd numbers are in use: their texts reach an extension.
        let fax = if i % 3 == 0 { "yes" } else { "no" };
        let extra = if i % 2 == 1 {
            json!({"smsExtId": world.ext_a, "fax": fax})
        } else {
            json!({"fax": fax})
        };
        let number = provision(
            &app,
            &platform,
            world.tenant_a,
            &format!("1555000{i:04}"),
            extra,
        )
        .await;
        ids.push(number["id"].as_i64().unwrap());
    }
    provision(&app, &platform, world.tenant_b, "15559990000", json!({})).await;
    let path = |id: i64| format!("/v2/admin/phone-numbers/{id}");
    app.patch(
        &path(ids[0]),
        &admin,
        json!({"destination": {"id": world.ext_a, "destType": "EXT"}, "branchId": world.branch_a}),
    )
    .await
    .expect(200);
    app.patch(&path(ids[3]), &admin, json!({"smsExtId": 0}))
        .await
        .expect(200);
    app.patch(
        &path(ids[1]),
        &admin,
        json!({"fax": "yes", "branchId": world.branch_a2}),
    )
    .await
    .expect(200);
    app.patch(&path(ids[1]), &admin, json!({"branchId": null}))
        .await
        .expect(200);
    app.delete(&path(ids[2]), &platform).await.expect(200);
    let filters = [
        String::new(),
        "inUse=1".into(),
        "inUse=0".into(),
        "fax=1".into(),
        "fax=0&inUse=1".into(),
        format!("branchId={}", world.branch_a),
        format!("branchId={}", world.branch_a2),
        format!("tenantId={}", world.tenant_a),
    ];
    for filter in &filters {
        for token in [&admin, &platform] {
            let page = app
                .get(&format!("/v2/admin/phone-numbers/?{filter}"), token)
                .await
                .expect(200);
            let all = app
                .get(
                    &format!("/v2/admin/phone-numbers/?paginated=0&{filter}"),
                    token,
                )
                .await
                .expect(200);
            let streamed = all["records"].as_array().unwrap().len() as i64;
            assert_eq!(
                page["totalRecords"].as_i64().unwrap(),
                streamed,
                "{filter}: {page}"
            );
        }
    }
    let admin_total = app
        .get("/v2/admin/phone-numbers/", &admin)
        .await
        .expect(200);
    assert_eq!(admin_total["totalRecords"], 5);
    let branch_admin = app.login(world.branch_admin_a).await;
    assert_eq!(
        app.get("/v2/admin/phone-numbers/", &branch_admin)
            .await
            .expect(200)["totalRecords"],
        1
    );
}

/// The numbers `?inUse=0` lists to `token`.
async fn free(app: &TestApp, token: &str) -> Vec<String> {
    let page = app
        .get("/v2/admin/phone-numbers/?inUse=0", token)
        .await
        .expect(200);
    numbers(&page).iter().map(|n| n.to_string()).collect()
}

/// `inUse` follows what routes to or from a number (issue 29 item 2): a destination set
/// on provision or patch, or an extension its texts reach, makes it 1, and removing them
/// (or deleting that extension) makes it 0 again; a sent `inUse` is ignored, so
/// `?inUse=0` never lists a number that rings somewhere, and a GET answer sent back as
/// a PATCH is still accepted.
async fn in_use_follows_what_routes_to_the_number(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let admin = app.login(w.admin_a).await;
    let path = |id: &Value| format!("/v2/admin/phone-numbers/{id}");
    let routed = provision(
        &app,
        &platform,
        w.tenant_a,
        "15550007001",
        json!({"destination": {"id": w.ext_a, "destType": "EXT"}, "inUse": 0}),
    )
    .await;
    assert_eq!(routed["inUse"], 1, "routed on provision: {routed}");
    let idle = provision(
        &app,
        &platform,
        w.tenant_a,
        "15550007002",
        json!({"inUse": 1}),
    )
    .await;
    assert_eq!(idle["inUse"], 0, "a sent inUse is not stored: {idle}");
    assert_eq!(free(&app, &admin).await, ["15550007002"]);

    // Patched with a destination: in use; a PATCH saying otherwise changes nothing.
    let patched = app
        .patch(
            &path(&idle["id"]),
            &admin,
            json!({"destination": {"id": w.ext_a2, "destType": "VOICEMAIL"}}),
        )
        .await
        .expect(200);
    assert_eq!(patched["inUse"], 1, "{patched}");
    assert!(free(&app, &admin).await.is_empty());
    let patched = app
        .patch(&path(&idle["id"]), &admin, json!({"inUse": 0}))
        .await
        .expect(200);
    assert_eq!(patched["inUse"], 1);
    // Its GET answer sent back unchanged is accepted.
    let read = app.get(&path(&idle["id"]), &admin).await.expect(200);
    app.patch(&path(&idle["id"]), &admin, read)
        .await
        .expect(200);

    // Routed nowhere again: idle.
    let cleared = app
        .patch(&path(&idle["id"]), &admin, json!({"destination": null}))
        .await
        .expect(200);
    assert_eq!(cleared["inUse"], 0, "{cleared}");
    assert_eq!(free(&app, &admin).await, ["15550007002"]);

    // Texts reaching an extension make it in use; deleting that extension frees it.
    let extension = app
        .create(
            "/v2/admin/extensions/",
            &admin,
            json!({"number": "177", "name": "Texts", "branchId": w.branch_a}),
        )
        .await;
    let texted = app
        .patch(
            &path(&idle["id"]),
            &admin,
            json!({"smsExtId": extension["id"]}),
        )
        .await
        .expect(200);
    assert_eq!(texted["inUse"], 1, "{texted}");
    app.delete(&format!("/v2/admin/extensions/{}", extension["id"]), &admin)
        .await
        .expect(200);
    let read = app.get(&path(&idle["id"]), &admin).await.expect(200);
    assert_eq!(
        (read["smsExtId"].as_i64(), read["inUse"].as_i64()),
        (Some(0), Some(0))
    );
    assert_eq!(free(&app, &admin).await, ["15550007002"]);
    // The counters agree with the rows.
    let counted = app
        .get("/v2/admin/phone-numbers/?inUse=1", &admin)
        .await
        .expect(200);
    assert_eq!(counted["totalRecords"], 1, "{counted}");
}

/// Two provisions of one number in its two spellings at once (issue 29 item 3's known
/// gap): the check before the insert cannot see the other's uncommitted row, so it is
/// the index of the number without its `+` that refuses one of them — exactly one 200
/// and one 409 each round, and one row per number.
async fn two_spellings_provisioned_at_once_are_one_number(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    const ROUNDS: usize = 12;
    for round in 0..ROUNDS {
        let digits = format!("1555012{round:04}");
        let plus = format!("+{digits}");
        let (bare, with_plus) = tokio::join!(
            app.post(
                "/v2/admin/phone-numbers/",
                &platform,
                json!({"tenantId": w.tenant_a, "number": digits}),
            ),
            app.post(
                "/v2/admin/phone-numbers/",
                &platform,
                json!({"tenantId": w.tenant_b, "number": plus}),
            ),
        );
        let mut statuses = [bare.status.as_u16(), with_plus.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [200, 409],
            "round {round}: {} / {}",
            bare.body,
            with_plus.body
        );
        let refused = if bare.status.as_u16() == 409 {
            &bare
        } else {
            &with_plus
        };
        assert_eq!(
            refused.body["message"], "this phone number is already provisioned",
            "round {round}: {}",
            refused.body
        );
    }
    assert_eq!(app.count("phone_numbers", None).await, ROUNDS as i64);
}

on_both_backends!(
    provisioning_and_settings,
    every_filter_limit_and_sort,
    totals_follow_every_change,
    in_use_follows_what_routes_to_the_number,
    two_spellings_provisioned_at_once_are_one_number
);
