//! Every answer can be sent back (issue 29): for every record the OpenAPI document gives a
//! `GET /{id}` and a `PATCH /{id}`, the body `GET` answers is accepted unchanged as the
//! `PATCH` body, and changes nothing. The walk comes from the served document, so a new
//! resource is walked as soon as it is routed — and fails here until [`create`] knows how
//! to make one.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// What the records are made with: the seeded world, tokens and a few shared records.
pub struct Ctx<'a> {
    pub app: &'a TestApp,
    pub w: World,
    /// The platform admin (partners, tenants).
    pub platform: String,
    /// Tenant A's admin (everything of tenant A).
    pub admin: String,
    /// A media file of tenant A.
    pub media: i64,
    /// An IVR of tenant A.
    pub ivr: i64,
    /// A phone number of tenant A (a campaign's caller id).
    pub number: String,
    /// How many records were made, to number each apart (a path walked twice, with
    /// and without `/v2`, makes two).
    made: std::cell::Cell<i64>,
}

impl Ctx<'_> {
    /// Seeds the world and the shared records.
    pub async fn new(app: &TestApp) -> Ctx<'_> {
        let w = World::seed(app).await;
        let platform = app.login(w.platform).await;
        let admin = app.login(w.admin_a).await;
        let media = app.upload_fixture(&admin, "tone.wav").await;
        let ivr = app
            .create(
                "/v2/admin/ivrs/",
                &admin,
                json!({"name": "Main menu", "number": "500"}),
            )
            .await["id"]
            .as_i64()
            .unwrap();
        let number = "12025550100".to_owned();
        app.create(
            "/v2/admin/phone-numbers/",
            &platform,
            json!({"tenantId": w.tenant_a, "number": number}),
        )
        .await;
        Ctx {
            app,
            w,
            platform,
            admin,
            media,
            ivr,
            number,
            made: std::cell::Cell::new(0),
        }
    }

    /// A number no record made before has had.
    fn next(&self) -> i64 {
        self.made.set(self.made.get() + 1);
        self.made.get()
    }

    /// POSTs `body` to `collection` as `token`, answering the new record's id.
    async fn made(&self, collection: &str, token: &str, body: Value) -> i64 {
        let made = self.app.post(collection, token, body).await.expect(200);
        made["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("{collection} answered no id: {made}"))
    }
}

