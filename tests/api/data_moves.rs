//! Moving an installation's data: `backup` under write load and `restore` losing no
//! acknowledged write; `migrate-data` from SQLite to an empty PostgreSQL and another
//! object store, every table of the schema copied and read back over HTTP.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard::{demo, ops};

use crate::on_both_backends;
use crate::support::{Backend, TestApp, create_postgres_database, with_database};

/// The platform admin of a freshly seeded demo, logged in.
async fn seeded_demo(app: &TestApp) -> String {
    let seeded = demo::seed(&app.state).await.unwrap();
    let answer = app
        .login_answer(demo::PLATFORM_EMAIL, &seeded.platform_password)
        .await
        .expect(200);
    answer["accessToken"].as_str().unwrap().to_owned()
}

/// pg_dump and pg_restore, which `backup` and `restore` run on PostgreSQL: required
/// wherever PostgreSQL is (its client programs come with its server's packages).
static PG_CLIENT: switchboard_testing::Service = switchboard_testing::Service {
    name: "pg_dump and pg_restore",
    require_var: "SWITCHBOARD_TEST_REQUIRE_POSTGRES",
    how: "Install PostgreSQL's client programs (Debian: postgresql-client; scripts/install-test-tools.sh does) to run it.",
    probe: probe_pg_client,
};

fn probe_pg_client() -> Result<(), String> {
    for program in ["pg_dump", "pg_restore"] {
        let runs = std::process::Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !runs {
            return Err(format!("`{program}` is not installed"));
        }
    }
    Ok(())
}

async fn backup_under_load_and_restore_on_sqlite() {
    backup_under_load_and_restore(Backend::Sqlite).await;
}

async fn backup_under_load_and_restore_on_postgres() {
    backup_under_load_and_restore(Backend::Postgres).await;
}

switchboard_testing::tests!(backup_under_load_and_restore_on_sqlite);
switchboard_testing::tests!(needs switchboard_testing::POSTGRES, PG_CLIENT; backup_under_load_and_restore_on_postgres);

