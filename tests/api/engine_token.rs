//! The telephony engine's service token (`SWITCHBOARD_INGEST_TOKEN`): it pushes records
//! for any tenant, and opens nothing else.

use serde_json::json;
use switchboard::Config;
use switchboard::config::Secret;

use crate::fixture::World;
use crate::support::TestApp;

const TOKEN: &str = "engine-token-for-the-tests-0123456789";

fn engine_token(config: &mut Config) {
    config.ingest_token = Some(Secret(TOKEN.into()));
}

async fn pushes_and_nothing_else(app: TestApp) {
    let world = World::seed(&app).await;
    for tenant in [world.tenant_a, world.tenant_b] {
        let message = json!({"tenantId": tenant, "mailboxUser": "101", "msgId": "1763800000-1", "dateUnix": 1_763_800_000});
        let pushed = app
            .post("/v2/ingest/voicemail-messages", TOKEN, message)
            .await
            .expect(200);
        assert_eq!(pushed["recorded"], true);
    }
    let call = json!({"tenantId": world.tenant_a, "uniqueId": "1.1", "event": "started", "direction": "inbound", "time": "2026-11-22T09:00:00Z"});
    app.post("/v2/ingest/calls", TOKEN, call).await.expect(200);
    let sms = json!({"tenantId": world.tenant_a, "messageId": "SM1", "direction": "inbound", "from": "1", "to": "2"});
    app.post("/v2/ingest/sms", TOKEN, sms).await.expect(200);
    // Nothing but ingest: not a login for the admin API.
    app.get("/v2/admin/voicemail-messages/", TOKEN)
        .await
        .error(401, "Unauthorized");
    app.get("/v2/admin/tenants/", TOKEN)
        .await
        .error(401, "Unauthorized");
    // A near miss is no token.
    let near = format!("{TOKEN}x");
    app.post("/v2/ingest/faxes", &near, json!({}))
        .await
        .error(401, "Unauthorized");
    // The records it pushed are the tenants' own.
    let admin = app.login(world.admin_a).await;
    let page = app
        .get("/v2/admin/voicemail-messages/", &admin)
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 1);
}

crate::on_both_backends!(with engine_token; pushes_and_nothing_else);

/// The engine's token opens every tenant's ingest: one shorter than 32 bytes keeps the
/// service from starting, naming the setting.
async fn a_short_engine_token_keeps_the_service_from_starting() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        data_dir: dir.path().join("data"),
        database_url: Some(format!("sqlite://{}", dir.path().join("t.db").display())),
        ingest_token: Some(Secret("31-bytes-is-one-byte-too-short!".into())),
        ..Config::default()
    };
    let error = switchboard::build_state(&config)
        .await
        .expect_err("refused")
        .to_string();
    assert!(error.contains("SWITCHBOARD_INGEST_TOKEN"), "{error}");
}

switchboard_testing::tests!(a_short_engine_token_keeps_the_service_from_starting);
