//! Account security (issue 6): refresh rotation and reuse detection, logout, revocation on
//! password change and disabling, TOTP with a one-step skew window and recovery codes,
//! lockout and its end, the password rules, rate limits, and the audit trail.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use switchboard_api::auth::totp;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Backend, PASSWORD, TestApp, totp_code};

async fn post_anonymous(app: &TestApp, path: &str, body: Value) -> crate::support::Answer {
    app.call(Method::POST, path, None, Some(body)).await
}

async fn refresh_tokens_rotate_and_reuse_revokes_the_session(app: TestApp) {
    let w = World::seed(&app).await;
    let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    let (access, first) = (
        login["accessToken"].as_str().unwrap(),
        login["refreshToken"].as_str().unwrap(),
    );
    assert!(first.starts_with("sbr_"));
    assert_eq!(login["refreshExpiresIn"], 30 * 24 * 3600);
    let rotated = post_anonymous(
        &app,
        "/v2/authentication/refresh",
        json!({"refreshToken": first}),
    )
    .await
    .expect(200);
    let second = rotated["refreshToken"].as_str().unwrap();
    assert_ne!(second, first, "rotated on every use");
    app.get(
        "/v2/admin/extensions/",
        rotated["accessToken"].as_str().unwrap(),
    )
    .await
    .expect(200);
    // The spent token comes back: the whole session is revoked.
    let reuse = post_anonymous(
        &app,
        "/v2/authentication/refresh",
        json!({"refreshToken": first}),
    )
    .await;
    reuse.error(401, "Unauthorized");
    post_anonymous(
        &app,
        "/v2/authentication/refresh",
        json!({"refreshToken": second}),
    )
    .await
    .error(401, "Unauthorized");
    app.get("/v2/admin/extensions/", access)
        .await
        .error(401, "Unauthorized");
    app.get(
        "/v2/admin/extensions/",
        rotated["accessToken"].as_str().unwrap(),
    )
    .await
    .error(401, "Unauthorized");
    post_anonymous(
        &app,
        "/v2/authentication/refresh",
        json!({"refreshToken": "sbr_unknown"}),
    )
    .await
    .error(401, "Unauthorized");
    let problems = post_anonymous(&app, "/v2/authentication/refresh", json!({}))
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/refreshToken' is required"]);
    // Another login is a separate session, untouched.
    let other = app.login(w.admin_a).await;
    app.get("/v2/admin/extensions/", &other).await.expect(200);
}

async fn logout_ends_the_session(app: TestApp) {
    let w = World::seed(&app).await;
    let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    let other = app.login(w.admin_a).await;
    let body = json!({"refreshToken": login["refreshToken"]});
    assert_eq!(
        post_anonymous(&app, "/v2/authentication/logout", body.clone())
            .await
            .expect(200),
        json!({"loggedOut": true})
    );
    app.get(
        "/v2/admin/extensions/",
        login["accessToken"].as_str().unwrap(),
    )
    .await
    .error(401, "Unauthorized");
    post_anonymous(&app, "/v2/authentication/refresh", body.clone())
        .await
        .error(401, "Unauthorized");
    post_anonymous(&app, "/v2/authentication/logout", body)
        .await
        .expect(200);
    app.get("/v2/admin/extensions/", &other).await.expect(200);
}

