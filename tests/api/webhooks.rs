//! Webhooks as the spec: create, read, list every type a webhook can be registered for
//! (the interface's eleven first, then the later areas'); credentials sealed at rest and
//! masked in every answer; signing secrets shown on create, on request and rotated.

use serde_json::json;
use switchboard_domain::Scope;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::TestApp;

/// `list-types` answers the interface's eleven first, then every type later areas made
/// registrable; each listed type registers, and every type the registration accepts (the
/// document's enum of the create body) is listed (issue 29).
async fn list_types_answers_every_registrable_type(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.user_a).await;
    let types = app.get("/v2/webhooks/list-types", &token).await.expect(200);
    let names: Vec<&str> = types
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        names[..11],
        [
            "HubSpotCRM",
            "CALL_STARTED",
            "CALL_ANSWERED",
            "CALL_ENDED",
            "CALL_MISSED",
            "VOICEMAIL_RECEIVED",
            "RECORDING_READY",
            "SMS_RECEIVED",
            "SMS_SENT",
            "FAX_RECEIVED",
            "FAX_SENT",
        ]
    );
    for emitted in [
        "DEVICE_CONFIG_CHANGED",
        "CONDUIT_STATUS_CHANGED",
        "REFILL_REQUESTED",
        "CAMPAIGN_CALL_COMPLETED",
    ] {
        assert!(
            names.contains(&emitted),
            "{emitted} is not listed: {names:?}"
        );
    }
    assert!(
        types
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["description"].as_str().is_some_and(|d| !d.is_empty()))
    );

    // What the registration accepts, as the document declares it, is what is listed.
    let admin = app.login(w.admin_a).await;
    let document = app.get("/v2/openapi.json", &admin).await.expect(200);
    let accepted: Vec<&str> = document["components"]["schemas"]["CreateWebhookType"]["enum"]
        .as_array()
        .expect("the create body's type is an enum")
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(accepted, names);
    // And each listed type registers; a name outside the list does not.
    for name in &names {
        let created = app
            .post(
                "/v2/webhooks/",
                &admin,
                json!({"tenantId": w.tenant_a, "type": name, "url": "https://crm.example.com/hooks"}),
            )
            .await;
        assert_eq!(created.status.as_u16(), 200, "{name}: {}", created.body);
    }
    let refused = app
        .post(
            "/v2/webhooks/",
            &admin,
            json!({"tenantId": w.tenant_a, "type": "CALL_TRANSFERRED", "url": "https://crm.example.com/hooks"}),
        )
        .await;
    assert_eq!(refused.status.as_u16(), 400, "{}", refused.body);
}