/// A backup taken while a writer creates tenants as fast as it can, restored into another
/// installation and served: every tenant acknowledged before the backup began is there,
/// and the objects. On PostgreSQL the database part is `pg_dump`'s, restored with
/// `pg_restore` into an empty database (one that holds anything is refused).
async fn backup_under_load_and_restore(backend: Backend) {
    let app = TestApp::start(backend).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup");
    let token = seeded_demo(&app).await;
    app.state
        .storage
        .put("backup-check/a.txt", "kept".into(), "text/plain")
        .await
        .unwrap();
    // A writer creating tenants as fast as it can, keeping each acknowledged id.
    let acked: Arc<Mutex<Vec<(i64, String)>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (acked, stop, client, url, token) = (
            acked.clone(),
            stop.clone(),
            app.client.clone(),
            app.url("/v2/admin/tenants/"),
            token.clone(),
        );
        tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                i += 1;
                let name = format!("Load tenant {i}");
                let answer = client
                    .post(&url)
                    .bearer_auth(&token)
                    .json(&json!({"name": name, "partnerId": 1}))
                    .send()
                    .await
                    .unwrap();
                if answer.status() == 200 {
                    let body: Value = answer.json().await.unwrap();
                    acked
                        .lock()
                        .unwrap()
                        .push((body["id"].as_i64().unwrap(), name));
                }
            }
        })
    };
    while acked.lock().unwrap().len() < 10 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before: Vec<(i64, String)> = acked.lock().unwrap().clone();
    let report = ops::backup(&app.config, &app.state.storage, &target)
        .await
        .unwrap();
    let during = acked.lock().unwrap().len();
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.await.unwrap();
    assert!(
        acked.lock().unwrap().len() > during,
        "writes went on after the backup"
    );
    assert!(
        report["objects"]["files"].as_u64().unwrap() >= 1,
        "{report}"
    );
    // Writing into a non-empty folder is refused.
    assert!(
        ops::backup(&app.config, &app.state.storage, &target)
            .await
            .is_err()
    );

    assert_eq!(
        report["database"]["file"],
        match backend {
            Backend::Sqlite => ops::BACKUP_DATABASE,
            Backend::Postgres => ops::BACKUP_PG_DUMP,
        },
        "{report}"
    );

    // Restore into another installation and serve it.
    let restored_dir = tempfile::tempdir().unwrap();
    let mut config = app.config.clone();
    config.data_dir = restored_dir.path().join("data");
    config.database_url = Some(match backend {
        Backend::Sqlite => format!(
            "sqlite://{}",
            restored_dir.path().join("restored.db").display()
        ),
        Backend::Postgres => {
            // A database that holds anything (the source itself) is refused, untouched.
            let mut live = config.clone();
            live.database_url = app.config.database_url.clone();
            let refused = ops::restore(&live, &ops::open_store(&live).unwrap(), &target, false)
                .await
                .unwrap_err();
            assert!(refused.to_string().contains("not empty"), "{refused}");
            let (admin, name) = create_postgres_database().await;
            let empty = with_database(&admin, &name);
            // Another signing key than the backup's is refused before the dump is touched.
            let mut other = config.clone();
            other.database_url = Some(empty.clone());
            other.jwt_secret = Some(switchboard::config::Secret(
                "another-signing-key-of-at-least-32-bytes".into(),
            ));
            let refused = ops::restore(&other, &ops::open_store(&other).unwrap(), &target, false)
                .await
                .unwrap_err();
            assert!(refused.to_string().contains("fingerprint"), "{refused}");
            assert_eq!(
                switchboard_db::Db::postgres_relations(&empty)
                    .await
                    .unwrap(),
                Vec::<String>::new(),
                "nothing restored"
            );
            empty
        }
    });
    ops::restore(&config, &ops::open_store(&config).unwrap(), &target, false)
        .await
        .unwrap();
    let (url, data_dir) = (config.database_url.clone(), config.data_dir.clone());
    let restored = TestApp::start_with(Backend::Sqlite, move |c| {
        c.database_url = url;
        c.data_dir = data_dir;
    })
    .await
    .unwrap();
    let answer = restored
        .login_answer(demo::ADMIN_EMAIL, demo::PASSWORD)
        .await
        .expect(200);
    let admin = answer["accessToken"].as_str().unwrap().to_owned();
    restored
        .get("/v2/admin/extensions/", &admin)
        .await
        .expect(200);
    for (id, name) in &before {
        let tenant = restored
            .get(&format!("/v2/admin/tenants/{id}"), &token)
            .await
            .expect(200);
        assert_eq!(
            &tenant["name"], name,
            "acknowledged before the backup began"
        );
    }
    let object = restored
        .state
        .storage
        .get("backup-check/a.txt", None)
        .await
        .unwrap()
        .into_bytes()
        .await
        .unwrap();
    assert_eq!(&object[..], b"kept");
}

/// The lists an operator would check after a move, compared between the source and the
/// target (links differ by host, so `mediaURL` is left out).
const READ_CHECKS: [&str; 8] = [
    "/v2/admin/tenants/?sortBy=id",
    "/v2/admin/users/?sortBy=id&recordsPerPage=1000",
    "/v2/admin/extensions/?sortBy=id",
    "/v2/admin/ivrs/",
    "/v2/admin/paging-groups/",
    "/v2/admin/business-hours/",
    "/v2/admin/calls/?sortBy=id",
    "/v2/admin/audit-log/?sortBy=id&recordsPerPage=1000",
];

fn without_links(mut value: Value) -> Value {
    if let Some(records) = value["records"].as_array_mut() {
        for record in records {
            if let Some(object) = record.as_object_mut() {
                object.remove("mediaURL");
            }
        }
    }
    value
}

/// The source is the embedded installation and the target PostgreSQL: anything else is
/// refused before a byte is copied.
async fn migrate_data_goes_from_sqlite_to_postgres_only(app: TestApp) {
    let refused = if app.config.database_url().starts_with("postgres") {
        ops::migrate_data(
            &app.config,
            &app.state.storage,
            "postgres://x@127.0.0.1/y",
            None,
        )
        .await
    } else {
        ops::migrate_data(
            &app.config,
            &app.state.storage,
            "sqlite:///tmp/elsewhere.db",
            None,
        )
        .await
    }
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains("SQLite") || refused.contains("--to must be a postgres:// URL"),
        "{refused}"
    );
}

on_both_backends!(migrate_data_goes_from_sqlite_to_postgres_only);