async fn password_change_and_disabling_revoke_every_token(app: TestApp) {
    let w = World::seed(&app).await;
    let first = app.login(w.user_a).await;
    let second = app.login_answer(w.user_a, PASSWORD).await.expect(200);
    let change = |old: &str, new: &str| json!({"oldPassword": old, "newPassword": new});
    let problems = app
        .patch(
            "/v2/users/me/password",
            &first,
            change("wrong", "a fresh long secret"),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/oldPassword' does not match the current password"]
    );
    let problems = app
        .patch("/v2/users/me/password", &first, change(PASSWORD, "short"))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/newPassword' must be at least 12 characters"]
    );
    let problems = app
        .patch(
            "/v2/users/me/password",
            &first,
            change(PASSWORD, "qwerty123456"),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/newPassword' is too common or too easy to guess; choose another"]
    );
    let changed = app
        .patch(
            "/v2/users/me/password",
            &first,
            change(PASSWORD, "violet kettle sunrise 42"),
        )
        .await
        .expect(200);
    assert_eq!(
        changed,
        json!({"passwordChanged": true, "sessionsRevoked": 2})
    );
    app.get("/v2/admin/extensions/", &first)
        .await
        .error(401, "Unauthorized");
    app.get(
        "/v2/admin/extensions/",
        second["accessToken"].as_str().unwrap(),
    )
    .await
    .error(401, "Unauthorized");
    post_anonymous(
        &app,
        "/v2/authentication/refresh",
        json!({"refreshToken": second["refreshToken"]}),
    )
    .await
    .error(401, "Unauthorized");
    app.login_answer(w.user_a, PASSWORD)
        .await
        .error(401, "Unauthorized");
    let fresh = app
        .login_answer(w.user_a, "violet kettle sunrise 42")
        .await
        .expect(200);
    // An admin disables the account: its tokens stop at once and it cannot log in.
    let admin = app.login(w.admin_a).await;
    let id = fresh["user"]["id"].as_i64().unwrap();
    let disabled = app
        .patch(
            &format!("/v2/admin/users/{id}"),
            &admin,
            json!({"disabled": 1}),
        )
        .await
        .expect(200);
    assert_eq!(disabled["disabled"], 1);
    app.get(
        "/v2/admin/extensions/",
        fresh["accessToken"].as_str().unwrap(),
    )
    .await
    .error(401, "Unauthorized");
    app.login_answer(w.user_a, "violet kettle sunrise 42")
        .await
        .error(401, "Unauthorized");
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &admin,
        json!({"disabled": 0}),
    )
    .await
    .expect(200);
    app.login_answer(w.user_a, "violet kettle sunrise 42")
        .await
        .expect(200);
    // An admin setting a new password also ends the user's sessions.
    let before = app
        .login_answer(w.user_a, "violet kettle sunrise 42")
        .await
        .expect(200);
    app.patch(
        &format!("/v2/admin/users/{id}"),
        &admin,
        json!({"password": "admin chosen passphrase"}),
    )
    .await
    .expect(200);
    app.get(
        "/v2/admin/extensions/",
        before["accessToken"].as_str().unwrap(),
    )
    .await
    .error(401, "Unauthorized");
}

async fn totp_enrolment_login_and_recovery_codes(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let enrolment = app
        .post(
            "/v2/users/me/mfa/totp",
            &token,
            json!({"password": PASSWORD}),
        )
        .await
        .expect(200);
    let uri = enrolment["otpauthUri"].as_str().unwrap();
    assert!(
        uri.starts_with("otpauth://totp/Switchboard:admin-a@example.com?secret="),
        "{uri}"
    );
    let secret = totp::from_base32(enrolment["secret"].as_str().unwrap()).unwrap();
    assert_eq!(secret.len(), 20);
    // A code no step around now accepts (the two steps either side included, in case the
    // clock turns over during the request).
    let accepted: Vec<String> = (-2..=2).map(|offset| totp_code(&secret, offset)).collect();
    let wrong = (0..1_000_000)
        .map(|n| format!("{n:06}"))
        .find(|candidate| !accepted.contains(candidate))
        .unwrap();
    let problems = app
        .post(
            "/v2/users/me/mfa/totp/confirm",
            &token,
            json!({"code": wrong}),
        )
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'body/code' is wrong or expired"]);
    let enabled = app
        .post(
            "/v2/users/me/mfa/totp/confirm",
            &token,
            json!({"code": totp_code(&secret, 0)}),
        )
        .await
        .expect(200);
    let recovery: Vec<String> = enabled["recoveryCodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(recovery.len(), 10);
    app.post(
        "/v2/users/me/mfa/totp",
        &token,
        json!({"password": PASSWORD}),
    )
    .await
    .error(409, "Conflict");

    // Password alone is not enough any more, and the answer names what is missing.
    let answer = app.login_answer(w.admin_a, PASSWORD).await;
    assert_eq!(answer.body["name"], "MfaRequired");
    assert_eq!(answer.status.as_u16(), 401);
    let with = |otp: &str| json!({"email": w.admin_a, "password": PASSWORD, "otp": otp});
    let wrong = post_anonymous(&app, "/v2/authentication/", with("123456")).await;
    assert_eq!(
        (wrong.status.as_u16(), wrong.body["name"].as_str()),
        (401, Some("MfaRequired"))
    );
    // One step of clock skew is accepted (the next step's code), and a code works once.
    let next = totp_code(&secret, 1);
    let logged_in = post_anonymous(&app, "/v2/authentication/", with(&next))
        .await
        .expect(200);
    assert_eq!(logged_in["user"]["mfaEnabled"], 1);
    assert_eq!(
        logged_in["user"]["mfaAppSecret"], "",
        "the secret is never answered"
    );
    assert!(
        !logged_in
            .to_string()
            .contains(enrolment["secret"].as_str().unwrap())
    );
    let replay = post_anonymous(&app, "/v2/authentication/", with(&next)).await;
    assert_eq!(
        (replay.status.as_u16(), replay.body["name"].as_str()),
        (401, Some("MfaRequired"))
    );
    // Two steps away is outside the window.
    let far = post_anonymous(&app, "/v2/authentication/", with(&totp_code(&secret, 3))).await;
    assert_eq!(far.status.as_u16(), 401);
    // A recovery code logs in once.
    post_anonymous(
        &app,
        "/v2/authentication/",
        with(&recovery[0].to_uppercase()),
    )
    .await
    .expect(200);
    let again = post_anonymous(&app, "/v2/authentication/", with(&recovery[0])).await;
    assert_eq!(again.status.as_u16(), 401);
    // Turning it off needs the password.
    let token = app
        .call(
            Method::POST,
            "/v2/authentication/",
            None,
            Some(with(&recovery[1])),
        )
        .await
        .expect(200)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        "/v2/users/me/mfa/totp/disable",
        &token,
        json!({"password": "nope"}),
    )
    .await
    .error(400, "ValidationError");
    assert_eq!(
        app.post(
            "/v2/users/me/mfa/totp/disable",
            &token,
            json!({"password": PASSWORD})
        )
        .await
        .expect(200),
        json!({"mfaEnabled": 0})
    );
    app.login_answer(w.admin_a, PASSWORD).await.expect(200);
}

