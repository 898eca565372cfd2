//! Sealed secrets are bound to their row (issue 11): a sealed value copied into another
//! row — by anyone who can write the database but not read the key — does not open
//! there, so it neither signs in as another user nor speaks for another webhook.

use sea_query::{Expr, ExprTrait, Query};
use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp, totp_code};

/// The value of `column` in the row of `table` where `key` is `value`.
async fn read(
    app: &TestApp,
    table: &'static str,
    column: &'static str,
    key: (&'static str, sea_query::Value),
) -> String {
    let select = Query::select()
        .column(column)
        .from(table)
        .and_where(Expr::col(key.0).eq(key.1))
        .take();
    app.state.db.conn().scalar(&select).await.unwrap()
}

/// Writes `values` into the row of `table` where `key` is `value`, as a hostile writer
/// of the database would.
async fn write(
    app: &TestApp,
    table: &'static str,
    values: Vec<(&'static str, sea_query::Value)>,
    key: (&'static str, sea_query::Value),
) {
    let update = Query::update()
        .table(table)
        .values(values.into_iter().map(|(c, v)| (c, Expr::val(v))))
        .and_where(Expr::col(key.0).eq(key.1))
        .take();
    assert_eq!(app.state.db.conn().execute(&update).await.unwrap(), 1);
}

/// One user's sealed TOTP secret copied into another user's row (with multi-factor
/// login turned on there) does not open: the codes of the first user's authenticator do
/// not sign the second in, while they still sign the first in.
async fn a_totp_secret_copied_to_another_user_does_not_open(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let secret = app.enable_totp(&token).await;
    let sealed = read(&app, "users", "mfa_secret", ("email", w.admin_a.into())).await;
    write(
        &app,
        "users",
        vec![("mfa_enabled", 1i64.into()), ("mfa_secret", sealed.into())],
        ("email", w.user_a.into()),
    )
    .await;
    let login = |email: &str, otp: String| {
        app.call(
            reqwest::Method::POST,
            "/v2/authentication/",
            None,
            Some(json!({"email": email, "password": PASSWORD, "otp": otp})),
        )
    };
    let copied = login(w.user_a, totp_code(&secret, 1)).await;
    assert_eq!(
        (copied.status.as_u16(), copied.body["name"].as_str()),
        (401, Some("MfaRequired")),
        "{}",
        copied.body
    );
    login(w.admin_a, totp_code(&secret, 1)).await.expect(200);
}

/// One webhook's sealed signing secret copied into another webhook's row does not open
/// there: the second webhook never answers (or signs with) the first one's secret.
async fn a_webhook_secret_copied_to_another_webhook_does_not_open(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let create = |url: &'static str| {
        app.post(
            "/v2/webhooks/",
            &token,
            json!({"tenantId": w.tenant_a, "type": "CALL_ENDED", "url": url,
                   "username": "crm", "password": "s3cret"}),
        )
    };
    let first = create("https://crm.example.com/one").await.expect(200);
    let second = create("https://crm.example.com/two").await.expect(200);
    let (one, two) = (
        first["id"].as_i64().unwrap(),
        second["id"].as_i64().unwrap(),
    );
    // Each opens where it was sealed.
    let own = app
        .get(&format!("/v2/webhooks/{two}/signing-secret"), &token)
        .await
        .expect(200);
    assert_eq!(own["signingSecret"], second["signingSecret"]);
    let sealed = read(
        &app,
        "webhooks",
        "signing_secret_sealed",
        ("id", one.into()),
    )
    .await;
    write(
        &app,
        "webhooks",
        vec![("signing_secret_sealed", sealed.into())],
        ("id", two.into()),
    )
    .await;
    let answer = app
        .get(&format!("/v2/webhooks/{two}/signing-secret"), &token)
        .await;
    assert_ne!(answer.status, 200, "{}", answer.body);
    assert!(
        !answer
            .body
            .to_string()
            .contains(first["signingSecret"].as_str().unwrap()),
        "{}",
        answer.body
    );
}

on_both_backends!(
    a_totp_secret_copied_to_another_user_does_not_open,
    a_webhook_secret_copied_to_another_webhook_does_not_open,
);