/// The demo and a tenant of 100,000 messages moved from SQLite (a PostgreSQL test: the
/// target is one).
async fn migrate_data_to_postgres() {
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    let platform = seeded_demo(&app).await;
    let large = demo::scale(
        &app.state,
        demo::Scale {
            messages: 100_000,
            devices: 0,
            calls: 0,
            routing: 0,
        },
    )
    .await
    .unwrap();
    let large: Value = serde_json::from_str(&large).unwrap();
    let (admin, name) = create_postgres_database().await;
    let target = with_database(&admin, &name);
    let store = tempfile::tempdir().unwrap();
    let store_url = format!("file://{}", store.path().display());
    let store_to = ops::open_target_store(&app.config, &store_url).unwrap();
    let report = ops::migrate_data(&app.config, &app.state.storage, &target, Some(&store_to))
        .await
        .unwrap();
    // Every table of the PostgreSQL schema was filled from the SQLite one: the list came
    // from the schema, so a table added later cannot be forgotten.
    let copied: BTreeSet<String> = report["database"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["sourceRows"], t["targetRows"], "{t}");
            t["table"].as_str().unwrap().to_owned()
        })
        .collect();
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&target)
        .await
        .unwrap();
    let schema = switchboard_db::transfer::postgres_tables(&mut conn)
        .await
        .unwrap();
    assert_eq!(copied, schema, "every PostgreSQL table is copied");
    assert!(copied.contains("webhook_deliveries") && copied.contains("sessions"));
    let messages = report["database"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "voicemail_messages")
        .unwrap()["targetRows"]
        .as_i64()
        .unwrap();
    assert!(messages >= 100_000, "{messages}");
    assert!(
        report["objects"]["copied"].as_u64().unwrap() >= 3,
        "{report}"
    );
    // A second run is refused: the target is no longer empty.
    let again = ops::migrate_data(&app.config, &app.state.storage, &target, None)
        .await
        .unwrap_err();
    assert!(again.to_string().contains("not empty"), "{again}");

    // Serve the target and read the same answers.
    let (url, store_for_app) = (target.clone(), store_url.clone());
    let moved = TestApp::start_with(Backend::Sqlite, move |c| {
        c.database_url = Some(url);
        c.storage_url = Some(store_for_app);
    })
    .await
    .unwrap();
    let moved_platform = platform.clone();
    for path in READ_CHECKS {
        let before = without_links(app.get(path, &platform).await.expect(200));
        let after = without_links(moved.get(path, &moved_platform).await.expect(200));
        assert_eq!(before, after, "{path}");
    }
    let large_admin = large["email"].as_str().unwrap().to_owned();
    let (a, b) = (
        token_of(&app, &large_admin).await,
        token_of(&moved, &large_admin).await,
    );
    let path = "/v2/admin/voicemail-messages/?stats=1&sortBy=dateUnix&recordsPerPage=50";
    let before = without_links(app.get(path, &a).await.expect(200));
    let after = without_links(moved.get(path, &b).await.expect(200));
    assert_eq!(after["totalRecords"], 100_000);
    assert_eq!(before, after, "the counters came along");
    // The demo's audio is served from the new store.
    let demo_admin = token_of(&moved, demo::ADMIN_EMAIL).await;
    let voicemail = moved
        .get("/v2/admin/voicemail-messages/", &demo_admin)
        .await
        .expect(200);
    let link = voicemail["records"][0]["mediaURL"].as_str().unwrap();
    let audio = moved.client.get(link).send().await.unwrap();
    assert_eq!(audio.status(), 200);
    // Sequences continue after the kept ids.
    let created = moved
        .create(
            "/v2/admin/branches/",
            &demo_admin,
            json!({"name": "After the move"}),
        )
        .await;
    let highest = before_highest_branch(&app, &platform).await;
    assert!(created["id"].as_i64().unwrap() > highest);
}

async fn token_of(app: &TestApp, email: &str) -> String {
    let answer = app.login_answer(email, demo::PASSWORD).await.expect(200);
    answer["accessToken"].as_str().unwrap().to_owned()
}

async fn before_highest_branch(app: &TestApp, token: &str) -> i64 {
    let branches = app
        .get("/v2/admin/branches/?sortBy=id&sortDirection=desc", token)
        .await
        .expect(200);
    branches["records"][0]["id"].as_i64().unwrap()
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; migrate_data_to_postgres);