async fn lockout_after_five_failures_ends_by_itself(app: TestApp) {
    let w = World::seed(&app).await;
    for _ in 0..5 {
        app.login_answer(w.user_a, "not the password")
            .await
            .error(401, "Unauthorized");
    }
    // Locked: even the right password answers 429 with Retry-After.
    let locked = app.login_answer(w.user_a, PASSWORD).await;
    let retry: u64 = locked.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..=2).contains(&retry),
        "a short first lock (2 s in tests): {retry}"
    );
    locked.error(429, "TooManyRequests");
    // Other accounts are not affected.
    app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    tokio::time::sleep(Duration::from_millis(retry * 1000 + 1100)).await;
    app.login_answer(w.user_a, PASSWORD).await.expect(200);
    // Success reset the count: one more failure does not lock.
    app.login_answer(w.user_a, "not the password")
        .await
        .error(401, "Unauthorized");
    app.login_answer(w.user_a, PASSWORD).await.expect(200);
}

async fn the_audit_trail_records_who_did_what_from_where(app: TestApp) {
    let w = World::seed(&app).await;
    app.login_answer(w.admin_a, "wrong password!")
        .await
        .error(401, "Unauthorized");
    let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
    post_anonymous(
        &app,
        "/v2/authentication/refresh",
        json!({"refreshToken": login["refreshToken"]}),
    )
    .await
    .expect(200);
    app.login(w.admin_b).await;
    let token = login["accessToken"].as_str().unwrap();
    // The token was refreshed but the old access token still lives until it expires.
    let trail = app
        .get("/v2/admin/audit-log/?sortBy=id", token)
        .await
        .expect(200);
    let actions: Vec<&str> = trail["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["login.failure", "login.success", "token.refresh"],
        "tenant A's entries only"
    );
    let success = &trail["records"][1];
    assert_eq!(success["userEmail"], w.admin_a);
    assert_eq!(success["tenantId"], w.tenant_a);
    assert_eq!(success["tenantName"], "Tenant A");
    assert_eq!(success["clientAddress"], "127.0.0.1");
    assert!(success["at"].as_str().unwrap().ends_with('Z'));
    let only_sessions = app
        .get("/admin/audit-log?entities=session", token)
        .await
        .expect(200);
    assert_eq!(only_sessions["totalRecords"], 1);
    let problems = app
        .get("/v2/admin/audit-log?entities=nope", token)
        .await
        .error(400, "ValidationError");
    assert!(problems[0].starts_with("'query/entities' must list only:"));
    app.get(
        &format!(
            "/v2/admin/audit-log?tenantIds={},{}",
            w.tenant_a, w.tenant_b
        ),
        token,
    )
    .await
    .error(403, "Forbidden");
    let platform = app.login(w.platform).await;
    let all = app
        .get(
            &format!(
                "/v2/admin/audit-log?tenantIds={},{}&action=login.success",
                w.tenant_a, w.tenant_b
            ),
            &platform,
        )
        .await
        .expect(200);
    assert_eq!(all["totalRecords"], 2);
    let user = app.login(w.user_a).await;
    app.get("/v2/admin/audit-log", &user)
        .await
        .error(403, "Forbidden");
}

