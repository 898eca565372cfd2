//! `switchboard user reset-password`: a locked-out operator's way back in. The new
//! password (random and printed, or read from standard input and never printed) follows
//! the API's password rule, ends every session of the account and is audited.

use serde_json::Value;
use switchboard::cli;

use crate::binary;
use crate::fixture::World;
use crate::support::{PASSWORD, TestApp};

async fn a_reset_gives_a_new_password_and_ends_the_sessions(app: TestApp) {
    let w = World::seed(&app).await;
    let old_token = app.login(w.platform).await;
    let printed: Value = serde_json::from_str(
        &cli::reset_password(&app.state, w.platform, None)
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(printed["email"], w.platform);
    let password = printed["password"].as_str().unwrap();
    assert_eq!(password.len(), 24, "{printed}");
    // The old password and the old session are gone; the new password logs in.
    app.login_answer(w.platform, PASSWORD)
        .await
        .error(401, "Unauthorized");
    app.get("/v2/admin/tenants/", &old_token)
        .await
        .error(401, "Unauthorized");
    let token = app.login_answer(w.platform, password).await.expect(200)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let trail = app.audit_entries(&token, "action=password.reset").await;
    assert_eq!(trail.len(), 1, "{trail:?}");
    assert_eq!(trail[0]["details"]["sessionsRevoked"], 1, "{trail:?}");

    // A chosen password is not printed back.
    let chosen: Value = serde_json::from_str(
        &cli::reset_password(
            &app.state,
            w.admin_a,
            Some("a brand new pass phrase".into()),
        )
        .await
        .unwrap(),
    )
    .unwrap();
    assert!(chosen.get("password").is_none(), "{chosen}");
    app.login_answer(w.admin_a, "a brand new pass phrase")
        .await
        .expect(200);
}

/// A weak password is refused with the API's own message, and an unknown address is
/// said as such; neither changes a thing.
async fn a_reset_keeps_the_rules(app: TestApp) {
    let w = World::seed(&app).await;
    let weak = cli::reset_password(&app.state, w.platform, Some("password1234".into()))
        .await
        .unwrap_err()
        .to_string();
    assert!(weak.starts_with("refused (400"), "{weak}");
    assert!(weak.contains("password"), "{weak}");
    let unknown = cli::reset_password(&app.state, "nobody@example.com", None)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        unknown,
        "no account has the e-mail address nobody@example.com"
    );
    app.login_answer(w.platform, PASSWORD).await.expect(200);
}

crate::on_both_backends!(
    a_reset_gives_a_new_password_and_ends_the_sessions,
    a_reset_keeps_the_rules
);

/// The command as an operator runs it: the password read from standard input, the
/// account printed without it.
async fn the_command_reads_the_password_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let created = binary::run(
        binary::command(
            dir.path(),
            &[
                "user",
                "create",
                "--email",
                "root@example.com",
                "--password-stdin",
                "--role",
                "platform-admin",
            ],
        ),
        "the first long password\n",
    );
    assert!(created.status.success(), "{}", binary::stderr(&created));
    let reset = binary::run(
        binary::command(
            dir.path(),
            &[
                "user",
                "reset-password",
                "--email",
                "root@example.com",
                "--password-stdin",
            ],
        ),
        "the second long password\n",
    );
    assert!(reset.status.success(), "{}", binary::stderr(&reset));
    let printed: Value = serde_json::from_slice(&reset.stdout).unwrap();
    assert_eq!(printed["email"], "root@example.com");
    assert!(printed.get("password").is_none(), "{printed}");
}

switchboard_testing::tests!(the_command_reads_the_password_from_standard_input);
