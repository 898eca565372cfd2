//! Text messages and faxes pushed by the engine: recorded once each, their SMS_* and
//! FAX_* webhook events queued in the same transaction.

use serde_json::json;

use crate::fixture::World;
use crate::support::TestApp;

/// Texts and faxes: recorded once each, their SMS_* and FAX_* events queued with them.
async fn texts_and_faxes(app: TestApp) {
    let world = World::seed(&app).await;
    let platform = app.login(world.platform).await;
    let sms = json!({"tenantId": world.tenant_a, "messageId": "SM1", "direction": "inbound", "from": "+15551234567", "to": "+15557654321", "body": "Is my prescription ready?"});
    let first = app
        .post("/v2/ingest/sms", &platform, sms.clone())
        .await
        .expect(200);
    let again = app.post("/v2/ingest/sms", &platform, sms).await.expect(200);
    assert_eq!(
        (first["recorded"].clone(), again["recorded"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(first["id"], again["id"]);
    let sent = json!({"tenantId": world.tenant_a, "messageId": "SM2", "direction": "outbound", "from": "+15557654321", "to": "+15551234567", "body": "Yes", "mediaUrls": ["https://example.com/a.jpg"]});
    app.post("/v2/ingest/sms", &platform, sent)
        .await
        .expect(200);
    let fax = json!({"tenantId": world.tenant_b, "faxId": "FX1", "direction": "outbound", "from": "+15550001111", "to": "+15550002222", "pages": 3, "status": "success"});
    app.post("/v2/ingest/faxes", &platform, fax.clone())
        .await
        .expect(200);
    app.post("/v2/ingest/faxes", &platform, fax)
        .await
        .expect(200);
    let inbound_fax = json!({"tenantId": world.tenant_b, "faxId": "FX2", "direction": "inbound", "from": "+15550002222", "to": "+15550001111", "time": "2026-11-22T10:00:00Z"});
    app.post("/v2/ingest/faxes", &platform, inbound_fax)
        .await
        .expect(200);
    for (kind, n) in [
        ("SMS_RECEIVED", 1),
        ("SMS_SENT", 1),
        ("FAX_SENT", 1),
        ("FAX_RECEIVED", 1),
    ] {
        assert_eq!(
            app.count("webhook_events", Some(("type", kind))).await,
            n,
            "{kind}"
        );
    }
    let errors = app
        .post("/v2/ingest/sms", &platform, json!({"tenantId": world.tenant_a, "direction": "sideways", "from": "", "body": 5, "mediaUrls": "x"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(errors.len(), 6, "{errors:?}");
    let admin = app.login(world.admin_a).await;
    app.post("/v2/ingest/faxes", &admin, json!({}))
        .await
        .error(403, "Forbidden");
}

crate::on_both_backends!(texts_and_faxes);