/// The document's paths that name one record and answer both `GET` and `PATCH`
/// (`…/{id}`, `…/{id}/holidays/{holidayId}`), in the document's order.
pub fn record_paths(document: &Value) -> Vec<String> {
    document["paths"]
        .as_object()
        .expect("the document's paths")
        .iter()
        .filter(|(path, operations)| {
            path.ends_with('}')
                && operations.get("get").is_some()
                && operations.get("patch").is_some()
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// The path of one record of `template` (a document path such as
/// `/v2/admin/queues/{id}`) made for the walk, or `None` when this table has no way to
/// make one. A path the release notes give without `/v2` is made as its `/v2` twin is.
/// `token` is who may read and change it.
pub async fn create(ctx: &Ctx<'_>, template: &str) -> Option<(String, String)> {
    let (app, w, admin) = (ctx.app, &ctx.w, ctx.admin.clone());
    if !template.starts_with("/v2/") {
        let twin = format!("/v2{template}");
        let (path, token) = Box::pin(create(ctx, &twin)).await?;
        return Some((path.trim_start_matches("/v2").to_owned(), token));
    }
    let collection = template
        .rsplit_once('/')
        .map(|(c, _)| format!("{c}/"))
        .unwrap_or_default();
    let record = |id: i64| format!("{collection}{id}");
    let ext = w.ext_a;
    let (path, token) = match template {
        "/v2/admin/announcements/{id}" => {
            let body = json!({
                "name": "Holiday closure", "mediaFileId": ctx.media, "branchId": w.branch_a,
                "startDate": "2026-12-24", "endDate": "2026-12-27",
                "ivrs": [{"id": ctx.ivr, "order": 1}],
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/branches/{id}" => {
            let body = json!({"name": "Round trip"});
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/business-hours/{id}" => (
            record(ctx.made(&collection, &admin, business_hour(ctx)).await),
            admin,
        ),
        "/v2/admin/business-hours/{id}/holidays/{holidayId}" => {
            let owner = ctx
                .made("/v2/admin/business-hours/", &admin, business_hour(ctx))
                .await;
            let holidays = format!("/v2/admin/business-hours/{owner}/holidays/");
            let body =
                json!({"name": "Boxing Day", "date": "2026-12-26", "mediaFileId": ctx.media});
            let id = ctx.made(&holidays, &admin, body).await;
            (format!("{holidays}{id}"), admin)
        }
        "/v2/admin/button-layouts/{id}" => {
            let body = json!({
                "name": "Reception", "deviceModel": "yealink-t54w",
                "keys": [
                    {"index": 1, "type": "line"},
                    {"index": 2, "type": "blf", "value": ext.to_string(), "label": "Desk"},
                    {"index": 3, "type": "speedDial", "value": "5551234"},
                ],
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/call-campaigns/{id}" => (
            record(
                ctx.made(&collection, &admin, campaign(&ctx.number)(ext))
                    .await,
            ),
            admin,
        ),
        "/v2/admin/call-campaigns/{id}/records/{recordId}" => {
            let owner = ctx
                .made(
                    "/v2/admin/call-campaigns/",
                    &admin,
                    campaign(&ctx.number)(ext),
                )
                .await;
            let records = format!("/v2/admin/call-campaigns/{owner}/records/");
            let body = json!({"number": "+12025550143", "name": "Pat"});
            let id = ctx.made(&records, &admin, body).await;
            (format!("{records}{id}"), admin)
        }
        "/v2/admin/call-outcomes/{id}" => {
            let body = json!({"name": "Booked", "endsRecord": true});
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/conduits/{id}" => {
            // Conduits are the platform's to manage.
            let body = json!({
                "tenantId": w.tenant_a, "kind": "sip-trunk", "name": "Main trunk",
                "direction": "both", "address": "sip.carrier.example:5061",
                "username": "trunk", "secret": "s3cr3t-key",
            });
            let token = ctx.platform.clone();
            (record(ctx.made(&collection, &token, body).await), token)
        }
        "/v2/admin/custom-voices/{id}" => {
            // Made through the library: creating one asks the speech engine's catalogue,
            // which a machine without espeak-ng lacks; sending it back unchanged does not.
            let voice = switchboard_db::custom_voices::create(
                &app.state.db,
                switchboard_domain::ids::TenantId(w.tenant_a),
                switchboard_domain::records::custom_voice::CreateCustomVoice {
                    tenant_id: None,
                    name: "Slow".into(),
                    base_voice_id: "en-us".into(),
                    rate: Some(80),
                    pitch: None,
                    volume: None,
                    language: Some("en-us".into()),
                },
            )
            .await
            .unwrap();
            (record(voice.id.get()), admin)
        }
        "/v2/admin/devices/{id}" => {
            let body = json!({
                "name": "Front desk phone", "mac": "80:5e:c0:12:34:56", "model": "yealink-t54w",
                "branchId": w.branch_a, "lines": [ext], "description": "At the door",
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/extensions/{id}" => {
            let body = json!({"number": "150", "name": "Lobby", "branchId": w.branch_a});
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/ivrs/{id}" => {
            let body = json!({
                "name": "After hours", "number": "501", "greetingMediaFileId": ctx.media,
                "options": [
                    {"digit": "1", "destination": {"destType": "EXT", "id": ext}},
                    {"digit": "2", "destination": {"destType": "EXTERNAL", "id": 0, "number": "5551234"}},
                ],
                "timeoutDestination": {"destType": "VOICEMAIL", "id": ext},
                "invalidDestination": {"destType": "HANGUP", "id": 0},
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/media-files/{id}" => {
            (record(app.upload_fixture(&admin, "tone.mp3").await), admin)
        }
        "/v2/admin/music-on-hold/{id}" => {
            let body = json!({
                "name": format!("Lobby music {}", ctx.next()), "branchId": w.branch_a,
                "routingDestinations": [{"destType": "MEDIA_FILE", "id": ctx.media}],
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/opt-outs/{id}" => {
            let body = json!({"number": "+12025550177", "reason": "asked"});
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/paging-groups/{id}" => {
            let body = json!({
                "tenantId": w.tenant_a, "number": "80", "name": "Warehouse",
                "checkInUse": "on", "introMessageMediaFileId": ctx.media,
                "routingDestinations": [{"destType": "EXT", "id": ext}],
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/partners/{id}" => {
            let body = json!({"name": "Partner C"});
            let token = ctx.platform.clone();
            (record(ctx.made(&collection, &token, body).await), token)
        }
        "/v2/admin/pharmacy/agents/{id}" => {
            let body = json!({
                "name": "Refill line", "number": format!("7{:02}", ctx.next()),
                "fallbackDestination": {"destType": "EXT", "id": ext},
                "afterHoursDestination": {"destType": "EXTERNAL", "id": 0, "number": "5551234"},
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/phone-numbers/{id}" => {
            let body = json!({
                "tenantId": w.tenant_a, "number": "12025550111", "branchId": w.branch_a,
                "destination": {"destType": "IVR", "id": ctx.ivr},
            });
            // Provisioned by the platform, changed by the tenant's admin.
            (
                record(ctx.made(&collection, &ctx.platform, body).await),
                admin,
            )
        }
        "/v2/admin/queues/{id}" => {
            let body = json!({
                "name": "Support", "number": "600", "members": [{"id": ext, "penalty": 1}],
                "timeoutDestination": {"destType": "VOICEMAIL", "id": ext},
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/tenants/{id}" => {
            let body = json!({"name": "Tenant C", "partnerId": w.partner_a});
            let token = ctx.platform.clone();
            (record(ctx.made(&collection, &token, body).await), token)
        }
        "/v2/admin/users/{id}" => {
            let body = json!({
                "email": "round.trip@example.com", "password": "a long enough passphrase",
                "userRole": 5, "branchId": w.branch_a, "extId": ext, "title": "Agent",
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        "/v2/admin/voicemail-messages/{id}" => {
            let fields = json!({
                "tenantId": w.tenant_a, "mailboxContext": "default", "mailboxUser": "101",
                "msgId": "1700000000-00000001", "messageNumber": 0, "dir": "INBOX",
                "callerId": "\"Alice\" <5551234>", "dateUnix": 1_700_000_000,
                "duration": 7, "extNum": "101",
            });
            let pushed = app
                .push(
                    &ctx.platform,
                    "/v2/ingest/voicemail-messages",
                    ("message", fields),
                    Some(("audio", crate::support::fixture("tone.wav"))),
                )
                .await
                .expect(200);
            (record(pushed["id"].as_i64().unwrap()), admin)
        }
        "/v2/webhooks/{id}" => {
            let body = json!({
                "tenantId": w.tenant_a, "type": "CALL_ENDED",
                "url": "https://crm.example.com/hooks/calls",
                "username": "crm", "password": "s3cret-pass", "authtoken": "tok-123",
            });
            (record(ctx.made(&collection, &admin, body).await), admin)
        }
        _ => return None,
    };
    Some((path, token))
}

fn business_hour(ctx: &Ctx<'_>) -> Value {
    let ext = ctx.w.ext_a;
    json!({
        "name": "Office", "timezone": "America/New_York", "branchId": ctx.w.branch_a,
        "hours": {"1": [{"from": "09:00", "to": "17:00"}], "2": [{"from": "09:00", "to": "12:00"}]},
        "matchDestinations": [
            {"destType": "EXT", "id": ext},
            {"destType": "EXTERNAL", "id": 0, "number": "5551234"},
        ],
        "notMatchDestinations": [{"destType": "VOICEMAIL", "id": ext}],
        "holidays": [{"name": "Christmas Day", "date": "2026-12-25", "mediaFileId": ctx.media}],
    })
}

fn campaign(number: &str) -> impl Fn(i64) -> Value {
    move |ext| {
        json!({
            "name": "Reminders", "callerIdNumber": number,
            "destination": [{"destType": "EXT", "id": ext}],
            "callingWindow": {"days": [1, 2, 3, 4, 5], "from": "09:00", "to": "17:00", "timeZone": "UTC"},
        })
    }
}

/// `value` with the links signed afresh on every read (their query strings) left out,
/// so two reads of one record compare equal.
pub fn unsigned(value: &Value) -> Value {
    match value {
        Value::String(s) if s.starts_with("http") && s.contains('?') => {
            Value::String(s.split('?').next().unwrap_or_default().to_owned())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "urlExpiresAt")
                .map(|(k, v)| (k.clone(), unsigned(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(unsigned).collect()),
        other => other.clone(),
    }
}

/// The sealed credentials of a webhook (answers mask them: sent back, the mask must not
/// replace them); nothing for other records.
async fn stored_secrets(app: &TestApp, template: &str, read: &Value) -> Option<(String, String)> {
    use sea_query::{Expr, ExprTrait, Query};
    if template != "/v2/webhooks/{id}" {
        return None;
    }
    let select = Query::select()
        .columns(["password_sealed", "authtoken_sealed"])
        .from("webhooks")
        .and_where(Expr::col("id").eq(read["id"].as_i64().unwrap()))
        .take();
    let sealed: (Option<String>, Option<String>) =
        app.state.db.conn().fetch_one(&select).await.unwrap();
    Some((sealed.0.unwrap(), sealed.1.unwrap()))
}

async fn every_answer_is_accepted_back_unchanged(app: TestApp) {
    let ctx = Ctx::new(&app).await;
    let document = app
        .call(reqwest::Method::GET, "/v2/openapi.json", None, None)
        .await
        .expect(200);
    let paths = record_paths(&document);
    assert!(
        paths.len() >= 25,
        "the walk found too few records: {paths:?}"
    );
    let mut refused = Vec::new();
    for template in &paths {
        let (path, token) = create(&ctx, template)
            .await
            .unwrap_or_else(|| panic!("no way to make a record of {template}: add it to create()"));
        let read = app.get(&path, &token).await.expect(200);
        let secrets = stored_secrets(&app, template, &read).await;
        let sent = app.patch(&path, &token, read.clone()).await;
        if sent.status != 200 {
            refused.push(format!("{template}: {} {}", sent.status, sent.body));
            continue;
        }
        let again = app.get(&path, &token).await.expect(200);
        if stored_secrets(&app, template, &read).await != secrets {
            refused.push(format!(
                "{template}: its masked secrets were stored as sent"
            ));
        }
        if unsigned(&again) != unsigned(&read) || unsigned(&sent.body) != unsigned(&read) {
            refused.push(format!(
                "{template}: changed by its own answer\n  read:    {read}\n  patched: {}\n  again:   {again}",
                sent.body
            ));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

/// "0 means none" as an answer writes it: an extension without a branch and a user without
/// a branch or an extension answer `0` for them, and that answer is taken back as it is
/// (the walk above makes each with its references set).
async fn a_zero_for_none_is_accepted_back(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let extension = app
        .create(
            "/v2/admin/extensions/",
            &admin,
            json!({"number": "777", "name": "No branch"}),
        )
        .await;
    assert_eq!(extension["branchId"], 0, "{extension}");
    let path = format!("/v2/admin/extensions/{}", extension["id"]);
    let sent = app
        .patch(&path, &admin, extension.clone())
        .await
        .expect(200);
    assert_eq!(unsigned(&sent), unsigned(&extension));
    let user = app
        .create(
            "/v2/admin/users/",
            &admin,
            json!({"email": "no.branch@example.com", "password": "a long enough passphrase",
            "userRole": 5}),
        )
        .await;
    assert_eq!(
        (&user["branchId"], &user["extId"]),
        (&json!(0), &json!(0)),
        "{user}"
    );
    let path = format!("/v2/admin/users/{}", user["id"]);
    let read = app.get(&path, &admin).await.expect(200);
    let sent = app.patch(&path, &admin, read.clone()).await.expect(200);
    assert_eq!(unsigned(&sent), unsigned(&read));
}

/// A change of nothing (`{}`) answers the record as it was, for every record of the
/// document: never a 500 for an UPDATE with nothing to set.
async fn an_empty_change_changes_nothing(app: TestApp) {
    let ctx = Ctx::new(&app).await;
    let document = app.get("/v2/openapi.json", &ctx.admin).await.expect(200);
    let mut refused = Vec::new();
    for template in record_paths(&document) {
        let (path, token) = create(&ctx, &template).await.expect("a record");
        let read = app.get(&path, &token).await.expect(200);
        let sent = app.patch(&path, &token, json!({})).await;
        if sent.status != 200 || unsigned(&sent.body) != unsigned(&read) {
            refused.push(format!("{template}: {} {}", sent.status, sent.body));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

on_both_backends!(
    every_answer_is_accepted_back_unchanged,
    a_zero_for_none_is_accepted_back,
    an_empty_change_changes_nothing
);
