//! Scope by identity (issue 11, item 3): calls, their recordings and voicemail belong to
//! extensions by the ids the engine's report resolved to when it was recorded, never by
//! comparing number strings at read time. The three attacks of the issue — an extension
//! numbered like an outside caller, an extension numbered like a mailbox, a spoofed
//! caller id — fail, for branch admins and users on both sides, and renumbering an
//! extension moves nothing.

use serde_json::{Value, json};
use switchboard::cli::{NewUser, create_user};

use crate::fixture::World;
use crate::support::{PASSWORD, TestApp, fixture};

const CALLS: &str = "/v2/ingest/calls";
const VOICEMAIL: &str = "/v2/ingest/voicemail-messages";

/// A branch admin of tenant A's annex (branch `branch_a2`, extension 201).
const ANNEX_ADMIN: &str = "annex-admin@example.com";

async fn annex_admin(app: &TestApp, world: &World) -> String {
    create_user(
        &app.state,
        NewUser {
            email: ANNEX_ADMIN.into(),
            password: PASSWORD.into(),
            role: "branch-admin".into(),
            tenant: Some(world.tenant_a),
            partner: None,
            branch: Some(world.branch_a2),
        },
    )
    .await
    .expect("an annex admin");
    app.login(ANNEX_ADMIN).await
}

/// An answered call of tenant A as the engine reports it, with `extra` fields merged in.
fn call(
    world: &World,
    unique_id: &str,
    direction: &str,
    from: &str,
    to: &str,
    extra: Value,
) -> Value {
    let mut fields = json!({
        "tenantId": world.tenant_a,
        "uniqueId": unique_id,
        "event": "ended",
        "direction": direction,
        "callerIdNum": from,
        "dialedNum": to,
        "time": "2026-11-02T15:00:00Z",
        "answerTime": "2026-11-02T15:00:05Z",
        "endTime": "2026-11-02T15:02:05Z",
        "disposition": "ANSWERED",
    });
    for (key, value) in extra.as_object().unwrap() {
        fields[key] = value.clone();
    }
    fields
}

/// Pushes `fields` with a recording.
async fn push_recorded(app: &TestApp, platform: &str, fields: Value) {
    let answer = app
        .push(
            platform,
            CALLS,
            ("call", fields),
            Some(("recording", fixture("tone.mp3"))),
        )
        .await
        .expect(200);
    assert_eq!(answer["recordingAttached"], true, "{answer}");
}

fn message(world: &World, mailbox: &str, msg_id: &str, extra: Value) -> Value {
    let mut fields = json!({
        "tenantId": world.tenant_a,
        "mailboxUser": mailbox,
        "msgId": msg_id,
        "callerId": "\"Outside\" <5551234>",
        "dateUnix": 1_700_000_000,
        // The answer has no msgId: the transcript names the message in these tests.
        "transcript": msg_id,
    });
    for (key, value) in extra.as_object().unwrap() {
        fields[key] = value.clone();
    }
    fields
}

async fn push_message(app: &TestApp, platform: &str, fields: Value) {
    app.push(
        platform,
        VOICEMAIL,
        ("message", fields),
        Some(("audio", fixture("tone.wav"))),
    )
    .await
    .expect(200);
}

