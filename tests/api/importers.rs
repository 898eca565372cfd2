//! The Asterisk importers, on Asterisk's own files (tests/fixtures/asterisk): what they
//! record is read back over HTTP; a second run changes nothing; a malformed file, named
//! with its line, imports nothing.

use std::path::PathBuf;

use serde_json::{Value, json};
use switchboard::import::{self, ImportReport};
use switchboard_domain::ids::TenantId;

use crate::fixture::World;
use crate::support::TestApp;

fn asterisk(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/asterisk")
        .join(path)
}

async fn voicemail_spool(app: TestApp) {
    let world = World::seed(&app).await;
    let tenant = TenantId(world.tenant_a);
    let first = import::asterisk_voicemail(&app.state, &asterisk("spool"), tenant)
        .await
        .unwrap();
    assert_eq!(first.imported, first.read);
    assert_eq!(first.unchanged, 0);
    assert!(first.read >= 5, "{first:?}");

    let admin = app.login(world.admin_a).await;
    let page = app
        .get(
            "/v2/admin/voicemail-messages/?mailbox=101&dir=INBOX&sortBy=messageNumber",
            &admin,
        )
        .await
        .expect(200);
    assert_eq!(page["totalRecords"], 2);
    let message = &page["records"][0];
    assert_eq!(message["mailboxContext"], "default");
    assert_eq!(message["mailboxUser"], "101");
    assert_eq!(message["messageNumber"], 0);
    assert_eq!(message["callerId"], "\"ACME Corp\" <5551234567>");
    assert_eq!(message["dateUnix"], 1_699_902_334);
    assert_eq!(message["date"], "Mon Nov 13 07:05:34 PM UTC 2023");
    assert_eq!(message["duration"], 2);
    assert_eq!(message["extNum"], "101");
    assert_eq!(message["read"], false);
    let (status, headers, bytes) = app.fetch(message["mediaURL"].as_str().unwrap(), None).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "audio/wav");
    assert_eq!(
        bytes,
        std::fs::read(asterisk("spool/default/101/INBOX/msg0000.wav")).unwrap()
    );
    // Folders other than INBOX (and Urgent) are read; greetings and tmp are no messages.
    let old = app
        .get("/v2/admin/voicemail-messages/?dir=Old&stats=1", &admin)
        .await
        .expect(200);
    let filed = old["records"].as_array().unwrap();
    assert!(!filed.is_empty(), "the spool has Old messages: {old}");
    assert!(filed.iter().all(|m| m["read"] == true), "{old}");
    let urgent = app
        .get("/v2/admin/voicemail-messages/?dir=Urgent", &admin)
        .await
        .expect(200);
    assert_eq!(urgent["records"][0]["read"], false);
    let all = app
        .get("/v2/admin/voicemail-messages/?stats=1", &admin)
        .await
        .expect(200);
    assert_eq!(all["totalRecords"].as_u64().unwrap() as usize, first.read);
    assert_eq!(
        app.count("webhook_events", Some(("type", "VOICEMAIL_RECEIVED")))
            .await as usize,
        first.read
    );

    // Twice: nothing changes, not even a message filed since through the API.
    let id = message["id"].as_i64().unwrap();
    app.patch(
        &format!("/v2/admin/voicemail-messages/{id}"),
        &admin,
        json!({"read": true}),
    )
    .await
    .expect(200);
    let second = import::asterisk_voicemail(&app.state, &asterisk("spool"), tenant)
        .await
        .unwrap();
    assert_eq!(
        second,
        ImportReport {
            read: first.read,
            imported: 0,
            unchanged: first.read,
            recordings: None
        }
    );
    assert_eq!(
        app.get(&format!("/v2/admin/voicemail-messages/{id}"), &admin)
            .await
            .expect(200)["dir"],
        "Old"
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "VOICEMAIL_RECEIVED")))
            .await as usize,
        first.read
    );
}

async fn broken_spool_imports_nothing(app: TestApp) {
    let world = World::seed(&app).await;
    let error = import::asterisk_voicemail(
        &app.state,
        &asterisk("spool-broken"),
        TenantId(world.tenant_a),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("msg000") && error.contains(".txt:"),
        "names the file and line: {error}"
    );
    assert_eq!(app.count("voicemail_messages", None).await, 0);
    let error = import::asterisk_voicemail(&app.state, &asterisk("spool"), TenantId(999_999))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "there is no tenant 999999");
}