async fn nobody_takes_over_an_account_holding_more(app: TestApp) {
    let w = World::seed(&app).await;
    let admin = app.login(w.admin_a).await;
    let strong = app
        .create(
            "/v2/admin/users/",
            &admin,
            json!({"email": "strong@example.com", "password": "a long enough passphrase", "userRole": 5,
            "branchId": w.branch_a, "permissions": ["webhooks:write"]}),
        )
        .await;
    // The branch admin manages users of its branch, but not one holding more than it does.
    let branch_admin = app.login(w.branch_admin_a).await;
    let path = format!("/v2/admin/users/{}", strong["id"]);
    app.patch(
        &path,
        &branch_admin,
        json!({"password": "taken over now!!"}),
    )
    .await
    .error(403, "Forbidden");
    app.delete(&path, &branch_admin)
        .await
        .error(403, "Forbidden");
    // Nobody changes their own password or e-mail through the admin edit.
    let me = app.login_answer(w.admin_a, PASSWORD).await.expect(200)["user"]["id"].clone();
    app.patch(
        &format!("/v2/admin/users/{me}"),
        &admin,
        json!({"password": "no old password given"}),
    )
    .await
    .error(403, "Forbidden");
    app.patch(
        &format!("/v2/admin/users/{me}"),
        &admin,
        json!({"title": "Still fine"}),
    )
    .await
    .expect(200);
    // A wrong current password counts like a failed login: five lock the account.
    for _ in 0..5 {
        app.patch(
            "/v2/users/me/password",
            &admin,
            json!({"oldPassword": "guess", "newPassword": "a brand new passphrase"}),
        )
        .await
        .error(400, "ValidationError");
    }
    app.login_answer(w.admin_a, PASSWORD)
        .await
        .error(429, "TooManyRequests");
}

async fn hostile_input_is_refused_not_stored(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let problems = post_anonymous(
        &app,
        "/v2/authentication/",
        json!({"email": "a\u{0}b@x.io", "password": "x"}),
    )
    .await;
    assert_eq!(
        problems.error(400, "ValidationError"),
        ["'body/email' must not contain NUL characters"]
    );
    let problems = app
        .get("/v2/admin/extensions/?query=%00", &token)
        .await
        .error(400, "ValidationError");
    assert_eq!(problems, ["'query/query' must not contain NUL characters"]);
    let problems = app
        .post("/v2/webhooks/", &token, json!({"tenantId": w.tenant_a, "type": "SMS_SENT", "url": "https://user:pass@example.com/x"}))
        .await
        .error(400, "ValidationError");
    assert_eq!(
        problems,
        ["'body/url' must not carry credentials: use username and password"]
    );
    let ivr = app
        .post(
            "/v2/admin/ivrs/",
            &token,
            json!({"name": "Menu", "number": "800"}),
        )
        .await
        .expect(200);
    let problems = app
        .post("/v2/admin/announcements/", &token, json!({"name": "x", "mediaFileId": 1, "startDate": "2026-01-01", "endDate": "2026-02-01",
               "branchId": w.branch_a, "ivrs": [{"id": ivr["id"]}, {"id": ivr["id"]}]}))
        .await
        .error(400, "ValidationError");
    // With the reference to a media file the tenant does not have (issue 29: every
    // broken rule at once).
    assert_eq!(
        problems,
        [
            "'body/ivrs/1/id' is listed twice",
            "'body/mediaFileId' must name a media file of the tenant"
        ]
    );
}

