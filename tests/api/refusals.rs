//! A refusal lists every reason at once (interface §5, issue 29): a rule across a body's
//! items (a duplicate) and a field the record keeps for good are reported together with
//! the rules each value breaks on its own, not once those are fixed; and in every area a
//! value breaking its own rule is reported together with a reference to a record the
//! tenant does not have (a rule that needs the database), in one 400.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Answer, TestApp};

/// Two keys at index 2 and one at 9999: the bound and the duplicate in one answer.
async fn a_duplicate_is_reported_with_the_broken_values(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let keys = json!([
        {"index": 1, "type": "line"},
        {"index": 2, "type": "dnd"},
        {"index": 2, "type": "dnd"},
        {"index": 9999, "type": "dnd"},
    ]);
    let problems = app
        .post(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w", "keys": keys}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/keys/3/index' must be at most 1000",
            "'body/keys/2/index' is already used by keys/1",
        ]
    );
    // The same on a change.
    let layout = app
        .post(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w"}),
        )
        .await
        .expect(200);
    let problems = app
        .patch(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
            json!({"keys": keys}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/keys/3/index' must be at most 1000",
            "'body/keys/2/index' is already used by keys/1",
        ]
    );
}

/// A field the record keeps for good, sent with another value, is reported together with
/// the body's other broken rules.
async fn a_fixed_field_is_reported_with_the_broken_values(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w"}),
        )
        .await;
    let problems = app
        .patch(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
            json!({"tenantId": w.tenant_b, "name": "", "keys": [{"index": 1, "type": "line"}, {"index": 1, "type": "line"}]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' cannot be changed",
            "'body/name' must be at least 1 character",
            "'body/keys/1/index' is already used by keys/0",
        ]
    );
}

/// A key naming another tenant's extension (a rule needing the database) is reported
/// with a field sent that the record keeps for good, and with a duplicate.
async fn a_reference_is_reported_with_the_rest(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let layout = app
        .create(
            "/v2/admin/button-layouts/",
            &admin,
            json!({"name": "Desk", "deviceModel": "yealink-t54w"}),
        )
        .await;
    let problems = app
        .patch(
            &format!("/v2/admin/button-layouts/{}", layout["id"]),
            &admin,
            json!({"tenantId": w.tenant_b, "keys": [
                {"index": 1, "type": "line"},
                {"index": 2, "type": "blf", "value": w.ext_b.to_string()},
                {"index": 2, "type": "dnd"},
            ]}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' cannot be changed",
            "'body/keys/2/index' is already used by keys/1",
            "'body/keys/1/value' must name an extension of the tenant",
        ]
    );
}

/// Notes in `wrong` when `answer` is not a 400 listing exactly `expected` (in any order).
fn check_problems(wrong: &mut Vec<String>, what: &str, answer: Answer, expected: &[&str]) {
    if answer.status.as_u16() != 400 {
        wrong.push(format!("{what}: {} {}", answer.status, answer.body));
        return;
    }
    let problems = answer.error(400, "ValidationError");
    let mut got = problems.clone();
    got.sort();
    let mut want: Vec<String> = expected.iter().map(|p| (*p).to_owned()).collect();
    want.sort();
    if got != want {
        wrong.push(format!("{what}: {problems:?}, not {expected:?}"));
    }
}

/// The id of a record a create at `path` answers.
async fn create(app: &TestApp, token: &str, path: &str, body: Value) -> Value {
    app.create(path, token, body).await["id"].clone()
}