async fn cdr_with_recordings(app: TestApp) {
    let world = World::seed(&app).await;
    let tenant = TenantId(world.tenant_a);
    let report = import::asterisk_cdr(
        &app.state,
        &asterisk("Master.csv"),
        tenant,
        Some(&asterisk("recordings")),
        chrono_tz::UTC,
    )
    .await
    .unwrap();
    assert_eq!(
        report,
        ImportReport {
            read: 8,
            imported: 8,
            unchanged: 0,
            recordings: Some(4)
        }
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "CALL_ENDED")))
            .await,
        6
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "CALL_MISSED")))
            .await,
        2
    );
    assert_eq!(
        app.count("webhook_events", Some(("type", "RECORDING_READY")))
            .await,
        4
    );

    let admin = app.login(world.admin_a).await;
    let list = app
        .get("/v2/admin/call-recordings/?sortBy=time", &admin)
        .await
        .expect(200);
    assert_eq!(list["totalRecords"], 4);
    let call = app
        .get("/v2/admin/call-recordings/1699884902.1", &admin)
        .await
        .expect(200);
    assert_eq!(call["direction"], "inbound");
    assert_eq!(call["callerIdNum"], "5551234567");
    assert_eq!(call["callerIdName"], "ACME Corp");
    assert_eq!(call["dialedNum"], "101");
    assert_eq!(call["time"], "2023-11-13T09:15:02Z");
    // The CDR's figures (duration 158, billsec 153) are the call's; the recording's
    // measured length is its own field beside them.
    let measured = switchboard_storage::audio::whole_seconds(
        &std::fs::read(asterisk(
            "recordings/in-5551234567-101-20231113-091502-1699884902.1.wav",
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (
            &call["duration"],
            &call["billsec"],
            &call["recordingDuration"]
        ),
        (&json!(158), &json!(153), &json!(measured)),
        "{call}"
    );
    let (status, headers, bytes) = app.fetch(call["mediaURL"].as_str().unwrap(), None).await;
    assert_eq!(
        (status.as_u16(), headers["content-type"].to_str().unwrap()),
        (200, "audio/mpeg")
    );
    let format = switchboard_storage::audio::sniff(&bytes);
    assert_eq!(
        format,
        Some(switchboard_storage::audio::AudioFormat::Mp3),
        "transcoded to MP3"
    );
    // The uniqueid is matched whole: 1699887765.12 has no recording, .123 has one.
    app.get("/v2/admin/call-recordings/1699887765.12", &admin)
        .await
        .error(404, "NotFound");
    assert_eq!(
        app.get("/v2/admin/call-recordings/1699887765.123", &admin)
            .await
            .expect(200)["direction"],
        "outbound"
    );
    assert_eq!(
        app.get("/v2/admin/call-recordings/1688502000.66", &admin)
            .await
            .expect(200)["callerIdName"],
        "O'Brien, Pat"
    );

    // Twice: nothing changes.
    let again = import::asterisk_cdr(
        &app.state,
        &asterisk("Master.csv"),
        tenant,
        Some(&asterisk("recordings")),
        chrono_tz::UTC,
    )
    .await
    .unwrap();
    assert_eq!(
        again,
        ImportReport {
            read: 8,
            imported: 0,
            unchanged: 8,
            recordings: Some(0)
        }
    );
    assert_eq!(app.count("calls", None).await, 8);
    assert_eq!(app.count("webhook_events", None).await, 12);
}

async fn broken_cdr_imports_nothing(app: TestApp) {
    let world = World::seed(&app).await;
    let error = import::asterisk_cdr(
        &app.state,
        &asterisk("broken-cdr.csv"),
        TenantId(world.tenant_a),
        None,
        chrono_tz::UTC,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("broken-cdr.csv:4:"),
        "names the file and line: {error}"
    );
    assert_eq!(app.count("calls", None).await, 0);
    assert_eq!(app.count("webhook_events", None).await, 0);
}

/// The command itself, as an operator runs it: arguments, output, exit status.
async fn the_command_line(app: TestApp) {
    let world = World::seed(&app).await;
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(args)
            .env("SWITCHBOARD_DATABASE_URL", app.config.database_url())
            .env("SWITCHBOARD_DATA_DIR", &app.config.data_dir)
            .env("SWITCHBOARD_STORAGE_URL", app.config.storage_url())
            .output()
            .expect("the binary runs")
    };
    let tenant = world.tenant_a.to_string();
    let csv = asterisk("Master.csv");
    let output = run(&[
        "import",
        "asterisk-cdr",
        csv.to_str().unwrap(),
        "--tenant",
        &tenant,
        "--timezone",
        "America/New_York",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report, json!({"read": 8, "imported": 8, "unchanged": 0}));
    // The CSV's local times, in New York, are stored in UTC.
    let admin = app.login(world.admin_a).await;
    app.get("/v2/admin/call-recordings/1699884902.1", &admin)
        .await
        .error(404, "NotFound");
    assert_eq!(
        app.count("calls", Some(("time", "2023-11-13T14:15:02Z")))
            .await,
        1
    );

    let broken = asterisk("broken-cdr.csv");
    let output = run(&[
        "import",
        "asterisk-cdr",
        broken.to_str().unwrap(),
        "--tenant",
        &tenant,
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken-cdr.csv:4:"));
    let spool = asterisk("spool");
    let output = run(&[
        "import",
        "asterisk-voicemail",
        spool.to_str().unwrap(),
        "--tenant",
        &tenant,
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// What the command line writes joins the audit trail, its actor naming the command
/// line and the OS user: `tenant create`, `user create` and the importers.
async fn command_line_writes_are_audited(app: TestApp) {
    let world = World::seed(&app).await;
    let run = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(args)
            .env("SWITCHBOARD_DATABASE_URL", app.config.database_url())
            .env("SWITCHBOARD_DATA_DIR", &app.config.data_dir)
            .env("SWITCHBOARD_STORAGE_URL", app.config.storage_url())
            .env("USER", "operator")
            .output()
            .expect("the binary runs");
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    let tenant = run(&[
        "tenant",
        "create",
        "--name",
        "Harbour Pharmacy",
        "--partner",
        &world.partner_a.to_string(),
    ]);
    let tenant_id = tenant["id"].as_i64().unwrap();
    let user = run(&[
        "user",
        "create",
        "--email",
        "owner@harbour.example",
        "--password",
        "Harbour-Owner-2026!",
        "--role",
        "tenant-admin",
        "--tenant",
        &tenant_id.to_string(),
    ]);
    let spool = asterisk("spool");
    run(&[
        "import",
        "asterisk-voicemail",
        spool.to_str().unwrap(),
        "--tenant",
        &world.tenant_a.to_string(),
    ]);

    let platform = app.login(world.platform).await;
    let page = app
        .get(
            "/v2/admin/audit-log/?sortBy=id&recordsPerPage=1000&entities=tenant,user,voicemail-message",
            &platform,
        )
        .await
        .expect(200);
    let log = page["records"].as_array().unwrap();
    let by_cli: Vec<&Value> = log
        .iter()
        .filter(|e| e["userEmail"] == "cli:operator")
        .collect();
    let find = |entity: &str, id: String| {
        by_cli
            .iter()
            .find(|e| {
                e["entity"] == entity && e["entityId"] == id.as_str() && e["action"] == "create"
            })
            .unwrap_or_else(|| panic!("no cli entry for {entity} {id}: {log:?}"))
    };
    let created = find("tenant", tenant_id.to_string());
    assert_eq!(created["after"]["name"], "Harbour Pharmacy");
    assert_eq!(created["clientAddress"], "local");
    assert_eq!(created["userId"], Value::Null, "no user: {created}");
    let created = find("user", user["id"].as_i64().unwrap().to_string());
    assert_eq!(created["after"]["email"], "owner@harbour.example");
    assert_eq!(created["tenantId"], tenant_id);
    let imported = by_cli
        .iter()
        .filter(|e| e["entity"] == "voicemail-message" && e["action"] == "create")
        .count();
    assert!(
        imported > 0,
        "the import's messages are in the trail: {log:?}"
    );
    assert!(
        by_cli
            .iter()
            .filter(|e| e["entity"] == "voicemail-message")
            .all(|e| e["tenantId"] == world.tenant_a),
        "{by_cli:?}"
    );
}

crate::on_both_backends!(
    command_line_writes_are_audited,
    voicemail_spool,
    broken_spool_imports_nothing,
    cdr_with_recordings,
    broken_cdr_imports_nothing,
    the_command_line,
);
