//! A data folder is held by one process: with `serve` running on the embedded database,
//! `restore`, `migrate-data` and a second `serve` are refused, and nothing is moved; a
//! `serve` killed with SIGKILL leaves no lock behind. Real processes of the binary.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard::demo;

use crate::binary::{self, Served};
use crate::support::JWT_SECRET;

/// Files of `folder` whose names say a restore moved them aside.
fn moved_aside(folder: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("before-restore"))
        .collect()
}

/// Before, `restore --force` under a live `serve` moved its database aside while the
/// process went on writing into the moved file and answering 200: after a restart those
/// writes were only in `switchboard.db-wal.before-restore-*`.
async fn a_data_folder_is_held_by_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let command = |args: &[&str]| {
        let mut command = binary::command(&data, args);
        command.env("SWITCHBOARD_JWT_SECRET", JWT_SECRET);
        command
    };
    let mut first = Served::start(command(&["serve", "--demo"]), dir.path());
    first.ready().await;
    let client = reqwest::Client::new();
    let login = || async {
        let answer = client
            .post(format!("{}/v2/authentication/", first.base))
            .json(&json!({"email": demo::ADMIN_EMAIL, "password": demo::PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        let body: Value = answer.json().await.unwrap();
        body["accessToken"].as_str().unwrap().to_owned()
    };
    let token = login().await;

    // A backup is taken while serving: it needs no hold of the folder.
    let backup = dir.path().join("backup");
    let backed_up = binary::run(command(&["backup", backup.to_str().unwrap()]), "");
    assert!(backed_up.status.success(), "{}", binary::stderr(&backed_up));

    // A restore is refused, saying who holds the folder, and moves nothing.
    let refused = binary::run(
        command(&["restore", "--force", backup.to_str().unwrap()]),
        "",
    );
    assert!(!refused.status.success(), "restored under a live server");
    let said = binary::stderr(&refused);
    assert!(
        said.contains("is in use") && said.contains("switchboard serve"),
        "{said}"
    );
    assert!(moved_aside(&data).is_empty(), "{:?}", moved_aside(&data));
    // So is a copy to PostgreSQL, before it connects anywhere.
    let refused = binary::run(
        command(&["migrate-data", "--to", "postgres://nobody@127.0.0.1:1/none"]),
        "",
    );
    assert!(!refused.status.success());
    assert!(binary::stderr(&refused).contains("is in use"));
    // And a second `serve` on the folder ends at once, saying why.
    let mut second = Served::start(command(&["serve"]), dir.path());
    assert_eq!(
        second.ended(Duration::from_secs(30)).await,
        Some(false),
        "a second serve ran on the folder"
    );
    assert!(
        second.log_text().contains("is in use"),
        "{}",
        second.log_text()
    );

    // The first serves on: a write after the refusals is acknowledged and kept.
    let created = client
        .post(format!("{}/v2/webhooks/", first.base))
        .bearer_auth(&token)
        .json(&json!({"tenantId": 1, "type": "CALL_ENDED", "url": "https://crm.example.com/kept"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 200);
    let kept: Value = created.json().await.unwrap();

    // Killed as a crash kills it: the lock goes with the process.
    first.kill();
    let restored = binary::run(
        command(&["restore", "--force", backup.to_str().unwrap()]),
        "",
    );
    assert!(restored.status.success(), "{}", binary::stderr(&restored));
    assert!(
        !moved_aside(&data).is_empty(),
        "the killed installation moved aside"
    );
    let mut again = Served::start(command(&["serve"]), dir.path());
    again.ready().await;
    let answer = client
        .get(format!("{}/v2/webhooks/{}", again.base, kept["id"]))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        answer.status(),
        404,
        "the restored database is the backup's, taken before the webhook was made"
    );
}

switchboard_testing::tests!(a_data_folder_is_held_by_one_process);