/// The demo moved to PostgreSQL and an S3 bucket (moto's server): its audio is then
/// answered with S3's own presigned links, and their bytes are the source's.
async fn migrate_data_into_s3() {
    let moto = crate::s3::moto::moto().await;
    moto.create_bucket("switchboard-moved").await;
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    let platform = seeded_demo(&app).await;
    let (admin, name) = create_postgres_database().await;
    let target = with_database(&admin, &name);
    // A prefix holding an object is refused before anything is written; objects under
    // other prefixes of the bucket are not the target's.
    let taken = moto.storage("s3://switchboard-moved/taken");
    taken
        .put("left-over.bin", "someone else's".into(), "text/plain")
        .await
        .unwrap();
    moto.storage("s3://switchboard-moved/other")
        .put("kept.txt", "another prefix".into(), "text/plain")
        .await
        .unwrap();
    let refused = ops::migrate_data(&app.config, &app.state.storage, &target, Some(&taken))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("the target object store is not empty (it holds left-over.bin)"),
        "{refused}"
    );
    assert_eq!(taken.keys().await.unwrap(), ["left-over.bin"]);
    assert_eq!(target_rows(&target, "tenants").await, 0);
    let bucket = moto.storage("s3://switchboard-moved/prod");
    let report = ops::migrate_data(&app.config, &app.state.storage, &target, Some(&bucket))
        .await
        .unwrap();
    let copied = report["objects"]["copied"].as_u64().unwrap();
    assert!(copied >= 3, "{report}");
    assert_eq!(bucket.keys().await.unwrap().len() as u64, copied);
    let url = target.clone();
    let moved = TestApp::start_on(
        Backend::Sqlite,
        move |c| c.database_url = Some(url),
        Some(bucket),
    )
    .await
    .unwrap();
    for path in READ_CHECKS {
        let before = without_links(app.get(path, &platform).await.expect(200));
        let after = without_links(moved.get(path, &platform).await.expect(200));
        assert_eq!(before, after, "{path}");
    }
    let (a, b) = (
        token_of(&app, demo::ADMIN_EMAIL).await,
        token_of(&moved, demo::ADMIN_EMAIL).await,
    );
    let path = "/v2/admin/voicemail-messages/?sortBy=dateUnix";
    let before = app.get(path, &a).await.expect(200);
    let after = moved.get(path, &b).await.expect(200);
    let link = after["records"][0]["mediaURL"].as_str().unwrap();
    assert!(link.contains("X-Amz-Signature="), "{link}");
    let moved_bytes = crate::s3::moto::http_client()
        .get(link)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let source_link = before["records"][0]["mediaURL"].as_str().unwrap();
    let source_bytes = app
        .client
        .get(source_link)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(moved_bytes, source_bytes);
}

switchboard_testing::tests!(
    needs switchboard_testing::POSTGRES, switchboard_testing::S3;
    migrate_data_into_s3
);

/// The rows of `table` in the PostgreSQL database at `url`.
async fn target_rows(url: &str, table: &str) -> i64 {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    let rows = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    rows
}

/// The files under `folder`, by their path below it.
fn files_under(folder: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(folder).unwrap();
                found.push(relative.display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// `migrate-data` writes into an empty object store only: a folder holding anything is
/// refused before a row or an object is written. When the database copy fails after the
/// objects were copied, they are removed again, so the run leaves nothing behind and a
/// second one goes through.
async fn migrate_data_needs_an_empty_store() {
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    seeded_demo(&app).await;
    let (admin, name) = create_postgres_database().await;
    let target = with_database(&admin, &name);
    let store = tempfile::tempdir().unwrap();
    let left_over = store.path().join("left-over.txt");
    std::fs::write(&left_over, "someone else's").unwrap();
    let store_url = format!("file://{}", store.path().display());
    let store_to = ops::open_target_store(&app.config, &store_url).unwrap();
    let refused = ops::migrate_data(&app.config, &app.state.storage, &target, Some(&store_to))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("the target object store is not empty (it holds left-over.txt)"),
        "{refused}"
    );
    assert_eq!(files_under(store.path()), ["left-over.txt"]);
    assert_eq!(
        std::fs::read_to_string(&left_over).unwrap(),
        "someone else's"
    );
    assert_eq!(target_rows(&target, "tenants").await, 0);

    // An empty folder, and a source table PostgreSQL lacks: the objects are copied, the
    // database copy is refused, and the objects go again.
    std::fs::remove_file(&left_over).unwrap();
    app.raw_sql("CREATE TABLE not_in_postgres (id INTEGER);", "SELECT 1;")
        .await;
    let failed = ops::migrate_data(&app.config, &app.state.storage, &target, Some(&store_to))
        .await
        .unwrap_err();
    let failed = format!("{failed:#}");
    assert!(failed.contains("not_in_postgres"), "{failed}");
    let removed: u64 = failed
        .split("failed; the ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{failed}"));
    assert!(
        removed >= 3,
        "the demo's objects were copied first: {failed}"
    );
    assert!(
        failed.contains("objects it had copied were removed from the target store"),
        "{failed}"
    );
    assert_eq!(files_under(store.path()), Vec::<String>::new());
    assert_eq!(target_rows(&target, "tenants").await, 0);

    // Nothing was left behind: with the table gone, the same command goes through.
    app.raw_sql("DROP TABLE not_in_postgres;", "SELECT 1;")
        .await;
    let report = ops::migrate_data(&app.config, &app.state.storage, &target, Some(&store_to))
        .await
        .unwrap();
    assert_eq!(report["objects"]["copied"].as_u64().unwrap(), removed);
    assert_eq!(store_to.keys().await.unwrap().len() as u64, removed);
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; migrate_data_needs_an_empty_store);