/// The ids (`key` of each record) of the whole list at `path` for `token`, sorted.
async fn visible(app: &TestApp, token: &str, path: &str, key: &str) -> Vec<String> {
    let page = app
        .get(&format!("{path}?paginated=0"), token)
        .await
        .expect(200);
    let mut ids: Vec<String> = page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[key].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// The recorded calls `token` sees, checked to be what the call list shows too (every
/// call here is recorded).
async fn recordings(app: &TestApp, token: &str) -> Vec<String> {
    let recorded = visible(app, token, "/v2/admin/call-recordings/", "uniqueId").await;
    let calls = visible(app, token, "/v2/admin/calls/", "uniqueId").await;
    assert_eq!(
        recorded, calls,
        "the call list is scoped as the recordings are"
    );
    recorded
}

async fn messages(app: &TestApp, token: &str) -> Vec<String> {
    visible(app, token, "/v2/admin/voicemail-messages/", "transcript").await
}

/// Attack 1: a branch admin numbers an extension like the outside caller of a call that
/// reached another branch's extension, and must still not see (or download) it.
async fn an_extension_numbered_like_a_caller_reaches_nothing(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let annex = annex_admin(&app, &world).await;
    let branch_admin = app.login(world.branch_admin_a).await;
    push_recorded(
        &app,
        &platform,
        call(
            &world,
            "to-annex.1",
            "inbound",
            "+15551230000",
            "201",
            json!({"channel": "PJSIP/trunk-0000000a", "dstChannel": "PJSIP/201-0000000b"}),
        ),
    )
    .await;
    assert_eq!(recordings(&app, &annex).await, ["to-annex.1"]);
    assert!(recordings(&app, &branch_admin).await.is_empty());

    // The main branch's admin numbers an extension like the caller.
    app.create(
        "/v2/admin/extensions/",
        &branch_admin,
        json!({"number": "+15551230000", "name": "Looks like the caller"}),
    )
    .await;
    assert!(
        recordings(&app, &branch_admin).await.is_empty(),
        "an extension numbered like a caller does not make its calls visible"
    );
    app.get("/v2/admin/call-recordings/to-annex.1", &branch_admin)
        .await
        .error(404, "NotFound");
    app.get("/v2/admin/calls/to-annex.1", &branch_admin)
        .await
        .error(404, "NotFound");
    // The annex keeps its call; the tenant admin sees it too.
    assert_eq!(recordings(&app, &annex).await, ["to-annex.1"]);
    let admin = app.login(world.admin_a).await;
    assert_eq!(recordings(&app, &admin).await, ["to-annex.1"]);
    app.get("/v2/admin/call-recordings/to-annex.1", &annex)
        .await
        .expect(200);
}

/// Attack 1b: a branch admin numbers an extension like the tenant's own phone number
/// (the DID an inbound call reports as dialled) or like a Local channel's target, and
/// must not take the calls that reach the tenant through them.
async fn an_extension_numbered_like_a_did_reaches_nothing(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let branch_admin = app.login(world.branch_admin_a).await;
    app.create(
        "/v2/admin/phone-numbers/",
        &platform,
        json!({"tenantId": world.tenant_a, "number": "15557770001"}),
    )
    .await;
    app.create(
        "/v2/admin/extensions/",
        &branch_admin,
        json!({"number": "15557770001", "name": "Looks like the main line"}),
    )
    .await;
    // A call to the main line that went to a menu (no extension's channel), one the
    // annex took, and one through a Local channel named like the DID.
    for (id, extra) in [
        ("did.1", json!({"channel": "PJSIP/trunk-0000000a"})),
        (
            "did.2",
            json!({"channel": "PJSIP/trunk-0000000c", "dstChannel": "PJSIP/201-0000000d"}),
        ),
        (
            "did.3",
            json!({"channel": "PJSIP/trunk-0000000e", "dstChannel": "Local/15557770001@from-trunk-0000000f;1"}),
        ),
    ] {
        push_recorded(
            &app,
            &platform,
            call(&world, id, "inbound", "+15551230000", "15557770001", extra),
        )
        .await;
    }
    assert!(
        recordings(&app, &branch_admin).await.is_empty(),
        "{:?}",
        recordings(&app, &branch_admin).await
    );
    let annex = annex_admin(&app, &world).await;
    assert_eq!(recordings(&app, &annex).await, ["did.2"]);
}

/// Attack 2: a branch admin numbers an extension like a mailbox no extension had, and
/// must not see the messages left in it before.
async fn an_extension_numbered_like_a_mailbox_reaches_nothing(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let annex = annex_admin(&app, &world).await;
    let branch_admin = app.login(world.branch_admin_a).await;
    push_message(
        &app,
        &platform,
        message(&world, "300", "shared.1", json!({})),
    )
    .await;
    push_message(
        &app,
        &platform,
        message(&world, "201", "annex.1", json!({})),
    )
    .await;
    app.create(
        "/v2/admin/extensions/",
        &branch_admin,
        json!({"number": "300", "name": "Looks like the mailbox"}),
    )
    .await;
    assert!(
        messages(&app, &branch_admin).await.is_empty(),
        "an extension numbered like a mailbox does not make its old messages visible"
    );
    let counted = app
        .get("/v2/admin/voicemail-messages/?stats=1", &branch_admin)
        .await
        .expect(200);
    assert_eq!(
        (
            counted["totalRecords"].clone(),
            counted["stats"]["total"].clone()
        ),
        (json!(0), json!(0))
    );
    let admin = app.login(world.admin_a).await;
    assert_eq!(messages(&app, &admin).await, ["annex.1", "shared.1"]);
    assert_eq!(messages(&app, &annex).await, ["annex.1"]);
    let id = app
        .get("/v2/admin/voicemail-messages/?mailbox=300", &admin)
        .await
        .expect(200)["records"][0]["id"]
        .as_i64()
        .unwrap();
    app.get(&format!("/v2/admin/voicemail-messages/{id}"), &branch_admin)
        .await
        .error(404, "NotFound");
    // A message left after the extension exists is the extension's.
    push_message(
        &app,
        &platform,
        message(&world, "300", "shared.2", json!({})),
    )
    .await;
    assert_eq!(messages(&app, &branch_admin).await, ["shared.2"]);
}

/// Attack 3: a caller id that spoofs a user's extension number does not put the call in
/// that user's list; the extensions the call really reached see it.
async fn a_spoofed_caller_id_is_no_identity(app: TestApp) {
    let world = World::seed(&app).await;
    world.give_user_a_extension(&app).await; // user_a: extension 101 (main branch)
    let platform = app.login(world.platform).await;
    let annex = annex_admin(&app, &world).await;
    let user = app.login(world.user_a).await;
    let branch_admin = app.login(world.branch_admin_a).await;
    push_recorded(
        &app,
        &platform,
        call(&world, "spoof.1", "inbound", "101", "201", json!({})),
    )
    .await;
    // A call the user really placed (its channel) and one it really took.
    push_recorded(
        &app,
        &platform,
        call(
            &world,
            "placed.1",
            "internal",
            "101",
            "201",
            json!({"channel": "PJSIP/101-00000001", "dstChannel": "PJSIP/201-00000002"}),
        ),
    )
    .await;
    push_recorded(
        &app,
        &platform,
        call(
            &world,
            "took.1",
            "inbound",
            "5559999",
            "",
            json!({"calleeExtensionId": world.ext_a}),
        ),
    )
    .await;
    assert_eq!(recordings(&app, &user).await, ["placed.1", "took.1"]);
    app.get("/v2/admin/call-recordings/spoof.1", &user)
        .await
        .error(404, "NotFound");
    app.get("/v2/admin/calls/spoof.1", &user)
        .await
        .error(404, "NotFound");
    assert_eq!(
        recordings(&app, &branch_admin).await,
        ["placed.1", "took.1"]
    );
    assert_eq!(recordings(&app, &annex).await, ["placed.1", "spoof.1"]);
    // An outbound call's dialled number is the outside world's, even when an extension
    // has that number.
    push_recorded(
        &app,
        &platform,
        call(&world, "out.1", "outbound", "201", "101", json!({})),
    )
    .await;
    assert_eq!(recordings(&app, &user).await, ["placed.1", "took.1"]);
    assert_eq!(recordings(&app, &annex).await, ["placed.1", "spoof.1"]);
}

/// Renumbering an extension, and giving its old number to another, moves no call and no
/// message.
async fn renumbering_moves_nothing(app: TestApp) {
    let world = World::seed(&app).await;
    world.give_user_a_extension(&app).await;
    let platform = app.login(world.platform).await;
    let admin = app.login(world.admin_a).await;
    let annex = annex_admin(&app, &world).await;
    let user = app.login(world.user_a).await;
    push_recorded(
        &app,
        &platform,
        call(&world, "before.1", "inbound", "5551234", "101", json!({})),
    )
    .await;
    push_message(
        &app,
        &platform,
        message(&world, "101", "before.1", json!({})),
    )
    .await;
    assert_eq!(recordings(&app, &user).await, ["before.1"]);
    assert_eq!(messages(&app, &user).await, ["before.1"]);

    app.patch(
        &format!("/v2/admin/extensions/{}", world.ext_a),
        &admin,
        json!({"number": "105"}),
    )
    .await
    .expect(200);
    app.create(
        "/v2/admin/extensions/",
        &annex,
        json!({"number": "101", "name": "The old number, elsewhere"}),
    )
    .await;
    assert_eq!(recordings(&app, &user).await, ["before.1"]);
    assert_eq!(messages(&app, &user).await, ["before.1"]);
    let mine = app
        .get("/v2/admin/voicemail-messages/?stats=1", &user)
        .await
        .expect(200);
    assert_eq!(mine["stats"]["total"], 1);
    assert!(recordings(&app, &annex).await.is_empty());
    assert!(messages(&app, &annex).await.is_empty());
    // What reaches number 101 now is the new extension's.
    push_message(
        &app,
        &platform,
        message(&world, "101", "after.1", json!({})),
    )
    .await;
    assert_eq!(messages(&app, &annex).await, ["after.1"]);
    assert_eq!(messages(&app, &user).await, ["before.1"]);
    // The message answers the extension it belongs to.
    let page = app
        .get(
            "/v2/admin/voicemail-messages/?mailbox=101&sortBy=id",
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(page["records"][0]["extensionId"], world.ext_a);
    assert_ne!(page["records"][1]["extensionId"], world.ext_a);
}

/// Extension ids named by the engine must be the tenant's.
async fn named_extensions_must_be_the_tenants(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let errors = app
        .post(
            CALLS,
            &platform,
            call(
                &world,
                "x.1",
                "inbound",
                "5551234",
                "101",
                json!({"calleeExtensionId": world.ext_b, "callerExtensionId": 987_654}),
            ),
        )
        .await
        .error(400, "ValidationError");
    // Both are another tenant's (or none): each is named, in one answer (issue 29 item 6).
    assert_eq!(
        errors,
        vec![
            "'body/callerExtensionId' must name an extension of the tenant",
            "'body/calleeExtensionId' must name an extension of the tenant",
        ]
    );
    app.post(
        CALLS,
        &platform,
        call(
            &world,
            "x.1",
            "inbound",
            "5551234",
            "101",
            json!({"calleeExtensionId": world.ext_b}),
        ),
    )
    .await
    .error(400, "ValidationError");
    assert_eq!(app.count("calls", None).await, 0);
    app.post(
        VOICEMAIL,
        &platform,
        message(&world, "101", "x.1", json!({"extensionId": world.ext_b})),
    )
    .await
    .error(400, "ValidationError");
    assert_eq!(app.count("voicemail_messages", None).await, 0);
    // Named by id, a mailbox of any name is the extension's.
    app.post(
        VOICEMAIL,
        &platform,
        message(
            &world,
            "general",
            "x.2",
            json!({"extensionId": world.ext_a2}),
        ),
    )
    .await
    .expect(200);
    let annex = annex_admin(&app, &world).await;
    assert_eq!(messages(&app, &annex).await, ["x.2"]);
}

crate::on_both_backends!(
    an_extension_numbered_like_a_caller_reaches_nothing,
    an_extension_numbered_like_a_did_reaches_nothing,
    an_extension_numbered_like_a_mailbox_reaches_nothing,
    a_spoofed_caller_id_is_no_identity,
    renumbering_moves_nothing,
    named_extensions_must_be_the_tenants,
);