on_both_backends!(
    with |config: &mut switchboard::Config| {
        config.password_hash_memory_kib = 12_288;
        config.password_hash_passes = 3;
    };
    passwords_are_hashed_at_the_configured_cost
);
on_both_backends!(
    totp_secrets_are_sealed_at_rest,
    foreign_tenant_ids_are_forbidden_whether_or_not_they_exist,
    nobody_takes_over_an_account_holding_more,
    hostile_input_is_refused_not_stored,
    refresh_tokens_rotate_and_reuse_revokes_the_session,
    logout_ends_the_session,
    password_change_and_disabling_revoke_every_token,
    totp_enrolment_login_and_recovery_codes,
    lockout_after_five_failures_ends_by_itself,
    the_audit_trail_records_who_did_what_from_where,
);

async fn rate_limits_answer_429_with_headers() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.rate_limit_per_minute = 5;
        config.rate_limit_per_minute_per_address = 8;
    })
    .await
    .unwrap();
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await; // the address's first request
    for remaining in (0..5).rev() {
        let answer = app.get("/v2/admin/extensions/", &token).await;
        assert_eq!(answer.headers["ratelimit-limit"], "5");
        assert_eq!(
            answer.headers["ratelimit-remaining"],
            remaining.to_string().as_str()
        );
        answer.expect(200);
    }
    let refused = app.get("/v2/admin/extensions/", &token).await;
    let reset: u64 = refused.headers["ratelimit-reset"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let retry: u64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..=60).contains(&retry) && reset == retry,
        "{reset} {retry}"
    );
    refused.error(429, "TooManyRequests");
    // The address has its own, larger limit: anonymous requests still pass until it too is spent.
    app.call(Method::GET, "/v2/admin/extensions/", None, None)
        .await
        .error(401, "Unauthorized");
    app.call(Method::GET, "/v2/admin/extensions/", None, None)
        .await
        .error(429, "TooManyRequests");
    // Probes are never limited.
    assert!(
        app.client
            .get(app.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status()
            .is_success()
    );
}

async fn two_processes_share_limits_through_redis() {
    let namespace = format!("test-{}:", uuid::Uuid::new_v4().simple());
    let redis_url = switchboard_testing::redis_url();
    let configure = |config: &mut switchboard::Config| {
        config.redis_url = Some(redis_url.clone());
        config.rate_limit_namespace = namespace.clone();
        config.rate_limit_per_minute_per_address = 6;
    };
    let first = TestApp::start_with(Backend::Sqlite, configure)
        .await
        .unwrap();
    let second = TestApp::start_with(Backend::Sqlite, configure)
        .await
        .unwrap();
    for app in [&first, &second, &first, &second, &first, &second] {
        app.call(Method::GET, "/v2/admin/extensions/", None, None)
            .await
            .error(401, "Unauthorized");
    }
    first
        .call(Method::GET, "/v2/admin/extensions/", None, None)
        .await
        .error(429, "TooManyRequests");
    second
        .call(Method::GET, "/v2/admin/extensions/", None, None)
        .await
        .error(429, "TooManyRequests");
}

/// Redis reached over TLS (`rediss://`, as docs/operations.md asks off-host): two `serve`
/// processes whose host trusts the server's certificate (`SSL_CERT_FILE`, standing for the
/// host's trust store) share one address's limit through it; a process that does not
/// trust it refuses to start and says why, rather than sending its keys in the clear or
/// to whoever answers.
async fn limits_are_shared_through_redis_over_tls() {
    let redis = switchboard_testing::TlsRedis::start();
    let logs = tempfile::tempdir().unwrap();
    let serve = |trusting: bool| {
        let data = tempfile::tempdir().unwrap();
        let mut command = crate::binary::command(data.path(), &["serve"]);
        command
            .env("SWITCHBOARD_REDIS_URL", &redis.url)
            .env("SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS", "6")
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        if trusting {
            command.env("SSL_CERT_FILE", &redis.authority);
        }
        (crate::binary::Served::start(command, logs.path()), data)
    };

    let (mut untrusting, _data) = serve(false);
    assert_eq!(
        untrusting.ended(Duration::from_secs(30)).await,
        Some(false),
        "a process that cannot verify Redis's certificate must not start:\n{}",
        untrusting.log_text()
    );
    let log = untrusting.log_text();
    assert!(
        log.contains("connecting to Redis for rate limits")
            && log.to_lowercase().contains("certificate"),
        "{log}"
    );

    let ((mut first, _first_data), (mut second, _second_data)) = (serve(true), serve(true));
    first.ready().await;
    second.ready().await;
    let client = reqwest::Client::new();
    let status = |served: &crate::binary::Served| {
        let request = client.get(format!("{}/v2/admin/extensions/", served.base));
        async move { request.send().await.unwrap().status().as_u16() }
    };
    for served in [&first, &second, &first, &second, &first, &second] {
        assert_eq!(status(served).await, 401);
    }
    // Six between them: each process alone would have allowed six.
    assert_eq!(status(&first).await, 429);
    assert_eq!(status(&second).await, 429);
}

