//! The lockout as one rule (issue 11): every check of a secret — a login, a password that
//! re-authenticates a change — is counted before the slow hash, so concurrent attempts
//! get no more guesses than the threshold, and a lock refuses them all alike.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{PASSWORD, TestApp, totp_code};

/// 24 wrong logins at once: at most the threshold (5) are judged, the rest are refused as
/// locked, and then so is the right password.
async fn concurrent_wrong_logins_get_no_more_guesses(app: TestApp) {
    let w = World::seed(&app).await;
    let attempts = (0..24).map(|_| app.login_answer(w.user_a, "not the password"));
    let answers = futures::future::join_all(attempts).await;
    let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    let judged = statuses.iter().filter(|&&s| s == 401).count();
    let locked = statuses.iter().filter(|&&s| s == 429).count();
    assert_eq!((judged, locked), (5, 19), "{statuses:?}");
    app.login_answer(w.user_a, PASSWORD)
        .await
        .error(429, "TooManyRequests");
}

/// The password that confirms a change in `/v2/users/me/*` is checked under the same
/// lockout: a stolen access token is no password oracle. Wrong passwords lock the
/// account, the right one is then refused too (there and at login) until the lock ends.
async fn re_authentication_is_locked_out_like_a_login(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.user_a).await;
    const ENROL: &str = "/v2/users/me/mfa/totp";
    for _ in 0..5 {
        app.post(ENROL, &token, json!({"password": "not the password"}))
            .await
            .error(400, "ValidationError");
    }
    for _ in 0..3 {
        app.post(ENROL, &token, json!({"password": "not the password"}))
            .await
            .error(429, "TooManyRequests");
    }
    let locked = app.post(ENROL, &token, json!({"password": PASSWORD})).await;
    let retry: u64 = locked.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    locked.error(429, "TooManyRequests");
    app.login_answer(w.user_a, PASSWORD)
        .await
        .error(429, "TooManyRequests");
    tokio::time::sleep(Duration::from_millis(retry * 1000 + 1100)).await;
    let enrolment = app
        .post(ENROL, &token, json!({"password": PASSWORD}))
        .await
        .expect(200);
    assert!(enrolment["secret"].is_string(), "{enrolment}");
}

/// A burst of password checks beyond what the hashing threads can take within the wait
/// is refused at once with 503 and `Retry-After`, rather than queued behind the burst.
async fn a_burst_past_the_hashing_threads_is_refused_not_queued() {
    let Some(app) = TestApp::start_with(crate::support::Backend::Sqlite, |config| {
        crate::support::owasp_hashing(config);
        config.password_hash_wait_ms = 1;
    })
    .await
    else {
        return;
    };
    let w = World::seed(&app).await;
    let accounts = [w.admin_a, w.user_a, w.admin_b, w.platform];
    let attempts = (0..16).map(|i| app.login_answer(accounts[i % accounts.len()], PASSWORD));
    let answers = futures::future::join_all(attempts).await;
    let busy: Vec<_> = answers.iter().filter(|a| a.status == 503).collect();
    assert!(
        !busy.is_empty(),
        "16 hashes at once on one thread, 1 ms of patience"
    );
    for answer in busy {
        assert_eq!(answer.headers["retry-after"], "1");
        assert_eq!(answer.body["name"], "ServiceUnavailable", "{}", answer.body);
    }
    assert!(
        answers.iter().all(|a| a.status == 503 || a.status == 200),
        "the others log in"
    );
}

async fn a_burst_past_the_hashing_threads_is_refused() {
    a_burst_past_the_hashing_threads_is_refused_not_queued().await;
}

/// One client address is locked after 50 failures within the window, whichever accounts
/// they named — unknown ones counted too (each named once, so no account reaches its own
/// threshold of 5): the next attempt is refused even with a real account's right password.
async fn fifty_failures_lock_the_address_unknown_accounts_included(app: TestApp) {
    let w = World::seed(&app).await;
    for i in 0..50 {
        let answer = app
            .login_answer(&format!("nobody-{i}@example.com"), "not the password")
            .await;
        assert_eq!(answer.status, 401, "attempt {i}: {}", answer.body);
    }
    let locked = app.login_answer(w.admin_a, PASSWORD).await;
    assert_eq!(locked.status, 429, "{}", locked.body);
    assert!(locked.headers.contains_key("retry-after"));
}

