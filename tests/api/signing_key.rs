//! The signing key travels apart from the data it seals, and means one thing wherever it
//! is written: a restore needs the key of its backup (brought by `export-key` and
//! `import-key`) and is refused, before anything is touched, without it; the key file's
//! text given as `SWITCHBOARD_JWT_SECRET` is the same key; a process whose key does not
//! open the database's sealed secrets does not start (instead of answering 500 later).

use serde_json::{Value, json};
use switchboard::{demo, key, ops};

use crate::binary;
use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Backend, TestApp};

/// A webhook with a Basic password (sealed at rest) of `tenant`, created by `token`'s
/// holder; answers its id and signing secret.
async fn webhook_with_a_password(app: &TestApp, token: &str, tenant: i64) -> (i64, Value) {
    let created = app
        .create(
            "/v2/webhooks/",
            token,
            json!({"tenantId": tenant, "type": "CALL_ENDED", "url": "https://crm.example.com/hooks",
            "username": "crm", "password": "s3cret-pass"}),
        )
        .await;
    (
        created["id"].as_i64().unwrap(),
        created["signingSecret"].clone(),
    )
}

/// The installation's own key, as `serve` generates it (no SWITCHBOARD_JWT_SECRET).
fn generated_key(config: &mut switchboard::Config) {
    config.jwt_secret = None;
}

/// `serve --demo`, a webhook with a password, a backup, a restore into a new data folder,
/// `serve` there: the restore is refused while the new folder lacks the source's key (or
/// has another), saying how to bring it, with nothing restored; once `export-key` /
/// `import-key` brought it, the restored service opens the webhook's secrets and accepts
/// the tokens the source issued. (Before, the restore went through and the restored
/// service answered 500 for the secret and 401 for every token.)
async fn a_backup_restores_into_a_working_service_with_its_key() {
    let app = TestApp::start_with(Backend::Sqlite, generated_key)
        .await
        .unwrap();
    let seeded = demo::seed(&app.state).await.unwrap();
    let token = app
        .login_answer(demo::PLATFORM_EMAIL, &seeded.platform_password)
        .await
        .expect(200)["accessToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let (id, secret) = webhook_with_a_password(&app, &token, 1).await;
    let backups = tempfile::tempdir().unwrap();
    let backup = backups.path().join("b");
    let report = ops::backup(&app.config, &app.state.storage, &backup)
        .await
        .unwrap();
    let (source_key, _) = key::installed(&app.config).unwrap().unwrap();
    assert_eq!(
        report["signingKey"]["fingerprint"],
        source_key.fingerprint(),
        "the manifest names the key by its fingerprint"
    );
    assert!(
        !std::fs::read_to_string(backup.join(ops::MANIFEST))
            .unwrap()
            .contains(source_key.written()),
        "the key is not in the backup"
    );

    let elsewhere = tempfile::tempdir().unwrap();
    let mut config = app.config.clone();
    config.data_dir = elsewhere.path().join("data");
    config.database_url = Some(format!(
        "sqlite://{}",
        elsewhere.path().join("restored.db").display()
    ));
    // No key there: refused, saying what to do, and nothing restored.
    let refused = ops::restore(&config, &ops::open_store(&config).unwrap(), &backup, false)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("no signing key")
            && refused.contains(&source_key.fingerprint())
            && refused.contains("export-key")
            && refused.contains("import-key"),
        "{refused}"
    );
    assert!(!elsewhere.path().join("restored.db").exists());
    // Another key there: refused too.
    let mut other = config.clone();
    other.jwt_secret = Some(switchboard::config::Secret(
        "another-signing-key-of-at-least-32-bytes".into(),
    ));
    let refused = ops::restore(&other, &ops::open_store(&other).unwrap(), &backup, false)
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("does not open"), "{refused}");
    assert!(!elsewhere.path().join("restored.db").exists());

    // The key travels by the commands, as an operator would pipe it between hosts.
    let exported = binary::run(binary::command(&app.config.data_dir, &["export-key"]), "");
    assert!(exported.status.success(), "{}", binary::stderr(&exported));
    let written = String::from_utf8(exported.stdout.clone()).unwrap();
    assert_eq!(written.trim_end(), source_key.written());
    assert!(binary::stderr(&exported).contains(&source_key.fingerprint()));
    let imported = binary::run(binary::command(&config.data_dir, &["import-key"]), &written);
    assert!(imported.status.success(), "{}", binary::stderr(&imported));
    let restored = ops::restore(&config, &ops::open_store(&config).unwrap(), &backup, false)
        .await
        .unwrap();
    assert_eq!(
        restored["signingKey"]["fingerprint"],
        source_key.fingerprint()
    );

    let (url, data_dir) = (config.database_url.clone(), config.data_dir.clone());
    let restored = TestApp::start_with(Backend::Sqlite, move |c| {
        c.jwt_secret = None;
        c.database_url = url;
        c.data_dir = data_dir;
    })
    .await
    .unwrap();
    let secrets = restored
        .get(&format!("/v2/webhooks/{id}/signing-secret"), &token)
        .await
        .expect(200);
    assert_eq!(
        secrets["signingSecret"], secret,
        "sealed at the source, opened here"
    );
}

switchboard_testing::tests!(a_backup_restores_into_a_working_service_with_its_key);

/// A second host given the generated key file's text as `SWITCHBOARD_JWT_SECRET` has the
/// same key: it accepts the first host's tokens and opens its sealed secrets. (The file
/// held hex digits the service decoded, the variable was taken as text: the same text
/// meant two keys, and the second host answered 401 and 500.)
async fn the_key_files_text_as_the_variable_is_the_same_key(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    let (id, secret) = webhook_with_a_password(&app, &token, w.tenant_a).await;
    let file = std::fs::read_to_string(app.config.data_dir.join(key::KEY_FILE)).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let second = app
        .start_sibling_with(|config| {
            config.data_dir = elsewhere.path().join("data");
            config.jwt_secret = Some(switchboard::config::Secret(file.trim_end().to_owned()));
        })
        .await;
    let answer = app
        .client
        .get(format!("{}/v2/webhooks/{id}/signing-secret", second.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200, "the first host's token is accepted");
    let secrets: Value = answer.json().await.unwrap();
    assert_eq!(secrets["signingSecret"], secret);
}

/// A process whose key does not open the secrets its database sealed does not start, and
/// says why and what to do; before, it started and answered 500 wherever a secret was
/// needed.
async fn a_start_with_another_key_is_refused(app: TestApp) {
    let w = World::seed(&app).await;
    let token = app.login(w.admin_a).await;
    webhook_with_a_password(&app, &token, w.tenant_a).await;
    let elsewhere = tempfile::tempdir().unwrap();
    let mut config = app.config.clone();
    config.data_dir = elsewhere.path().join("data");
    config.jwt_secret = Some(switchboard::config::Secret(
        "another-signing-key-of-at-least-32-bytes".into(),
    ));
    let Err(refused) = switchboard::build_state(&config).await else {
        panic!("started with a key that does not open the sealed secrets");
    };
    let refused = refused.to_string();
    assert!(
        refused.contains("does not open the secrets sealed in this database")
            && refused.contains("SWITCHBOARD_JWT_SECRET")
            && refused.contains("export-key"),
        "{refused}"
    );
    // The key they were sealed with starts.
    config.jwt_secret = app.config.jwt_secret.clone();
    switchboard::build_state(&config).await.unwrap();
}

on_both_backends!(with generated_key; the_key_files_text_as_the_variable_is_the_same_key);
on_both_backends!(a_start_with_another_key_is_refused);