/// Every create and change of the catalogue reports a value's own rule together with a
/// reference outside the tenant (another tenant's extension, a media file that does not
/// exist), where it reported only the first before.
async fn a_broken_value_is_reported_with_a_foreign_reference(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let platform = app.login(w.platform).await;
    let foreign_ext = json!([{"id": w.ext_b, "destType": "EXT"}]);
    let name_empty = "'body/name' must be at least 1 character";
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "/v2/admin/queues/",
            json!({"name": "", "number": "611", "strategy": "ringAll",
                   "members": [{"id": w.ext_b, "order": 1}]}),
            vec![
                name_empty,
                "'body/members/0/id' must name an extension of the tenant",
            ],
        ),
        (
            "/v2/admin/ivrs/",
            json!({"name": "", "number": "711",
                   "timeoutDestination": {"id": w.ext_b, "destType": "EXT"}}),
            vec![
                name_empty,
                "'body/timeoutDestination/id' must name an extension of the tenant",
            ],
        ),
        (
            "/v2/admin/paging-groups/",
            json!({"tenantId": w.tenant_a, "number": "81", "name": "",
                   "routingDestinations": foreign_ext}),
            vec![
                name_empty,
                "'body/routingDestinations/0/id' must name an extension of the tenant",
            ],
        ),
        (
            "/v2/admin/business-hours/",
            json!({"name": "", "branchId": w.branch_a, "timezone": "Europe/Berlin",
                   "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
                   "matchDestinations": foreign_ext,
                   "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}]}),
            vec![
                name_empty,
                "'body/matchDestinations/0/id' must name an extension of the tenant",
            ],
        ),
        (
            "/v2/admin/extensions/",
            json!({"number": "", "name": "Front", "branchId": w.branch_b}),
            vec![
                "'body/number' must be at least 1 character",
                "'body/branchId' must name a branch of the tenant",
            ],
        ),
        (
            "/v2/admin/music-on-hold/",
            json!({"name": "", "routingDestinations": [{"id": 999_999, "destType": "MEDIA_FILE"}]}),
            vec![
                name_empty,
                "'body/routingDestinations/0/id' must name a media file of the tenant",
            ],
        ),
        (
            "/v2/admin/devices/",
            json!({"name": "", "mac": "805ec0000099", "model": "yealink-t54w", "lines": [w.ext_b]}),
            vec![
                name_empty,
                "'body/lines/0' must name an extension of the tenant",
            ],
        ),
        (
            "/v2/admin/users/",
            json!({"email": "not an address", "password": "user-pass-4711-long", "userRole": 5,
                   "branchId": w.branch_a, "extId": w.ext_b}),
            vec![
                "'body/email' must be a valid e-mail address",
                "'body/extId' must name an extension of the user's tenant",
            ],
        ),
        (
            "/v2/admin/pharmacy/agents/",
            json!({"name": "", "number": "712", "greetingMediaFileId": 999_999}),
            vec![
                name_empty,
                "'body/greetingMediaFileId' must name a media file of the tenant",
            ],
        ),
        (
            "/v2/admin/call-campaigns/",
            json!({"name": "", "callerIdNumber": "+12025550100", "destination": foreign_ext,
                   "callingWindow": {"days": [1], "from": "09:00", "to": "17:00", "timeZone": "UTC"}}),
            vec![
                name_empty,
                "'body/destination/0/id' must name an extension of the tenant",
                "'body/callerIdNumber' must be a phone number of the tenant",
            ],
        ),
    ];
    let mut wrong = Vec::new();
    for (path, body, expected) in cases {
        let answer = app.post(path, &admin, body).await;
        check_problems(&mut wrong, path, answer, &expected);
    }

    // The same on a change, for every area whose change names other records.
    let queue = create(
        &app,
        &admin,
        "/v2/admin/queues/",
        json!({"name": "Q", "number": "612", "strategy": "ringAll"}),
    )
    .await;
    let ivr = create(
        &app,
        &admin,
        "/v2/admin/ivrs/",
        json!({"name": "I", "number": "713"}),
    )
    .await;
    let group = create(
        &app,
        &admin,
        "/v2/admin/paging-groups/",
        json!({"tenantId": w.tenant_a, "number": "82", "name": "G",
               "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
    )
    .await;
    let hours = create(
        &app,
        &admin,
        "/v2/admin/business-hours/",
        json!({"name": "H", "branchId": w.branch_a, "timezone": "Europe/Berlin",
               "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
               "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
               "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}]}),
    )
    .await;
    let device = create(
        &app,
        &admin,
        "/v2/admin/devices/",
        json!({"name": "D", "mac": "805ec0000098", "model": "yealink-t54w"}),
    )
    .await;
    let agent = create(
        &app,
        &admin,
        "/v2/admin/pharmacy/agents/",
        json!({"name": "P", "number": "714"}),
    )
    .await;
    let number = create(
        &app,
        &platform,
        "/v2/admin/phone-numbers/",
        json!({"tenantId": w.tenant_a, "number": "12025550177"}),
    )
    .await;
    let extension = w.ext_a;
    let changes: Vec<(String, Value, Vec<&str>)> = vec![
        (
            format!("/v2/admin/queues/{queue}"),
            json!({"name": "", "timeoutDestination": {"id": w.ext_b, "destType": "EXT"}}),
            vec![
                name_empty,
                "'body/timeoutDestination/id' must name an extension of the tenant",
            ],
        ),
        (
            format!("/v2/admin/ivrs/{ivr}"),
            json!({"name": "", "greetingMediaFileId": 999_999}),
            vec![
                name_empty,
                "'body/greetingMediaFileId' must name a media file of the tenant",
            ],
        ),
        (
            format!("/v2/admin/paging-groups/{group}"),
            json!({"name": "", "routingDestinations": foreign_ext}),
            vec![
                name_empty,
                "'body/routingDestinations/0/id' must name an extension of the tenant",
            ],
        ),
        (
            format!("/v2/admin/business-hours/{hours}"),
            json!({"name": "", "notMatchDestinations": foreign_ext}),
            vec![
                name_empty,
                "'body/notMatchDestinations/0/id' must name an extension of the tenant",
            ],
        ),
        (
            format!("/v2/admin/extensions/{extension}"),
            json!({"name": "", "branchId": w.branch_b}),
            vec![
                name_empty,
                "'body/branchId' must name a branch of the tenant",
            ],
        ),
        (
            format!("/v2/admin/devices/{device}"),
            json!({"name": "", "lines": [w.ext_b]}),
            vec![
                name_empty,
                "'body/lines/0' must name an extension of the tenant",
            ],
        ),
        (
            format!("/v2/admin/pharmacy/agents/{agent}"),
            json!({"name": "", "promptMediaFileId": 999_999}),
            vec![
                name_empty,
                "'body/promptMediaFileId' must name a media file of the tenant",
            ],
        ),
        (
            format!("/v2/admin/phone-numbers/{number}"),
            json!({"recording": "maybe", "smsExtId": w.ext_b}),
            vec![
                "'body/recording' must be one of: yes, no",
                "'body/smsExtId' must name an extension of the tenant",
            ],
        ),
    ];
    for (path, body, expected) in changes {
        let answer = app.patch(&path, &admin, body).await;
        check_problems(&mut wrong, &path, answer, &expected);
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A broken field is left out while the record's rules run on the rest: nothing they
/// would say of a stand-in is answered, and a tenant the body names outside the caller's
/// scope is still not confirmed or denied beside a broken value (the 400 stands).
async fn a_broken_field_is_not_checked_against_the_database(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    // A hold music id of the wrong type: its own problem only, no "must name" beside it.
    let problems = app
        .post(
            "/v2/admin/queues/",
            &admin,
            json!({"name": "Q", "number": "613", "strategy": "ringAll", "holdMediaFileId": "x",
                   "timeoutDestination": {"id": w.ext_b, "destType": "EXT"}}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("'body/holdMediaFileId' ")),
        "{problems:?}"
    );
    assert!(
        problems.contains(
            &"'body/timeoutDestination/id' must name an extension of the tenant".to_owned()
        ),
        "{problems:?}"
    );
    // Another tenant named beside a broken value: the value's problem, as before.
    let problems = app
        .post(
            "/v2/admin/ivrs/",
            &admin,
            json!({"tenantId": w.tenant_b, "name": "", "number": "715"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/name' must be at least 1 character"]);
    // A body readable but for where it lands: every missing place at once, the tenant's
    // refusal joining the reader's, once each.
    let platform = app.login(w.platform).await;
    let mut problems = app
        .post(
            "/v2/admin/business-hours/",
            &platform,
            json!({"name": "H", "timezone": "Europe/Berlin",
                   "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
                   "matchDestinations": [{"id": w.ext_a, "destType": "EXT"}],
                   "notMatchDestinations": [{"id": w.ext_a, "destType": "VOICEMAIL"}]}),
        )
        .await
        .error(400, "ValidationError");
    problems.sort();
    assert_eq!(
        problems,
        ["'body/branchId' is required", "'body/tenantId' is required"]
    );
    // A tenant: its name and a partner that does not exist, together.
    let problems = app
        .post(
            "/v2/admin/tenants/",
            &platform,
            json!({"name": "", "partnerId": 999_999}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/name' must be at least 1 character",
            "'body/partnerId' must name an existing partner"
        ]
    );
    // Nothing was written.
    let page = app.get("/v2/admin/queues/", &admin).await.expect(200);
    assert_eq!(page["totalRecords"], 0);
}

/// A record that must have a branch, sent without one by a tenant admin (who names the
/// branch): `branchId` is required, said once — the reader's word, which the branch rule
/// does not repeat — for business hours and announcements alike.
async fn a_missing_branch_is_reported_once(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let media = app.upload_fixture(&admin, "tone.wav").await;
    for (collection, body) in [
        (
            "/v2/admin/business-hours/",
            json!({"name": "H", "timezone": "UTC", "hours": {}}),
        ),
        (
            "/v2/admin/announcements/",
            json!({"name": "A", "mediaFileId": media, "startDate": "2026-12-01",
                   "endDate": "2026-12-02"}),
        ),
    ] {
        let problems = app
            .post(collection, &admin, body)
            .await
            .error(400, "ValidationError");
        assert_eq!(problems, ["'body/branchId' is required"], "{collection}");
    }
}

/// The engine's reports list every reason at once (issue 29 item 6): a field breaking
/// its own rule with the records the report names that the tenant does not have (an
/// extension of another tenant, a queue that does not exist), or with a tenant that
/// does not exist, in one 400 — as JSON and as a multipart push; nothing is recorded.
async fn an_ingest_report_lists_every_reason(app: TestApp) {
    let w = World::seed(&app).await;
    let platform = app.login(w.platform).await;
    let call = json!({
        "tenantId": w.tenant_a, "uniqueId": "r.1", "event": "rung", "direction": "inbound",
        "time": "2026-11-02T15:00:00Z", "callerExtensionId": w.ext_b, "queueId": 999_999,
        "transfers": [{"at": "2026-11-02T15:01:00Z", "kind": "blind", "from": "5551234",
                       "to": "201", "toExtensionId": w.ext_b}],
    });
    let expected = [
        "'body/event' must be one of: started, answered, ended",
        "'body/callerExtensionId' must name an extension of the tenant",
        "'body/transfers/0/toExtensionId' must name an extension of the tenant",
        "'body/queueId' must name a queue of the tenant",
    ];
    let problems = app
        .post("/v2/ingest/calls", &platform, call.clone())
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, expected);
    let problems = app
        .push(&platform, "/v2/ingest/calls", ("call", call), None)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, expected);

    let message = json!({"tenantId": w.tenant_a, "mailboxUser": "101", "msgId": "m-1",
                         "dateUnix": 1_763_800_000, "duration": -1, "extensionId": w.ext_b});
    let problems = app
        .post("/v2/ingest/voicemail-messages", &platform, message)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/duration' must be at least 0",
            "'body/extensionId' must name an extension of the tenant",
        ]
    );

    let unknown = "'body/tenantId' must name an existing tenant";
    let sms = json!({"tenantId": 999_999, "messageId": "SM1", "direction": "sideways",
                     "from": "1", "to": "2"});
    let problems = app
        .post("/v2/ingest/sms", &platform, sms)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/direction' must be one of: inbound, outbound",
            unknown,
        ]
    );
    let fax = json!({"tenantId": 999_999, "faxId": "F1", "direction": "sideways",
                     "from": "1", "to": "2"});
    let problems = app
        .post("/v2/ingest/faxes", &platform, fax)
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/direction' must be one of: inbound, outbound",
            unknown,
        ]
    );
    for table in ["calls", "voicemail_messages", "sms_messages", "faxes"] {
        assert_eq!(app.count(table, None).await, 0, "{table}");
    }
}

on_both_backends!(
    a_missing_branch_is_reported_once,
    a_broken_value_is_reported_with_a_foreign_reference,
    a_broken_field_is_not_checked_against_the_database,
    a_reference_is_reported_with_the_rest,
    a_duplicate_is_reported_with_the_broken_values,
    a_fixed_field_is_reported_with_the_broken_values,
    an_ingest_report_lists_every_reason,
);