/// The value of `column` of the user with `email`, read straight from the database.
async fn user_column(app: &TestApp, column: &str, email: &str) -> Option<String> {
    let url = app.config.database_url.clone().unwrap();
    let sql = format!("SELECT {column} FROM users WHERE email = $1");
    if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
        let value = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(email)
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        value
    } else {
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        let value = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(email)
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        value
    }
}

/// New passwords are hashed at the configured cost (`SWITCHBOARD_PASSWORD_HASH_*`: here
/// OWASP's pair at three passes, 12 MiB), and a process configured at another cost (a
/// sibling at argon2's least, as after the setting changed) checks that hash at its own
/// cost, logs the user in and stores the password hashed again at its cost; a wrong
/// password changes nothing, the sessions already open stay, and the first process's
/// next login takes the hash back to its own cost.
async fn passwords_are_hashed_at_the_configured_cost(app: TestApp) {
    let w = World::seed(&app).await;
    let stored = || async {
        user_column(&app, "password_hash", w.admin_a)
            .await
            .expect("a hash")
    };
    let made_at_12_mib = "$argon2id$v=19$m=12288,t=3,p=1$";
    let first = stored().await;
    assert!(first.starts_with(made_at_12_mib), "{first}");
    let token = app.login(w.admin_a).await;
    assert_eq!(stored().await, first, "a hash at the configured cost stays");
    let sibling = app
        .start_sibling_with(|config| {
            config.password_hash_memory_kib = 8;
            config.password_hash_passes = 1;
        })
        .await;
    let log_in_at_sibling = |password: &str| {
        let request = app
            .client
            .post(format!("{}/v2/authentication/", sibling.base))
            .json(&json!({"email": w.admin_a, "password": password}));
        async move { request.send().await.expect("the sibling answers").status() }
    };
    assert_eq!(log_in_at_sibling("not the password").await, 401);
    assert_eq!(stored().await, first, "a wrong password hashes nothing");
    assert_eq!(
        log_in_at_sibling(PASSWORD).await,
        200,
        "hashed at 12 MiB, checked by a hasher at 8 KiB"
    );
    let again = stored().await;
    assert!(again.starts_with("$argon2id$v=19$m=8,t=1,p=1$"), "{again}");
    app.get("/v2/admin/extensions/", &token).await.expect(200);
    assert_eq!(
        log_in_at_sibling(PASSWORD).await,
        200,
        "the new hash is the password's"
    );
    assert_eq!(
        stored().await,
        again,
        "once at the configured cost, it stays"
    );
    app.login(w.admin_a).await;
    let current = stored().await;
    assert!(current.starts_with(made_at_12_mib), "{current}");
    // A re-hash replaces only the hash it checked: one that changed meanwhile (a password
    // change racing the login; here the first hash, since replaced) stays.
    let db = &app.state.db;
    let id = switchboard_db::users::credentials_by_email(db, w.admin_a)
        .await
        .unwrap()
        .expect("the account")
        .id;
    assert!(
        !switchboard_db::security::rehash_password(db, id, &first, "$argon2id$stale")
            .await
            .unwrap()
    );
    assert_eq!(stored().await, current);
}