async fn create_read_mask_and_seal(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let created = app
        .post(
            "/v2/webhooks/",
            &token,
            json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": "https://crm.example.com/hooks/calls",
                   "username": "crm", "password": "s3cret-pass", "authtoken": "tok-123"}),
        )
        .await
        .expect(200);
    let id = created["id"].as_i64().unwrap();
    let secret = created["signingSecret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert_eq!(created["password"], "********");
    assert_eq!(created["authtoken"], "********");
    let read = app
        .get(&format!("/v2/webhooks/{id}"), &token)
        .await
        .expect(200);
    assert_eq!(
        read,
        json!({"id": id, "tenantId": w.tenant_a, "type": "CALL_ENDED", "url": "https://crm.example.com/hooks/calls",
               "username": "crm", "password": "********", "authtoken": "********",
               "disabledAt": null, "disabledReason": null})
    );
    // At rest the credentials and the secret are sealed, not stored as sent.
    let row = switchboard_db::webhooks::get(&app.state.db, &Scope::Platform, id.into())
        .await
        .unwrap();
    for sealed in [
        row.password_sealed.clone().unwrap(),
        row.authtoken_sealed.clone().unwrap(),
        row.signing_secret_sealed.clone(),
    ] {
        assert!(
            sealed.starts_with("xc2:")
                && !sealed.contains("s3cret")
                && !sealed.contains("tok-123")
                && !sealed.contains(&secret[6..])
        );
    }
    let secrets = app
        .get(&format!("/v2/webhooks/{id}/signing-secret"), &token)
        .await
        .expect(200);
    assert_eq!(
        secrets,
        json!({"signingSecret": secret, "previousSigningSecret": null, "previousExpiresAt": null})
    );
    let rotated = app
        .post(
            &format!("/v2/webhooks/{id}/rotate-secret"),
            &token,
            json!({}),
        )
        .await
        .expect(200);
    assert_ne!(rotated["signingSecret"], secret.as_str());
    assert_eq!(
        rotated["previousSigningSecret"],
        secret.as_str(),
        "the old secret signs for 24 hours"
    );
    assert!(
        rotated["previousExpiresAt"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    // An empty password clears it.
    let patched = app
        .patch(
            &format!("/v2/webhooks/{id}"),
            &token,
            json!({"password": "", "url": "http://crm.example.com/v2"}),
        )
        .await
        .expect(200);
    assert_eq!(
        (patched["password"].as_str(), patched["authtoken"].as_str()),
        (Some(""), Some("********"))
    );
    let listed = app
        .get("/v2/webhooks/?type=CALL_ENDED", &token)
        .await
        .expect(200);
    assert_eq!(listed["totalRecords"], 1);
    assert_eq!(listed["records"][0]["password"], "");
    app.delete(&format!("/v2/webhooks/{id}"), &token)
        .await
        .expect(200);
    app.get(&format!("/v2/webhooks/{id}"), &token)
        .await
        .error(404, "NotFound");
}

async fn validation_and_scope(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = app
        .post(
            "/v2/webhooks/",
            &token,
            json!({"type": "PIZZA_ORDERED", "url": "ab"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        [
            "'body/tenantId' is required",
            "'body/type' must be one of: HubSpotCRM, CALL_STARTED, CALL_ANSWERED, CALL_ENDED, CALL_MISSED, VOICEMAIL_RECEIVED, RECORDING_READY, SMS_RECEIVED, SMS_SENT, FAX_RECEIVED, FAX_SENT, DEVICE_CONFIG_CHANGED, CONDUIT_STATUS_CHANGED, REFILL_REQUESTED, CAMPAIGN_CALL_COMPLETED",
            "'body/url' must be at least 3 characters",
        ]
    );
    let problems = app
        .post(
            "/v2/webhooks/",
            &token,
            json!({"tenantId": w.tenant_a, "type": "SMS_SENT", "url": "ftp://example.com/x"}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/url' must be an http:// or https:// URL"]);
    // A URL no parser reads could never be delivered to (an unclosed IPv6 bracket, a port
    // beyond 65535), and one whose host a backslash ends for one reader and not another
    // would be delivered elsewhere than it reads: refused on the create and on a change,
    // so no answer ever carries one.
    for url in [
        "http://[2001:db8::1/x",
        "https://example.com:99999/",
        "http://evil.example\\.good.example/",
    ] {
        let problems = app
            .post(
                "/v2/webhooks/",
                &token,
                json!({"tenantId": w.tenant_a, "type": "SMS_SENT", "url": url}),
            )
            .await
            .error(400, "ValidationError");
        assert_eq!(
            problems,
            ["'body/url' must be an http:// or https:// URL with a host"],
            "{url}"
        );
    }
    let mine = app
        .post(
            "/v2/webhooks/",
            &token,
            json!({"tenantId": w.tenant_a, "type": "SMS_SENT", "url": "http://[2001:db8::1]:8080/x"}),
        )
        .await
        .expect(200);
    let problems = app
        .patch(
            &format!("/v2/webhooks/{}", mine["id"]),
            &token,
            json!({"url": "http://["}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/url' must be an http:// or https:// URL with a host"]
    );
    app.post(
        "/v2/webhooks/",
        &token,
        json!({"tenantId": w.tenant_b, "type": "SMS_SENT", "url": "https://example.com"}),
    )
    .await
    .error(403, "Forbidden");
    let b = app.login(w.admin_b).await;
    let theirs = app
        .post("/v2/webhooks/", &b, json!({"tenantId": w.tenant_b, "type": "HubSpotCRM", "url": "https://api.hubapi.com/x", "authtoken": "pat"}))
        .await
        .expect(200);
    let path = format!("/v2/webhooks/{}", theirs["id"]);
    app.get(&path, &token).await.error(404, "NotFound");
    app.patch(&path, &token, json!({"url": "https://evil.example.com"}))
        .await
        .error(404, "NotFound");
    app.delete(&path, &token).await.error(404, "NotFound");
    app.get(&format!("{path}/signing-secret"), &token)
        .await
        .error(404, "NotFound");
    app.post(&format!("{path}/rotate-secret"), &token, json!({}))
        .await
        .error(404, "NotFound");
    app.get(&format!("/v2/webhooks/?tenantId={}", w.tenant_b), &token)
        .await
        .error(403, "Forbidden");
    // Its own (the IPv6 one above), not tenant B's.
    assert_eq!(
        app.get("/v2/webhooks/", &token).await.expect(200)["totalRecords"],
        1
    );
    let user = app.login(w.user_a).await;
    app.get("/v2/webhooks/", &user)
        .await
        .error(403, "Forbidden");
}

on_both_backends!(
    list_types_answers_every_registrable_type,
    create_read_mask_and_seal,
    validation_and_scope
);