/// The embedded database with its objects in S3: `backup` copies the database and
/// downloads every object of the bucket's prefix into the backup — a local store's
/// layout, each content type beside its object, all private and in the manifest — and
/// `restore` puts back into the bucket what it lacks, or fills a local folder.
async fn backup_of_objects_in_s3() {
    let moto = crate::s3::moto::moto().await;
    moto.create_bucket("switchboard-backed-up").await;
    let bucket = moto.storage("s3://switchboard-backed-up/prod");
    let app = TestApp::start_with_storage(Backend::Sqlite, bucket.clone())
        .await
        .unwrap();
    seeded_demo(&app).await;
    bucket
        .put("backup-check/a.txt", "kept".into(), "text/plain")
        .await
        .unwrap();
    let keys = bucket.keys().await.unwrap();
    assert!(keys.len() >= 4, "the demo's audio and the check: {keys:?}");

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup");
    let report = ops::backup(&app.config, &app.state.storage, &target)
        .await
        .unwrap();
    assert_eq!(report["objects"]["from"], "s3");
    let listed: BTreeSet<String> = report["objects"]["sha256"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let expected: BTreeSet<String> = keys
        .iter()
        .flat_map(|key| [key.clone(), format!(".content-type/{key}")])
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(report["objects"]["files"], expected.len());
    let objects = target.join(ops::BACKUP_OBJECTS);
    assert_eq!(
        std::fs::read(objects.join("backup-check/a.txt")).unwrap(),
        b"kept"
    );
    assert_eq!(
        std::fs::read_to_string(objects.join(".content-type/backup-check/a.txt")).unwrap(),
        "text/plain"
    );
    assert_eq!(mode(&objects.join("backup-check")), 0o700);
    assert_eq!(mode(&objects.join("backup-check/a.txt")), 0o600);

    // The bucket loses an object: restored, the installation finds it there again, and
    // what the bucket still held is left as it is.
    bucket.delete("backup-check/a.txt").await.unwrap();
    let restored_dir = tempfile::tempdir().unwrap();
    let config = fresh_installation(&app, restored_dir.path());
    let restored = ops::restore(&config, &bucket, &target, false)
        .await
        .unwrap();
    assert_eq!(
        (
            restored["objects"]["files"].clone(),
            restored["objects"]["alreadyThere"].clone()
        ),
        (json!(1), json!(keys.len() - 1)),
        "{restored}"
    );
    assert_eq!(bucket.keys().await.unwrap(), keys);
    let back = bucket.get("backup-check/a.txt", None).await.unwrap();
    assert_eq!(back.content_type.as_deref(), Some("text/plain"));
    assert_eq!(&back.into_bytes().await.unwrap()[..], b"kept");
    // The restored database, served on the bucket, plays the demo's voicemail.
    let url = config.database_url.clone();
    let served = TestApp::start_on(
        Backend::Sqlite,
        move |c| c.database_url = url,
        Some(bucket.clone()),
    )
    .await
    .unwrap();
    let admin = token_of(&served, demo::ADMIN_EMAIL).await;
    let page = served
        .get("/v2/admin/voicemail-messages/", &admin)
        .await
        .expect(200);
    let link = page["records"][0]["mediaURL"].as_str().unwrap();
    let audio = crate::s3::moto::http_client()
        .get(link)
        .send()
        .await
        .unwrap();
    assert_eq!(audio.status(), 200, "{link}");

    // Or restored into an installation on a local folder: every object, typed.
    let local_dir = tempfile::tempdir().unwrap();
    let config = fresh_installation(&app, local_dir.path());
    let folder = ops::open_store(&config).unwrap();
    ops::restore(&config, &folder, &target, false)
        .await
        .unwrap();
    assert_eq!(folder.keys().await.unwrap(), keys);
    let copy = folder.get("backup-check/a.txt", None).await.unwrap();
    assert_eq!(copy.content_type.as_deref(), Some("text/plain"));
    assert_eq!(&copy.into_bytes().await.unwrap()[..], b"kept");

    // A bucket holding other bytes under a backed-up key (another size) is not taken for
    // the backed-up object: the restore stops, naming it, before writing anything (no
    // database, the object left as it is).
    bucket
        .put("backup-check/a.txt", "not the same".into(), "text/plain")
        .await
        .unwrap();
    let clash_dir = tempfile::tempdir().unwrap();
    let config = fresh_installation(&app, clash_dir.path());
    let error = ops::restore(&config, &bucket, &target, false)
        .await
        .expect_err("another object under a backed-up key");
    let said = format!("{error:#}");
    assert!(said.contains("backup-check/a.txt"), "{said}");
    assert!(
        said.contains("12 bytes") && said.contains("4 bytes"),
        "{said}"
    );
    assert!(
        !clash_dir.path().join("restored.db").exists(),
        "no database written"
    );
    let left = bucket.get("backup-check/a.txt", None).await.unwrap();
    assert_eq!(&left.into_bytes().await.unwrap()[..], b"not the same");
}

switchboard_testing::tests!(needs switchboard_testing::S3; backup_of_objects_in_s3);

/// The mode bits of `path` (not following a link).
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Rewrites the database checksum of the manifest in `dir` to the file's present one
/// (as someone forging a backup would).
fn reseal(dir: &std::path::Path) {
    use sha2::{Digest, Sha256};
    let manifest_path = dir.join(ops::MANIFEST);
    let mut manifest: Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let bytes = std::fs::read(dir.join(ops::BACKUP_DATABASE)).unwrap();
    manifest["database"]["sha256"] = json!(hex::encode(Sha256::digest(&bytes)));
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
}

/// A configuration for an empty installation in `dir`.
fn fresh_installation(app: &TestApp, dir: &std::path::Path) -> switchboard::Config {
    let mut config = app.config.clone();
    config.data_dir = dir.join("data");
    config.database_url = Some(format!("sqlite://{}", dir.join("restored.db").display()));
    config
}

/// A backup is private whatever the umask, follows no symbolic link out of the object
/// folder, and a restore checks it first: the manifest's checksums, a schema no newer
/// than the release's, no link in place of a file, and an installation already there
/// replaced only when told. SQLite only: PostgreSQL is backed up with its own tools
/// (`backup_under_load_and_restore` checks that `backup` refuses it).
async fn backups_are_private_and_checked() {
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    seeded_demo(&app).await;
    app.state
        .storage
        .put("backup-check/a.txt", "kept".into(), "text/plain")
        .await
        .unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "not the service's").unwrap();
    let objects = app.object_path("backup-check/a.txt");
    let folder = objects.parent().unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), folder.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), folder.join("linked-folder")).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("backup");
    let report = ops::backup(&app.config, &app.state.storage, &target)
        .await
        .unwrap();
    assert_eq!(mode(&target), 0o700);
    for file in [ops::BACKUP_DATABASE, ops::MANIFEST] {
        assert_eq!(mode(&target.join(file)), 0o600, "{file}");
    }
    let copied = target.join(ops::BACKUP_OBJECTS).join("backup-check");
    assert_eq!(mode(&copied), 0o700);
    assert_eq!(mode(&copied.join("a.txt")), 0o600);
    assert!(!copied.join("link.txt").exists(), "a link is not followed");
    assert!(!copied.join("linked-folder").exists());
    let skipped = report["objects"]["skipped"].to_string();
    assert!(
        skipped.contains("backup-check/link.txt") && skipped.contains("backup-check/linked-folder"),
        "{report}"
    );
    assert!(report["database"]["sha256"].as_str().unwrap().len() == 64);
    let linked = dir.path().join("linked");
    std::os::unix::fs::symlink(outside.path(), &linked).unwrap();
    let refused = ops::backup(&app.config, &app.state.storage, &linked)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("symbolic link"), "{refused}");

    // Restored into an empty installation; a second restore over it needs --force.
    let first = tempfile::tempdir().unwrap();
    let config = fresh_installation(&app, first.path());
    ops::restore(&config, &ops::open_store(&config).unwrap(), &target, false)
        .await
        .unwrap();
    let refused = ops::restore(&config, &ops::open_store(&config).unwrap(), &target, false)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("--force"), "{refused}");
    let forced = ops::restore(&config, &ops::open_store(&config).unwrap(), &target, true)
        .await
        .unwrap();
    assert!(
        !forced["movedAside"].as_array().unwrap().is_empty(),
        "{forced}"
    );

    // A damaged object, a damaged database, a newer schema, a link in place of the
    // database: each refused before anything is touched.
    let copy = |name: &str| {
        let to = dir.path().join(name);
        let status = std::process::Command::new("cp")
            .args(["-a", &target.to_string_lossy(), &to.to_string_lossy()])
            .status()
            .unwrap();
        assert!(status.success());
        to
    };
    let empty = tempfile::tempdir().unwrap();
    let config = fresh_installation(&app, empty.path());
    let damaged = copy("damaged-object");
    std::fs::write(
        damaged.join(ops::BACKUP_OBJECTS).join("backup-check/a.txt"),
        "changed",
    )
    .unwrap();
    let refused = ops::restore(&config, &ops::open_store(&config).unwrap(), &damaged, false)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("SHA-256"), "{refused}");
    let damaged = copy("damaged-database");
    {
        use std::io::{Seek, Write};
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(damaged.join(ops::BACKUP_DATABASE))
            .unwrap();
        file.seek(std::io::SeekFrom::End(-10)).unwrap();
        file.write_all(b"0123456789").unwrap();
    }
    let refused = ops::restore(&config, &ops::open_store(&config).unwrap(), &damaged, false)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("SHA-256"), "{refused}");
    let newer = copy("newer");
    {
        use sqlx::Connection;
        let url = format!("sqlite://{}", newer.join(ops::BACKUP_DATABASE).display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (99999, 'from the future', 1, x'00', 0)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    reseal(&newer);
    let refused = ops::restore(&config, &ops::open_store(&config).unwrap(), &newer, false)
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("newer schema"), "{refused}");
    let linked = copy("linked-database");
    std::fs::remove_file(linked.join(ops::BACKUP_DATABASE)).unwrap();
    std::os::unix::fs::symlink(
        target.join(ops::BACKUP_DATABASE),
        linked.join(ops::BACKUP_DATABASE),
    )
    .unwrap();
    let refused = ops::restore(&config, &ops::open_store(&config).unwrap(), &linked, false)
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("not a plain file"),
        "{refused}"
    );
    assert!(
        !empty.path().join("restored.db").exists(),
        "nothing was restored"
    );
}

switchboard_testing::tests!(backups_are_private_and_checked);

/// A target role that may not set `session_replication_role` is refused before anything
/// is copied, with what to grant (not PostgreSQL's bare "permission denied").
async fn migrate_data_says_what_the_role_lacks() {
    use sqlx::Connection;
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    let admin = switchboard_testing::postgres_url();
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    let name = format!("switchboard_test_{}", uuid::Uuid::new_v4().simple());
    // A role of its own (roles are the cluster's), owning an empty database.
    let role = format!("{name}_owner");
    for statement in [
        format!("CREATE ROLE {role} LOGIN"),
        format!("CREATE DATABASE {name} OWNER {role}"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let target = with_database(&admin, &name).replacen("postgres@", &format!("{role}@"), 1);
    let refused = ops::migrate_data(&app.config, &app.state.storage, &target, None)
        .await
        .unwrap_err()
        .to_string();
    for statement in [
        format!("DROP DATABASE {name} WITH (FORCE)"),
        format!("DROP ROLE {role}"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    assert!(
        refused.contains("GRANT SET ON PARAMETER session_replication_role"),
        "{refused}"
    );
}

switchboard_testing::tests!(needs switchboard_testing::POSTGRES; migrate_data_says_what_the_role_lacks);