/// A lock says it is a lock and until when, in the same words for an account that does
/// not exist.
async fn a_lock_says_until_when_and_not_whether_the_account_exists(app: TestApp) {
    let w = World::seed(&app).await;
    let mut messages = Vec::new();
    for email in [w.admin_a, "nobody-here@example.com"] {
        for _ in 0..5 {
            app.login_answer(email, "wrong password entirely")
                .await
                .error(401, "Unauthorized");
        }
        let started = chrono::Utc::now();
        let locked = app.login_answer(email, "wrong password entirely").await;
        let retry_after: i64 = locked.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let body = locked.body.clone();
        locked.error(429, "TooManyRequests");
        let message = body["message"].as_str().unwrap().to_owned();
        let (words, until) = message.rsplit_once(", until ").expect("says until when");
        let until = chrono::DateTime::parse_from_rfc3339(until).expect("an instant");
        let expected = started.timestamp() + retry_after;
        assert!(
            (until.timestamp() - expected).abs() <= 1,
            "{message}: until matches Retry-After ({retry_after} s)"
        );
        assert!(words.contains("locked"), "{message}");
        messages.push(words.to_owned());
    }
    assert_eq!(
        messages[0], messages[1],
        "the same words with and without an account"
    );
}

/// A guessing campaign that never succeeds leaves bounded rows: the attempts refused
/// while an account is locked add one `login.locked` entry per lock (counting them), not
/// one per attempt, and the background sweep deletes the failures older than the
/// lockout window (15 minutes: the rows of a campaign that ended before it are written
/// directly, with their time).
async fn a_flood_of_failures_leaves_bounded_rows(app: TestApp) {
    use sea_query::{Expr, ExprTrait, Query};
    let w = World::seed(&app).await;
    let long_ago = chrono::Utc::now().timestamp() - 20 * 60;
    let mut old = Query::insert()
        .into_table("login_failures")
        .columns(["account_key", "client_address", "at"])
        .take();
    for i in 0..500 {
        old.values_panic([
            format!("guess{i}@example.com").into(),
            "203.0.113.9".into(),
            (long_ago - i).into(),
        ]);
    }
    app.state.db.conn().execute(&old).await.unwrap();
    let attempts = (0..45).map(|_| app.login_answer(w.user_a, "not the password"));
    let answers = futures::future::join_all(attempts).await;
    let refused = answers.iter().filter(|a| a.status == 429).count();
    assert_eq!(refused, 40);
    assert_eq!(
        app.count("audit_log", Some(("action", "login.locked")))
            .await,
        1,
        "one entry for the lock"
    );
    // The entry says what was locked, for whom, from where and why.
    let (entity, email, address, details): (String, String, String, String) = app
        .state
        .db
        .conn()
        .fetch_one(
            &Query::select()
                .columns(["entity", "user_email", "client_address", "details"])
                .from("audit_log")
                .and_where(Expr::col("action").eq("login.locked"))
                .take(),
        )
        .await
        .unwrap();
    assert_eq!(
        (entity.as_str(), email.as_str(), address.as_str()),
        ("authentication", w.user_a, "127.0.0.1")
    );
    let details: serde_json::Value = serde_json::from_str(&details).unwrap();
    assert_eq!(details["refusals"], 40, "{details}");
    assert!(details["lockedUntil"].as_i64().is_some(), "{details}");
    assert_eq!(details["accountFailures"], 5, "{details}");
    assert!(details["retryAfterSeconds"].as_u64() > Some(0), "{details}");
    // The sweep leaves the five failures of the window, and only them.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while app.count("login_failures", None).await != 5 {
        assert!(
            std::time::Instant::now() < deadline,
            "old failures never swept: {}",
            app.count("login_failures", None).await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The base lock of [`attempts_while_locked_are_not_counted`]: long enough for its ten
/// attempts while locked on a loaded machine (the suite's 2 s once ran out before they did).
const LOCKED_ATTEMPTS_BASE: u64 = 6;

/// Attempts while locked are refused without being counted (`docs/decisions.md`, "Lockout
/// is one rule"): ten more wrong passwords during the first lock neither lengthen it nor
/// deepen the next one. Counted, they would make 15 failures, the latest at the end of
/// the lock, and the account would stay locked for the cap (15 minutes).
async fn attempts_while_locked_are_not_counted(app: TestApp) {
    let w = World::seed(&app).await;
    for _ in 0..5 {
        app.login_answer(w.user_a, "not the password")
            .await
            .error(401, "Unauthorized");
    }
    let retry_after = |answer: &crate::support::Answer| -> u64 {
        answer.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap()
    };
    let first = app.login_answer(w.user_a, "not the password").await;
    let lock = retry_after(&first);
    first.error(429, "TooManyRequests");
    assert!(
        (LOCKED_ATTEMPTS_BASE - 1..=LOCKED_ATTEMPTS_BASE).contains(&lock),
        "the first lock is the base: {lock}"
    );
    for _ in 0..10 {
        let again = app.login_answer(w.user_a, "not the password").await;
        assert!(
            retry_after(&again) <= lock,
            "a refused attempt does not extend the lock"
        );
        again.error(429, "TooManyRequests");
    }
    tokio::time::sleep(Duration::from_millis(lock * 1000 + 1100)).await;
    // The lock ended when the fifth failure said: the next wrong password is judged (the
    // sixth failure), and locks for the base doubled once, not for the cap.
    app.login_answer(w.user_a, "not the password")
        .await
        .error(401, "Unauthorized");
    let second = app.login_answer(w.user_a, PASSWORD).await;
    let next = retry_after(&second);
    second.error(429, "TooManyRequests");
    assert!(
        (LOCKED_ATTEMPTS_BASE + 1..=2 * LOCKED_ATTEMPTS_BASE).contains(&next),
        "six failures lock for twice the base: {next}"
    );
}

/// The first step of a two-step login (the right password, no code yet) judges no guess:
/// it is not counted, however often it is taken, so a user with a second factor is not
/// locked out by signing in. The code then completes the login.
async fn the_first_step_of_a_two_step_login_is_no_failure(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let secret = app.enable_totp(&token).await;
    // Twice the threshold of first steps: each asks for the code, none is locked.
    for _ in 0..10 {
        app.login_answer(w.admin_a, PASSWORD)
            .await
            .error(401, "MfaRequired");
    }
    let with_code = json!({"email": w.admin_a, "password": PASSWORD, "otp": totp_code(&secret, 1)});
    let answer = app
        .call(Method::POST, "/v2/authentication/", None, Some(with_code))
        .await;
    assert_eq!(answer.status.as_u16(), 200, "{}", answer.body);
}

on_both_backends!(
    the_first_step_of_a_two_step_login_is_no_failure,
    fifty_failures_lock_the_address_unknown_accounts_included,
    a_lock_says_until_when_and_not_whether_the_account_exists,
);

// Locks that outlast what the test does while locked on a loaded machine (the suite runs
// four tests per core): the burst's 24 answers, five of them hashed, come before the
// right password is tried, which 2 s (the suite's base) did not always cover.
// Hashing at its real cost too: the race these guard is between reading the lock before
// the slow hash and writing the failure after it, a window argon2's least cost all but
// closes.
on_both_backends!(
    with |config: &mut switchboard::Config| {
        crate::support::owasp_hashing(config);
        config.lockout_base_seconds = 60;
    };
    concurrent_wrong_logins_get_no_more_guesses,
);
on_both_backends!(with crate::support::owasp_hashing; a_flood_of_failures_leaves_bounded_rows);
// Ten attempts while locked, then a wait for the lock to end (read from Retry-After).
on_both_backends!(
    with |config: &mut switchboard::Config| config.lockout_base_seconds = LOCKED_ATTEMPTS_BASE;
    attempts_while_locked_are_not_counted,
);
// Five requests while locked, then a wait for the lock to end (read from Retry-After).
on_both_backends!(
    with |config: &mut switchboard::Config| config.lockout_base_seconds = 6;
    re_authentication_is_locked_out_like_a_login,
);

switchboard_testing::tests!(a_burst_past_the_hashing_threads_is_refused);