/// A TOTP secret is stored sealed: the database row holds neither the secret nor any
/// usual spelling of its bytes.
async fn totp_secrets_are_sealed_at_rest(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let enrolment = app
        .post(
            "/v2/users/me/mfa/totp",
            &token,
            json!({"password": PASSWORD}),
        )
        .await
        .expect(200);
    use base64::Engine as _;
    let secret = enrolment["secret"].as_str().unwrap().to_owned();
    let bytes = totp::from_base32(&secret).unwrap();
    let stored = user_column(&app, "mfa_pending_secret", w.admin_a)
        .await
        .expect("the pending secret is stored");
    assert!(stored.len() > secret.len(), "{stored}");
    let lower = stored.to_lowercase();
    for plain in [
        secret.to_lowercase(),
        secret.trim_end_matches('=').to_lowercase(),
        hex::encode(&bytes),
        base64::engine::general_purpose::STANDARD
            .encode(&bytes)
            .to_lowercase(),
    ] {
        assert!(!lower.contains(&plain), "{stored} holds {plain}");
    }
}

/// A `tenantId` outside the caller's reach answers 403 whether or not such a tenant
/// exists, with the same answer, so the answer tells nothing of other tenants.
async fn foreign_tenant_ids_are_forbidden_whether_or_not_they_exist(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let missing = 987_654;
    assert_eq!(
        app.get(
            &format!("/v2/admin/tenants/{missing}"),
            &app.login(w.platform).await
        )
        .await
        .status,
        404,
        "no tenant {missing}"
    );
    let mut answers = Vec::new();
    for tenant in [w.tenant_b, missing] {
        let listed = app
            .get(&format!("/v2/admin/extensions/?tenantId={tenant}"), &a)
            .await;
        let created = app
            .post(
                "/v2/admin/extensions/",
                &a,
                json!({"tenantId": tenant, "number": "555", "name": "x"}),
            )
            .await;
        let listed_body = listed.body.clone();
        let created_body = created.body.clone();
        listed.error(403, "Forbidden");
        created.error(403, "Forbidden");
        answers.push((listed_body, created_body));
    }
    assert_eq!(answers[0], answers[1], "the same answer either way");
}

switchboard_testing::tests!(rate_limits_answer_429_with_headers);
switchboard_testing::tests!(needs switchboard_testing::REDIS; two_processes_share_limits_through_redis);
switchboard_testing::tests!(needs switchboard_testing::REDIS_TLS; limits_are_shared_through_redis_over_tls);

/// Two `serve` processes on one PostgreSQL database, one refresh token presented to both at
/// once: exactly one answers a new pair, the other is refused as a reuse — and the reuse
/// revokes the session, so the winner's new tokens stop working too (the design's
/// refresh-token-family defence; `docs/decisions.md`, "Sessions"). Several rounds, each
/// with a fresh login, so the two requests really overlap in some of them.
async fn refresh_rotation_races_across_two_processes() {
    let app = TestApp::start(Backend::Postgres).await.unwrap();
    let sibling = app.start_sibling().await;
    let w = World::seed(&app).await;
    let refresh = |base: &str, token: &str| {
        app.client
            .post(format!("{base}/v2/authentication/refresh"))
            .json(&json!({"refreshToken": token}))
            .send()
    };
    for round in 0..12 {
        let login = app.login_answer(w.admin_a, PASSWORD).await.expect(200);
        let token = login["refreshToken"].as_str().unwrap();
        let (here, there) = tokio::join!(refresh(&app.base, token), refresh(&sibling.base, token));
        let answers = [
            TestApp::answer(here.unwrap()).await,
            TestApp::answer(there.unwrap()).await,
        ];
        let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
        let winners: Vec<&crate::support::Answer> =
            answers.iter().filter(|a| a.status == 200).collect();
        assert_eq!(
            winners.len(),
            1,
            "round {round}: one new pair, not {statuses:?}"
        );
        assert!(
            statuses.contains(&401),
            "round {round}: the other is refused: {statuses:?}"
        );
        let pair = &winners[0].body;
        let (access, next) = (
            pair["accessToken"].as_str().unwrap(),
            pair["refreshToken"].as_str().unwrap(),
        );
        assert_ne!(next, token);
        // The reuse revoked the session: the winner's pair is dead as well.
        post_anonymous(
            &app,
            "/v2/authentication/refresh",
            json!({"refreshToken": next}),
        )
        .await
        .error(401, "Unauthorized");
        app.get("/v2/admin/extensions/", access)
            .await
            .error(401, "Unauthorized");
    }
    // The account itself is not locked or harmed: a new login works.
    let fresh = app.login(w.admin_a).await;
    app.get("/v2/admin/extensions/", &fresh).await.expect(200);
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; refresh_rotation_races_across_two_processes);
